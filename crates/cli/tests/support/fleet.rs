//! What the fleet tests share (several `gateway` workers behind a broker, one shared
//! PostgreSQL store): the workers as processes, their logs, and the exact ledger of a
//! stream with tampered, replayed and truncated uplinks after a worker was SIGKILLed.
//!
//! How exact counts survive a SIGKILL: a killed worker's counters die with it, but its
//! log of refusals (stderr, written out before each acknowledgement) does not, and each
//! line names the uplink (ChirpStack's deduplicationId). A message it refused but had not
//! acknowledged comes back and is logged twice: counting distinct uplinks per reason
//! removes that. A message it committed but had not acknowledged comes back too and is
//! refused as a replay; its uplink is then also in the readings table, which tells it
//! from an attacker's replay (a new uplink).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;

/// ChirpStack's uplink topic for one device, and the filter every device's matches.
pub const TOPIC: &str = "application/1b2c/device/0101010101010101/event/up";
pub const FILTER: &str = "application/+/device/+/event/up";

/// A gateway worker; SIGKILLed when the test ends, however it ends.
pub struct Worker(pub Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `dir/key.json`, an AES-128-GCM key every worker and sender of a test shares.
pub fn aes_key(dir: &Path) -> PathBuf {
    super::live::keygen(dir, "key.json")
}

/// `dir/ID.EXT`, appended over the worker's restarts.
fn worker_file(dir: &Path, id: &str, ext: &str) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("{id}.{ext}")))
        .unwrap()
}

/// Starts worker `id`: `gateway --listen LISTEN ARGS` with `dir/key.json` and the shared
/// `db`, its stdout in `dir/ID.out` and its stderr in `dir/ID.log`; returns once it
/// says it is listening (a restarted worker: once more than before).
pub fn start_worker(dir: &Path, id: &str, listen: &str, db: &str, args: &[&str]) -> Worker {
    let before = starts(dir, id);
    let child = Command::new(cargo_bin("ciphermeter"))
        .args(["gateway", "--listen", listen])
        .args(args)
        .arg("--key-file")
        .arg(dir.join("key.json"))
        .args(["--db", db, "--batch-ms", "10"])
        .stdin(Stdio::null())
        .stdout(worker_file(dir, id, "out"))
        .stderr(worker_file(dir, id, "log"))
        .spawn()
        .unwrap();
    let worker = Worker(child);
    wait_for(&format!("{id} listening"), Duration::from_secs(60), || {
        starts(dir, id) > before
    });
    worker
}

/// Worker `id` sharing the MQTT subscription of group `fleet` under its own client id.
pub fn start_mqtt_worker(dir: &Path, broker: &testkit::Mosquitto, db: &str, id: &str) -> Worker {
    let args = [
        "--envelope",
        "chirpstack",
        "--share",
        "fleet",
        "--client-id",
        id,
    ];
    start_worker(dir, id, &broker.url(FILTER), db, &args)
}

pub fn read(dir: &Path, id: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap_or_default()
}

/// How many times worker `id` has said it is listening (one line per start).
pub fn starts(dir: &Path, id: &str) -> usize {
    read(dir, id).matches("gateway: listening on").count()
}

pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Uplink ids of the stored readings, from the `source` column.
pub fn stored_uplinks(db: &str) -> Vec<String> {
    let mut c = postgres::Client::connect(db, postgres::NoTls).unwrap();
    let sources: Vec<String> = c
        .query("SELECT source FROM readings", &[])
        .map(|rows| rows.iter().map(|r| r.get(0)).collect())
        .unwrap_or_default();
    sources.iter().map(|s| uplink_of(s).to_string()).collect()
}

/// `... uplink ID[ dup| redelivered]` → ID.
pub fn uplink_of(text: &str) -> &str {
    text.split(" uplink ")
        .nth(1)
        .and_then(|rest| rest.split([' ', ':']).next())
        .unwrap_or("-")
}

/// Every refusal in the workers' logs: reason → distinct uplink ids.
pub fn refusals(dir: &Path, ids: &[&str]) -> BTreeMap<String, HashSet<String>> {
    let mut by_reason: BTreeMap<String, HashSet<String>> = BTreeMap::new();
    for id in ids {
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

/// `send`'s report, once it exited successfully with every publish acknowledged.
pub fn sent_report(sender: Child, count: u64) -> Value {
    let out = sender.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sent["sent"], count);
    assert_eq!(
        sent["acked"], count,
        "the broker acknowledged every publish"
    );
    sent
}

/// Waits until every one of `count` uplinks is stored or refused, then holds the ledger
/// to the sender's report: the good ones stored, each once; every bad one refused once
/// under its reason; the broker's redeliveries told apart from the sender's replays.
pub fn assert_exact_ledger(dir: &Path, ids: &[&str], db: &str, sent: &Value, count: u64) {
    let n = |k: &str| sent[k].as_u64().unwrap();
    let settled = || {
        let stored = stored_uplinks(db);
        let refused: HashSet<String> = refusals(dir, ids).into_values().flatten().collect();
        let stored_set: HashSet<&String> = stored.iter().collect();
        let all = stored_set.len() + refused.iter().filter(|u| !stored_set.contains(u)).count();
        all as u64 >= count
    };
    wait_for(
        "every uplink to be stored or refused",
        Duration::from_secs(60),
        settled,
    );
    // Redeliveries still in flight would only add refusals, never change the ledger.
    std::thread::sleep(Duration::from_millis(300));

    let stored = stored_uplinks(db);
    let distinct: HashSet<&String> = stored.iter().collect();
    assert_eq!(distinct.len(), stored.len(), "an uplink was stored twice");
    assert_eq!(
        stored.len() as u64,
        n("good"),
        "stored == good messages sent"
    );

    let mut refused = refusals(dir, ids);
    let replays = refused.remove("replay").unwrap_or_default();
    // A refused "replay" of an uplink that is stored is the broker redelivering a
    // message whose acknowledgement the SIGKILL cut off, not a replay by an attacker.
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
    // Every uplink the sender published is accounted for exactly once.
    let refused_ids: HashSet<&String> = refused.values().flatten().collect();
    assert!(refused_ids.iter().all(|u| !distinct.contains(u)));
    assert_eq!(
        distinct.len() + refused_ids.len() + attacker_replays,
        count as usize,
        "every uplink accounted for exactly once"
    );
}
