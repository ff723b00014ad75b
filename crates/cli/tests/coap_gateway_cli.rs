//! The CoAP/OSCORE gateway as a user runs it: `gateway --listen coap://…
//! --container oscore` answering `send --to coap://…`, aiocoap's own client,
//! and raw replays; every reading stored once, every refusal answered and counted.

mod support;

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use support::live::{Proc, bound, db_count, n, run, send};

/// `keygen --scheme SCHEME` for a pair: the device's file and the gateway's.
fn keygen_pair(scheme: &str, dev: PathBuf, gw: PathBuf) -> (PathBuf, PathBuf) {
    let out = run(&[
        "keygen",
        "--scheme",
        scheme,
        "--output",
        dev.to_str().unwrap(),
        "--peer-output",
        gw.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    (dev, gw)
}

/// `keygen --scheme SCHEME --add-to GATEWAY`: a further device's file, which
/// the gateway's now holds too.
fn keygen_add_to(scheme: &str, device: &Path, gateway: &Path) {
    let out = run(&[
        "keygen",
        "--scheme",
        scheme,
        "--output",
        device.to_str().unwrap(),
        "--add-to",
        gateway.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The device's and the gateway's contexts.
fn pair(dir: &Path) -> (PathBuf, PathBuf) {
    keygen_pair(
        "oscore:aes-ccm-16-64-128",
        dir.join("dev.key"),
        dir.join("gw.key"),
    )
}

/// A CoAP gateway on a free port with `extra` flags: (process, coap://… address, database).
fn gateway(dir: &Path, key: &Path, extra: &[&str]) -> (Proc, String, PathBuf) {
    let db = dir.join("g.sqlite");
    let mut args = vec![
        "gateway",
        "--listen",
        "coap://127.0.0.1:0",
        "--container",
        "oscore",
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let gw = Proc::start(&args);
    let to = bound(&gw.wait_line("listening on"));
    assert!(to.starts_with("coap://127.0.0.1:"), "{to}");
    (gw, to, db)
}

fn stored(db: &Path) -> i64 {
    db_count(db, "SELECT count(*) FROM readings")
}

#[test]
fn send_to_a_coap_gateway_stores_each_good_reading_once_and_every_request_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let (gw, to, db) = gateway(dir.path(), &gw_key, &[]);
    let report = send(&[
        "--to",
        &to,
        "--container",
        "oscore",
        "--key-file",
        dev.to_str().unwrap(),
        "--sample",
        "chain:4",
        "--count",
        "60",
        "--inject",
        "tampered=15%,replayed=15%",
        "--seed",
        "7",
    ]);
    let (good, tampered, replayed) = (
        n(&report["good"]),
        n(&report["tampered"]),
        n(&report["replayed"]),
    );
    assert!(tampered > 0 && replayed > 0, "{report}");
    // Every good request got a protected 2.04 that verified under the context.
    assert_eq!(n(&report["acked"]), good, "{report}");
    assert_eq!(n(&report["forged"]), 0, "{report}");
    // Tampered requests fail to decrypt (4.00); replays are refused as such (4.01).
    assert_eq!(n(&report["refused"]["4.00"]), tampered, "{report}");
    assert_eq!(n(&report["refused"]["4.01"]), replayed, "{report}");
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), good, "{stats}");
    assert_eq!(n(&stats["rejected"]["tampered"]), tampered, "{stats}");
    assert_eq!(n(&stats["rejected"]["replay"]), replayed, "{stats}");
    assert_eq!(stored(&db), good as i64);
}

/// Sends `message` from a fresh socket; returns the answer.
fn exchange(to: &str, message: &[u8]) -> Vec<u8> {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    socket
        .send_to(message, to.trim_start_matches("coap://"))
        .unwrap();
    let mut buf = [0u8; 2048];
    let n = socket.recv(&mut buf).expect("an answer within 10 s");
    buf[..n].to_vec()
}

fn seal_one(dev: &Path) -> Vec<u8> {
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("ciphermeter"))
        .args(["seal", "--container", "oscore", "--key-file"])
        .arg(dev)
        .args(["--sample", "chain:2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

/// The answer's outer code and payload (CoAP, RFC 7252 §3).
fn code_and_payload(answer: &[u8]) -> (u8, Vec<u8>) {
    let tkl = (answer[0] & 0x0f) as usize;
    let payload = answer[4 + tkl..]
        .iter()
        .position(|b| *b == 0xff)
        .map(|at| answer[4 + tkl + at + 1..].to_vec())
        .unwrap_or_default();
    (answer[1], payload)
}

#[test]
fn a_replayed_request_is_refused_with_4_01_across_a_restart_and_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let request = seal_one(&dev);
    let (gw, to, db) = gateway(dir.path(), &gw_key, &[]);
    let (code, payload) = code_and_payload(&exchange(&to, &request));
    // 2.04, protected: its payload is ciphertext and tag, not a diagnostic.
    assert_eq!(code, 0x44);
    assert_eq!(payload.len(), 1 + 8, "inner code and an 8-byte tag");
    assert_eq!(
        code_and_payload(&exchange(&to, &request)),
        (0x81, b"Replay detected".to_vec())
    );
    let stats = gw.stop_gateway();
    assert_eq!(
        (n(&stats["stored"]), n(&stats["rejected"]["replay"])),
        (1, 1)
    );
    // The replay state is in the database, so a restarted gateway refuses it too.
    let (gw, to, db2) = gateway(dir.path(), &gw_key, &[]);
    assert_eq!(db, db2);
    assert_eq!(code_and_payload(&exchange(&to, &request)).0, 0x81);
    // A flipped bit in the tag: 4.00 Decryption failed, nothing stored.
    let mut tampered = seal_one(&dev);
    let last = tampered.len() - 1;
    tampered[last] ^= 0x10;
    assert_eq!(
        code_and_payload(&exchange(&to, &tampered)),
        (0x80, b"Decryption failed".to_vec())
    );
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), 0, "{stats}");
    assert_eq!(stored(&db), 1);
}

/// aiocoap's client (crates/cli/tests/python/aiocoap_oscore.py), one code per line.
fn aiocoap_client(context: &Path, uri: &str, readings: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/aiocoap_oscore.py");
    let mut child = std::process::Command::new("timeout")
        .arg("60")
        .arg("python3")
        .arg(script)
        .arg("client")
        .arg(context)
        .arg(uri)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(readings.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "aiocoap client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn aiocoap_as_the_client_gets_verified_2_04s_and_each_reading_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let (gw, to, db) = gateway(dir.path(), &gw_key, &[]);
    let readings: String = (0..5)
        .map(|i| format!("{{\"id\":\"aiocoap\",\"t\":{i}}}\n"))
        .collect();
    let codes = aiocoap_client(&dev, &format!("{to}/readings"), &readings);
    assert_eq!(codes, "2.04\n".repeat(5));
    let stats: Value = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), 5, "{stats}");
    assert_eq!(
        db_count(
            &db,
            "SELECT count(DISTINCT reading) FROM readings WHERE device = 'aiocoap'"
        ),
        5
    );
}

#[test]
fn send_posts_to_the_uri_path_asked_and_saves_what_it_sent() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let (gw, to, _) = gateway(dir.path(), &gw_key, &[]);
    let saved = dir.path().join("sent.hex");
    let sent = send(&[
        "--to",
        &to,
        "--container",
        "oscore",
        "--key-file",
        dev.to_str().unwrap(),
        "--sample",
        "chain:1",
        "--count",
        "1",
        "--uri-path",
        "site/7/t",
        "--save",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(n(&sent["acked"]), 1, "{sent}");
    gw.stop_gateway();
    // The saved request opens under the gateway's context, posted to that path.
    let line = std::fs::read_to_string(&saved).unwrap();
    let message = hex::decode(line.trim()).unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("ciphermeter"))
        .args(["open", "--container", "oscore", "--key-file"])
        .arg(&gw_key)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&message)?;
            child.wait_with_output()
        })
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("POST /site/7/t"), "{err}");
}

