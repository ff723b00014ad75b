//! How much the implementation matters: seals the same message with every
//! backend of an AEAD and prints the time per message. A quick look, not the
//! benchmark tool (no pinning, no statistics beyond the best of five runs).
//!
//! cargo run --release -p ciphermeter-catalogue --example backend_speed
//! cargo run --release -p ciphermeter-catalogue --example backend_speed -- aes-256-gcm 1024

use std::time::{Duration, Instant};

use ciphermeter_catalogue::{Params, catalogue};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cases: Vec<(String, usize)> = if args.len() == 2 {
        match args[1].parse() {
            Ok(len) => vec![(args[0].clone(), len)],
            Err(_) => {
                eprintln!("usage: backend_speed [ALGORITHM BYTES]");
                std::process::exit(2);
            }
        }
    } else {
        vec![
            ("aes-128-gcm".into(), 16 * 1024),
            ("chacha20-poly1305".into(), 64),
        ]
    };
    for (id, len) in cases {
        let Ok(entry) = catalogue().resolve(&id, None) else {
            eprintln!("unknown algorithm {id}");
            std::process::exit(2);
        };
        let key = vec![0x42; entry.key_sizes[0]];
        let nonce = vec![0x24; entry.nonce_sizes.first().copied().unwrap_or(0)];
        let message = vec![0x5A; len];
        let params = Params {
            iv: &nonce,
            ..Default::default()
        };
        println!(
            "{} at {len} bytes (encrypt, best of 5 runs of ~0.3 s):",
            entry.id
        );
        let mut baseline = None;
        for backend in entry.backends() {
            let mut cipher = entry.cipher(Some(backend), &key).expect("key setup");
            let mut out = Vec::with_capacity(len + 64);
            let mut seal = || {
                out.clear();
                cipher
                    .encrypt(&params, &message, &mut out)
                    .expect("encrypt");
            };
            // Calibrate a batch that takes about 0.3 s, then keep the best batch.
            let mut batch = 1u64;
            loop {
                let start = Instant::now();
                (0..batch).for_each(|_| seal());
                if start.elapsed() > Duration::from_millis(30) {
                    batch *= 10;
                    break;
                }
                batch *= 2;
            }
            let best = (0..5)
                .map(|_| {
                    let start = Instant::now();
                    (0..batch).for_each(|_| seal());
                    start.elapsed().as_secs_f64() / batch as f64
                })
                .fold(f64::INFINITY, f64::min);
            let base = *baseline.get_or_insert(best);
            println!(
                "  {:<12} {:>10.1} ns/msg {:>9.1} MB/s   {:>5.1}x rustcrypto",
                backend.as_str(),
                best * 1e9,
                len as f64 / best / 1e6,
                base / best
            );
        }
    }
}
