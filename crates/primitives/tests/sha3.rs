//! SHA3-256/512: FIPS 202 / NIST example known answers, agreement with the
//! `sha3` crate for every length 0..300 in any split, HMAC through `hmac`.
mod common;

use ciphermeter_primitives::{Sha3_256, Sha3_512};
use digest::{Digest, KeyInit, Mac};
use proptest::prelude::*;

fn check<D: Digest>(prefix: &str) -> usize {
    let mut n = 0;
    for r in common::records("sha3.txt") {
        if !r["name"].starts_with(prefix) {
            continue;
        }
        let (msg, md) = (common::field(&r, "msg"), common::field(&r, "md"));
        assert_eq!(
            hex::encode(D::digest(&msg)),
            hex::encode(&md),
            "{}",
            r["name"]
        );
        // Byte by byte through the buffer gives the same.
        let mut d = D::new();
        for b in &msg {
            d.update([*b]);
        }
        assert_eq!(
            d.finalize().as_slice(),
            md.as_slice(),
            "{} bytewise",
            r["name"]
        );
        n += 1;
    }
    n
}

#[test]
fn fips202_known_answers() {
    assert_eq!(check::<Sha3_256>("sha3-256-"), 3);
    assert_eq!(check::<Sha3_512>("sha3-512-"), 3);
}

/// Ours fed in two pieces split at `cut`, theirs in one.
fn agree<A: Digest, B: Digest>(msg: &[u8], cut: usize) {
    let cut = cut.min(msg.len());
    let mut a = A::new();
    a.update(&msg[..cut]);
    a.update(&msg[cut..]);
    assert_eq!(
        a.finalize().as_slice(),
        B::digest(msg).as_slice(),
        "len {} cut {cut}",
        msg.len()
    );
}

#[test]
fn every_length_to_300() {
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i * 13 + len) as u8).collect();
        for cut in [0, 1, len / 2, 71, 72, 135, 136, 137, len] {
            agree::<Sha3_256, sha3::Sha3_256>(&msg, cut);
            agree::<Sha3_512, sha3::Sha3_512>(&msg, cut);
        }
    }
}

#[test]
fn reset_and_finalize_reset_start_over() {
    let mut d = Sha3_256::new();
    d.update(b"junk");
    Digest::reset(&mut d);
    d.update(b"abc");
    let first = d.finalize_reset();
    d.update(b"abc");
    assert_eq!(first, d.finalize());
    assert_eq!(first, sha3::Sha3_256::digest(b"abc"));
}

#[test]
fn hmac_agrees() {
    for key_len in [0, 16, 72, 136, 137, 200] {
        let key: Vec<u8> = (0..key_len).map(|i| i as u8).collect();
        let msg = b"The quick brown fox jumps over the lazy dog";
        let mut ours = hmac::SimpleHmac::<Sha3_256>::new_from_slice(&key).unwrap();
        ours.update(msg);
        let mut theirs = hmac::SimpleHmac::<sha3::Sha3_256>::new_from_slice(&key).unwrap();
        theirs.update(msg);
        assert_eq!(ours.finalize().into_bytes(), theirs.finalize().into_bytes());
        let mut ours = hmac::SimpleHmac::<Sha3_512>::new_from_slice(&key).unwrap();
        ours.update(msg);
        let mut theirs = hmac::SimpleHmac::<sha3::Sha3_512>::new_from_slice(&key).unwrap();
        theirs.update(msg);
        assert_eq!(ours.finalize().into_bytes(), theirs.finalize().into_bytes());
    }
}

proptest! {
    #[test]
    fn agrees_with_the_sha3_crate(msg in proptest::collection::vec(any::<u8>(), 0..300),
                                  cut in 0usize..300) {
        agree::<Sha3_256, sha3::Sha3_256>(&msg, cut);
        agree::<Sha3_512, sha3::Sha3_512>(&msg, cut);
    }
}
