//! How fast `send`'s AMQP publisher and the gateway's consumer go against a RabbitMQ
//! node on this machine (testkit's throwaway node: Debian's server, default settings,
//! loopback), and the CPU each side spends: COUNT messages of 300 bytes published with
//! confirms to amq.topic, then consumed from a durable classic queue, each acknowledged
//! as it arrives (the consumer sends them on as one multiple ack per run), for
//! persistent and transient messages. A measurement, not a test: it fails only if a
//! count does not add up. Run by `scripts/bench-amqp [COUNT] [RUNS]` (release build).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ciphermeter_live::amqp::{AmqpSubscription, AmqpUrl, Consumer, Publisher, Received};
use testkit::RabbitMq;

const WAIT: Duration = Duration::from_secs(30);

fn main() {
    let mut args = std::env::args().skip(1);
    let mut number = |default: u64| -> u64 {
        match args.next() {
            None => default,
            Some(v) => v.parse().unwrap_or_else(|_| {
                eprintln!("usage: amqp_rates [COUNT] [RUNS] (got {v:?})");
                std::process::exit(2)
            }),
        }
    };
    let n = number(100_000);
    let runs = number(1);
    let Some(rabbit) = RabbitMq::start() else {
        return;
    };
    eprintln!(
        "RabbitMQ started in {:.1} s; {n} messages of 300 bytes per queue, {runs} run(s)",
        rabbit.started_in().as_secs_f64()
    );
    let beam = broker_pid(&rabbit);
    let me = std::process::id() as i32;
    let sub = AmqpSubscription::default();
    let mut rows = Vec::new();
    for run_no in 1..=runs {
        for (kind, persistent) in [("persistent", true), ("transient", false)] {
            let queue = format!("{kind}-{run_no}");
            let queue_url: AmqpUrl = rabbit.url(&queue).parse().unwrap();
            let key = format!("{queue}.key");
            let bound = AmqpSubscription {
                binding_key: key.clone(),
                ..sub.clone()
            };
            // The queue exists and is bound before anything is published.
            drop(Consumer::connect(&queue_url, &bound).unwrap());

            let mut p =
                Publisher::connect(&rabbit.url("amq.topic").parse().unwrap(), &key).unwrap();
            p.set_persistent(persistent);
            let (b0, m0) = (cpu_seconds(beam), cpu_seconds(me));
            let start = Instant::now();
            for _ in 0..n {
                p.publish(vec![b'x'; 300]).unwrap();
            }
            let confirmed = p.finish(n, Duration::from_secs(300));
            assert_eq!(confirmed, n, "{kind}: {confirmed} of {n} confirmed");
            let took = start.elapsed().as_secs_f64();
            let published = Side {
                rate: n as f64 / took,
                broker_us: (cpu_seconds(beam) - b0) / n as f64 * 1e6,
                client_us: (cpu_seconds(me) - m0) / n as f64 * 1e6,
            };
            eprintln!(
                "{queue}: published and confirmed {n} in {took:.2} s: {:.0}/s",
                published.rate
            );

            let consumer = run(Consumer::connect(&queue_url, &bound).unwrap());
            let (b0, m0) = (cpu_seconds(beam), cpu_seconds(me));
            let start = Instant::now();
            for i in 0..n {
                let r = consumer
                    .next(WAIT)
                    .unwrap_or_else(|| panic!("{kind}: message {i} of {n} not within {WAIT:?}"));
                r.delivery.ack();
            }
            let took = start.elapsed().as_secs_f64();
            let consumed = Side {
                rate: n as f64 / took,
                broker_us: (cpu_seconds(beam) - b0) / n as f64 * 1e6,
                client_us: (cpu_seconds(me) - m0) / n as f64 * 1e6,
            };
            eprintln!(
                "{queue}: consumed and acknowledged {n} in {took:.2} s: {:.0}/s",
                consumed.rate
            );
            assert!(
                consumer.next(Duration::from_millis(300)).is_none(),
                "{kind}: more than the {n} published"
            );
            consumer.stop();
            rows.push((queue, published, consumed));
        }
    }
    println!(
        "AMQP against RabbitMQ, {n} messages of 300 bytes per queue, prefetch {}; \
         CPU in µs a message",
        sub.prefetch
    );
    println!(
        "{:<14} {:>12} {:>10} {:>13} {:>11} {:>10} {:>12}",
        "queue",
        "published/s",
        "broker µs",
        "publisher µs",
        "consumed/s",
        "broker µs",
        "consumer µs"
    );
    for (queue, p, c) in &rows {
        println!(
            "{queue:<14} {:>12.0} {:>10.1} {:>13.1} {:>11.0} {:>10.1} {:>12.1}",
            p.rate, p.broker_us, p.client_us, c.rate, c.broker_us, c.client_us
        );
    }
}

/// One side of a run: messages a second, and the CPU the broker and this process
/// (the publisher or the consumer) spent per message meanwhile.
struct Side {
    rate: f64,
    broker_us: f64,
    client_us: f64,
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

/// CPU seconds (user + system) of process `pid`.
fn cpu_seconds(pid: i32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
        return 0.0;
    };
    let f: Vec<&str> = after.split(' ').collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (ticks(11) + ticks(12)) / hz
}

/// The node's Erlang VM: beam.smp in the process group its epmd leads.
fn broker_pid(rabbit: &RabbitMq) -> i32 {
    let needle = format!("-port {} ", rabbit.epmd_port());
    let mut group = None;
    let mut beams = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(&needle)
        {
            group = Some(pid);
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        if stat.contains("(beam.smp)") {
            let pgrp = stat[stat.rfind(')').unwrap() + 2..]
                .split(' ')
                .nth(2)
                .and_then(|v| v.parse::<i32>().ok());
            beams.push((pid, pgrp));
        }
    }
    let group = group.expect("the node's epmd");
    beams
        .into_iter()
        .find(|b| b.1 == Some(group))
        .expect("the node's beam.smp")
        .0
}
