//! Word-parallel ACORN-128 v3: the specification's vectors (the same file as
//! the bit-serial one), agreement with the bit-serial implementation on
//! random inputs, forgery rejection.
mod common;

use aead::{Aead, KeyInit, Nonce, Payload};
use ciphermeter_primitives::{Acorn128, Acorn128Wide};
use proptest::prelude::*;

#[test]
fn known_answers() {
    assert_eq!(common::check_aead_kats::<Acorn128Wide>("acorn128.txt"), 5);
}

/// A fixed-seed generator (xorshift64*), so a failure names its inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Every message length 0..=70 (whole words, and 1 to 3 bytes past them),
/// some long ones, AD lengths 0..=9 and longer: both implementations give
/// the same ciphertext and tag, and each opens the other's output.
#[test]
fn agrees_with_the_bit_serial_implementation() {
    let mut rng = Rng(0x0ac0_1283_2016_0003);
    let lengths = (0..=70).chain([127, 128, 129, 255, 1021, 1024, 4099]);
    for (i, n) in lengths.enumerate() {
        let key: [u8; 16] = rng.bytes(16).try_into().unwrap();
        let nonce = Nonce::<Acorn128>::try_from(rng.bytes(16).as_slice()).unwrap();
        let ad_len = if i % 4 == 3 { 33 + i % 7 } else { i % 10 };
        let (ad, msg) = (rng.bytes(ad_len), rng.bytes(n));
        let serial = Acorn128::new(&key.into());
        let wide = Acorn128Wide::new(&key.into());
        let payload = || Payload {
            msg: &msg,
            aad: &ad,
        };
        let a = serial.encrypt(&nonce, payload()).unwrap();
        let b = wide.encrypt(&nonce, payload()).unwrap();
        assert_eq!(a, b, "message {n} bytes, AD {ad_len} bytes");
        let opened = wide.decrypt(&nonce, Payload { msg: &a, aad: &ad });
        assert_eq!(opened.unwrap(), msg, "open, message {n} bytes");
        // One flipped bit anywhere is refused.
        let mut bad = a.clone();
        let at = rng.next() as usize % bad.len();
        bad[at] ^= 1 << (rng.next() % 8);
        assert!(
            wide.decrypt(
                &nonce,
                Payload {
                    msg: &bad,
                    aad: &ad
                }
            )
            .is_err()
        );
    }
}

proptest! {
    #[test]
    fn round_trip_and_agreement(key in any::<[u8; 16]>(), nonce in any::<[u8; 16]>(),
                  ad in proptest::collection::vec(any::<u8>(), 0..64),
                  msg in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let wide = Acorn128Wide::new(&key.into());
        let nonce = Nonce::<Acorn128Wide>::from(nonce);
        let ct = wide.encrypt(&nonce, Payload { msg: &msg, aad: &ad }).unwrap();
        let serial = Acorn128::new(&key.into())
            .encrypt(&nonce, Payload { msg: &msg, aad: &ad })
            .unwrap();
        prop_assert_eq!(&ct, &serial);
        let pt = wide.decrypt(&nonce, Payload { msg: &ct, aad: &ad }).unwrap();
        prop_assert_eq!(pt, msg);
        let mut other = ad.clone();
        other.push(1);
        let forged = wide.decrypt(&nonce, Payload { msg: &ct, aad: &other });
        prop_assert!(forged.is_err());
    }
}
