//! Ascon-AEAD128 (SP 800-232): the Ascon team's known answers, agreement
//! with RustCrypto's `ascon-aead` crate at every length 0..300 (AD too),
//! forgeries refused. The slice form the AVR runs is held to the `u64` form
//! by the module's own tests (`both_forms_*`).
mod common;

use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
use ciphermeter_primitives::AsconAead128;
use proptest::prelude::*;

type Theirs = ascon_aead::AsconAead128;

#[test]
fn ascon_c_known_answers() {
    assert_eq!(
        common::check_aead_kats::<AsconAead128>("ascon_aead128.txt"),
        12
    );
}

/// The vectors are the crate's answers too (checked before they were taken).
#[test]
fn ascon_aead_crate_gives_the_same_known_answers() {
    assert_eq!(common::check_aead_kats::<Theirs>("ascon_aead128.txt"), 12);
}

fn agree(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], msg: &[u8]) -> Result<(), TestCaseError> {
    let ours = AsconAead128::new(&(*key).into());
    let theirs = Theirs::new(&(*key).into());
    let (n, tn) = (
        Nonce::<AsconAead128>::from(*nonce),
        Nonce::<Theirs>::from(*nonce),
    );
    let ct = ours.encrypt(&n, Payload { msg, aad: ad }).unwrap();
    prop_assert_eq!(&ct, &theirs.encrypt(&tn, Payload { msg, aad: ad }).unwrap());
    prop_assert_eq!(
        ours.decrypt(&n, Payload { msg: &ct, aad: ad }).unwrap(),
        msg
    );
    // Any flipped bit of ciphertext, tag or AD is refused.
    for i in [0, ct.len() / 2, ct.len().saturating_sub(17), ct.len() - 1] {
        let mut bad = ct.clone();
        bad[i] ^= 1 << (i % 8);
        let forged = ours.decrypt(&n, Payload { msg: &bad, aad: ad });
        prop_assert!(forged.is_err());
    }
    let mut other_ad = ad.to_vec();
    other_ad.push(0);
    let forged = ours.decrypt(
        &n,
        Payload {
            msg: &ct,
            aad: &other_ad,
        },
    );
    prop_assert!(forged.is_err());
    Ok(())
}

#[test]
fn every_length_to_300() {
    let key: [u8; 16] = core::array::from_fn(|i| i as u8 * 3);
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i ^ len) as u8).collect();
        let ad: Vec<u8> = (0..(len * 7) % 300).map(|i| i as u8).collect();
        agree(&key, &[len as u8; 16], &ad, &msg).unwrap();
    }
}

#[test]
fn refused_plaintext_is_wiped() {
    let a = AsconAead128::new(&[0x42; 16].into());
    let nonce = Nonce::<AsconAead128>::from([7; 16]);
    let mut buf: Vec<u8> = (0..40u8).collect();
    let tag = a
        .encrypt_inout_detached(&nonce, b"hdr", buf.as_mut_slice().into())
        .unwrap();
    let mut bad = tag;
    bad[0] ^= 0x80;
    assert!(
        a.decrypt_inout_detached(&nonce, b"hdr", buf.as_mut_slice().into(), &bad)
            .is_err()
    );
    assert!(buf.iter().all(|&b| b == 0));
}

#[test]
fn detached_and_in_place_agree() {
    let a = AsconAead128::new(&[0x42; 16].into());
    let nonce = Nonce::<AsconAead128>::from([7; 16]);
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
    fn agrees_with_the_ascon_aead_crate(key in any::<[u8; 16]>(), nonce in any::<[u8; 16]>(),
                                        ad in proptest::collection::vec(any::<u8>(), 0..300),
                                        msg in proptest::collection::vec(any::<u8>(), 0..300)) {
        agree(&key, &nonce, &ad, &msg)?;
    }
}
