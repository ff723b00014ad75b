//! Loss a broker causes is counted, not silent. Two gateway workers share one
//! subscription on a real Mosquitto; one is SIGKILLed and comes back 2 s later while
//! `send` publishes ChirpStack uplinks at 4,000/s. With Mosquitto's default settings the
//! broker drops what the dead worker's session cannot queue (and what a slow member's
//! cannot): the gateway's `lost_uplinks`, counted from the uplinks' frame counters in the
//! shared PostgreSQL store, equals the good uplinks that were not stored. With the
//! settings docs/live.md documents (docs/examples/mosquitto-fleet.conf), none is lost.
//!
//! Uplinks lost after the last one seen cannot show as a gap, so once the stream has
//! settled a short tail continues each device's count (`send --first-fcnt`), as a
//! device's next uplinks do.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use testkit::{Mosquitto, Postgres};

mod support;
use support::fleet::*;

const STREAM: u64 = 16_000;
const TAIL: u64 = 20;

impl Worker {
    /// SIGTERM, then the counters it printed on exit.
    fn stop(mut self, dir: &Path, id: &str) -> Value {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
        let status = self.0.wait().unwrap();
        assert!(
            status.success(),
            "{id} exited {status:?}: {}",
            read(dir, id)
        );
        let out = std::fs::read_to_string(dir.join(format!("{id}.out"))).unwrap();
        serde_json::from_str(out.lines().last().expect("counters on stdout")).unwrap()
    }
}

fn stored(db: &str) -> u64 {
    let mut c = postgres::Client::connect(db, postgres::NoTls).unwrap();
    let n: i64 = c
        .query_one("SELECT COUNT(*) FROM readings", &[])
        .unwrap()
        .get(0);
    n as u64
}

/// Waits until the stored count has not moved for a second.
fn settle(db: &str) -> u64 {
    let mut last = (stored(db), Instant::now());
    wait_for("the store to settle", Duration::from_secs(90), || {
        let now = stored(db);
        if now != last.0 {
            last = (now, Instant::now());
        }
        last.1.elapsed() >= Duration::from_secs(1)
    });
    last.0
}

fn send(broker: &Mosquitto, key: &Path, count: u64, rate: u64, first: u64, seed: u64) -> Child {
    Command::new(cargo_bin("ciphermeter"))
        .args([
            "send",
            "--to",
            &broker.url(TOPIC),
            "--envelope",
            "chirpstack",
        ])
        .arg("--key-file")
        .arg(key)
        .args(["--sample", "chain:10", "--count", &count.to_string()])
        .args(["--rate", &rate.to_string(), "--seed", &seed.to_string()])
        .args(["--first-fcnt", &first.to_string(), "--ack-wait", "30"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// One run: returns (good uplinks sent, stored, lost_uplinks as the gateway reports it).
fn worker_down_for_two_seconds(broker: &Mosquitto, pg: &Postgres, name: &str) -> (u64, u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let db = pg.create_database(name);
    let key = aes_key(dir);
    let mut w1 = start_mqtt_worker(dir, broker, &db, "w1");
    let w2 = start_mqtt_worker(dir, broker, &db, "w2");
    let sender = send(broker, &key, STREAM, 4000, 0, 7);
    wait_for("the first readings", Duration::from_secs(60), || {
        stored(&db) >= 1000
    });
    w1.0.kill().unwrap();
    w1.0.wait().unwrap();
    let killed_at = stored(&db);
    std::thread::sleep(Duration::from_secs(2));
    let w1 = start_mqtt_worker(dir, broker, &db, "w1");
    sent_report(sender, STREAM);
    assert!(killed_at < STREAM / 2, "w1 was killed mid-stream");
    settle(&db);
    // The devices' next uplinks: every loss is now a gap between counters seen.
    sent_report(send(broker, &key, TAIL, 50, STREAM, 8), TAIL);
    let stored = settle(&db);
    let a = w1.stop(dir, "w1");
    let b = w2.stop(dir, "w2");
    // Both read the one shared count.
    assert_eq!(a["lost_uplinks"], b["lost_uplinks"], "{a} {b}");
    let lost = b["lost_uplinks"]
        .as_u64()
        .expect("lost_uplinks in the counters");
    (STREAM + TAIL, stored, lost)
}

#[test]
fn with_mosquittos_defaults_every_lost_uplink_is_counted_and_with_the_documented_settings_none_is_lost()
 {
    let Some(pg) = Postgres::start() else {
        return;
    };
    {
        let Some(broker) = Mosquitto::start_default() else {
            return;
        };
        let (sent, stored, lost) = worker_down_for_two_seconds(&broker, &pg, "defaults");
        eprintln!("Mosquitto defaults: {stored} of {sent} stored, lost_uplinks {lost}");
        assert!(
            lost > 0,
            "the broker's defaults dropped nothing: the test shows nothing"
        );
        assert_eq!(stored + lost, sent, "an uplink was lost silently");
    }
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let (sent, stored, lost) = worker_down_for_two_seconds(&broker, &pg, "documented");
    eprintln!("documented settings: {stored} of {sent} stored, lost_uplinks {lost}");
    assert_eq!((stored, lost), (sent, 0));
}
