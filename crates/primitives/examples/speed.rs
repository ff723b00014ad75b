//! Rough single-core ECB throughput of the in-project block ciphers, with the
//! RustCrypto `twofish` and `aes` crates for comparison. Not a benchmark suite
//! (ciphermeter's `measure` crate does that); a sanity check that the
//! table-driven Twofish is in the right league.
//!
//! Run: `cargo run --release -p ciphermeter-primitives --example speed`

use cipher::{Block, BlockCipherEncrypt, KeyInit};
use ciphermeter_primitives::*;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn mb_per_s<C: KeyInit + BlockCipherEncrypt>(key: &[u8]) -> f64 {
    let c = C::new_from_slice(key).unwrap();
    let bs = C::block_size();
    let mut buf = vec![0x5au8; 64 * 1024 / bs * bs];
    let mut bytes = 0usize;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(700) {
        for chunk in buf.chunks_exact_mut(bs) {
            let block: &mut Block<C> = chunk.try_into().unwrap();
            c.encrypt_block(block);
        }
        bytes += buf.len();
        black_box(&buf);
    }
    bytes as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn main() {
    let key = [7u8; 32];
    let rows: [(&str, f64); 10] = [
        (
            "twofish-128 (ciphermeter, full keying)",
            mb_per_s::<Twofish128>(&key[..16]),
        ),
        (
            "twofish-256 (ciphermeter, full keying)",
            mb_per_s::<Twofish256>(&key),
        ),
        (
            "twofish-128 (RustCrypto twofish 0.8)",
            mb_per_s::<::twofish::Twofish>(&key[..16]),
        ),
        (
            "twofish-256 (RustCrypto twofish 0.8)",
            mb_per_s::<::twofish::Twofish>(&key),
        ),
        (
            "aes-128 (RustCrypto aes 0.9)",
            mb_per_s::<aes::Aes128>(&key[..16]),
        ),
        ("rijndael-256/256", mb_per_s::<Rijndael256K256>(&key)),
        ("clefia-128", mb_per_s::<Clefia128>(&key[..16])),
        ("present-80", mb_per_s::<Present80>(&key[..10])),
        ("present-128", mb_per_s::<Present128>(&key[..16])),
        ("piccolo-80", mb_per_s::<Piccolo80>(&key[..10])),
    ];
    for (name, rate) in rows {
        println!("{name:<42} {rate:>8.1} MB/s");
    }
}
