//! One truth across commands, run as a user runs them: `recommend` counts
//! bytes on air, frames and duty-cycle spacing exactly as `link` does; the
//! duty cycle is judged before anything is ranked; hex printed by one command
//! opens in the next; typed names get "did you mean"; and the three cost
//! commands spell every JSON field one way (docs/json-fields.md).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn cm() -> Command {
    let mut c = Command::cargo_bin("ciphermeter").unwrap();
    c.env_remove("CIPHERMETER_DATA_DIR");
    c
}

fn json(args: &[&str]) -> Value {
    let out = cm().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `recommend` on a throwaway store, so only the shipped device tables count.
fn recommend(dir: &Path, args: &[&str]) -> Value {
    let db = dir.join("results.sqlite");
    let mut all = vec![
        "recommend",
        "--format",
        "json",
        "--db",
        db.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    json(&all)
}

#[test]
fn recommend_counts_what_link_counts_for_every_ranked_scheme_on_three_links() {
    let dir = tempfile::tempdir().unwrap();
    for link in ["lorawan-eu868-dr0", "lorawan-eu868-dr5", "ble-1m-251"] {
        let doc = recommend(
            dir.path(),
            &[
                "--device",
                "sodaq-mbili",
                "--link",
                link,
                "--need",
                "integrity",
                "--top",
                "200",
            ],
        );
        let rows = doc["rows"].as_array().unwrap();
        // The schemes the ATmega1284P seals with itself (the rest do not fit).
        assert!(rows.len() >= 50, "{link}: only {} rows", rows.len());
        for row in rows {
            let scheme = row["scheme"].as_str().unwrap();
            let container = row["container"].as_str().unwrap();
            let seen = json(&[
                "link",
                "--link",
                link,
                "--scheme",
                scheme,
                "--sample",
                "chain:10",
                "--container",
                container,
                "--format",
                "json",
            ]);
            let sealed = &seen["sealed"];
            let what = format!("{scheme} ({container}) on {link}");
            assert_eq!(row["sealed_bytes"], sealed["message_bytes"], "{what}");
            assert_eq!(row["on_air_bytes"], sealed["on_air_bytes"], "{what}");
            assert_eq!(row["frames"], sealed["frames"], "{what}");
            assert_eq!(row["airtime_ms"], sealed["airtime_ms"], "{what}");
            assert_eq!(row["min_interval_s"], sealed["min_interval_s"], "{what}");
            assert!(row["on_air_bytes"].as_u64().unwrap() > row["sealed_bytes"].as_u64().unwrap());
        }
        // `energy` costs the winner on the same frames.
        let winner = &rows[0];
        let energy = json(&[
            "energy",
            "--device",
            "sodaq-mbili",
            "--link",
            link,
            "--scheme",
            winner["scheme"].as_str().unwrap(),
            "--battery",
            "2xAA",
            "--format",
            "json",
        ]);
        let sealed = &energy["messages"][1];
        for field in ["on_air_bytes", "frames", "airtime_ms", "min_interval_s"] {
            assert_eq!(winner[field], sealed[field], "{field} on {link}");
        }
        assert_eq!(winner["message_uj"], sealed["message_uj"], "{link}");
    }
}

#[test]
fn when_no_scheme_may_be_sent_that_often_it_is_said_first_with_what_would_help() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--device",
        "sodaq-mbili",
        "--link",
        "lorawan-eu868-dr0",
        "--sample",
        "chain:1",
        "--need",
        "confidentiality",
        "--interval",
        "10m",
    ];
    let doc = recommend(dir.path(), &args);
    let d = &doc["duty_cycle"];
    assert_eq!(d["allowed_count"], 0, "{d}");
    assert_eq!(d["interval_s"], 600.0);
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["duty_cycle_allowed"] == false));
    // The shortest legal interval is the shortest of the rows' own spacings.
    let shortest = rows
        .iter()
        .map(|r| r["min_interval_s"].as_f64().unwrap())
        .fold(f64::MAX, f64::min);
    assert_eq!(d["shortest_legal_interval_s"].as_f64().unwrap(), shortest);
    assert!(shortest > 600.0, "{shortest}");
    // A faster data rate allows it; a smaller container shortens it.
    let faster = d["faster_data_rates"].as_array().unwrap();
    assert!(
        faster.iter().any(|r| r["duty_cycle_allowed"] == true),
        "{d}"
    );
    assert!(
        faster
            .iter()
            .all(|r| r["min_interval_s"].as_f64().unwrap() < shortest)
    );
    let smaller = d["smaller_containers"].as_array().unwrap();
    assert!(
        smaller
            .iter()
            .any(|r| r["what"].as_str().unwrap().contains("binary")),
        "{d}"
    );
    assert!(
        smaller
            .iter()
            .all(|r| r["min_interval_s"].as_f64().unwrap() < shortest)
    );

    // The table says it before anything else.
    let db = dir.path().join("results.sqlite");
    let out = cm()
        .arg("recommend")
        .args(args)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("No scheme may be sent every 600 s on lorawan-eu868-dr0"),
        "{first}"
    );
    assert!(
        first.contains(&format!("Send every {} s or more", shortest.ceil())),
        "{first}"
    );
    assert!(
        first.contains("DR") && first.contains("binary container"),
        "{first}"
    );
    assert!(text.contains("[NOT ALLOWED: duty cycle]"), "{text}");
}

