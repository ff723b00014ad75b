//! MQTT ingestion as a fleet runs it: a real Mosquitto, two `gateway` workers sharing
//! one subscription (`--share`), `send` publishing ChirpStack-shaped uplinks with
//! tampered, replayed and truncated ones mixed in, and one worker SIGKILLed mid-stream
//! and restarted under its client id. Afterwards the counts are exact: every good
//! message stored once, every bad one refused once under its reason.
//!
//! How exact counts survive a SIGKILL: a killed worker's counters die with it, but its
//! log of refusals (stderr, written out before each acknowledgement) does not, and each
//! line names the uplink (ChirpStack's deduplicationId). Messages it had not acknowledged
//! come back to the restarted worker, so an uplink may be logged twice: counting
//! distinct uplinks per reason removes that. A message committed but not yet
//! acknowledged comes back too and is refused as a replay; its uplink id is then also
//! in the readings table, which tells it from an attacker's replay (a new uplink).
//! The database is PostgreSQL when it is installed (always under CI=true), else SQLite.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use testkit::{Mosquitto, Postgres};

const TOPIC: &str = "application/1b2c/device/0101010101010101/event/up";
const FILTER: &str = "application/+/device/+/event/up";

/// A gateway worker; SIGKILLed when the test ends, however it ends.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_worker(dir: &Path, broker: &Mosquitto, db: &str, id: &str) -> Worker {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("{id}.log")))
        .unwrap();
    let child = Command::new(cargo_bin("ciphermeter"))
        .args(["gateway", "--listen", &broker.url(FILTER)])
        .args([
            "--envelope",
            "chirpstack",
            "--share",
            "fleet",
            "--client-id",
            id,
        ])
        .arg("--key-file")
        .arg(dir.join("key.json"))
        .args(["--db", db, "--batch-ms", "10"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let worker = Worker(child);
    wait_for(&format!("{id} subscribed"), || {
        read(dir, id).contains("gateway: listening on mqtt://")
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

/// `... uplink ID[ dup]` → ID.
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
fn two_workers_share_a_subscription_and_a_sigkill_loses_and_doubles_nothing() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    // PostgreSQL is what the fleet shares: no quiet SQLite stand-in.
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
    let _w2 = start_worker(dir.path(), &broker, &db, "w2");
    let count = 3000u64;
    let sender = Command::new(cargo_bin("ciphermeter"))
        .args([
            "send",
            "--to",
            &broker.url(TOPIC),
            "--envelope",
            "chirpstack",
        ])
        .arg("--key-file")
        .arg(&key)
        .args(["--sample", "chain:10", "--count", &count.to_string()])
        .args(["--rate", "1000", "--seed", "17", "--ack-wait", "30"])
        .args(["--inject", "tampered=10%,replayed=5%,truncated=5%"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // Mid-stream: once w1 has settled a few hundred messages (its log of refusals grows).
    wait_for("w1 to settle messages", || {
        read(dir.path(), "w1").matches("rejected").count() >= 30
    });
    w1.0.kill().unwrap();
    w1.0.wait().unwrap();
    let refused_before_kill = read(dir.path(), "w1").matches("rejected").count();
    let _w1 = start_worker(dir.path(), &broker, &db, "w1");

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
    // Redeliveries still in flight would only add refusals, never change the ledger.
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
    // message whose PUBACK the SIGKILL cut off, not a replay by an attacker.
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
        count as usize
    );
}

#[test]
fn malformed_envelopes_are_refused_with_a_reason_and_acknowledged() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.json");
    assert!(
        Command::new(cargo_bin("ciphermeter"))
            .args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
            .arg(&key)
            .output()
            .unwrap()
            .status
            .success()
    );
    let db = dir.path().join("g.sqlite").display().to_string();
    let log = std::fs::File::create(dir.path().join("gw.log")).unwrap();
    let mut gw = Worker(
        Command::new(cargo_bin("ciphermeter"))
            .args(["gateway", "--listen", &broker.url("v3/+/devices/+/up")])
            .args(["--envelope", "tts", "--exit-after", "3", "--db", &db])
            .arg("--key-file")
            .arg(&key)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap(),
    );
    wait_for("the gateway to subscribe", || {
        read(dir.path(), "gw").contains("listening on mqtt://")
    });
    // Raw publishes of bad envelopes: not JSON, JSON of another shape, bad base64.
    let input = dir.path().join("in.txt");
    std::fs::write(
        &input,
        "not json\n{\"uplink_message\":{}}\n{\"end_device_ids\":{\"device_id\":\"d\"},\"uplink_message\":{\"frm_payload\":\"***\"}}\n",
    )
    .unwrap();
    let send = Command::new(cargo_bin("ciphermeter"))
        .args([
            "send",
            "--to",
            &broker.url("v3/app/devices/d/up"),
            "--presealed",
        ])
        .arg("--input")
        .arg(&input)
        .output()
        .unwrap();
    assert!(
        send.status.success(),
        "{}",
        String::from_utf8_lossy(&send.stderr)
    );
    wait_for("the gateway to exit after 3 messages", || {
        gw.0.try_wait().unwrap().is_some()
    });
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut gw.0.stdout.take().unwrap(), &mut stdout).unwrap();
    let log = read(dir.path(), "gw");
    assert!(gw.0.wait().unwrap().success(), "{log}");
    let snap: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(snap["stored"], 0);
    assert_eq!(snap["rejected"]["garbage"], 3, "{snap}");
    assert!(log.contains("not a The Things Stack uplink"), "{log}");
    assert!(log.contains("frm_payload is not base64"), "{log}");
}

#[test]
fn bad_mqtt_arguments_exit_2_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.json");
    let keygen = Command::new(cargo_bin("ciphermeter"))
        .args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(keygen.status.success());
    let key = key.display().to_string();
    for (args, says) in [
        (
            vec![
                "gateway",
                "--listen",
                "mqtt://127.0.0.1:1883",
                "--key-file",
                &key,
            ],
            "expected a topic",
        ),
        (
            vec![
                "gateway",
                "--listen",
                "mqtt://127.0.0.1:0/t",
                "--key-file",
                &key,
            ],
            "port must be",
        ),
        (
            vec![
                "gateway",
                "--listen",
                "mqtt://127.0.0.1:1883/t",
                "--envelope",
                "ttn",
                "--key-file",
                &key,
            ],
            "chirpstack, tts or raw",
        ),
        (
            vec![
                "send",
                "--to",
                "mqtt://127.0.0.1:1883/up/+",
                "--key-file",
                &key,
            ],
            "no wildcards",
        ),
        (
            vec![
                "gateway",
                "--listen",
                "udp://127.0.0.1:0",
                "--share",
                "g",
                "--key-file",
                &key,
            ],
            "are for mqtt:// endpoints",
        ),
        (
            vec![
                "send",
                "--to",
                "udp://127.0.0.1:9",
                "--envelope",
                "tts",
                "--key-file",
                &key,
            ],
            "--envelope is for mqtt://",
        ),
    ] {
        let out = Command::new(cargo_bin("ciphermeter"))
            .args(&args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
