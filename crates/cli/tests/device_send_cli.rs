//! `device-send` as a user runs it: the sealing firmware in QEMU or simavr
//! seals readings to its UART, the CLI forwards them to a real `gateway`
//! process over TCP on loopback, and the gateway verifies and stores them.

use std::path::{Path, PathBuf};

use serde_json::Value;

mod support;
use support::live::*;

fn counter_key(dir: &Path, name: &str, scheme: &str) -> PathBuf {
    keygen_with(dir, name, &["--scheme", scheme, "--nonce", "counter"])
}

fn device_send(args: &[&str]) -> Value {
    let out = run(&[&["device-send"], args].concat());
    assert!(
        out.status.success(),
        "device-send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    last_json(&String::from_utf8_lossy(&out.stdout))
}

/// The device timed every seal it made (at least `sent`: a power cut may
/// lose a few sealed but unsent), and none strays 1 % from its table row.
fn within_one_percent_of_the_table(report: &Value, sent: u64) {
    let cost = &report["seal_cost"];
    eprintln!("seal cost on the device: {cost}");
    assert!(n(&cost["timed"]) >= sent, "{report}");
    assert!(n(&cost["table"]) > 0, "no table row to compare: {report}");
    let worst = cost["worst_deviation_percent"].as_f64().unwrap();
    assert!(worst < 1.0, "a seal {worst} % off the table: {report}");
}

#[test]
fn a_cortex_m0plus_device_delivers_1000_readings_across_a_power_cut_without_reusing_a_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "dev.key", "aead:aes-128-gcm");
    let (gw, to, db, _) = tcp_gateway(dir.path(), &key, &["--container", "binary"]);
    let report = device_send(&[
        "--target",
        "cortex-m0plus",
        "--key-file",
        key.to_str().unwrap(),
        "--count",
        "1000",
        "--restart-after",
        "400",
        "--container",
        "binary",
        "--to",
        &to,
    ]);
    let c = gw.stop_gateway();
    assert_eq!(n(&report["boots"]), 2, "{report}");
    assert_eq!(n(&report["send"]["sent"]), 1000, "{report}");
    assert_eq!(n(&report["send"]["acked"]), 1000, "{report}");
    assert_eq!(n(&report["uart_errors"]), 0, "{report}");
    assert_eq!(n(&c["stored"]), 1000, "{c}");
    // Each seal's instructions, counted on the device, are the table's row
    // (RustCrypto's AES-GCM, binary container, the default 10 thermometers).
    within_one_percent_of_the_table(&report, 1000);
    assert_eq!(n(&c["rejected"]["replay"]), 0, "a reused nonce: {c}");
    assert_eq!(n(&c["rejected"]["stale"]), 0, "{c}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), 1000);
    // The counter outlives the run: a second run under the same key goes on
    // past it, and the gateway (same database) takes every message as fresh.
    let (gw, to, _, _) = tcp_gateway(dir.path(), &key, &["--container", "binary"]);
    device_send(&[
        "--target",
        "cortex-m0plus",
        "--key-file",
        key.to_str().unwrap(),
        "--count",
        "20",
        "--container",
        "binary",
        "--to",
        &to,
    ]);
    let c = gw.stop_gateway();
    assert_eq!(
        (n(&c["stored"]), n(&c["rejected"]["replay"])),
        (20, 0),
        "{c}"
    );
}

#[test]
fn an_atmega1284p_device_under_tampering_stores_the_good_and_refuses_the_tampered() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "avr.key", "aead:chacha20-poly1305");
    let (gw, to, db, _) = tcp_gateway(dir.path(), &key, &["--container", "cose"]);
    // Our ChaCha20-Poly1305 (8-bit Poly1305 limbs), the backend `recommend`
    // names on the ATmega1284P: the gateway opens it with RustCrypto's.
    let report = device_send(&[
        "--target",
        "atmega1284p",
        "--impl",
        "ciphermeter",
        "--key-file",
        key.to_str().unwrap(),
        "--count",
        "120",
        "--restart-after",
        "50",
        "--thermometers",
        "5",
        "--container",
        "cose",
        "--inject",
        "tampered=10%",
        "--seed",
        "3",
        "--to",
        &to,
    ]);
    let c = gw.stop_gateway();
    assert_eq!(report["implementation"], "ciphermeter", "{report}");
    // Our ChaCha20-Poly1305's whole seal path, in cycles, as its table row says.
    within_one_percent_of_the_table(&report, 120);
    let good = n(&report["send"]["good"]);
    let tampered = n(&report["send"]["tampered"]);
    assert!(tampered > 0 && good + tampered == 120, "{report}");
    assert_eq!(n(&c["stored"]), good, "{c}");
    assert_eq!(n(&c["rejected"]["tampered"]), tampered, "{c}");
    assert_eq!(n(&c["rejected"]["replay"]), 0, "{c}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), good as i64);
}