#[test]
fn a_choice_the_duty_cycle_forbids_ranks_after_every_allowed_one() {
    let dir = tempfile::tempdir().unwrap();
    let args = |interval: &'static str| {
        [
            "--device",
            "sodaq-mbili",
            "--link",
            "lorawan-eu868-dr0",
            "--sample",
            "chain:1",
            "--need",
            "confidentiality",
            "--container",
            "all",
            "--top",
            "300",
            "--interval",
            interval,
        ]
    };
    // Every json message needs over 1,265 s at DR0; binary and cose ones less.
    let doc = recommend(dir.path(), &args("20m"));
    let rows = doc["rows"].as_array().unwrap();
    let allowed: Vec<bool> = rows
        .iter()
        .map(|r| r["duty_cycle_allowed"].as_bool().unwrap())
        .collect();
    let first_forbidden = allowed.iter().position(|a| !a).unwrap();
    assert!(first_forbidden > 0, "some choice is allowed every 20 min");
    assert!(
        allowed[first_forbidden..].iter().all(|a| !a),
        "an allowed choice ranks after a forbidden one"
    );
    for (r, ok) in rows.iter().zip(&allowed) {
        let iv = r["min_interval_s"].as_f64().unwrap();
        assert_eq!(*ok, iv <= 1200.0, "{r}");
    }
    let last_allowed_rank = rows[first_forbidden - 1]["rank"].as_u64().unwrap();
    assert!(rows[first_forbidden]["rank"].as_u64().unwrap() > last_allowed_rank);
    let d = &doc["duty_cycle"];
    assert_eq!(d["allowed_count"], first_forbidden);
    assert!(
        d["sentence"].as_str().unwrap().starts_with(&format!(
            "{first_forbidden} of {} ranked choices",
            rows.len()
        )),
        "{d}"
    );
    // Long enough, every choice is allowed and says so.
    let doc = recommend(dir.path(), &args("1h"));
    assert!(
        doc["duty_cycle"]["sentence"]
            .as_str()
            .unwrap()
            .starts_with("Every ranked scheme may be sent every 3600 s")
    );
    // A link without a duty-cycle rule has no answer to give.
    let doc = recommend(
        dir.path(),
        &["--device", "nrf52840", "--link", "ble-1m-251", "--top", "1"],
    );
    assert!(doc["duty_cycle"].is_null());
}

