//! Ascon-128 v1.2: designers' LWC KAT entries, forgery rejection and round trips.
mod common;

use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
use ciphermeter_primitives::Ascon128V12;
use proptest::prelude::*;

#[test]
fn known_answers() {
    assert_eq!(common::check_aead_kats::<Ascon128V12>("ascon128v12.txt"), 7);
}

#[test]
fn detached_and_in_place_agree() {
    let a = Ascon128V12::new(&[0x42; 16].into());
    let nonce = Nonce::<Ascon128V12>::from([7; 16]);
    let msg: Vec<u8> = (0..100u8).collect();
    let combined = a
        .encrypt(
            &nonce,
            Payload {
                msg: &msg,
                aad: b"hdr",
            },
        )
        .unwrap();
    let mut buf = msg.clone();
    let tag = a
        .encrypt_inout_detached(&nonce, b"hdr", buf.as_mut_slice().into())
        .unwrap();
    assert_eq!([buf.as_slice(), tag.as_slice()].concat(), combined);
}

proptest! {
    #[test]
    fn round_trip(key in any::<[u8; 16]>(), nonce in any::<[u8; 16]>(),
                  ad in proptest::collection::vec(any::<u8>(), 0..64),
                  msg in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let a = Ascon128V12::new(&key.into());
        let nonce = Nonce::<Ascon128V12>::from(nonce);
        let ct = a.encrypt(&nonce, Payload { msg: &msg, aad: &ad }).unwrap();
        prop_assert_eq!(ct.len(), msg.len() + 16);
        let pt = a.decrypt(&nonce, Payload { msg: &ct, aad: &ad }).unwrap();
        prop_assert_eq!(pt, msg);
        // Changing the associated data must break authentication.
        let mut other = ad.clone();
        other.push(1);
        let forged = a.decrypt(&nonce, Payload { msg: &ct, aad: &other });
        prop_assert!(forged.is_err());
    }
}
