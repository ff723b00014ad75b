//! docs/flags.md, row by row: `--sample` is the reading and `--serialization`
//! its serialization everywhere, `--format` the output; the old spellings
//! still work, each with a note on stderr.

use assert_cmd::Command;
use predicates::prelude::*;

fn cm() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = cm().args(args).args(["--format", "json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sample_and_serialization_mean_the_reading_everywhere() {
    let link = json(&[
        "link",
        "--link",
        "ble-1m-251",
        "--scheme",
        "aead:aes-128-gcm",
        "--sample",
        "chain:2",
        "--serialization",
        "cbor",
    ]);
    assert_eq!(link["sample"], "chain:2");
    assert_eq!(link["serialization"], "cbor");
    let rec = |serialization: &str| {
        json(&[
            "recommend",
            "--device",
            "nrf52840",
            "--link",
            "ble-1m-251",
            "--sample",
            "chain:2",
            "--serialization",
            serialization,
            "--top",
            "1",
        ])
    };
    let (cbor, plain) = (rec("cbor"), rec("json"));
    assert_eq!(cbor["sample"], "chain:2");
    assert_eq!(cbor["serialization"], "cbor");
    let bytes = |v: &serde_json::Value| v["rows"][0]["sealed_bytes"].as_u64().unwrap();
    assert!(
        bytes(&cbor) < bytes(&plain),
        "CBOR is the smaller reading: {cbor} {plain}"
    );
    cm().args([
        "recommend",
        "--device",
        "nrf52840",
        "--link",
        "ble-1m-251",
        "--serialization",
        "xml",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("unknown format 'xml'"));
}

#[test]
fn old_spellings_work_with_a_note() {
    let old = cm()
        .args([
            "recommend",
            "--device",
            "nrf52840",
            "--link",
            "ble-1m-251",
            "--payload",
            "chain:2",
            "--top",
            "1",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(old.status.success());
    let stderr = String::from_utf8_lossy(&old.stderr);
    assert!(
        stderr.contains("note: --payload is now --sample"),
        "{stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&old.stdout).unwrap();
    assert_eq!(v["sample"], "chain:2");

    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k");
    cm().args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&key)
        .assert()
        .success();
    let reading = r#"{"t":1,"id":"L1","s_t":"tc","s_d":[{"d":0,"t":21.5}]}"#;
    let sealed = cm()
        .args(["seal", "--format", "cbor", "--key-file"])
        .arg(&key)
        .write_stdin(reading)
        .output()
        .unwrap();
    assert!(sealed.status.success());
    assert!(
        String::from_utf8_lossy(&sealed.stderr).contains("note: --format is now --serialization")
    );
    for flag in ["--format", "--serialization"] {
        let opened = cm()
            .args(["open", flag, "cbor", "--key-file"])
            .arg(&key)
            .write_stdin(sealed.stdout.clone())
            .output()
            .unwrap();
        assert!(
            opened.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&opened.stderr)
        );
        assert!(String::from_utf8_lossy(&opened.stdout).starts_with(r#"{"t":1,"#));
        assert_eq!(
            String::from_utf8_lossy(&opened.stderr)
                .contains("note: --format is now --serialization"),
            flag == "--format"
        );
    }
    // send: --serialization cbor, or the old --format cbor with a note.
    for flag in ["--serialization", "--format"] {
        let out = cm()
            .args([
                "send",
                "--to",
                "udp://127.0.0.1:9",
                "--sample",
                "chain:1",
                "--count",
                "1",
                flag,
                "cbor",
                "--key-file",
            ])
            .arg(&key)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).contains("note: --format is now --serialization"),
            flag == "--format"
        );
    }
    // Both spellings at once is a usage error, not a silent pick.
    cm().args([
        "seal",
        "--format",
        "cbor",
        "--serialization",
        "json",
        "--key-file",
    ])
    .arg(&key)
    .write_stdin(reading)
    .assert()
    .code(2);
}
