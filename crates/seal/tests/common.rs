//! Shared helpers for the seal tests.
#![allow(dead_code)]

use ciphermeter_seal::{Scheme, SealKey};

/// One scheme per pattern family, plus the interesting corners.
pub const SCHEMES: [&str; 10] = [
    "hmac:hmac-sha256",
    "hmac:hmac-sha3-512",
    "etm:aes-128-cbc+hmac-sha256",
    "etm:aes-256-ctr+hmac-sha512",
    "etm:chacha20+hmac-sha3-256",
    "aead:aes-256-gcm",
    "aead:aes-128-ccm",
    "aead:chacha20-poly1305",
    "aead:ascon-aead128",
    "aead:aes-128-eax",
];

/// A key with material derived from `seed`, so failures reproduce.
pub fn key(scheme: &str, seed: u8) -> SealKey {
    let scheme = Scheme::parse(scheme).unwrap();
    let material: Vec<u8> = (0..scheme.key_len())
        .map(|i| seed.wrapping_mul(31).wrapping_add(i as u8))
        .collect();
    SealKey::from_parts(scheme, vec![0xA0, seed, 2, 3, 4, 5, 6, 7], &material).unwrap()
}

pub fn nonce(scheme: &Scheme, seed: u8) -> Vec<u8> {
    (0..scheme.nonce_len())
        .map(|i| seed ^ (i as u8 * 7))
        .collect()
}
