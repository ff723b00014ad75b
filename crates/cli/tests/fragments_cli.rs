//! A sealed reading longer than a LoRaWAN frame travels in the sealing core's
//! fragments and is stored once, whole; one that lost a fragment is counted,
//! never stored in part. `send --link lorawan-eu868-dr0` publishes each
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
/// from `listen` (with `extra` flags) in a fresh database.
fn gateway(
    dir: &std::path::Path,
    listen: &str,
    extra: &[&str],
) -> (Proc, std::path::PathBuf, std::path::PathBuf) {
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
    gateway.wait_line("listening on");
    (gateway, key, db)
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
    let (gateway, key, db) = gateway(
        dir.path(),
        &broker.url(topic),
        &["--envelope", "chirpstack"],
    );
    let to = broker.url("application/1b2c/device/0101010101010101/event/up");
    let send_run = |count: u64, first_fcnt: u64, inject: &str, seed: &str| {
        send(&[
            "--to",
            &to,
            "--envelope",
            "chirpstack",
            "--key-file",
            key.to_str().unwrap(),
            "--container",
            "binary",
            "--sample",
            "chain:1",
            "--count",
            &count.to_string(),
            "--link",
            "lorawan-eu868-dr0",
            "--inject",
            inject,
            "--seed",
            seed,
            "--first-fcnt",
            &first_fcnt.to_string(),
            "--rate",
            "400",
            "--ack-wait",
            "30",
        ])
    };
    let sent = send_run(READINGS, 0, "lost-fragment=5%", "11");
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    // Every message is three uplinks at DR0 (51 + 51 + 16 B), as `link` costs it.
    let uplinks = n(&sent, "fragments") + n(&sent, "fragments_lost");
    assert_eq!(uplinks, 3 * READINGS, "{sent}");
    // The broker took every uplink sent before `send` left (it waits for each one's
    // PUBACK, not one per message).
    assert_eq!(n(&sent, "acked"), n(&sent, "transmitted"), "{sent}");
    assert_eq!(n(&sent, "transmitted"), n(&sent, "fragments"), "{sent}");
    let (incomplete, vanished) = (n(&sent, "incomplete"), n(&sent, "vanished"));
    assert!(
        incomplete > 50 && incomplete < 300,
        "5 % of 3,000 fragments lost: {sent}"
    );
    // The device's next readings, none lost: the last messages missing a
    // fragment are given up once newer ones start, as a lost uplink shows
    // once a later one arrives.
    let tail = 5;
    let more = send_run(tail, uplinks, "", "12");
    assert_eq!(n(&more, "acked"), 3 * tail, "{more}");
    // A message that lost every fragment never reaches the gateway at all.
    let whole = (READINGS - incomplete - vanished + tail) as i64;
    settle(&db, whole);
    std::thread::sleep(Duration::from_millis(500));
    let counters = gateway.stop_gateway();
    assert_eq!(n(&counters, "stored"), whole as u64, "{counters}");
    assert_eq!(
        db_count(&db, "SELECT COUNT(*) FROM readings"),
        whole,
        "each whole reading stored once"
    );
    assert_eq!(only_incomplete_refused(&counters), incomplete, "{counters}");
    assert_eq!(n(&counters, "in_fragments"), 0, "{counters}");
    // The lost fragments are gaps in the device's frame counter.
    assert_eq!(
        n(&counters, "lost_uplinks"),
        n(&sent, "fragments_lost"),
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
    let (gateway, key, db) = gateway(dir.path(), &format!("pty:{b}"), &[]);
    let sent = send(&[
        "--to",
        &format!("pty:{a}"),
        "--key-file",
        key.to_str().unwrap(),
        "--container",
        "binary",
        "--sample",
        "chain:1",
        "--count",
        &SENT.to_string(),
        "--link",
        "lorawan-eu868-dr0",
        "--inject",
        "lost-fragment=5%",
        "--seed",
        "7",
    ]);
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    // Three fragments a message at DR0, as `link` costs it.
    assert_eq!(
        n(&sent, "fragments") + n(&sent, "fragments_lost"),
        3 * SENT,
        "{sent}"
    );
    let (incomplete, vanished) = (n(&sent, "incomplete"), n(&sent, "vanished"));
    assert!(
        incomplete > 5 && incomplete < 60,
        "5 % of 600 fragments lost: {sent}"
    );
    let whole = (SENT - incomplete - vanished) as i64;
    settle(&db, whole);
    std::thread::sleep(Duration::from_millis(300));
    let counters = gateway.stop_gateway();
    assert_eq!(n(&counters, "stored"), whole as u64, "{counters}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), whole);
    let kept = n(&counters, "in_fragments");
    assert!(kept <= 4, "at most WINDOW messages wait: {counters}");
    assert_eq!(
        only_incomplete_refused(&counters) + kept,
        incomplete,
        "{counters}"
    );
}
