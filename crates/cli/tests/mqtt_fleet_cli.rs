//! MQTT ingestion as a fleet runs it: a real Mosquitto, two `gateway` workers sharing
//! one subscription (`--share`), `send` publishing ChirpStack-shaped uplinks with
//! tampered, replayed and truncated ones mixed in, and one worker SIGKILLed mid-stream
//! and restarted under its client id. Afterwards the counts are exact: every good
//! message stored once, every bad one refused once under its reason (how a SIGKILL
//! leaves them exact: `support::fleet`). Messages the killed worker had not
//! acknowledged come back to it when it restarts under its client id.

use std::process::{Command, Stdio};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;
use testkit::{Mosquitto, Postgres};

mod support;
use support::fleet::*;

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
    let key = aes_key(dir.path());

    let mut w1 = start_mqtt_worker(dir.path(), &broker, &db, "w1");
    let _w2 = start_mqtt_worker(dir.path(), &broker, &db, "w2");
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
    wait_for("w1 to settle messages", Duration::from_secs(60), || {
        read(dir.path(), "w1").matches("rejected").count() >= 30
    });
    w1.0.kill().unwrap();
    w1.0.wait().unwrap();
    let refused_before_kill = read(dir.path(), "w1").matches("rejected").count();
    let _w1 = start_mqtt_worker(dir.path(), &broker, &db, "w1");

    let sent = sent_report(sender, count);
    let n = |k: &str| sent[k].as_u64().unwrap();
    assert!(n("tampered") > 0 && n("replayed") > 0 && n("truncated") > 0);
    assert!(
        refused_before_kill < (n("tampered") + n("truncated")) as usize,
        "w1 was killed mid-stream, not after the end"
    );
    assert_exact_ledger(dir.path(), &["w1", "w2"], &db, &sent, count);
}

#[test]
fn malformed_envelopes_are_refused_with_a_reason_and_acknowledged() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = aes_key(dir.path());
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
    wait_for("the gateway to subscribe", Duration::from_secs(60), || {
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
    wait_for(
        "the gateway to exit after 3 messages",
        Duration::from_secs(60),
        || gw.0.try_wait().unwrap().is_some(),
    );
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
    let key = aes_key(dir.path()).display().to_string();
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
