//! ChaCha20-Poly1305: RFC 8439 known answer, agreement with the
//! `chacha20poly1305` crate at every length 0..300, forgeries refused.
mod common;

use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
use ciphermeter_primitives::ChaCha20Poly1305;
use proptest::prelude::*;

type Theirs = chacha20poly1305::ChaCha20Poly1305;

#[test]
fn rfc8439_known_answer() {
    assert_eq!(
        common::check_aead_kats::<ChaCha20Poly1305>("chacha20poly1305.txt"),
        1
    );
}

fn agree(key: &[u8; 32], nonce: &[u8; 12], ad: &[u8], msg: &[u8]) -> Result<(), TestCaseError> {
    let ours = ChaCha20Poly1305::new(&(*key).into());
    let theirs = Theirs::new(&(*key).into());
    let (n, tn) = (
        Nonce::<ChaCha20Poly1305>::from(*nonce),
        Nonce::<Theirs>::from(*nonce),
    );
    let ct = ours.encrypt(&n, Payload { msg, aad: ad }).unwrap();
    prop_assert_eq!(&ct, &theirs.encrypt(&tn, Payload { msg, aad: ad }).unwrap());
    prop_assert_eq!(
        ours.decrypt(&n, Payload { msg: &ct, aad: ad }).unwrap(),
        msg
    );
    // Any flipped bit of ciphertext, tag or AD is refused.
    for i in [0, ct.len() / 2, ct.len() - 1] {
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
    let key: [u8; 32] = core::array::from_fn(|i| i as u8 * 3);
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i ^ len) as u8).collect();
        let ad: Vec<u8> = (0..len % 37).map(|i| i as u8).collect();
        agree(&key, &[len as u8; 12], &ad, &msg).unwrap();
    }
}

#[test]
fn detached_and_in_place_agree() {
    let a = ChaCha20Poly1305::new(&[0x42; 32].into());
    let nonce = Nonce::<ChaCha20Poly1305>::from([7; 12]);
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
    fn agrees_with_the_chacha20poly1305_crate(key in any::<[u8; 32]>(), nonce in any::<[u8; 12]>(),
                                              ad in proptest::collection::vec(any::<u8>(), 0..300),
                                              msg in proptest::collection::vec(any::<u8>(), 0..300)) {
        agree(&key, &nonce, &ad, &msg)?;
    }
}