#[test]
fn hex_that_lorawan_decode_prints_opens_in_open() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.json");
    cm().args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&key)
        .assert()
        .success();
    let sealed = cm()
        .args(["seal", "--key-file"])
        .arg(&key)
        .args([
            "--sample",
            "chain:1",
            "--container",
            "binary",
            "--encoding",
            "hex",
        ])
        .output()
        .unwrap();
    assert!(sealed.status.success());
    let hex = String::from_utf8(sealed.stdout).unwrap();
    let k = "000102030405060708090A0B0C0D0E0F";
    let keys = ["--nwk-s-key", k, "--app-s-key", k];
    let phy = cm()
        .args([
            "lorawan",
            "encode",
            "--dev-addr",
            "26011BDA",
            "--f-cnt",
            "7",
        ])
        .args(["--f-port", "1", "--payload", hex.trim()])
        .args(keys)
        .output()
        .unwrap();
    assert!(phy.status.success());
    let phy = String::from_utf8(phy.stdout).unwrap();
    let decoded = json(&[
        "lorawan",
        "decode",
        phy.trim(),
        keys[0],
        keys[1],
        keys[2],
        keys[3],
        "--format",
        "json",
    ]);
    let frm = decoded["frm_payload"].as_str().unwrap();
    assert!(
        frm.chars().any(|c| c.is_ascii_uppercase()),
        "the test needs upper-case hex: {frm}"
    );
    let opened = cm()
        .args([
            "open",
            "--container",
            "binary",
            "--encoding",
            "hex",
            "--key-file",
        ])
        .arg(&key)
        .write_stdin(frm)
        .output()
        .unwrap();
    assert!(
        opened.status.success(),
        "{}",
        String::from_utf8_lossy(&opened.stderr)
    );
    let reading: Value = serde_json::from_slice(&opened.stdout).unwrap();
    assert_eq!(reading["id"], "Logger9", "{reading}");
}

#[test]
fn every_typed_name_close_to_a_known_one_gets_did_you_mean() {
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "energy",
                "--device",
                "sodaq-mbilly",
                "--link",
                "lorawan-eu868-dr5",
                "--bytes",
                "10",
            ],
            "did you mean sodaq-mbili",
        ),
        (
            &[
                "energy",
                "--device",
                "sodaq-mbili",
                "--link",
                "dr55",
                "--bytes",
                "10",
            ],
            "did you mean lorawan-eu868-dr5",
        ),
        (
            &[
                "energy",
                "--device",
                "sodaq-mbili",
                "--link",
                "lorawan-eu868-dr5",
                "--bytes",
                "10",
                "--battery",
                "2xAAA",
            ],
            "did you mean 2xAA",
        ),
        (&["mcu", "--target", "cortex-m44"], "did you mean cortex-m4"),
        (
            &[
                "link",
                "--link",
                "ble-1m-251",
                "--sample",
                "chain:1",
                "--scheme",
                "aead:aes-128-gcm",
                "--container",
                "jsn",
            ],
            "did you mean json",
        ),
        (
            &[
                "link",
                "--link",
                "ble-1m-251",
                "--scheme",
                "aed:aes-128-gcm",
            ],
            "did you mean aead:aes-128-gcm",
        ),
        (
            &[
                "recommend",
                "--device",
                "nrf52840",
                "--link",
                "ble-1m-251",
                "--container",
                "cbor",
            ],
            "did you mean cose",
        ),
    ];
    for (args, want) in cases {
        let out = cm().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn a_battery_life_past_the_cells_shelf_life_says_so() {
    // Raw 802.15.4 keeps no connection between messages (a BLE link's
    // connection events would bound the life first).
    let doc = json(&[
        "energy",
        "--device",
        "nrf52840",
        "--link",
        "ieee802154",
        "--scheme",
        "aead:aes-128-gcm",
        "--battery",
        "2xAA",
        "--interval",
        "1h",
        "--format",
        "json",
    ]);
    let sealed = &doc["messages"][1];
    assert!(
        sealed["battery_days"].as_f64().unwrap() > 3653.0,
        "{sealed}"
    );
    let note = sealed["battery_note"].as_str().unwrap();
    assert!(note.contains("shelf life of 10 years"), "{note}");
    assert!(note.contains("self-discharge"), "{note}");
    // A device that drains its cell in months needs no such note.
    let doc = json(&[
        "energy",
        "--device",
        "sodaq-mbili",
        "--link",
        "lorawan-eu868-dr0",
        "--scheme",
        "aead:aes-128-gcm",
        "--battery",
        "2xAA",
        "--interval",
        "1h",
        "--format",
        "json",
    ]);
    assert!(doc["messages"][1]["battery_note"].is_null());
}

/// Every field name in `json`, anywhere in it.
fn field_names(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                out.insert(k.clone());
                field_names(x, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|x| field_names(x, out)),
        _ => {}
    }
}

