//! Workers that die for good: a real RabbitMQ, two `gateway` workers consuming one
//! durable queue (competing consumers), `send` publishing ChirpStack-shaped uplinks to
//! the integration's exchange with tampered, replayed and truncated ones mixed in, and
//! one worker SIGKILLed mid-stream and never restarted. The broker hands what it had
//! not acknowledged to the survivor, so PostgreSQL ends with exactly the good uplinks,
//! each once, and every bad one is refused once under its reason.
//!
//! How exact counts survive a SIGKILL: the killed worker's counters die with it, but its
//! log of refusals (stderr, written out before each acknowledgement) does not, and each
//! line names the uplink (ChirpStack's deduplicationId). A message it refused but had not
//! acknowledged comes back to the survivor and is logged twice: counting distinct uplinks
//! per reason removes that. A message it committed but had not acknowledged comes back
//! too and is refused as a replay; its uplink is then also in the readings table, which
//! tells it from an attacker's replay (a new uplink).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use testkit::{Postgres, RabbitMq};

/// A gateway worker; SIGKILLed when the test ends, however it ends.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_worker(dir: &Path, broker: &RabbitMq, db: &str, id: &str) -> Worker {
    let log = std::fs::File::create(dir.join(format!("{id}.log"))).unwrap();
    let child = Command::new(cargo_bin("ciphermeter"))
        .args(["gateway", "--listen", &broker.url("uplinks")])
        .args(["--envelope", "chirpstack"])
        .arg("--key-file")
        .arg(dir.join("key.json"))
        .args(["--db", db, "--batch-ms", "10", "--prefetch", "200"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let worker = Worker(child);
    wait_for(&format!("{id} consuming"), || {
        read(dir, id).contains("gateway: listening on amqp://")
    });
    worker
}

fn read(dir: &Path, id: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap_or_default()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Uplink ids of the stored readings, from the `source` column.
fn stored_uplinks(db: &str) -> Vec<String> {
    let mut c = postgres::Client::connect(db, postgres::NoTls).unwrap();
    let sources: Vec<String> = c
        .query("SELECT source FROM readings", &[])
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
        .unwrap_or_default();
    sources.iter().map(|s| uplink_of(s).to_string()).collect()
}

/// `... uplink ID[ redelivered]` → ID.
fn uplink_of(text: &str) -> &str {
    text.split(" uplink ")
        .nth(1)
        .and_then(|rest| rest.split([' ', ':']).next())
        .unwrap_or("-")
}

/// Every refusal in the workers' logs: reason → distinct uplink ids.
fn refusals(dir: &Path) -> BTreeMap<String, HashSet<String>> {
    let mut by_reason: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for id in ["w1", "w2"] {
        for line in read(dir, id).lines() {
            if let Some(rest) = line.strip_prefix("gateway: rejected ") {
                let reason = rest.split(' ').next().unwrap().to_string();
                let uplink = uplink_of(rest).to_string();
                assert_ne!(uplink, "-", "a refusal without its uplink: {line}");
                by_reason.entry(reason).or_default().insert(uplink);
            }
        }
    }
    by_reason
}

#[test]
fn a_worker_killed_for_good_loses_nothing_and_doubles_nothing() {
    let Some(broker) = RabbitMq::start() else {
        return;
    };
    let Some(pg) = Postgres::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = pg.create_database("fleet");
    let key = dir.path().join("key.json");
    let status = Command::new(cargo_bin("ciphermeter"))
        .args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(status.status.success());

    let mut w1 = start_worker(dir.path(), &broker, &db, "w1");
    let w2 = start_worker(dir.path(), &broker, &db, "w2");
    let count = 3000u64;
    let sender = Command::new(cargo_bin("ciphermeter"))
        .args([
            "send",
            "--to",
            &broker.url("amq.topic"),
            "--envelope",
            "chirpstack",
        ])
        .arg("--key-file")
        .arg(&key)
        .args(["--sample", "chain:10", "--count", &count.to_string()])
        .args(["--rate", "1000", "--seed", "23", "--ack-wait", "30"])
        .args(["--inject", "tampered=10%,replayed=5%,truncated=5%"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Mid-stream, once w1 has settled a few hundred messages: killed, never restarted.
    wait_for("w1 to settle messages", || {
        read(dir.path(), "w1").matches("rejected").count() >= 30
    });
    w1.0.kill().unwrap();
    w1.0.wait().unwrap();
    let refused_before_kill = read(dir.path(), "w1").matches("rejected").count();

    let out = sender.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sent["sent"], count);
    assert_eq!(sent["acked"], count, "the broker confirmed every publish");
    let n = |k: &str| sent[k].as_u64().unwrap();
    assert!(n("tampered") > 0 && n("replayed") > 0 && n("truncated") > 0);
    assert!(
        refused_before_kill < (n("tampered") + n("truncated")) as usize,
        "w1 was killed mid-stream, not after the end"
    );

    // Settled: every uplink is stored or refused (distinct ids), and nothing more moves.
    let settled = || {
        let stored = stored_uplinks(&db);
        let refused: HashSet<String> = refusals(dir.path()).into_values().flatten().collect();
        let stored_set: HashSet<&String> = stored.iter().collect();
        let all = stored_set.len() + refused.iter().filter(|u| !stored_set.contains(u)).count();
        all as u64 >= count
    };
    wait_for("every uplink to be stored or refused", settled);
    std::thread::sleep(Duration::from_millis(300));

    let stored = stored_uplinks(&db);
    let distinct: HashSet<&String> = stored.iter().collect();
    assert_eq!(distinct.len(), stored.len(), "an uplink was stored twice");
    assert_eq!(
        stored.len() as u64,
        n("good"),
        "stored == good messages sent"
    );

    let mut refused = refusals(dir.path());
    let replays = refused.remove("replay").unwrap_or_default();
    // A refused "replay" of an uplink that is stored is the broker redelivering a
    // message whose basic.ack the SIGKILL cut off, not a replay by an attacker.
    let attacker_replays = replays.iter().filter(|u| !distinct.contains(u)).count();
    let counts: HashMap<String, usize> =
        refused.iter().map(|(k, v)| (k.clone(), v.len())).collect();
    assert_eq!(attacker_replays as u64, n("replayed"), "{counts:?}");
    assert_eq!(
        counts.get("tampered").copied().unwrap_or(0) as u64,
        n("tampered")
    );
    assert_eq!(
        counts.get("truncated").copied().unwrap_or(0) as u64,
        n("truncated")
    );
    assert_eq!(counts.len(), 2, "no other reasons: {counts:?}");
    let refused_ids: HashSet<&String> = refused.values().flatten().collect();
    assert!(refused_ids.iter().all(|u| !distinct.contains(u)));
    assert_eq!(
        distinct.len() + refused_ids.len() + attacker_replays,
        count as usize,
        "every uplink accounted for exactly once"
    );
    // The survivor's queue is empty: nothing waits unacknowledged for a dead worker.
    drop(w2);
}