#[test]
fn oscore_and_coap_only_go_together_and_bad_pairings_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let sealing = support::live::keygen(dir.path(), "aead.key");
    let db = dir.path().join("g.sqlite");
    let cases: Vec<Vec<&str>> = vec![
        // A CoAP listener opens OSCORE only.
        vec![
            "gateway",
            "--listen",
            "coap://127.0.0.1:0",
            "--key-file",
            sealing.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        // OSCORE contexts are served over CoAP only.
        vec![
            "gateway",
            "--listen",
            "udp://127.0.0.1:0",
            "--container",
            "oscore",
            "--key-file",
            gw_key.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        // A sealing key is no OSCORE context.
        vec![
            "gateway",
            "--listen",
            "coap://127.0.0.1:0",
            "--container",
            "oscore",
            "--key-file",
            sealing.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ],
        vec![
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--container",
            "oscore",
            "--key-file",
            dev.to_str().unwrap(),
            "--sample",
            "chain:1",
        ],
        vec![
            "send",
            "--to",
            "coap://127.0.0.1:9",
            "--key-file",
            sealing.to_str().unwrap(),
            "--sample",
            "chain:1",
        ],
    ];
    for args in cases {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `keygen --scheme edhoc`: the device's and the gateway's credentials.
fn edhoc_pair(dir: &Path, prefix: &str) -> (PathBuf, PathBuf) {
    keygen_pair(
        "edhoc",
        dir.join(format!("{prefix}-dev.cred")),
        dir.join(format!("{prefix}-gw.cred")),
    )
}

/// `send --edhoc` arguments for `count` chain:2 readings from `key` to `to`.
fn edhoc_send_args<'a>(to: &'a str, key: &'a Path, count: &'a str) -> Vec<&'a str> {
    vec![
        "--to",
        to,
        "--container",
        "oscore",
        "--edhoc",
        "--key-file",
        key.to_str().unwrap(),
        "--sample",
        "chain:2",
        "--count",
        count,
    ]
}

/// `send --edhoc` run whole, for the cases that must fail.
fn run_edhoc_send(to: &str, key: &Path) -> std::process::Output {
    run(&[&["send"][..], &edhoc_send_args(to, key, "3")].concat())
}

#[test]
fn send_edhoc_runs_the_handshake_first_and_each_session_has_its_own_keys_and_window() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = edhoc_pair(dir.path(), "a");
    let (gw, to, db) = gateway(dir.path(), &gw_key, &["--edhoc"]);
    let mut good = 0;
    for inject in ["replayed=20%", ""] {
        let mut args = edhoc_send_args(&to, &dev, "20");
        args.extend(["--inject", inject, "--seed", "3"]);
        let report = send(&args);
        // All four EDHOC messages: 37 + 45 + 19 + 9 bytes.
        assert_eq!(n(&report["handshake_bytes"]), 110, "{report}");
        assert_eq!(n(&report["acked"]), n(&report["good"]), "{report}");
        let replayed = n(&report["replayed"]);
        if replayed > 0 {
            assert_eq!(n(&report["refused"]["4.01"]), replayed, "{report}");
        }
        good += n(&report["good"]);
    }
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), good, "{stats}");
    assert_eq!(n(&stats["handshakes"]["established"]), 2, "{stats}");
    assert_eq!(n(&stats["handshakes"]["refused"]), 0, "{stats}");
    // Two handshakes, two sessions: fresh keys, sequence numbers from 0 in each,
    // and a replay window of their own in the store.
    assert_eq!(
        db_count(
            &db,
            "SELECT count(DISTINCT key_id) FROM readings WHERE key_id LIKE 'edhoc:%'"
        ),
        2
    );
    assert_eq!(stored(&db), good as i64);
}

