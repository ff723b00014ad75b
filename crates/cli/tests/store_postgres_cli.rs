//! The results store in PostgreSQL, as a user runs it: `bench` stores a run, `import`
//! adds two more from its JSON (one with a known injected slowdown), then `runs`,
//! `compare` and `report` read them back through `--db postgres://...`; bad URLs and
//! unreachable servers exit 2 with a message.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use store::{Location, RunStatus, Store};
use testkit::Postgres;

fn cm(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    // Never touch the user's default store.
    cmd.env("XDG_DATA_HOME", dir.join("xdg"));
    cmd
}

/// `report` with every interval ±0.2 % of its median, `slower` on AES-GCM 1 KiB
/// encryption, imported under `name`.
fn import_scaled(dir: &Path, url: &str, report: &Value, name: &str, slower: f64) {
    let mut r = report.clone();
    for x in r["results"].as_array_mut().unwrap() {
        let victim = x["algorithm"] == "aes-128-gcm"
            && x["operation"] == "encrypt"
            && x["size_bytes"] == 1024;
        let median = x["median_ns"].as_f64().unwrap() * if victim { slower } else { 1.0 };
        x["median_ns"] = Value::from(median);
        x["ci95_low_ns"] = Value::from(median * 0.998);
        x["ci95_high_ns"] = Value::from(median * 1.002);
    }
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    cm(dir)
        .arg("import")
        .arg(&path)
        .args(["--db", url])
        .assert()
        .success()
        .stdout(predicate::str::contains("imported"));
}

#[test]
fn bench_import_runs_compare_and_report_share_one_postgres_store() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("results");
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    cm(dir.path())
        .args(["bench", "--quick", "--format", "json", "--sizes", "64,1024"])
        .args(["aes-128-gcm", "sha256", "--db", &url, "--output"])
        .arg(&json)
        .assert()
        .success();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let n = report["results"].as_array().unwrap().len();
    assert!(n >= 4);
    import_scaled(dir.path(), &url, &report, "base.json", 1.0);
    import_scaled(dir.path(), &url, &report, "slower.json", 1.10);

    // What the commands wrote is in the database, verbatim.
    let store = Store::open(Location::Postgres(url.clone())).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0].status, RunStatus::Complete);
    assert_eq!(runs[1].status, RunStatus::Imported);
    assert!(runs.iter().all(|r| r.results == n as i64));
    let rows = store.results(1).unwrap();
    for (row, result) in rows.iter().zip(report["results"].as_array().unwrap()) {
        assert_eq!(&row.data, result);
        // serde_json parses floats to within one ulp (no float_roundtrip).
        let median = result["median_ns"].as_f64().unwrap();
        assert!(
            (row.value / median - 1.0).abs() < 1e-12,
            "{} vs {median}",
            row.value
        );
        assert_eq!(row.size_bytes, result["size_bytes"].as_i64());
    }
    assert_eq!(store.latest_run().unwrap(), Some(3));

    cm(dir.path())
        .args(["runs", "--db", &url])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("bench")
                .and(predicate::str::contains("[import:base.json]"))
                .and(predicate::str::contains("[import:slower.json]"))
                .and(predicate::str::contains(format!("store: {url}"))),
        );
    let out = cm(dir.path())
        .args(["runs", "--json", "--db", &url])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3);

    // Only the injected slowdown fails the gate.
    cm(dir.path())
        .args(["compare", "2", "3", "--fail-above", "5", "--db", &url])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("* higher in B")
                .count(1)
                .and(predicate::str::contains("encrypt 1024B")),
        );

    let html = dir.path().join("report.html");
    cm(dir.path())
        .args([
            "report", "--run", "2", "--with", "3", "--db", &url, "--output",
        ])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Two runs side by side"));
    assert!(page.contains("slower.json"));
    cm(dir.path())
        .args(["report", "--run", "9", "--db", &url, "--output"])
        .arg(&html)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no run with id 9"));
}

#[test]
fn bad_urls_and_unreachable_servers_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on: bind one and let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let unreachable = format!("postgres://someone:hunter2@127.0.0.1:{port}/results");
    for (db, says) in [
        (unreachable.as_str(), "cannot connect"),
        ("postgres://u@127.0.0.1:notaport/db", "not a PostgreSQL URL"),
    ] {
        cm(dir.path())
            .args(["runs", "--db", db])
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(says)
                    .and(predicate::str::contains("hunter2").not())
                    .and(predicate::str::contains("panicked").not()),
            );
    }
}
