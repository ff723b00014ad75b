//! AES-GCM (ours, Shoup 4-bit tables): McGrew & Viega's test cases,
//! agreement with the `aes-gcm` crate at every length 0..300 and on random
//! inputs, forgeries refused.
mod common;

use aead::{Aead, AeadInOut, KeyInit, Nonce, Payload};
use ciphermeter_primitives::{Aes128Gcm, Aes256Gcm};
use proptest::prelude::*;

#[test]
fn mcgrew_viega_test_cases_1_to_4() {
    assert_eq!(common::check_aead_kats::<Aes128Gcm>("aes128gcm.txt"), 4);
}

#[test]
fn mcgrew_viega_test_cases_13_to_16() {
    assert_eq!(common::check_aead_kats::<Aes256Gcm>("aes256gcm.txt"), 4);
}

/// Our GCM and `aes-gcm` (over the `aes` crate) on the same input: same
/// ciphertext and tag; ours opens it, and refuses flipped ciphertext, tag
/// or AD bits (and a separate-buffer decrypt leaves its output untouched).
fn agree<Ours, Theirs>(
    key: &[u8],
    nonce: &[u8; 12],
    ad: &[u8],
    msg: &[u8],
) -> Result<(), TestCaseError>
where
    Ours: KeyInit + AeadInOut,
    Theirs: KeyInit + AeadInOut,
{
    let ours = Ours::new_from_slice(key).unwrap();
    let theirs = Theirs::new_from_slice(key).unwrap();
    let n = Nonce::<Ours>::try_from(&nonce[..]).unwrap();
    let tn = Nonce::<Theirs>::try_from(&nonce[..]).unwrap();
    let ct = ours.encrypt(&n, Payload { msg, aad: ad }).unwrap();
    prop_assert_eq!(&ct, &theirs.encrypt(&tn, Payload { msg, aad: ad }).unwrap());
    prop_assert_eq!(
        ours.decrypt(&n, Payload { msg: &ct, aad: ad }).unwrap(),
        msg
    );
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
    // Separate in and out buffers, tag wrong: the output is zeroed.
    let (body, tag) = ct.split_at(ct.len() - 16);
    let mut bad_tag = aead::Tag::<Ours>::try_from(tag).unwrap();
    bad_tag[15] ^= 0x80;
    let mut out = vec![0xa5u8; body.len()];
    let buf = aead::inout::InOutBuf::new(body, &mut out).unwrap();
    prop_assert!(ours.decrypt_inout_detached(&n, ad, buf, &bad_tag).is_err());
    prop_assert!(out.iter().all(|&b| b == 0));
    Ok(())
}

#[test]
fn every_length_to_300() {
    let k128: [u8; 16] = core::array::from_fn(|i| i as u8 * 7);
    let k256: [u8; 32] = core::array::from_fn(|i| 0xff - i as u8 * 3);
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i ^ len) as u8).collect();
        let ad: Vec<u8> = (0..len % 37).map(|i| i as u8).collect();
        // Nonces near the inc32 byte carries.
        let mut nonce = [len as u8; 12];
        nonce[11] = 0xff;
        agree::<Aes128Gcm, aes_gcm::Aes128Gcm>(&k128, &nonce, &ad, &msg).unwrap();
        agree::<Aes256Gcm, aes_gcm::Aes256Gcm>(&k256, &nonce, &ad, &msg).unwrap();
    }
}

#[test]
fn detached_and_combined_agree() {
    let a = Aes128Gcm::new(&[0x42; 16].into());
    let nonce = Nonce::<Aes128Gcm>::from([7; 12]);
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

#[test]
fn generic_over_the_aes_crate_too() {
    let key = [9u8; 16];
    let nonce = [3u8; 12];
    let msg = [0x5au8; 77];
    agree::<ciphermeter_primitives::Gcm<aes::Aes128>, aes_gcm::Aes128Gcm>(&key, &nonce, b"x", &msg)
        .unwrap();
}

proptest! {
    #[test]
    fn agrees_with_aes_gcm_128(key in any::<[u8; 16]>(), nonce in any::<[u8; 12]>(),
                               ad in proptest::collection::vec(any::<u8>(), 0..300),
                               msg in proptest::collection::vec(any::<u8>(), 0..300)) {
        agree::<Aes128Gcm, aes_gcm::Aes128Gcm>(&key, &nonce, &ad, &msg)?;
    }

    #[test]
    fn agrees_with_aes_gcm_256(key in any::<[u8; 32]>(), nonce in any::<[u8; 12]>(),
                               ad in proptest::collection::vec(any::<u8>(), 0..300),
                               msg in proptest::collection::vec(any::<u8>(), 0..300)) {
        agree::<Aes256Gcm, aes_gcm::Aes256Gcm>(&key, &nonce, &ad, &msg)?;
    }
}
