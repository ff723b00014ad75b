//! Nonces never repeat: random ones across many seals, counter ones across
//! processes and reloads; a missing counter file stops sealing.

mod common;

use std::collections::HashSet;

use ciphermeter_seal::{
    Container, CounterNonces, HostSealer, NoncePolicy, NonceSource, RandomNonces, Scheme, SealKey,
    counter_path, source_for,
};
use proptest::prelude::*;

fn json_iv(message: &[u8]) -> String {
    let value: serde_json::Value = serde_json::from_slice(message).unwrap();
    value["iv"].as_str().unwrap().to_string()
}

#[test]
fn random_nonces_do_not_repeat_across_many_seals() {
    let key = SealKey::generate(
        Scheme::parse("aead:aes-128-gcm").unwrap(),
        NoncePolicy::Random,
    )
    .unwrap();
    let mut sealer = HostSealer::new(&key, false).unwrap();
    let mut source = source_for(&key).unwrap();
    let mut seen = HashSet::new();
    for _ in 0..10_000 {
        let nonce = source.next_nonce(key.scheme.nonce_len()).unwrap();
        let message = sealer.seal(Container::Json, &nonce, b"r", b"").unwrap();
        assert!(seen.insert(json_iv(&message)), "a nonce repeated");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn counter_nonces_are_distinct_and_survive_reloads(batches in proptest::collection::vec(1usize..40, 1..6)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.key");
        let mut key = SealKey::generate(Scheme::parse("aead:chacha20-poly1305").unwrap(), NoncePolicy::Counter).unwrap();
        key.save(&path, false).unwrap();
        let mut seen = HashSet::new();
        for batch in batches {
            // A fresh load per batch: a new process in real life.
            let key = SealKey::load(&path).unwrap();
            let mut source = source_for(&key).unwrap();
            for _ in 0..batch {
                let nonce = source.next_nonce(12).unwrap();
                prop_assert!(seen.insert(nonce), "counter repeated");
            }
        }
    }
}

#[test]
fn counter_is_reserved_on_disk_before_use() {
    let dir = tempfile::tempdir().unwrap();
    let counter = dir.path().join("c");
    std::fs::write(&counter, "41\n").unwrap();
    let nonce = CounterNonces::new(counter.clone()).next_nonce(12).unwrap();
    assert_eq!(nonce, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 41]);
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "42\n");
}

#[test]
fn missing_or_corrupt_counter_stops_sealing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    let mut key = SealKey::generate(
        Scheme::parse("aead:aes-256-gcm").unwrap(),
        NoncePolicy::Counter,
    )
    .unwrap();
    key.save(&path, false).unwrap();
    std::fs::remove_file(counter_path(&path)).unwrap();
    let key = SealKey::load(&path).unwrap();
    assert!(source_for(&key).is_err());
    std::fs::write(counter_path(&path), "garbage").unwrap();
    assert!(source_for(&key).unwrap().next_nonce(12).is_err());
}

#[test]
fn counter_policy_is_refused_where_ivs_must_be_unpredictable() {
    let scheme = Scheme::parse("etm:aes-128-cbc+hmac-sha256").unwrap();
    assert!(SealKey::generate(scheme, NoncePolicy::Counter).is_err());
}

#[test]
fn random_source_gives_the_asked_length() {
    assert_eq!(RandomNonces.next_nonce(24).unwrap().len(), 24);
    assert_ne!(
        RandomNonces.next_nonce(16).unwrap(),
        RandomNonces.next_nonce(16).unwrap()
    );
}
