//! Workers that die for good: a real RabbitMQ, two `gateway` workers consuming one
//! durable queue (competing consumers), `send` publishing ChirpStack-shaped uplinks to
//! the integration's exchange with tampered, replayed and truncated ones mixed in, and
//! one worker SIGKILLed mid-stream and never restarted. The broker hands what it had
//! not acknowledged to the survivor, so PostgreSQL ends with exactly the good uplinks,
//! each once, and every bad one is refused once under its reason.
//!
//! How a SIGKILL leaves the counts exact: `support::fleet`.
#![cfg(feature = "amqp")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin;
use testkit::{Postgres, RabbitMq};

mod support;
use support::fleet::*;

fn start_amqp_worker(dir: &Path, broker: &RabbitMq, db: &str, id: &str) -> Worker {
    let args = ["--envelope", "chirpstack", "--prefetch", "200"];
    start_worker(dir, id, &broker.url("uplinks"), db, &args)
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
    let key = aes_key(dir.path());

    let mut w1 = start_amqp_worker(dir.path(), &broker, &db, "w1");
    let w2 = start_amqp_worker(dir.path(), &broker, &db, "w2");
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
    wait_for("w1 to settle messages", Duration::from_secs(60), || {
        read(dir.path(), "w1").matches("rejected").count() >= 30
    });
    w1.0.kill().unwrap();
    w1.0.wait().unwrap();
    let refused_before_kill = read(dir.path(), "w1").matches("rejected").count();

    let sent = sent_report(sender, count);
    let n = |k: &str| sent[k].as_u64().unwrap();
    assert!(n("tampered") > 0 && n("replayed") > 0 && n("truncated") > 0);
    assert!(
        refused_before_kill < (n("tampered") + n("truncated")) as usize,
        "w1 was killed mid-stream, not after the end"
    );
    // w2 alone settles what w1 had not acknowledged: the broker redelivered it.
    assert_exact_ledger(dir.path(), &["w1", "w2"], &db, &sent, count);
    drop(w2);
}
