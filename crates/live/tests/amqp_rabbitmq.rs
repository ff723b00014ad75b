//! AMQP against a real RabbitMQ node (testkit): what the publisher sends arrives once
//! each, acknowledgements reach the broker, competing consumers share a queue, and a
//! consumer that dies or closes without acknowledging hands its messages to the others.
#![cfg(feature = "amqp")]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ciphermeter_live::amqp::{
    AmqpSubscription, AmqpUrl, Consumer, Publisher, Received, chirpstack_routing_key,
};
use testkit::RabbitMq;

const APP: &str = "00000000-0000-0000-0000-000000000000";
const EUI: &str = "0102030405060708";
const WAIT: Duration = Duration::from_secs(30);

fn url(rabbit: &RabbitMq, name: &str) -> AmqpUrl {
    rabbit.url(name).parse().unwrap()
}

/// An uplink-sized message numbered `i`.
fn message(i: u64) -> Vec<u8> {
    format!("{{\"i\":{i},\"pad\":\"{}\"}}", "x".repeat(200)).into_bytes()
}

fn number(payload: &[u8]) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(payload).unwrap();
    v["i"].as_u64().unwrap()
}

/// Publishes messages `range` to amq.topic with ChirpStack's key; all must be confirmed.
fn publish(rabbit: &RabbitMq, range: std::ops::Range<u64>) {
    let key = chirpstack_routing_key(APP, EUI);
    let p = Publisher::connect(&url(rabbit, "amq.topic"), &key).unwrap();
    let n = range.end - range.start;
    for i in range {
        p.publish(message(i)).unwrap();
    }
    let confirms = p.finish_counts(n, WAIT);
    assert_eq!(
        (confirms.confirmed, confirms.unroutable, confirms.nacked),
        (n, 0, 0),
        "{}",
        rabbit.log()
    );
}

/// A consumer running on its own thread, handing each message over a channel.
struct Running {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    rx: Receiver<Received>,
}

fn run(consumer: Consumer) -> Running {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let s = stop.clone();
    let thread = std::thread::spawn(move || consumer.run(&s, |r| tx.send(r).is_ok()));
    Running {
        stop,
        thread: Some(thread),
        rx,
    }
}

impl Running {
    /// The next message, or None after `quiet` without one.
    fn next(&self, quiet: Duration) -> Option<Received> {
        self.rx.recv_timeout(quiet).ok()
    }

    fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[test]
fn every_published_message_is_consumed_once_and_acknowledged() {
    let Some(rabbit) = RabbitMq::start() else {
        return;
    };
    eprintln!(
        "RabbitMQ started in {:.1} s",
        rabbit.started_in().as_secs_f64()
    );
    let queue = url(&rabbit, "uplinks");
    let sub = AmqpSubscription::default();
    // The queue exists and is bound before anything is published.
    let first = Consumer::connect(&queue, &sub).unwrap();

    // A publish nobody's binding matches comes back, and is not counted as confirmed.
    let stray = Publisher::connect(
        &url(&rabbit, "amq.topic"),
        "application.x.device.y.event.join",
    )
    .unwrap();
    for i in 0..10 {
        stray.publish(message(i)).unwrap();
    }
    let c = stray.finish_counts(10, WAIT);
    assert_eq!((c.confirmed, c.unroutable, c.nacked), (0, 10, 0));
    // An exchange that does not exist is an error naming it.
    let err = Publisher::connect(&url(&rabbit, "no-such-exchange"), "k")
        .err()
        .expect("no such exchange");
    assert!(err.to_string().contains("no-such-exchange"), "{err}");

    // N messages in the queue, then one consumer takes them all, acknowledging each.
    const N: u64 = 5_000;
    publish(&rabbit, 0..N);
    let consumer = run(first);
    let mut seen = BTreeSet::new();
    let start = Instant::now();
    while (seen.len() as u64) < N {
        let r = consumer.next(WAIT).expect("a message within the wait");
        assert!(!r.redelivered);
        assert_eq!(r.routing_key, chirpstack_routing_key(APP, EUI));
        assert!(
            seen.insert(number(&r.payload)),
            "twice: {}",
            number(&r.payload)
        );
        r.delivery.ack();
    }
    let took = start.elapsed();
    eprintln!(
        "consumed and acknowledged {N} messages in {:.2} s: {:.0}/s (debug test build, \
         prefetch {})",
        took.as_secs_f64(),
        N as f64 / took.as_secs_f64(),
        sub.prefetch
    );
    assert_eq!(seen, (0..N).collect());
    assert!(consumer.next(Duration::from_millis(300)).is_none());
    consumer.stop();

    // Two competing consumers share the next messages: each one to exactly one of them.
    const M: u64 = 2_000;
    let a = run(Consumer::connect(&queue, &sub).unwrap());
    let b = run(Consumer::connect(&queue, &sub).unwrap());
    publish(&rabbit, N..N + M);
    let mut by = [BTreeSet::new(), BTreeSet::new()];
    let end = Instant::now() + WAIT;
    while by[0].len() + by[1].len() < M as usize && Instant::now() < end {
        for (k, c) in [&a, &b].into_iter().enumerate() {
            while let Some(r) = c.next(Duration::from_millis(1)) {
                assert!(by[k].insert(number(&r.payload)));
                r.delivery.ack();
            }
        }
    }
    a.stop();
    b.stop();
    assert!(by[0].is_disjoint(&by[1]));
    let all: BTreeSet<u64> = by[0].union(&by[1]).copied().collect();
    assert_eq!(all, (N..N + M).collect());
    assert!(
        !by[0].is_empty() && !by[1].is_empty(),
        "shares {} and {}",
        by[0].len(),
        by[1].len()
    );

    // Every acknowledgement reached the broker: a new consumer finds the queue empty.
    let last = run(Consumer::connect(&queue, &sub).unwrap());
    assert!(last.next(Duration::from_secs(1)).is_none());
    last.stop();
}

/// The environment a child worker reads (see `child_worker_holds_its_prefetch`).
const CHILD_URL: &str = "CM_AMQP_CHILD_URL";
const HOLDING: &str = "child worker holding";

/// Not a test of its own: run by `a_dead_consumers_messages_go_to_the_other` in a child
/// process, which it then kills with SIGKILL. Takes a prefetch's worth of messages,
/// acknowledges none, says so and waits to be killed.
#[test]
#[ignore = "a helper the redelivery test runs in a child process"]
fn child_worker_holds_its_prefetch() {
    let Ok(queue) = std::env::var(CHILD_URL) else {
        return;
    };
    let sub = AmqpSubscription {
        prefetch: 40,
        ..AmqpSubscription::default()
    };
    let consumer = Consumer::connect(&queue.parse().unwrap(), &sub).unwrap();
    let stop = AtomicBool::new(false);
    let mut held = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    consumer.run(&stop, |r| {
        held.push(r.delivery);
        if held.len() == 40 {
            println!("{HOLDING} {}", held.len());
        }
        // Bounded even if nobody kills it.
        Instant::now() < deadline
    });
}

/// Kills the child on drop, so a failing test leaves no worker behind.
struct Worker(Child);

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_dead_consumers_messages_go_to_the_other() {
    let Some(rabbit) = RabbitMq::start() else {
        return;
    };
    let queue = url(&rabbit, "uplinks");
    let sub = AmqpSubscription {
        prefetch: 50,
        ..AmqpSubscription::default()
    };
    // Declared and bound before publishing.
    drop(Consumer::connect(&queue, &sub).unwrap());
    publish(&rabbit, 0..200);

    // A worker process takes 40 without acknowledging and is SIGKILLed: the broker
    // hands those 40 to the next consumer, marked redelivered.
    let mut child = Worker(
        Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "child_worker_holds_its_prefetch",
                "--include-ignored",
                "--nocapture",
            ])
            .env(CHILD_URL, queue.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let out = BufReader::new(child.0.stdout.take().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if line.starts_with(HOLDING) {
                let _ = tx.send(line);
            }
        }
    });
    let line = rx
        .recv_timeout(WAIT)
        .expect("the child worker took its prefetch");
    assert_eq!(line, format!("{HOLDING} 40"));
    child.0.kill().unwrap();
    child.0.wait().unwrap();

    // The next worker takes 50 (its prefetch): the dead worker's 40 come first, then 10
    // never delivered. It acknowledges 20 and closes without acknowledging the other 30.
    let a = run(Consumer::connect(&queue, &sub).unwrap());
    let mut redelivered = BTreeSet::new();
    let mut fresh = BTreeSet::new();
    let mut taken = Vec::new();
    while taken.len() < 50 {
        let r = a.next(WAIT).expect("a message within the wait");
        let i = number(&r.payload);
        if r.redelivered {
            redelivered.insert(i);
        } else {
            fresh.insert(i);
        }
        taken.push((i, r.delivery));
    }
    assert_eq!(redelivered, (0..40).collect(), "the dead worker's messages");
    assert_eq!(fresh, (40..50).collect());
    // With its prefetch used up, the broker sends it nothing more.
    assert!(a.next(Duration::from_millis(500)).is_none());
    let acked: BTreeSet<u64> = taken.iter().take(20).map(|(i, _)| *i).collect();
    for (_, d) in taken.drain(..20) {
        d.ack();
    }
    // The acknowledgements go out; then the broker sends 20 more (prefetch freed).
    let mut more = BTreeSet::new();
    while more.len() < 20 {
        let r = a.next(WAIT).expect("20 more after acknowledging 20");
        assert!(!r.redelivered);
        more.insert(number(&r.payload));
    }
    assert_eq!(more, (50..70).collect());
    a.stop();
    let unacked: BTreeSet<u64> = taken.iter().map(|(i, _)| *i).chain(more).collect();
    assert_eq!(unacked.len(), 50);
    // Acknowledging after the consumer closed does nothing (they are back in the queue).
    for (_, d) in taken {
        d.ack();
    }

    // The last worker gets everything not acknowledged, each once: the closed worker's
    // 50 redelivered, the 130 never delivered as they are.
    let b = run(Consumer::connect(&queue, &sub).unwrap());
    let mut got = BTreeSet::new();
    let mut again = BTreeSet::new();
    while got.len() < 180 {
        let r = b.next(WAIT).expect("a message within the wait");
        let i = number(&r.payload);
        assert!(got.insert(i), "twice: {i}");
        if r.redelivered {
            again.insert(i);
        }
        r.delivery.ack();
    }
    assert!(b.next(Duration::from_millis(500)).is_none());
    b.stop();
    assert_eq!(again, unacked);
    assert!(got.is_disjoint(&acked));
    let expected: BTreeSet<u64> = (0..200).filter(|i| !acked.contains(i)).collect();
    assert_eq!(got, expected);
}