/// One gateway, two devices (`keygen --add-to`): each device's handshake is
/// verified against the credential its message_3 names, and both store.
#[test]
fn a_gateway_trusts_every_device_added_to_its_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let (first, gw_key) = edhoc_pair(dir.path(), "a");
    let second = dir.path().join("a-dev2.cred");
    keygen_add_to("edhoc", &second, &gw_key);
    let (gw, to, db) = gateway(dir.path(), &gw_key, &["--edhoc"]);
    for device in [&first, &second] {
        let report = send(&edhoc_send_args(&to, device, "5"));
        assert_eq!(n(&report["acked"]), 5, "{report}");
    }
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["handshakes"]["established"]), 2, "{stats}");
    assert_eq!(stored(&db), 10);
}

#[test]
fn a_device_the_gateway_does_not_trust_fails_the_handshake_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, gw_key) = edhoc_pair(dir.path(), "a");
    let (stranger, _) = edhoc_pair(dir.path(), "b");
    let (gw, to, db) = gateway(dir.path(), &gw_key, &["--edhoc"]);
    let out = run_edhoc_send(&to, &stranger);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("EDHOC"), "{err}");
    // It does not trust this gateway either: it stops at message_2.
    // An impostor that knows the gateway's credential but holds another
    // device's key: the gateway refuses its message_3 (4.00), and counts it.
    let impostor = dir.path().join("impostor.cred");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&stranger).unwrap()).unwrap();
    let trusted: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("a-dev.cred")).unwrap())
            .unwrap();
    doc["peer_credential"] = trusted["peer_credential"].clone();
    std::fs::write(&impostor, doc.to_string()).unwrap();
    std::fs::set_permissions(
        &impostor,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    let out = run_edhoc_send(&to, &impostor);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("refused the EDHOC handshake"), "{err}");
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["received"]), 0, "{stats}");
    assert_eq!(n(&stats["handshakes"]["refused"]), 1, "{stats}");
    assert_eq!(n(&stats["handshakes"]["established"]), 0, "{stats}");
    assert_eq!(stored(&db), 0);
    // An OSCORE context is no EDHOC credential file, and --edhoc needs oscore.
    let (ctx, _) = pair(dir.path());
    for args in [
        vec![
            "gateway",
            "--listen",
            "coap://127.0.0.1:0",
            "--container",
            "oscore",
            "--edhoc",
            "--key-file",
            ctx.to_str().unwrap(),
        ],
        vec![
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--edhoc",
            "--key-file",
            gw_key.to_str().unwrap(),
        ],
    ] {
        assert_eq!(run(&args).status.code(), Some(2), "{args:?}");
    }
}