#[test]
fn a_device_reaches_the_gateway_through_the_emulated_radio() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "dev.key", "aead:aes-128-ccm");
    let db = dir.path().join("g.sqlite");
    let (_emu, a, b) = emulator(&[]);
    let gw = Proc::start(&[
        "gateway",
        "--listen",
        &format!("pty:{b}"),
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--exit-after",
        "8",
    ]);
    gw.wait_line("listening on");
    let report = device_send(&[
        "--target",
        "cortex-m4",
        "--key-file",
        key.to_str().unwrap(),
        "--count",
        "8",
        "--thermometers",
        "1",
        "--to",
        &format!("pty:{a}"),
    ]);
    assert_eq!(n(&report["send"]["good"]), 8, "{report}");
    let (status, out) = gw.finish();
    assert!(status.success());
    let c = last_json(&out);
    assert_eq!((n(&c["stored"]), n(&c["received"])), (8, 8), "{c}");
    // Study 003's chain reading, made on the device from its counter value.
    assert_eq!(
        db_count(
            &db,
            "SELECT COUNT(*) FROM readings WHERE json_extract(reading, '$.s_t') = 'tc' \
             AND json_array_length(json_extract(reading, '$.s_d')) = 1"
        ),
        8
    );
}

#[test]
fn what_a_device_cannot_do_exits_2_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let counter = counter_key(dir.path(), "c.key", "aead:aes-128-gcm");
    let random = keygen(dir.path(), "r.key");
    let k = counter.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "--target",
                "cortex-m0plus",
                "--key-file",
                k,
                "--impl",
                "monocypher",
            ],
            "it has ChaCha20-Poly1305 and HMAC-SHA-512",
        ),
        (
            &["--target", "cortex-m0plas", "--key-file", k],
            "did you mean cortex-m0plus",
        ),
        (&["--target", "riscv32imc", "--key-file", k], "riscv32imc"),
        (
            &[
                "--target",
                "cortex-m0plus",
                "--key-file",
                random.to_str().unwrap(),
            ],
            "--nonce counter",
        ),
        (
            &[
                "--target",
                "cortex-m0plus",
                "--key-file",
                k,
                "--count",
                "5",
                "--restart-after",
                "5",
            ],
            "--restart-after",
        ),
        (
            &[
                "--target",
                "cortex-m0plus",
                "--key-file",
                k,
                "--thermometers",
                "26",
            ],
            "thermometers",
        ),
    ];
    for (args, says) in cases {
        let out = run(&[&["device-send", "--to", "udp://127.0.0.1:9"], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?} should say '{says}': {err}");
    }
    // A state directory holds one target's counter; another target would reuse its nonces.
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::write(state.join("target"), "atmega1284p").unwrap();
    let out = run(&[
        "device-send",
        "--to",
        "udp://127.0.0.1:9",
        "--target",
        "cortex-m0plus",
        "--key-file",
        k,
        "--state-dir",
        state.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("reuse its nonces"));
}

/// The key README step 5 makes is one `device-send` takes: its `keygen`
/// line, run as written, then three readings from the ATmega1284P.
#[test]
fn the_readme_step_5_key_works_with_device_send() {
    let readme = include_str!("../../../README.md");
    let step = &readme[readme.find("**5. Use it.**").expect("README step 5")..];
    let line = step
        .lines()
        .find_map(|l| l.strip_prefix("$ ciphermeter keygen "))
        .expect("step 5's keygen line");
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("dev.key");
    let args: Vec<String> = line
        .split_whitespace()
        .map(|a| {
            if a == "dev.key" {
                key.to_str().unwrap().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let out = run(&[
        &["keygen"][..],
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    ]
    .concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (gw, to, _, _) = tcp_gateway(dir.path(), &key, &["--container", "binary"]);
    let report = device_send(&[
        "--target",
        "atmega1284p",
        "--key-file",
        key.to_str().unwrap(),
        "--count",
        "3",
        "--container",
        "binary",
        "--to",
        &to,
    ]);
    let c = gw.stop_gateway();
    assert_eq!(n(&report["send"]["sent"]), 3, "{report}");
    assert_eq!(n(&c["stored"]), 3, "{c}");
}
