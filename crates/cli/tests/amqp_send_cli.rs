//! `send --to amqp://…` against a real RabbitMQ (testkit): it publishes as ChirpStack's
//! AMQP integration does (exchange amq.topic, routing key
//! application.APP.device.DEVEUI.event.up, the uplink event as JSON), every message
//! confirmed; what the library's consumer takes off the bound queue is exactly what was
//! sent. Flags that do not fit the destination exit 2.
#![cfg(feature = "amqp")]

use std::collections::BTreeSet;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use assert_cmd::cargo::cargo_bin;
use live::amqp::{AmqpSubscription, Consumer, Received, SEND_APPLICATION_ID};
use live::envelope::Envelope;
use serde_json::Value;
use testkit::RabbitMq;

mod support;
use support::live::keygen;

fn send(args: &[&str]) -> Output {
    Command::new(cargo_bin("ciphermeter"))
        .arg("send")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// A message as the consumer took it off the queue.
struct Got {
    payload: Vec<u8>,
    routing_key: String,
    redelivered: bool,
}

/// Takes every message off `queue` until none comes for a second, acknowledging each.
fn drain(rabbit: &RabbitMq, queue: &str) -> Vec<Got> {
    let consumer = Consumer::connect(
        &rabbit.url(queue).parse().unwrap(),
        &AmqpSubscription::default(),
    )
    .unwrap();
    let (tx, rx) = mpsc::channel::<Received>();
    let stop = AtomicBool::new(false);
    let mut got = Vec::new();
    std::thread::scope(|s| {
        s.spawn(|| consumer.run(&stop, |r| tx.send(r).is_ok()));
        while let Ok(r) = rx.recv_timeout(Duration::from_secs(1)) {
            r.delivery.ack();
            got.push(Got {
                payload: r.payload,
                routing_key: r.routing_key,
                redelivered: r.redelivered,
            });
        }
        stop.store(true, Ordering::Relaxed);
    });
    got
}

#[test]
fn send_publishes_chirpstack_uplinks_that_a_consumer_takes_exactly_once() {
    let Some(rabbit) = RabbitMq::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "key.json").display().to_string();
    // The gateway's side first: the queue, bound to amq.topic for every device's uplinks.
    drop(
        Consumer::connect(
            &rabbit.url("uplinks").parse().unwrap(),
            &AmqpSubscription::default(),
        )
        .unwrap(),
    );

    const N: u64 = 500;
    let out = send(&[
        "--to",
        &rabbit.url("amq.topic"),
        "--envelope",
        "chirpstack",
        "--key-file",
        &key,
        "--sample",
        "chain:10",
        "--count",
        &N.to_string(),
        "--seed",
        "3",
        "--ack-wait",
        "30",
    ]);
    assert!(
        out.status.success(),
        "send failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        rabbit.log()
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["sent"], N);
    assert_eq!(report["acked"], N, "every message confirmed: {report}");

    let got = drain(&rabbit, "uplinks");
    assert_eq!(got.len() as u64, N, "exactly what was sent");
    let mut ids = BTreeSet::new();
    let mut counters = BTreeSet::new();
    let mut euis = BTreeSet::new();
    for r in &got {
        assert!(!r.redelivered);
        // ChirpStack's uplink event in its JSON mapping, the sealed reading in `data`.
        let event: Value = serde_json::from_slice(&r.payload).unwrap();
        let eui = event["deviceInfo"]["devEui"].as_str().unwrap().to_string();
        assert_eq!(eui.len(), 16, "{event}");
        assert!(eui.bytes().all(|b| b.is_ascii_hexdigit()), "{event}");
        assert_eq!(event["fPort"], 1);
        assert_eq!(
            r.routing_key,
            format!("application.{SEND_APPLICATION_ID}.device.{eui}.event.up")
        );
        let up = Envelope::ChirpStack.open(&r.payload).unwrap();
        let sealed: Value = serde_json::from_slice(&up.sealed).expect("a json container");
        assert!(sealed.is_object(), "{sealed}");
        assert!(ids.insert(up.id.expect("a deduplicationId")));
        assert!(counters.insert(event["fCnt"].as_u64().unwrap_or(0)));
        euis.insert(eui);
    }
    assert_eq!(counters, (0..N).collect(), "fCnt 0..N, each once");
    assert_eq!(euis.len(), 1, "one device: one key");

    // --routing-key replaces ChirpStack's key; raw sends the sealed message as it is.
    let key_of = "application.farm-7.device.00aa00aa00aa00aa.event.up";
    let out = send(&[
        "--to",
        &rabbit.url("amq.topic"),
        "--routing-key",
        key_of,
        "--key-file",
        &key,
        "--sample",
        "chain:10",
        "--count",
        "20",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = drain(&rabbit, "uplinks");
    assert_eq!(got.len(), 20);
    for r in &got {
        assert_eq!(r.routing_key, key_of);
        let sealed: Value = serde_json::from_slice(&r.payload).expect("the sealed message");
        assert!(sealed.is_object());
    }

    // A key no binding matches: the broker takes the messages into no queue, and send
    // says so and fails instead of reporting them delivered.
    let out = send(&[
        "--to",
        &rabbit.url("amq.topic"),
        "--routing-key",
        "application.x.device.y.event.join",
        "--key-file",
        &key,
        "--sample",
        "chain:10",
        "--count",
        "5",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["sent"].as_u64(), report["acked"].as_u64()),
        (Some(5), Some(0))
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("taken by no queue"), "{err}");
    assert!(drain(&rabbit, "uplinks").is_empty());

    // An exchange that does not exist is named in the error.
    let out = send(&[
        "--to",
        &rabbit.url("no-such-exchange"),
        "--key-file",
        &key,
        "--sample",
        "chain:10",
        "--count",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-exchange"), "{err}");
}

#[test]
fn amqp_flags_that_do_not_fit_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "key.json").display().to_string();
    let sample = ["--sample", "chain:10", "--count", "1"];
    for (to, extra, says) in [
        (
            "udp://127.0.0.1:9",
            vec!["--routing-key", "k"],
            "--routing-key is for amqp://",
        ),
        (
            "mqtt://127.0.0.1:1883/t",
            vec!["--routing-key", "k"],
            "--routing-key is for amqp://",
        ),
        (
            "coap://127.0.0.1:5683",
            vec!["--container", "oscore", "--routing-key", "k"],
            "--routing-key do not apply to coap://",
        ),
        ("amqp://127.0.0.1:5672", vec![], "name after HOST:PORT/"),
        ("amqp://127.0.0.1:5672/a/b", vec![], "name after HOST:PORT/"),
        ("amqp://127.0.0.1:0/amq.topic", vec![], "port"),
        (
            "amqp://guest:guest@127.0.0.1:5672/amq.topic",
            vec![],
            "CIPHERMETER_AMQP_USER",
        ),
    ] {
        let mut args = vec!["--to", to, "--key-file", &key];
        args.extend(sample);
        args.extend(extra.iter().copied());
        let out = send(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to} {extra:?}: {err}");
        assert!(err.contains(says), "{to} {extra:?}: {err}");
    }
    // Too long a routing key, to a port where no broker listens: refused before connecting.
    let k = "k".repeat(256);
    let mut args = vec!["--to", "amqp://127.0.0.1:1/amq.topic", "--key-file", &key];
    args.extend(sample);
    args.extend(["--routing-key", k.as_str()]);
    let out = send(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than 255"));
    // No broker there: a failure of the machine (exit 1), naming the endpoint.
    let mut args = vec!["--to", "amqp://127.0.0.1:1/amq.topic", "--key-file", &key];
    args.extend(sample);
    let out = send(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("amqp://127.0.0.1:1/amq.topic"));
}
