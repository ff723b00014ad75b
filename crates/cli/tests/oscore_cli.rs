//! OSCORE as a user runs it: `keygen --scheme oscore:ALG --peer-output`, then
//! `seal --container oscore` on the device's context and `open --container
//! oscore` on the gateway's, with replays, tampering, another context and
//! unreadable key files refused with exit 2.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn cm() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

const READING: &str =
    r#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},{"d":1,"t":12.3}]}"#;

/// The device's and the gateway's contexts.
fn pair(dir: &Path, alg: &str) -> (PathBuf, PathBuf) {
    let (dev, gw) = (
        dir.join(format!("dev-{alg}.key")),
        dir.join(format!("gw-{alg}.key")),
    );
    cm().args(["keygen", "--scheme", &format!("oscore:{alg}"), "--output"])
        .arg(&dev)
        .arg("--peer-output")
        .arg(&gw)
        .assert()
        .success();
    (dev, gw)
}

fn seal(key: &Path) -> Vec<u8> {
    cm().args(["seal", "--container", "oscore", "--key-file"])
        .arg(key)
        .write_stdin(READING)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone()
}

fn open(key: &Path, message: &[u8]) -> assert_cmd::assert::Assert {
    cm().args(["open", "--container", "oscore", "--key-file"])
        .arg(key)
        .write_stdin(message.to_vec())
        .assert()
}

#[test]
fn every_algorithm_seals_on_the_device_and_opens_at_the_gateway_once() {
    let dir = tempfile::tempdir().unwrap();
    for alg in [
        "aes-ccm-16-64-128",
        "aes-ccm-16-128-256",
        "aes-128-gcm",
        "chacha20-poly1305",
    ] {
        let (dev, gw) = pair(dir.path(), alg);
        for sequence in 0..3 {
            let message = seal(&dev);
            // A CoAP POST (version 1, NON, code 0.02) with the OSCORE option.
            assert_eq!(&message[..2], &[0x50 | 1, 0x02], "{alg}: {message:02x?}");
            open(&gw, &message)
                .success()
                .stdout(READING)
                .stderr(predicate::str::contains(format!(
                    "sequence number {sequence}, POST /readings"
                )));
            open(&gw, &message)
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains("replayed"));
        }
    }
}

#[test]
fn a_flipped_bit_in_the_protected_part_exits_2_and_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw) = pair(dir.path(), "aes-ccm-16-64-128");
    let message = seal(&dev);
    // Header 4 bytes, then the token (the Partial IV, 1 byte): the OSCORE
    // option starts at byte 5. What precedes it OSCORE leaves unprotected.
    for byte in 5..message.len() {
        for bit in [0, 3, 7] {
            let mut tampered = message.clone();
            tampered[byte] ^= 1 << bit;
            open(&gw, &tampered).code(2).stdout("");
        }
    }
    // The untouched message still opens: no refusal above moved the window.
    open(&gw, &message).success().stdout(READING);
}

#[test]
fn another_context_or_the_senders_own_cannot_open() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, _) = pair(dir.path(), "aes-ccm-16-64-128");
    let (_, stranger) = pair(dir.path(), "aes-ccm-16-64-256");
    let message = seal(&dev);
    open(&stranger, &message).code(2).stdout("");
    // The device's own context expects the gateway's kid, not its own.
    open(&dev, &message)
        .code(2)
        .stderr(predicate::str::contains("names no context"));
}

#[test]
fn bad_keygen_and_key_files_exit_2_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.key");
    cm().args(["keygen", "--scheme", "oscore:aes-ccm-16-64-128", "--output"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--peer-output"));
    cm().args(["keygen", "--scheme", "oscore:aes-ccm-99", "--output"])
        .arg(&out)
        .args(["--peer-output", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("aes-ccm-16-64-128"));
    cm().args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&out)
        .args(["--peer-output", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("OSCORE"));

    let (dev, gw) = pair(dir.path(), "aes-ccm-16-64-128");
    let message = seal(&dev);
    std::fs::set_permissions(&gw, std::fs::Permissions::from_mode(0o644)).unwrap();
    open(&gw, &message).code(2).stdout("");
    std::fs::set_permissions(&gw, std::fs::Permissions::from_mode(0o600)).unwrap();
    // A context file is no sealing key, and a sealing key no context.
    cm().args(["seal", "--container", "json", "--key-file"])
        .arg(&gw)
        .write_stdin(READING)
        .assert()
        .code(2);
    let aead = dir.path().join("aead.key");
    cm().args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&aead)
        .assert()
        .success();
    open(&aead, &message).code(2).stdout("");
    // A torn replay window refuses everything rather than forgetting.
    let mut window = gw.as_os_str().to_owned();
    window.push(".replay");
    std::fs::write(&window, "12").unwrap();
    open(&gw, &message)
        .code(2)
        .stderr(predicate::str::contains("corrupt"));
}

#[test]
fn the_sequence_number_survives_across_runs_and_is_never_reused() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw) = pair(dir.path(), "aes-ccm-16-64-128");
    let first = seal(&dev);
    let second = seal(&dev);
    assert_ne!(first, second);
    // Opened out of order: both inside the window, each once.
    open(&gw, &second).success();
    open(&gw, &first).success();
    open(&gw, &first).code(2);
}

/// aiocoap (crates/cli/tests/python/aiocoap_oscore.py; scripts/setup installs it).
fn aiocoap(args: &[&str], context: &Path, stdin: &[u8]) -> Vec<u8> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/aiocoap_oscore.py");
    let mut child = std::process::Command::new("python3")
        .arg(script)
        .arg(args[0])
        .arg(context)
        .args(&args[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "aiocoap {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn aiocoap_opens_what_we_seal_and_we_open_what_aiocoap_protects() {
    let dir = tempfile::tempdir().unwrap();
    for alg in ["aes-ccm-16-64-128", "aes-ccm-64-64-256", "aes-256-gcm"] {
        let (dev, gw) = pair(dir.path(), alg);
        let ours = seal(&dev);
        assert_eq!(
            aiocoap(&["unprotect"], &gw, &ours),
            READING.as_bytes(),
            "{alg}"
        );
        // aiocoap as the device, at sequence number 5; then the same message again.
        let theirs = aiocoap(&["protect", "5"], &dev, READING.as_bytes());
        open(&gw, &theirs)
            .success()
            .stdout(READING)
            .stderr(predicate::str::contains("sequence number 5"));
        open(&gw, &theirs)
            .code(2)
            .stderr(predicate::str::contains("replayed"));
    }
}
