//! The C library's OSCORE readings at the gateway (issue 63 item 5): a C
//! program linked to the library as docs/c-library.md builds it
//! (crates/seal-ffi/tests/c/oscore_readings.c) protects 100 readings under
//! `keygen --scheme oscore:…`'s device context; each goes as one datagram to
//! `gateway --listen coap://127.0.0.1:0 --container oscore`, which answers
//! every one with a protected 2.04 the device's context verifies, stores all
//! 100, and refuses a replay. Then the C example (examples/c/sensor.c) built
//! from the same context for a Cortex-M0+ runs in QEMU (microbit), and the
//! requests its UART carries reach the gateway the same way.

mod support;

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use seal::host::oscore::{Answer, OscoreKey, open_request, protect_reading, read_answer};
use seal::oscore::ReplayWindow;
use seal::oscore::coap::code;
use support::live::{Proc, bound, db_count, n, run};
use testkit::c_library::workspace;

const READINGS: usize = 100;

/// Sends `message` as one datagram; the gateway's answer.
fn exchange(socket: &UdpSocket, message: &[u8]) -> Vec<u8> {
    socket.send(message).unwrap();
    let mut buf = [0u8; 2048];
    let n = socket.recv(&mut buf).expect("an answer within 10 s");
    buf[..n].to_vec()
}

/// `keygen --scheme oscore:aes-ccm-16-64-128` in `dir`: (device's file, gateway's).
fn pair(dir: &Path) -> (PathBuf, PathBuf) {
    let (dev, gw_key) = (dir.join("dev.key"), dir.join("gw.key"));
    let out = run(&[
        "keygen",
        "--scheme",
        "oscore:aes-ccm-16-64-128",
        "--output",
        dev.to_str().unwrap(),
        "--peer-output",
        gw_key.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    (dev, gw_key)
}

/// A CoAP gateway for OSCORE under `key`: (process, its address, its database).
fn gateway(dir: &Path, key: &Path) -> (Proc, String, PathBuf) {
    let db = dir.join("g.sqlite");
    let gw = Proc::start(&[
        "gateway",
        "--listen",
        "coap://127.0.0.1:0",
        "--container",
        "oscore",
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    let to = bound(&gw.wait_line("listening on"));
    (gw, to, db)
}

/// A socket that sends to `to` and waits at most 10 s for an answer.
fn client(to: &str) -> UdpSocket {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    socket.connect(to.trim_start_matches("coap://")).unwrap();
    socket
}

#[test]
fn the_gateway_verifies_and_stores_100_readings_the_c_library_protected() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let (gw, to, db) = gateway(dir.path(), &gw_key);

    let program = testkit::c_library::oscore_readings(dir.path());
    let out = Command::new(&program)
        .arg(&dev)
        .arg(dir.path().join("slots"))
        .arg(READINGS.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = String::from_utf8(out.stdout).unwrap();
    assert_eq!(lines.lines().count(), READINGS);

    let device = OscoreKey::load(&dev).unwrap();
    let socket = client(&to);
    let mut last = None;
    for line in lines.lines() {
        let (seq, hex) = line.split_once(' ').unwrap();
        let (seq, message): (u64, _) = (seq.parse().unwrap(), hex::decode(hex).unwrap());
        let answer = exchange(&socket, &message);
        let id = request_id(&device, seq, &message);
        assert_eq!(
            read_answer(&device, &id, &answer).unwrap(),
            Answer::Protected(code::CHANGED),
            "sequence {seq}"
        );
        last = Some(message);
    }
    // The last again: the gateway has seen its sequence number.
    let replay = exchange(&socket, &last.unwrap());
    assert_eq!(
        replay[1],
        code::UNAUTHORIZED,
        "a replay is refused with 4.01"
    );

    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), READINGS as u64, "{stats}");
    assert_eq!(n(&stats["rejected"]["replay"]), 1, "{stats}");
    assert_eq!(
        db_count(&db, "SELECT count(*) FROM readings"),
        READINGS as i64
    );
}

/// The id of the request the C program protected with `sequence`: the host
/// protects the same reading (the program's `t` is 1555666777 + sequence on
/// a first boot) and must get the same bytes, so the id is the same.
fn request_id(device: &OscoreKey, sequence: u64, message: &[u8]) -> seal::oscore::RequestId {
    let reading = format!(
        r#"{{"t":{},"id":"Logger1","s_t":"tc","s_d":[{{"d":0,"t":12.5}}]}}"#,
        1555666777 + sequence
    );
    let (bytes, id) = protect_reading(
        device.context(),
        sequence,
        reading.as_bytes(),
        "readings",
        50,
    )
    .unwrap();
    assert_eq!(bytes, message, "sequence {sequence}: the host's bytes");
    id
}

/// The UART's frames (0xCE, length as 2 bytes big-endian, message), each whole.
fn deframe(mut uart: &[u8]) -> Vec<Vec<u8>> {
    let mut messages = Vec::new();
    while let [0xCE, hi, lo, rest @ ..] = uart {
        let n = usize::from(*hi) << 8 | usize::from(*lo);
        messages.push(rest[..n].to_vec());
        uart = &rest[n..];
    }
    assert!(uart.is_empty(), "{} bytes start no frame", uart.len());
    messages
}

#[test]
fn the_c_example_on_a_cortex_m0plus_in_qemu_sends_readings_the_gateway_stores() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw_key) = pair(dir.path());
    let out_dir = dir.path().join("arm");
    let built = Command::new(workspace().join("examples/c/build"))
        .arg(&dev)
        .arg(&out_dir)
        .arg("arm")
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new("timeout")
        .args([
            "60",
            "qemu-system-arm",
            "-M",
            "microbit",
            "-display",
            "none",
        ])
        .args(["-monitor", "none", "-serial", "stdio"])
        .args(["-semihosting-config", "enable=on,target=native", "-kernel"])
        .arg(out_dir.join("sensor-arm.elf"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let requests = deframe(&run.stdout);
    assert_eq!(requests.len(), 3, "sensor.c's READINGS");

    let (gw, to, db) = gateway(dir.path(), &gw_key);
    let (device, peer) = (
        OscoreKey::load(&dev).unwrap(),
        OscoreKey::load(&gw_key).unwrap(),
    );
    let socket = client(&to);
    let mut window = ReplayWindow::new();
    for (i, request) in requests.iter().enumerate() {
        // What the gateway reads in it, opened here under its context too.
        let opened = open_request(&peer, &mut window, request).unwrap();
        assert_eq!(opened.sequence, i as u64);
        let reading = String::from_utf8(opened.reading).unwrap();
        assert!(
            reading.starts_with(&format!("{{\"t\":{},", 1555666777 + i)),
            "{reading}"
        );
        let answer = exchange(&socket, request);
        assert_eq!(
            read_answer(&device, &opened.id, &answer).unwrap(),
            Answer::Protected(code::CHANGED)
        );
    }
    let stats = gw.stop_gateway();
    assert_eq!(n(&stats["stored"]), 3, "{stats}");
    assert_eq!(db_count(&db, "SELECT count(*) FROM readings"), 3);
}
