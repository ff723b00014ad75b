//! AWS-LC through our adapters against the standards' own vectors, a changed
//! tag refused, and HMAC states forked by clone.

use aead::{AeadInOut, KeyInit};
use ciphermeter_aws_lc::{Aes128Gcm, Aes256Gcm, ChaCha20Poly1305, HmacSha256, HmacSha512};
use digest::Mac;

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn gcm_matches_mcgrew_and_viega_test_cases_2_and_14() {
    let gcm = Aes128Gcm::new_from_slice(&[0; 16]).unwrap();
    let mut buf = [0u8; 16];
    let tag = gcm
        .encrypt_inout_detached(&[0; 12].into(), b"", (&mut buf[..]).into())
        .unwrap();
    assert_eq!(hex::encode(buf), "0388dace60b6a392f328c2b971b2fe78");
    assert_eq!(hex::encode(tag), "ab6e47d42cec13bdf53a67b21257bddf");

    let gcm = Aes256Gcm::new_from_slice(&[0; 32]).unwrap();
    let mut buf = [0u8; 16];
    let tag = gcm
        .encrypt_inout_detached(&[0; 12].into(), b"", (&mut buf[..]).into())
        .unwrap();
    assert_eq!(hex::encode(buf), "cea7403d4d606b6e074ec5d3baf39d18");
    assert_eq!(hex::encode(tag), "d0d1c8a799996bf0265b98b5d48ab919");
    gcm.decrypt_inout_detached(&[0; 12].into(), b"", (&mut buf[..]).into(), &tag)
        .unwrap();
    assert_eq!(buf, [0u8; 16]);
}

#[test]
fn chacha20_poly1305_matches_rfc_8439_and_refuses_a_changed_tag() {
    // RFC 8439 section 2.8.2.
    let key = h("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    let nonce = h("070000004041424344454647");
    let ad = h("50515253c0c1c2c3c4c5c6c7");
    let text = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
    let aead = ChaCha20Poly1305::new_from_slice(&key).unwrap();
    let mut buf = text.to_vec();
    let tag = aead
        .encrypt_inout_detached(nonce[..].try_into().unwrap(), &ad, (&mut buf[..]).into())
        .unwrap();
    assert_eq!(hex::encode(&buf[..16]), "d31a8d34648e60db7b86afbc53ef7ec2");
    assert_eq!(hex::encode(tag), "1ae10b594f09e26a7e902ecbd0600691");
    let mut bad = tag;
    bad[15] ^= 0x80;
    let mut copy = buf.clone();
    assert!(
        aead.decrypt_inout_detached(
            nonce[..].try_into().unwrap(),
            &ad,
            (&mut copy[..]).into(),
            &bad
        )
        .is_err()
    );
    assert!(
        copy.iter().all(|&b| b == 0),
        "an unauthenticated message is wiped"
    );
    aead.decrypt_inout_detached(
        nonce[..].try_into().unwrap(),
        &ad,
        (&mut buf[..]).into(),
        &tag,
    )
    .unwrap();
    assert_eq!(&buf[..], &text[..]);
}

#[test]
fn hmacs_match_rfc_4231_case_2_from_one_keyed_state() {
    let tag256 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    let tag512 = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737";
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(b"Jefe").unwrap();
    m.update(b"what do ya want ");
    m.update(b"for nothing?");
    assert_eq!(hex::encode(m.finalize().into_bytes()), tag256);
    let keyed = <HmacSha512 as KeyInit>::new_from_slice(b"Jefe").unwrap();
    for _ in 0..2 {
        let mut fork = keyed.clone();
        fork.update(b"what do ya want for nothing?");
        assert_eq!(hex::encode(fork.finalize().into_bytes()), tag512);
    }
}