/// `keygen --scheme edhoc-psk`: the device's and the gateway's PSK credentials.
fn edhoc_psk_pair(dir: &Path, prefix: &str) -> (PathBuf, PathBuf) {
    keygen_pair(
        "edhoc-psk",
        dir.join(format!("{prefix}-dev.psk")),
        dir.join(format!("{prefix}-gw.psk")),
    )
}

fn mode(path: &Path) -> u32 {
    std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(path).unwrap().permissions()) & 0o777
}

/// EDHOC-PSK (draft-ietf-lake-edhoc-psk, method 4) as a user runs it: the
/// same `--edhoc` flag, PSK credential files (`keygen --scheme edhoc-psk`,
/// 0600, a second device by `--add-to`); each device's handshake over CoAP
/// (RFC 9528 A.2) is 92 bytes (37 + 35 + 11 + 9), then its OSCORE-protected
/// readings are verified and stored under a session of their own. A device
/// with another PSK, or a method-3 device, is refused and stores nothing; a
/// PSK file others may read is refused before anything is sent.
#[test]
fn send_edhoc_with_a_psk_completes_the_handshake_and_the_gateway_stores_the_readings() {
    let dir = tempfile::tempdir().unwrap();
    let (first, gw_key) = edhoc_psk_pair(dir.path(), "p");
    let second = dir.path().join("p-dev2.psk");
    keygen_add_to("edhoc-psk", &second, &gw_key);
    for f in [&first, &gw_key, &second] {
        assert_eq!(mode(f), 0o600, "{}", f.display());
    }
    let (gw, to, db) = gateway(dir.path(), &gw_key, &["--edhoc"]);
    let mut good = 0;
    for device in [&first, &second] {
        let report = send(&edhoc_send_args(&to, device, "7"));
        assert_eq!(n(&report["handshake_bytes"]), 37 + 35 + 11 + 9, "{report}");
        assert_eq!(n(&report["acked"]), 7, "{report}");
        good += n(&report["good"]);
    }
    // A device holding a PSK the gateway does not: refused at message_3.
    let (stranger, _) = edhoc_psk_pair(dir.path(), "q");
    let out = run_edhoc_send(&to, &stranger);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("message_3 does not verify"), "{err}");
    // A method-3 device: refused at message_1.
    let (method_3, _) = edhoc_pair(dir.path(), "m");
    let out = run_edhoc_send(&to, &method_3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("METHOD"), "{err}");
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), good, "{stats}");
    assert_eq!(good, 14);
    assert_eq!(n(&stats["handshakes"]["established"]), 2, "{stats}");
    assert_eq!(n(&stats["handshakes"]["refused"]), 2, "{stats}");
    assert_eq!(
        db_count(
            &db,
            "SELECT count(DISTINCT key_id) FROM readings WHERE key_id LIKE 'edhoc-psk:%'"
        ),
        2
    );
    assert_eq!(stored(&db), 14);
    // A PSK file group or others may read is refused, exit 2, nothing sent.
    std::fs::set_permissions(&first, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = run_edhoc_send("coap://127.0.0.1:9", &first);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("permissions"), "{err}");
}
