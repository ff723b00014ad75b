//! `energy` and `recommend` agree (issue 63, item 6): under the same request
//! (`--impl`, container, link, reading) the µJ recommend ranks for a scheme is
//! the µJ energy prints for it, on every device with seal times of its own,
//! engine rows and software rows alike. Run as a user runs it, with a
//! throwaway results store (so only the shipped tables count).

use serde_json::Value;

mod support;
use support::run::{cm, json_ok, refused};

fn run(command: &str, db: &std::path::Path, args: &[&str]) -> Value {
    json_ok(
        cm().arg(command)
            .args(args)
            .args(["--format", "json", "--db"])
            .arg(db),
    )
}

/// The devices `energy --list` knows, each with whether a simulator runs it.
fn devices() -> Vec<(String, bool)> {
    let list = json_ok(cm().args(["energy", "--list", "--format", "json"]));
    list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let name = d["name"].as_str().unwrap().to_string();
            (name, !d["simulated_target"].is_null())
        })
        .collect()
}

/// A scheme's row `energy` must print: of its rows in the ranking (software,
/// and each engine's), the cheapest, which recommend ranks first.
fn best<'a>(rows: &'a [Value], scheme: &str, software: bool) -> &'a Value {
    let uj = |r: &Value| r["message_uj"].as_f64().unwrap();
    rows.iter()
        .filter(|r| r["scheme"] == scheme && (!software || r["engine"].is_null()))
        .min_by(|a, b| uj(a).total_cmp(&uj(b)))
        .unwrap()
}

/// `energy` under `request` and `--impl imp` prints `row`'s figures.
fn agrees(db: &std::path::Path, request: &[&str], imp: &str, row: &Value) {
    let scheme = row["scheme"].as_str().unwrap();
    let args = ["--impl", imp, "--scheme", scheme, "--container"];
    let container = row["container"].as_str().unwrap();
    let energy = run("energy", db, &[request, &args[..], &[container]].concat());
    let (want, got) = (
        row["message_uj"].as_f64().unwrap(),
        energy["messages"][1]["message_uj"].as_f64().unwrap(),
    );
    let at = format!("{request:?} --impl {imp} {scheme} in {container}");
    assert!(
        (want - got).abs() <= 1e-9 * want,
        "{at}: recommend {want} uJ, energy {got} uJ ({})",
        energy["cpu_time_source"]
    );
    for field in ["engine", "implementation", "cpu_time_us"] {
        assert_eq!(energy[field], row[field], "{at}: {field}");
    }
}

/// On every device with its own seal times, recommend's winner, its best
/// software row and an engine's row are what energy prints for the same
/// scheme under the same request; `--impl software` gives an engine-backed
/// scheme's software row (the same row in a ranking without engines: the
/// engines add rows beside it and change none). The others (no simulated
/// target: recommend ranks this host's times there) are refused by energy,
/// which never puts the host's time in the device's place.
#[test]
fn energy_prints_the_figure_recommend_ranks_on_every_device() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let (mut engine_rows, mut software_rows) = (0, 0);
    for (device, simulated) in devices() {
        let request = ["--device", device.as_str(), "--link", "ble-1m-251"];
        if !simulated {
            let scheme = ["--scheme", "aead:aes-128-gcm", "--db"];
            refused(
                cm().arg("energy").args(request).args(scheme).arg(&db),
                "no simulated target",
            );
            continue;
        }
        let ranking = run(
            "recommend",
            &db,
            &[&request[..], &["--top", "500"]].concat(),
        );
        let rows = ranking["rows"].as_array().unwrap();
        // The winner's scheme, the best software row's and an engine's.
        let mut schemes: Vec<&str> = Vec::new();
        let first_engine = rows.iter().find(|r| !r["engine"].is_null());
        let first_software = rows.iter().find(|r| r["engine"].is_null());
        for row in [Some(&rows[0]), first_software, first_engine]
            .into_iter()
            .flatten()
        {
            let scheme = row["scheme"].as_str().unwrap();
            if !schemes.contains(&scheme) {
                schemes.push(scheme);
            }
        }
        for scheme in schemes {
            let row = best(rows, scheme, false);
            agrees(&db, &request, "all", row);
            if row["engine"].is_null() {
                software_rows += 1;
            } else {
                engine_rows += 1;
                agrees(&db, &request, "software", best(rows, scheme, true));
                software_rows += 1;
            }
        }
    }
    assert!(engine_rows >= 3, "engine rows compared: {engine_rows}");
    assert!(
        software_rows >= 7,
        "software rows compared: {software_rows}"
    );
}

/// The issue's case: the nRF52840 on 802.15.4 with OSCORE, recommend's
/// winner the CryptoCell-310's row; energy prints its figure, and with
/// `--impl software` the software row's.
#[test]
fn the_issues_case_agrees_with_either_impl() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let request = ["--device", "nrf52840", "--link", "ieee802154"];
    for imp in ["hardware", "software"] {
        let args = ["--container", "oscore", "--impl", imp];
        let ranking = run("recommend", &db, &[&request[..], &args[..]].concat());
        let rows = ranking["rows"].as_array().unwrap();
        let winner = best(rows, rows[0]["scheme"].as_str().unwrap(), false);
        assert_eq!(winner["engine"].is_null(), imp == "software", "{winner}");
        agrees(&db, &request, imp, winner);
    }
}

/// `--impl` is recommend's parser: a word it does not know is refused with
/// the words it does.
#[test]
fn energy_refuses_an_unknown_impl_with_recommends_words() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        cm().args(["energy", "--device", "nrf52840", "--link", "ieee802154"])
            .args(["--scheme", "aead:aes-128-ccm", "--impl", "hardwar", "--db"])
            .arg(dir.path().join("results.sqlite")),
        "or software (no hardware engines), hardware",
    );
}
