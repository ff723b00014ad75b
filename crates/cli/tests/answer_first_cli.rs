//! Safe defaults and labels that mean what they say, run as a user runs them:
//! `recommend` without `--need` keeps the reading secret, LoRaWAN's reserved
//! ports and failed MICs are said plainly, and the help names both stores.

use assert_cmd::Command;
use serde_json::Value;

fn cm() -> Command {
    let mut c = Command::cargo_bin("ciphermeter").unwrap();
    c.env_remove("CIPHERMETER_DATA_DIR");
    c
}

#[test]
fn recommend_without_need_ranks_only_schemes_that_encrypt() {
    let dir = tempfile::tempdir().unwrap();
    let out = cm()
        .args([
            "recommend",
            "--device",
            "sodaq-mbili",
            "--link",
            "lorawan-eu868-dr3",
        ])
        .args(["--top", "200", "--format", "json", "--db"])
        .arg(dir.path().join("r.sqlite"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["need"], "confidentiality");
    let rows = doc["rows"].as_array().unwrap();
    assert!(rows.len() > 40, "{}", rows.len());
    for r in rows {
        let scheme = r["scheme"].as_str().unwrap();
        assert!(
            !scheme.starts_with("hmac:"),
            "{scheme} sends the reading in clear"
        );
    }
    // Asked for, integrity-only schemes join and are said to send in clear.
    let out = cm()
        .args(["recommend", "--device", "nrf52840", "--link", "ble-1m-251"])
        .args(["--need", "integrity", "--db"])
        .arg(dir.path().join("r.sqlite"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("hmac:"), "{text}");
}

const KEY: &str = "000102030405060708090A0B0C0D0E0F";

fn encode(port: &str, extra: &[&str]) -> std::process::Output {
    cm().args([
        "lorawan",
        "encode",
        "--dev-addr",
        "26011BDA",
        "--f-cnt",
        "1",
    ])
    .args(["--f-port", port, "--payload", "0102"])
    .args(["--nwk-s-key", KEY, "--app-s-key", KEY])
    .args(extra)
    .output()
    .unwrap()
}

#[test]
fn lorawan_encode_refuses_the_test_and_reserved_ports_unless_asked() {
    for (port, says) in [
        ("224", "test protocol"),
        ("225", "reserved"),
        ("255", "reserved"),
    ] {
        let out = encode(port, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{port}: {err}");
        assert!(
            err.contains(says) && err.contains("--allow-reserved-port"),
            "{err}"
        );
        assert!(
            encode(port, &["--allow-reserved-port"]).status.success(),
            "{port}"
        );
    }
    assert!(encode("223", &[]).status.success());
}

#[test]
fn a_failed_mic_never_puts_ciphertext_where_plaintext_goes() {
    let phy = String::from_utf8(encode("2", &[]).stdout).unwrap();
    let wrong = "FF0102030405060708090A0B0C0D0E0F";
    let out = cm()
        .args([
            "lorawan",
            "decode",
            phy.trim(),
            "--nwk-s-key",
            wrong,
            "--app-s-key",
            KEY,
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["mic_ok"], false);
    assert!(doc["frm_payload"].is_null(), "{doc}");
    assert_eq!(
        doc["frm_payload_encrypted"].as_str().unwrap().len(),
        4,
        "{doc}"
    );
    // With the right key the plaintext is where it belongs.
    let out = cm()
        .args([
            "lorawan",
            "decode",
            phy.trim(),
            "--nwk-s-key",
            KEY,
            "--app-s-key",
            KEY,
        ])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["frm_payload"], "0102");
    assert!(doc["frm_payload_encrypted"].is_null());
}

#[test]
fn gateway_help_names_both_stores() {
    let out = cm().args(["gateway", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let first = help.lines().next().unwrap();
    assert!(first.contains("SQLite or PostgreSQL"), "{first}");
}

/// On LoRaWAN a dozen AEADs send the same bytes: the answer says which
/// choices tie (within 1 % of the least energy) and what picked the first
/// among them: the AES-128 every LoRaWAN stack already carries, then energy.
#[test]
fn recommend_names_the_tie_group_and_the_tie_breaker() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let args = [
        "recommend",
        "--device",
        "sodaq-mbili",
        "--link",
        "lorawan-eu868-dr3",
        "--db",
    ];
    let out = cm()
        .args(args)
        .arg(&db)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tie = &doc["tie"];
    let group: Vec<&str> = tie["schemes"]
        .as_array()
        .unwrap_or_else(|| panic!("no tie group: {doc}"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(group.len() >= 3, "{tie}");
    let rows = doc["rows"].as_array().unwrap();
    // The group leads the rows, shares rank 1, and lies within 1 % of the least energy.
    let energies: Vec<f64> = rows[..group.len()]
        .iter()
        .map(|r| r["message_uj"].as_f64().unwrap())
        .collect();
    let least = energies.iter().copied().fold(f64::MAX, f64::min);
    for (r, e) in rows.iter().zip(&energies) {
        assert!(group.contains(&r["scheme"].as_str().unwrap()), "{r}");
        assert_eq!(r["rank"], 1, "{r}");
        assert!(*e <= least * 1.01, "{r}");
    }
    // The next row is outside the group: more than 1 % dearer.
    assert!(rows[group.len()]["message_uj"].as_f64().unwrap() > least * 1.01);
    // The pick is the first row, built on the stack's AES-128, and the
    // cheapest of those that are.
    let chosen = tie["chosen"].as_str().unwrap();
    assert_eq!(rows[0]["scheme"], chosen);
    assert!(chosen.starts_with("aead:aes-128-"), "{tie}");
    assert_eq!(tie["decided_by"], "least energy", "{tie}");
    for r in &rows[1..group.len()] {
        if r["scheme"].as_str().unwrap().contains("aes-128-") {
            assert!(r["message_uj"].as_f64().unwrap() >= rows[0]["message_uj"].as_f64().unwrap());
        }
    }
    // The text says it too.
    let text = cm().args(args).arg(&db).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("These {} tie within", group.len())),
        "{text}"
    );
    assert!(text.contains("stack already carries aes-128"), "{text}");
    assert!(text.contains(&format!("picks {chosen}")), "{text}");
}

/// Every remedy the duty-cycle answer offers on LoRaWAN DR0 is an option
/// `recommend` takes, and taken, it runs; the ones said to be allowed are.
#[test]
fn every_remedy_recommend_prints_for_dr0_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    // A remedy's option replaces the same option of the question.
    let run = |extra: &[&str]| -> Value {
        let (link, extra) = match extra {
            ["--link", link] => (*link, &[][..]),
            _ => ("lorawan-eu868-dr0", extra),
        };
        let out = cm()
            .args(["recommend", "--device", "mkr-wan-1300", "--link", link])
            .args(extra)
            .args(["--format", "json", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let doc = run(&[]);
    let answer = &doc["duty_cycle"];
    assert_eq!(answer["allowed_count"], 0, "{answer}");
    let sentence = answer["sentence"].as_str().unwrap();
    // Send less often: the interval it names.
    let interval = format!(
        "{}s",
        answer["shortest_legal_interval_s"].as_f64().unwrap().ceil()
    );
    assert!(
        sentence.contains(&format!("--interval {interval}")),
        "{sentence}"
    );
    let mut remedies = vec![(vec!["--interval".to_string(), interval], true)];
    for r in answer["faster_data_rates"]
        .as_array()
        .unwrap()
        .iter()
        .chain(answer["smaller_containers"].as_array().unwrap())
    {
        let option = r["option"].as_str().unwrap();
        let (flag, value) = option.split_once(' ').unwrap();
        remedies.push((
            vec![flag.to_string(), value.to_string()],
            r["duty_cycle_allowed"] == true,
        ));
    }
    assert!(remedies.len() >= 5, "{answer}");
    assert!(sentence.contains("--link lorawan-eu868-dr"), "{sentence}");
    // Every data rate of the region is in the catalogue, named as the remedies name them.
    run(&["--link", "lorawan-eu868-dr2"]);
    for (args, allowed) in &remedies {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let taken = run(&args);
        if *allowed {
            assert!(
                taken["duty_cycle"]["allowed_count"].as_u64().unwrap() > 0,
                "{args:?}: {}",
                taken["duty_cycle"]
            );
        }
    }
}

/// `--help` groups the commands by what a user comes to do, the README's
/// first three first; each command's own help is still clap's.
#[test]
fn the_help_groups_the_commands_and_starts_with_the_answer() {
    for args in [&["--help"][..], &["help"]] {
        let out = cm().args(args).output().unwrap();
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        let commands: Vec<&str> = help
            .lines()
            .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with('-'))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(commands[..3], ["recommend", "energy", "link"], "{help}");
        assert!(commands.len() >= 30, "{help}");
        let headings = help
            .lines()
            .filter(|l| l.ends_with(':') && !l.starts_with(' '))
            .count();
        assert!(headings >= 5, "{help}");
    }
    let out = cm().args(["recommend", "--help"]).output().unwrap();
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("--device <DEVICE>")
    );
}
