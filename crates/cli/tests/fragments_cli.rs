//! A sealed reading longer than a frame travels in the sealing core's
//! fragments and is stored once, whole; one that lost a fragment is counted,
//! never stored in part. On LoRaWAN, and on Sigfox and BLE over UDP (any link
//! with frames: `LinkSpec::fragments`), costed with the headers sent. `send --link lorawan-eu868-dr0` publishes each
//! 112-byte binary message as three ChirpStack uplinks on a real Mosquitto,
//! the radio losing 5 % of the fragments, and the gateway puts them back
//! together. The broker runs docs/live.md's fleet settings: with Mosquitto's
//! defaults it drops an uplink now and then at this rate (`lost_uplinks`
//! counts those; `mqtt_loss_cli` is about them), and this test is about the
//! radio's losses, which must be the only ones.

use std::time::{Duration, Instant};

mod support;
use support::live::*;

const READINGS: u64 = 1000;

/// Waits (at most 60 s) until `want` readings are stored; the counters say the rest.
fn settle(db: &std::path::Path, want: i64) {
    let end = Instant::now() + Duration::from_secs(60);
    while Instant::now() < end {
        if db.exists() && db_count(db, "SELECT COUNT(*) FROM readings") >= want {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A counter-nonce AES-CCM key and a gateway storing the binary container
/// from `listen` (with `extra` flags) in a fresh database; with it, where it
/// listens (`udp://127.0.0.1:PORT` for port 0).
fn gateway(
    dir: &std::path::Path,
    listen: &str,
    extra: &[&str],
) -> (Proc, std::path::PathBuf, std::path::PathBuf, String) {
    let key = keygen_with(
        dir,
        "k.key",
        &["--scheme", "aead:aes-128-ccm", "--nonce", "counter"],
    );
    let db = dir.join("g.sqlite");
    let mut args = vec!["gateway", "--listen", listen];
    args.extend_from_slice(extra);
    args.extend(["--key-file", key.to_str().unwrap(), "--container", "binary"]);
    args.extend(["--db", db.to_str().unwrap()]);
    let gateway = Proc::start(&args);
    let at = bound(&gateway.wait_line("listening on"));
    (gateway, key, db, at)
}

/// `send` of `count` chain:1 readings in the binary container to `to`, cut
/// into EU868 DR0's fragments, `inject` losing some (seeded), with `extra` flags.
fn send_fragments(
    to: &str,
    key: &std::path::Path,
    count: &str,
    inject: &str,
    seed: &str,
    extra: &[&str],
) -> serde_json::Value {
    let mut args = vec!["--to", to, "--key-file", key.to_str().unwrap()];
    args.extend([
        "--container",
        "binary",
        "--sample",
        "chain:1",
        "--count",
        count,
    ]);
    args.extend([
        "--link",
        "lorawan-eu868-dr0",
        "--inject",
        inject,
        "--seed",
        seed,
    ]);
    args.extend_from_slice(extra);
    send(&args)
}

/// A count the report or the counters must have.
fn count_of(v: &serde_json::Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// Nothing but `incomplete` was refused.
fn only_incomplete_refused(counters: &serde_json::Value) -> u64 {
    let rejected = counters["rejected"].as_object().unwrap();
    let all: u64 = rejected.values().filter_map(|v| v.as_u64()).sum();
    let incomplete = rejected["incomplete"].as_u64().unwrap();
    assert_eq!(all, incomplete, "nothing else refused: {counters}");
    incomplete
}

#[test]
fn a_thousand_readings_in_fragments_with_five_percent_lost_are_stored_once_or_counted_incomplete() {
    let Some(broker) = testkit::Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let topic = "application/1b2c/device/+/event/up";
    let (gateway, key, db, _) = gateway(
        dir.path(),
        &broker.url(topic),
        &["--envelope", "chirpstack"],
    );
    let to = broker.url("application/1b2c/device/0101010101010101/event/up");
    let send_run = |count: u64, first_fcnt: u64, inject: &str, seed: &str| {
        let (count, first_fcnt) = (count.to_string(), first_fcnt.to_string());
        let chirpstack = [
            "--envelope",
            "chirpstack",
            "--first-fcnt",
            &first_fcnt,
            "--rate",
            "400",
            "--ack-wait",
            "30",
        ];
        send_fragments(&to, &key, &count, inject, seed, &chirpstack)
    };
    let sent = send_run(READINGS, 0, "lost-fragment=5%", "11");
    // Every message is three uplinks at DR0 (51 + 51 + 16 B), as `link` costs it.
    let uplinks = count_of(&sent, "fragments") + count_of(&sent, "fragments_lost");
    assert_eq!(uplinks, 3 * READINGS, "{sent}");
    // The broker took every uplink sent before `send` left (it waits for each one's
    // PUBACK, not one per message).
    assert_eq!(
        count_of(&sent, "acked"),
        count_of(&sent, "transmitted"),
        "{sent}"
    );
    assert_eq!(
        count_of(&sent, "transmitted"),
        count_of(&sent, "fragments"),
        "{sent}"
    );
    let (incomplete, vanished) = (count_of(&sent, "incomplete"), count_of(&sent, "vanished"));
    assert!(
        incomplete > 50 && incomplete < 300,
        "5 % of 3,000 fragments lost: {sent}"
    );
    // The device's next readings, none lost: the last messages missing a
    // fragment are given up once newer ones start, as a lost uplink shows
    // once a later one arrives.
    let tail = 5;
    let more = send_run(tail, uplinks, "", "12");
    assert_eq!(count_of(&more, "acked"), 3 * tail, "{more}");
    // A message that lost every fragment never reaches the gateway at all.
    let whole = (READINGS - incomplete - vanished + tail) as i64;
    settle(&db, whole);
    std::thread::sleep(Duration::from_millis(500));
    let counters = gateway.stop_gateway();
    assert_eq!(count_of(&counters, "stored"), whole as u64, "{counters}");
    assert_eq!(
        db_count(&db, "SELECT COUNT(*) FROM readings"),
        whole,
        "each whole reading stored once"
    );
    assert_eq!(only_incomplete_refused(&counters), incomplete, "{counters}");
    assert_eq!(count_of(&counters, "in_fragments"), 0, "{counters}");
    // The lost fragments are gaps in the device's frame counter.
    assert_eq!(
        count_of(&counters, "lost_uplinks"),
        count_of(&sent, "fragments_lost"),
        "{counters}"
    );
}

/// The same fragments through the radio emulator (study 000's serial packet
/// radio pair, on pseudo-terminals): each fragment is its own framed message
/// on the serial stream, the radio losing 5 % of them; the gateway stores
/// every reading whose fragments all arrived once, and counts the others as
/// `incomplete`, or, for the last few, keeps them in the store for the rest of
/// their fragments (`in_fragments`).
#[test]
fn readings_in_fragments_cross_the_radio_emulator_and_are_stored_once_or_counted_incomplete() {
    const SENT: u64 = 200;
    let dir = tempfile::tempdir().unwrap();
    let (_emu, a, b) = emulator(&[]);
    let (gateway, key, db, _) = gateway(dir.path(), &format!("pty:{b}"), &[]);
    let to = format!("pty:{a}");
    let sent = send_fragments(&to, &key, &SENT.to_string(), "lost-fragment=5%", "7", &[]);
    // Three fragments a message at DR0, as `link` costs it.
    assert_eq!(
        count_of(&sent, "fragments") + count_of(&sent, "fragments_lost"),
        3 * SENT,
        "{sent}"
    );
    let (incomplete, vanished) = (count_of(&sent, "incomplete"), count_of(&sent, "vanished"));
    assert!(
        incomplete > 5 && incomplete < 60,
        "5 % of 600 fragments lost: {sent}"
    );
    let whole = (SENT - incomplete - vanished) as i64;
    settle(&db, whole);
    std::thread::sleep(Duration::from_millis(300));
    let counters = gateway.stop_gateway();
    assert_eq!(count_of(&counters, "stored"), whole as u64, "{counters}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), whole);
    let kept = count_of(&counters, "in_fragments");
    assert!(kept <= 4, "at most WINDOW messages wait: {counters}");
    assert_eq!(
        only_incomplete_refused(&counters) + kept,
        incomplete,
        "{counters}"
    );
}

/// `link --bytes LEN --format json` on `link`: what `link` costs.
fn link_cost(link: &str, len: usize) -> serde_json::Value {
    support::run::json_ok(support::run::cm().args([
        "link",
        "--link",
        link,
        "--bytes",
        &len.to_string(),
        "--format",
        "json",
    ]))
}

/// Readings sealed for a Sigfox and a BLE link: `send --link` cuts each into
/// that link's frames (12 and 20 bytes: `max_payload` in data/links/sigfox.toml
/// and ble.toml), every datagram on the wire is a fragment no longer than a
/// frame, as many a message as `link` costs it, and the gateway, which never
/// asks which link a fragment came over, stores every reading once.
#[test]
fn readings_cut_for_sigfox_and_ble_frames_cross_udp_and_are_stored_once() {
    const SENT: u64 = 20;
    let dir = tempfile::tempdir().unwrap();
    let (gateway, key, db, to) = gateway(dir.path(), "udp://127.0.0.1:0", &[]);
    let target = to.trim_start_matches("udp://");
    let mut stored = 0;
    for (link, frame) in [("sigfox-rc1", 12), ("ble-1m-27", 20)] {
        // `send`'s datagrams caught on a socket of ours, then passed on to
        // the gateway from one device's socket. A 4-byte reading sealed is
        // 51 bytes: 6 fragments on Sigfox, 3 on BLE (fewer than a loopback
        // socket queues).
        let catcher = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        catcher
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let saved = dir.path().join(format!("{link}.hex"));
        let sent = send(&[
            "--to",
            &format!("udp://{}", catcher.local_addr().unwrap()),
            "--key-file",
            key.to_str().unwrap(),
            "--container",
            "binary",
            "--sample",
            "random:4",
            "--count",
            &SENT.to_string(),
            "--link",
            link,
            "--save",
            saved.to_str().unwrap(),
        ]);
        assert_eq!(count_of(&sent, "sent"), SENT, "{sent}");
        // Each message saved whole: the frames `link` costs it in.
        let saved = std::fs::read_to_string(&saved).unwrap();
        let frames: u64 = saved
            .lines()
            .map(|hex| count_of(&link_cost(link, hex.len() / 2), "frames"))
            .sum();
        assert!(frames >= 3 * SENT, "{link}: every reading in fragments");
        assert_eq!(count_of(&sent, "fragments"), frames, "{link}: {sent}");
        let device = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut buf = [0u8; 64];
        for _ in 0..frames {
            let (len, _) = catcher.recv_from(&mut buf).unwrap();
            assert!(len <= frame, "{link}: a {len}-byte datagram");
            // `seal::fragment`'s mark: the first byte's high nibble all ones.
            assert_eq!(buf[0] & 0xF0, 0xF0, "{link}: {:02x?}", &buf[..len]);
            device.send_to(&buf[..len], target).unwrap();
        }
        stored += SENT;
        settle(&db, stored as i64);
    }
    std::thread::sleep(Duration::from_millis(300));
    let counters = gateway.stop_gateway();
    assert_eq!(count_of(&counters, "stored"), stored, "{counters}");
    assert_eq!(
        db_count(&db, "SELECT COUNT(*) FROM readings"),
        stored as i64
    );
    assert_eq!(count_of(&counters, "in_fragments"), 0, "{counters}");
    assert_eq!(only_incomplete_refused(&counters), 0, "{counters}");
}

/// A 50-byte message on sigfox-rc1 (data/links/sigfox.toml: 12 B a frame,
/// 14 B of overhead each, sent 3 times, 100 b/s) goes in fragments of 10
/// message bytes beside the 2-byte header: 5 frames of 12 B, (5 x 12 + 5 x
/// 14) x 3 = 390 B on air, 3,120 bits = 31.2 s. Without the headers it was
/// costed as 12 + 12 + 12 + 12 + 2 B: 360 B, 28.8 s. `link`, `energy` and
/// `recommend` say the same; on ble-1m-27 (20 B a frame, 21 B overhead) the
/// 50 B are 18 + 18 + 14 beside 3 headers: 56 + 63 = 119 B (was 113 B).
#[test]
fn a_message_longer_than_a_frame_costs_its_fragment_headers_on_every_view() {
    let sigfox = link_cost("sigfox-rc1", 50);
    assert_eq!(
        (
            &sigfox["frames"],
            &sigfox["on_air_bytes"],
            &sigfox["airtime_ms"]
        ),
        (
            &serde_json::json!(5),
            &serde_json::json!(390),
            &serde_json::json!(31200.0)
        ),
        "{sigfox}"
    );
    let ble = link_cost("ble-1m-27", 50);
    assert_eq!(
        (count_of(&ble, "frames"), count_of(&ble, "on_air_bytes")),
        (3, 119)
    );
    let json = |args: &[&str]| -> serde_json::Value {
        let out = run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let energy = json(&[
        "energy",
        "--device",
        "stm32l0",
        "--link",
        "sigfox-rc1",
        "--bytes",
        "50",
        "--interval",
        "1d",
        "--format",
        "json",
    ]);
    for m in energy["messages"].as_array().unwrap() {
        assert_eq!(
            (count_of(m, "frames"), count_of(m, "on_air_bytes")),
            (5, 390),
            "{m}"
        );
    }
    // random:4 sealed in the binary container with AES-GCM is 50 bytes.
    for (link, on_air) in [("sigfox-rc1", 390), ("ble-1m-27", 119)] {
        let r = json(&[
            "recommend",
            "--device",
            "stm32l0",
            "--link",
            link,
            "--sample",
            "random:4",
            "--container",
            "binary",
            "--interval",
            "1d",
            "--format",
            "json",
        ]);
        let rows = r["rows"].as_array().unwrap();
        let row = rows
            .iter()
            .find(|row| row["scheme"] == "aead:aes-128-gcm")
            .unwrap_or_else(|| panic!("{link}: no AES-128-GCM row in {r}"));
        assert_eq!(count_of(row, "sealed_bytes"), 50, "{link}: {row}");
        assert_eq!(count_of(row, "on_air_bytes"), on_air, "{link}: {row}");
    }
}

/// `send --link` takes a link with frames; a serial radio, whose packets
/// carry one stream the framing delimits, and an unknown name exit 2.
#[test]
fn send_link_refuses_a_serial_radio_and_an_unknown_link() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.key");
    for (link, why) in [
        ("slice-of-radio", "byte stream"),
        ("sigfox-rc9", "sigfox-rc1"),
    ] {
        let out = run(&[
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--key-file",
            key.to_str().unwrap(),
            "--container",
            "binary",
            "--count",
            "1",
            "--link",
            link,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{link}: {err}");
        assert!(err.contains(why), "{link}: {err}");
    }
}

/// A device's OSCORE context and its gateway's (`keygen --scheme oscore:…`).
fn oscore_pair(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let gw = dir.join("gw.key");
    let scheme = ["--scheme", "oscore:aes-ccm-16-64-128"];
    let dev = keygen_with(
        dir,
        "dev.key",
        &[&scheme[..], &["--peer-output", gw.to_str().unwrap()]].concat(),
    );
    (dev, gw)
}

/// OSCORE readings compressed with SCHC cross the radio emulator as RFC 9011
/// sends them: each in ACK-on-Error fragments (FPort 20), 5 % of them lost.
/// The gateway's ACKs come back over the same radio and ask for what is
/// missing; the sender sends it again (a lost All-1 after `--ack-wait`).
/// Every reading is stored exactly once, and the retransmissions are counted.
#[test]
fn compressed_oscore_readings_cross_the_radio_and_lost_fragments_are_sent_again() {
    const SENT: u64 = 1000;
    let dir = tempfile::tempdir().unwrap();
    // A fast radio (the link model's timing, at a higher rate): the test is
    // about the protocol, not the Slice of Radio's 9600 baud.
    let fast = [
        "--baud",
        "2000000",
        "--air-rate",
        "4000000",
        "--timeout-ms",
        "1",
    ];
    let (_emu, a, b) = emulator(&fast);
    let (dev, gw) = oscore_pair(dir.path());
    let db = dir.path().join("g.sqlite");
    let gateway = Proc::start(&[
        "gateway",
        "--listen",
        &format!("pty:{b}"),
        "--container",
        "oscore",
        "--compression",
        "schc",
        "--key-file",
        gw.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ]);
    gateway.wait_line("listening on");
    let sent = send(&[
        "--to",
        &format!("pty:{a}"),
        "--container",
        "oscore",
        "--compression",
        "schc",
        "--key-file",
        dev.to_str().unwrap(),
        "--sample",
        "chain:4",
        "--count",
        &SENT.to_string(),
        "--link",
        "lorawan-eu868-dr0",
        "--inject",
        "lost-fragment=5%",
        "--seed",
        "5",
        // Some 100 times the emulated radio's round trip.
        "--ack-wait",
        "0.25",
    ]);
    assert_eq!(count_of(&sent, "sent"), SENT, "{sent}");
    // chain:4 outgrows a DR0 frame even compressed: every reading in fragments.
    assert_eq!(count_of(&sent, "fragmented"), SENT, "{sent}");
    assert_eq!(count_of(&sent, "gave_up"), 0, "{sent}");
    let lost = count_of(&sent, "fragments_lost");
    let fragments = count_of(&sent, "fragments");
    assert!(
        lost * 100 > fragments * 3 && lost * 100 < fragments * 7,
        "about 5 % lost: {sent}"
    );
    // Every lost fragment was sent again (the retransmissions can be lost too).
    assert!(count_of(&sent, "retransmitted") >= lost, "{sent}");
    assert!(count_of(&sent, "acks_missing") > 0, "{sent}");
    assert_eq!(count_of(&sent, "acks_complete"), SENT, "{sent}");
    assert!(count_of(&sent, "packet_bytes") < count_of(&sent, "request_bytes"));
    settle(&db, SENT as i64);
    std::thread::sleep(Duration::from_millis(300));
    let counters = gateway.stop_gateway();
    assert_eq!(count_of(&counters, "stored"), SENT, "{counters}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), SENT as i64);
    let rejected = counters["rejected"].as_object().unwrap();
    assert!(
        rejected.values().all(|v| v.as_u64() == Some(0)),
        "nothing refused: {counters}"
    );
}

/// What SCHC over a radio cannot do exits 2 before anything is sent or stored.
#[test]
fn schc_over_a_radio_refuses_what_it_cannot_carry() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw) = oscore_pair(dir.path());
    let (dev, gw) = (dev.to_str().unwrap(), gw.to_str().unwrap());
    let missing = dir.path().join("missing.json");
    let rules = format!("schc:{}", missing.display());
    let refused = |args: &[&str], why: &str| {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    };
    let send = [
        "send",
        "--container",
        "oscore",
        "--key-file",
        dev,
        "--count",
        "1",
    ];
    let dr0 = ["--link", "lorawan-eu868-dr0"];
    let to_pty = ["--to", "pty:/dev/null"];
    let schc = ["--compression", "schc"];
    refused(
        &[&send[..], &["--to", "udp://127.0.0.1:9"], &schc, &dr0].concat(),
        "serial",
    );
    refused(&[&send[..], &to_pty, &schc].concat(), "--link");
    // RFC 9011 is LoRaWAN's profile: another link's frames are refused.
    refused(
        &[&send[..], &to_pty, &schc, &["--link", "sigfox-rc1"]].concat(),
        "sigfox-rc1 is a framed link",
    );
    refused(
        &[&send[..], &to_pty, &dr0, &["--compression", &rules]].concat(),
        "missing.json",
    );
    refused(
        &[&send[..], &to_pty, &dr0, &["--compression", "zip"]].concat(),
        "schc:RULES",
    );
    let binary = ["send", "--container", "binary", "--to", "pty:/dev/null"];
    refused(&[&binary[..], &schc].concat(), "--container oscore");
    let gateway = ["gateway", "--container", "oscore", "--key-file", gw];
    let db = dir.path().join("g.sqlite");
    let db = ["--db", db.to_str().unwrap()];
    refused(
        &[&gateway[..], &["--listen", "udp://127.0.0.1:0"], &schc, &db].concat(),
        "serial",
    );
    refused(
        &[
            &gateway[..],
            &["--listen", "pty:/dev/null"],
            &["--compression", &rules],
            &db,
        ]
        .concat(),
        "missing.json",
    );
    assert!(!dir.path().join("g.sqlite").exists(), "nothing stored");
}
