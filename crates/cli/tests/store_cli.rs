//! The store commands as a user runs them: import (round trip), runs, compare on
//! two stored runs with a known injected difference, recommend, and bad input.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn cm(db: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    // Never touch the user's default store.
    cmd.env("XDG_DATA_HOME", db.parent().unwrap().join("xdg"));
    cmd
}

/// A real `bench --format json` report of two algorithms.
fn bench_json(dir: &Path) -> (std::path::PathBuf, Value) {
    let path = dir.join("a.json");
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args([
            "bench",
            "--quick",
            "--format",
            "json",
            "--sizes",
            "64,1024",
            "aes-128-gcm",
            "sha256",
            "--output",
        ])
        .arg(&path)
        .assert()
        .success();
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, json)
}

#[test]
fn import_round_trips_and_compare_marks_only_the_injected_difference() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let (a_path, a) = bench_json(dir.path());
    let n = a["results"].as_array().unwrap().len();
    assert!(n >= 4);
    cm(&db)
        .arg("import")
        .arg(&a_path)
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains(format!("imported {n} results"))
                .and(predicate::str::contains("as run 1")),
        );

    // Round trip: every stored row carries its bench record verbatim.
    let store = store::Store::open(&db).unwrap();
    let rows = store.results(1).unwrap();
    assert_eq!(rows.len(), n);
    for (row, result) in rows.iter().zip(a["results"].as_array().unwrap()) {
        assert_eq!(&row.data, result);
        // serde_json parses floats to within one ulp (no float_roundtrip).
        let median = result["median_ns"].as_f64().unwrap();
        assert!(
            (row.value / median - 1.0).abs() < 1e-12,
            "{} vs {median}",
            row.value
        );
        assert_eq!(row.ci_low, result["ci95_low_ns"].as_f64());
    }
    assert_eq!(store.run(1).unwrap().environment, a["environment"]);
    assert_eq!(store.run(1).unwrap().status, store::RunStatus::Imported);

    // The same report with one result made three times slower.
    let mut b = a.clone();
    let victim = b["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["operation"] == "encrypt" && r["size_bytes"] == 1024)
        .unwrap();
    for k in ["median_ns", "ci95_low_ns", "ci95_high_ns"] {
        victim[k] = Value::from(victim[k].as_f64().unwrap() * 3.0);
    }
    let b_path = dir.path().join("b.json");
    std::fs::write(&b_path, serde_json::to_string(&b).unwrap()).unwrap();
    cm(&db)
        .arg("import")
        .arg(&b_path)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();

    let out = cm(&db)
        .args(["compare", "1", "2", "--format", "json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let cmp: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ratios = cmp["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), n);
    let marked: Vec<&Value> = ratios.iter().filter(|r| r["significant"] == true).collect();
    assert_eq!(
        marked.len(),
        1,
        "only the injected difference is outside the noise"
    );
    assert_eq!(marked[0]["key"]["subject"], "aes-128-gcm");
    assert_eq!(marked[0]["key"]["size_bytes"], 1024);
    assert!((marked[0]["ratio"].as_f64().unwrap() - 3.0).abs() < 1e-9);
    for r in ratios.iter().filter(|r| r["significant"] == false) {
        assert_eq!(r["ratio"].as_f64().unwrap(), 1.0);
        assert_eq!(r["verdict"], "equal");
    }
    assert_eq!(cmp["mode"], "same_machine");
    cm(&db)
        .args(["compare", "1", "2", "--changed", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("* higher in B")
                .count(1)
                .and(predicate::str::contains(
                    "1 higher and 0 lower beyond the noise",
                )),
        );

    cm(&db)
        .args(["runs", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("import a.json")
                .and(predicate::str::contains("import b.json")),
        );
}

/// Writes `report` with every interval ±0.2 % of its median (so whether
/// intervals are apart does not depend on this machine's noise), with
/// `slower` on the AES-GCM 1 KiB encryption, and imports it.
fn import_scaled(db: &Path, report: &Value, name: &str, slower: f64, cpu: &str) {
    let mut r = report.clone();
    r["environment"]["cpu_model"] = Value::from(cpu);
    for x in r["results"].as_array_mut().unwrap() {
        let victim = x["algorithm"] == "aes-128-gcm"
            && x["operation"] == "encrypt"
            && x["size_bytes"] == 1024;
        let median = x["median_ns"].as_f64().unwrap() * if victim { slower } else { 1.0 };
        x["median_ns"] = Value::from(median);
        x["ci95_low_ns"] = Value::from(median * 0.998);
        x["ci95_high_ns"] = Value::from(median * 1.002);
    }
    let path = db.parent().unwrap().join(name);
    std::fs::write(&path, serde_json::to_string(&r).unwrap()).unwrap();
    cm(db)
        .arg("import")
        .arg(&path)
        .arg("--db")
        .arg(db)
        .assert()
        .success();
}

#[test]
fn fail_above_gates_an_injected_ten_percent_slowdown_and_only_that() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let (_, report) = bench_json(dir.path());
    import_scaled(&db, &report, "base.json", 1.0, "EPYC");
    import_scaled(&db, &report, "slower.json", 1.10, "EPYC");
    import_scaled(&db, &report, "same.json", 1.0, "EPYC");
    import_scaled(&db, &report, "board.json", 1.10, "Cortex-A53");
    let gate = |b: &str, pct: &str| {
        cm(&db)
            .args(["compare", "1", b, "--fail-above", pct, "--db"])
            .arg(&db)
            .assert()
    };
    gate("2", "5").code(1).stdout(
        predicate::str::contains("encrypt 1024B")
            .count(1)
            .and(predicate::str::contains("* higher in B").count(1))
            .and(
                predicate::str::contains("1 of ")
                    .and(predicate::str::contains("slower by more than 5 %")),
            ),
    );
    gate("3", "5")
        .code(0)
        .stdout(predicate::str::contains("0 of "));
    gate("2", "15").code(0);
    // Two machines are compared, never gated.
    gate("4", "5")
        .code(2)
        .stderr(predicate::str::contains("two").and(predicate::str::contains("Cortex-A53")));

    let out = cm(&db)
        .args([
            "compare",
            "1",
            "2",
            "--fail-above",
            "5",
            "--format",
            "json",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let slower = json["slower"].as_array().unwrap();
    assert_eq!(slower.len(), 1);
    assert_eq!(slower[0]["key"]["subject"], "aes-128-gcm");
    assert_eq!(slower[0]["verdict"], "higher");
    assert_eq!(
        json["sampled_threshold"]["pct"], 2.0,
        "no noise probes: the default"
    );

    // A machine comparison names both and judges nothing.
    cm(&db)
        .args(["compare", "1", "4", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("two machines")
                .and(predicate::str::contains("EPYC"))
                .and(predicate::str::contains("Cortex-A53"))
                .and(predicate::str::contains("higher on B").count(1))
                .and(predicate::str::contains("* higher in B").not()),
        );
}

/// A Raspberry Pi 3's bench JSON (this machine's, relabelled as the board's) imported
/// beside this machine's run: the report shows both machines and says the Pi 3 has no
/// AES instructions.
#[test]
fn report_with_shows_a_board_beside_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let (path, report) = bench_json(dir.path());
    cm(&db)
        .arg("import")
        .arg(&path)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let mut pi = report.clone();
    let env = &mut pi["environment"];
    env["cpu_model"] = Value::from("Cortex-A53");
    env["arch"] = Value::from("aarch64");
    env["board_model"] = Value::from("Raspberry Pi 3 Model B Rev 1.2");
    env["arm_features"] = serde_json::json!(["neon"]);
    let pi_path = dir.path().join("pi3.json");
    std::fs::write(&pi_path, serde_json::to_string(&pi).unwrap()).unwrap();
    cm(&db)
        .arg("import")
        .arg(&pi_path)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let html = dir.path().join("both.html");
    cm(&db)
        .args(["report", "--run", "1", "--with", "2", "--db"])
        .arg(&db)
        .arg("--output")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    for want in [
        "Two runs side by side",
        "Raspberry Pi 3 Model B Rev 1.2",
        "no AES instructions (NEON;",
        "two machines: ratios B/A",
        "pi3.json",
    ] {
        assert!(page.contains(want), "report lacks {want:?}");
    }
    cm(&db)
        .args(["report", "--run", "1", "--with", "9", "--db"])
        .arg(&db)
        .arg("--output")
        .arg(&html)
        .assert()
        .failure();
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let fails = |args: &[&str], msg: &str| {
        cm(&db)
            .args(args)
            .arg("--db")
            .arg(&db)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    };
    fails(&["compare", "1", "99"], "no run with id 1");
    fails(
        &["compare", "1", "2", "--threshold", "5000"],
        "--threshold: give a percentage",
    );
    fails(&["report", "--run", "5"], "no run with id 5");
    fails(&["report"], "no runs yet");
    fails(
        &["run", "--quick", "--device", "no-such-board"],
        "no-such-board",
    );
    fails(
        &["run", "--quick", "--link", "no-such-link"],
        "no-such-link",
    );
    fails(&["run", "--quick", "--interval", "soon"], "interval");
    fails(
        &[
            "recommend",
            "--device",
            "no-such-board",
            "--link",
            "lorawan-eu868-dr3",
        ],
        "no-such-board",
    );
    fails(
        &[
            "recommend",
            "--device",
            "sodaq-mbili",
            "--link",
            "no-such-link",
        ],
        "no-such-link",
    );
    fails(
        &[
            "recommend",
            "--device",
            "sodaq-mbili",
            "--link",
            "lorawan-eu868-dr3",
            "--sample",
            "chain:x",
        ],
        "--sample",
    );
    fails(
        &["import", dir.path().join("missing.json").to_str().unwrap()],
        "missing.json",
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    fails(&["import", bad.to_str().unwrap()], "not a bench report");
    std::fs::write(
        &bad,
        r#"{"schema":"ciphermeter.bench/999","environment":{},"results":[]}"#,
    )
    .unwrap();
    fails(&["import", bad.to_str().unwrap()], "bad.json");
    // Nothing above created a run.
    assert!(store::Store::open(&db).unwrap().runs().unwrap().is_empty());

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database at all, just a text file that is long enough",
    )
    .unwrap();
    cm(&db)
        .args(["runs", "--db"])
        .arg(&text)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notes.txt"));
}

#[test]
fn recommend_ranks_by_energy_and_keeps_legacy_out_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let run = |extra: &[&str]| -> String {
        let out = cm(&db)
            .args([
                "recommend",
                "--device",
                "sodaq-mbili",
                "--link",
                "lorawan-eu868-dr3",
                "--db",
            ])
            .arg(&db)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // (scheme, bits, total µJ, costed with the host's time) per ranked line.
    let rows = |text: &str| -> Vec<(String, u32, f64, bool)> {
        text.lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                // # scheme [marks] bits msgB airB frames CPU radio total code stack battery timing
                (f.len() >= 13 && f[0].parse::<usize>().is_ok()).then(|| {
                    (
                        f[1].to_string(),
                        f[f.len() - 11].parse().unwrap(),
                        f[f.len() - 5].parse().unwrap(),
                        l.contains("[host time]"),
                    )
                })
            })
            .collect()
    };

    let conf = run(&["--need", "confidentiality"]);
    let ranked = rows(&conf);
    assert!(!ranked.is_empty(), "{conf}");
    assert!(
        ranked.iter().all(|(s, ..)| !s.starts_with("hmac:")),
        "confidentiality needs encryption:\n{conf}"
    );
    // The device's own times first, sorted by energy; schemes it has no
    // firmware for after them, marked, sorted among themselves.
    assert!(!ranked[0].3, "the winner has a device time:\n{conf}");
    let first_host = ranked.iter().position(|r| r.3).unwrap_or(ranked.len());
    assert!(ranked[first_host..].iter().all(|r| r.3), "{conf}");
    for part in [&ranked[..first_host], &ranked[first_host..]] {
        assert!(
            part.windows(2).all(|w| w[0].2 <= w[1].2),
            "sorted by energy:\n{conf}"
        );
    }
    assert!(!conf.contains("[LEGACY]"));
    assert!(
        conf.contains("Winner: ") && conf.contains("Study 003 recommended AES-256-GCM"),
        "{conf}"
    );

    let strong = run(&["--min-security", "256"]);
    assert!(
        rows(&strong).iter().all(|(_, bits, ..)| *bits >= 256),
        "{strong}"
    );
    assert!(
        !strong.contains("hmac:poly1305"),
        "a one-time authenticator is no MAC scheme"
    );

    let all = run(&[
        "--need",
        "confidentiality",
        "--min-security",
        "56",
        "--top",
        "1000",
    ]);
    assert!(
        !all.contains("[LEGACY]") && !all.contains("des-cbc"),
        "{all}"
    );
    let legacy = run(&[
        "--need",
        "confidentiality",
        "--min-security",
        "56",
        "--allow-legacy",
        "--top",
        "1000",
    ]);
    // The tables measure the safe schemes only: on a simulated device a
    // legacy scheme has no seal path of its own, so it is named as not
    // ranked, never ranked with this host's time.
    assert!(legacy.contains("Not ranked: "), "{legacy}");
    assert!(
        rows(&legacy).iter().all(|r| !r.0.contains("des-cbc")),
        "{legacy}"
    );
    let legacy: serde_json::Value = serde_json::from_str(&run(&[
        "--need",
        "confidentiality",
        "--min-security",
        "56",
        "--allow-legacy",
        "--format",
        "json",
    ]))
    .unwrap();
    let des = legacy["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["scheme"] == "etm:des-cbc+hmac-sha256")
        .unwrap_or_else(|| panic!("{legacy}"));
    assert!(
        des["why"]
            .as_str()
            .unwrap()
            .contains("no seal path measured on atmega1284p"),
        "{des}"
    );

    // As JSON: device CPU energy, code size and stack per scheme, and ranks
    // that tied schemes share.
    let doc: serde_json::Value = serde_json::from_str(&run(&["--format", "json"])).unwrap();
    let rows = doc["rows"].as_array().unwrap();
    let measured: Vec<_> = rows
        .iter()
        .filter(|r| r["device_measured"] == true)
        .collect();
    assert!(measured.len() >= 4, "{doc}");
    for r in &measured {
        assert!(
            r["cpu_uj"].as_f64().unwrap() > 100.0,
            "an 8-bit MCU's seal: {r}"
        );
        assert!(r["code_size_bytes"].as_i64().unwrap() > 0, "{r}");
        assert!(r["stack_bytes"].as_u64().unwrap() > 0, "{r}");
        assert!(
            r["cpu_time_source"]
                .as_str()
                .unwrap()
                .contains("atmega1284p"),
            "{r}"
        );
    }
    let ranks: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks[0], 1);
    for (i, w) in ranks.windows(2).enumerate() {
        assert!(w[0] <= w[1], "{ranks:?}");
        // A shared rank means the energies overlap within their uncertainty,
        // or lie in the tie group (within 1 % of the least energy: `tie`).
        let tied = |r: &Value| {
            doc["tie"]["schemes"]
                .as_array()
                .is_some_and(|g| g.contains(&r["scheme"]))
        };
        if w[1] == w[0] && tied(&rows[i + 1]) {
            assert_eq!(w[0], 1, "the tie group ranks first");
        } else if w[1] == w[0] {
            let leader = rows.iter().find(|r| r["rank"] == w[0]).unwrap();
            let (hi, lo) = (
                leader["message_uj_range"][1].as_f64().unwrap(),
                rows[i + 1]["message_uj_range"][0].as_f64().unwrap(),
            );
            assert!(lo <= hi, "{} ties without overlap", rows[i + 1]["scheme"]);
        } else {
            assert_eq!(
                w[1] as usize,
                i + 2,
                "a new rank counts the schemes above it"
            );
        }
    }
}