/// The backticked names in the first column of a Markdown table under `heading`.
fn documented(doc: &str, heading: &str) -> Vec<String> {
    doc.split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("docs/json-fields.md has no '{heading}'"))
        .split("\n## ")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_cost_commands_spell_every_json_field_one_way_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let runs: Vec<(&str, Value)> = vec![
        (
            "link",
            json(&[
                "link",
                "--link",
                "lorawan-eu868-dr5",
                "--scheme",
                "aead:aes-128-gcm",
                "--format",
                "json",
            ]),
        ),
        (
            // The oscore container compressed: `compression` and its fields.
            "link",
            json(&[
                "link",
                "--link",
                "lorawan-eu868-dr0",
                "--scheme",
                "oscore:aes-ccm-16-64-128",
                "--container",
                "oscore",
                "--compression",
                "schc",
                "--format",
                "json",
            ]),
        ),
        (
            "link",
            json(&[
                "link",
                "--link",
                "slice-of-radio",
                "--bytes",
                "100",
                "--format",
                "json",
            ]),
        ),
        (
            "energy",
            json(&[
                "energy",
                "--device",
                "sodaq-mbili",
                "--link",
                "lorawan-eu868-dr5",
                "--scheme",
                "aead:aes-128-gcm",
                "--battery",
                "2xAA",
                "--session-messages",
                "100",
                "--format",
                "json",
            ]),
        ),
        (
            // A link with protocol costs: `link_protocol` and its fields.
            "energy",
            json(&[
                "energy", "--device", "nrf52840", "--link", "thread", "--bytes", "40", "--format",
                "json",
            ]),
        ),
        (
            "recommend",
            recommend(
                dir.path(),
                &[
                    "--device",
                    "sodaq-mbili",
                    "--link",
                    "lorawan-eu868-dr0",
                    "--sample",
                    "chain:1",
                    "--top",
                    "3",
                    // The session answer's fields, even where the device has no handshake cycles.
                    "--session-messages",
                    "100",
                ],
            ),
        ),
        (
            // No scheme in one Sigfox frame: `frame_fit` and its options.
            "recommend",
            recommend(
                dir.path(),
                &[
                    "--device",
                    "stm32l0",
                    "--link",
                    "sigfox-rc1",
                    "--sample",
                    "random:4",
                    "--container",
                    "binary",
                    "--interval",
                    "617s",
                    "--top",
                    "1",
                ],
            ),
        ),
        (
            // A device with a hardware engine: its rows' `engine` and fields.
            "recommend",
            recommend(
                dir.path(),
                &[
                    "--device",
                    "nrf52840",
                    "--link",
                    "ble-1m-251",
                    "--sample",
                    "chain:1",
                    "--top",
                    "3",
                ],
            ),
        ),
    ];
    let mut used: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for (command, doc) in &runs {
        let mut names = BTreeSet::new();
        field_names(doc, &mut names);
        for n in names {
            used.entry(n).or_default().insert(command);
        }
    }
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/json-fields.md"),
    )
    .unwrap();
    let fields = documented(&doc, "## Fields");
    let retired = documented(&doc, "## Retired spellings");
    let listed: BTreeSet<&String> = fields.iter().collect();
    assert_eq!(listed.len(), fields.len(), "a field is listed twice");
    for (name, commands) in &used {
        assert!(
            listed.contains(name),
            "`{name}` ({commands:?}) is not in docs/json-fields.md"
        );
        assert!(
            !retired.contains(name),
            "`{name}` ({commands:?}) is a retired spelling"
        );
    }
    for name in &fields {
        assert!(
            used.contains_key(name),
            "docs/json-fields.md lists `{name}`, which no command printed"
        );
    }
    // The fields two commands share are the ones a user compares: say them.
    let shared: Vec<_> = used.iter().filter(|(_, c)| c.len() > 1).collect();
    assert!(shared.len() >= 15, "{shared:?}");
    for (name, commands) in shared {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap();
        for c in commands {
            assert!(
                row.contains(c),
                "docs/json-fields.md: `{name}` is also in {c}"
            );
        }
    }
}
