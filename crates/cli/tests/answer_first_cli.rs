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
