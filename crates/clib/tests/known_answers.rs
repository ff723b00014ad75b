//! The C libraries through our adapters, on the host, against the standards'
//! own vectors; and two keyed values at once, which static contexts got wrong.

use aead::{AeadInOut, KeyInit};
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt};
use digest::{Digest, Mac};

use ciphermeter_clib::{mbedtls, monocypher};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn hashes_and_hmacs_match_fips_180_and_rfc_4231() {
    let abc256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let abc512 = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";
    assert_eq!(hex::encode(mbedtls::Sha256::digest(b"abc")), abc256);
    assert_eq!(hex::encode(mbedtls::Sha512::digest(b"abc")), abc512);
    assert_eq!(hex::encode(monocypher::Sha512::digest(b"abc")), abc512);
    // RFC 4231 test case 2, fed in two parts.
    let tag256 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    let tag512 = "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737";
    let mut m = <mbedtls::HmacSha256 as KeyInit>::new_from_slice(b"Jefe").unwrap();
    m.update(b"what do ya want ");
    m.update(b"for nothing?");
    assert_eq!(hex::encode(m.finalize().into_bytes()), tag256);
    let keyed = <mbedtls::HmacSha512 as KeyInit>::new_from_slice(b"Jefe").unwrap();
    let mut fork = keyed.clone();
    fork.update(b"what do ya want for nothing?");
    assert_eq!(hex::encode(fork.finalize().into_bytes()), tag512);
    let keyed = <monocypher::HmacSha512 as KeyInit>::new_from_slice(b"Jefe").unwrap();
    // Two messages from one keyed state: each clone starts from the key.
    for _ in 0..2 {
        let mut fork = keyed.clone();
        fork.update(b"what do ya want for nothing?");
        assert_eq!(hex::encode(fork.finalize().into_bytes()), tag512);
    }
}

#[test]
fn aes_matches_fips_197_with_two_keys_alive() {
    let a = mbedtls::Aes128::new_from_slice(&h("000102030405060708090a0b0c0d0e0f")).unwrap();
    let b = mbedtls::Aes256::new_from_slice(&h(
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
    ))
    .unwrap();
    let pt = h("00112233445566778899aabbccddeeff");
    for _ in 0..2 {
        let mut block = cipher::Block::<mbedtls::Aes128>::try_from(&pt[..]).unwrap();
        a.encrypt_block(&mut block);
        assert_eq!(hex::encode(block), "69c4e0d86a7b0430d8cdb78070b4c55a");
        a.decrypt_block(&mut block);
        assert_eq!(&block[..], &pt[..]);
        let mut block = cipher::Block::<mbedtls::Aes256>::try_from(&pt[..]).unwrap();
        b.encrypt_block(&mut block);
        assert_eq!(hex::encode(block), "8ea2b7ca516745bfeafc49904b496089");
    }
}

#[test]
fn gcm_and_ccm_match_their_specifications() {
    // McGrew & Viega, GCM test case 2.
    let gcm = mbedtls::Aes128Gcm::new_from_slice(&[0; 16]).unwrap();
    let mut buf = [0u8; 16];
    let tag = gcm
        .encrypt_inout_detached(&[0; 12].into(), b"", (&mut buf[..]).into())
        .unwrap();
    assert_eq!(hex::encode(buf), "0388dace60b6a392f328c2b971b2fe78");
    assert_eq!(hex::encode(tag), "ab6e47d42cec13bdf53a67b21257bddf");
    // RFC 3610 packet vector 1 (8-byte tag).
    type Ccm8 = mbedtls::Ccm<cipher::consts::U16, cipher::consts::U8, cipher::consts::U13>;
    let ccm = Ccm8::new_from_slice(&h("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf")).unwrap();
    let mut buf = h("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e");
    let nonce = h("00000003020100a0a1a2a3a4a5");
    let ad = h("0001020304050607");
    let tag = ccm
        .encrypt_inout_detached(nonce[..].try_into().unwrap(), &ad, (&mut buf[..]).into())
        .unwrap();
    assert_eq!(
        hex::encode(&buf),
        "588c979a61c663d2f066d0c2c0f989806d5f6b61dac384"
    );
    assert_eq!(hex::encode(tag), "17e8d12cfdf926e0");
    let mut wrong = tag;
    wrong[0] ^= 1;
    assert!(
        ccm.decrypt_inout_detached(
            nonce[..].try_into().unwrap(),
            &ad,
            (&mut buf.clone()[..]).into(),
            &wrong
        )
        .is_err()
    );
}

#[test]
fn both_chacha20_poly1305s_agree_and_refuse_a_changed_tag() {
    let key = [7u8; 32];
    let nonce = [9u8; 12];
    let mbed = mbedtls::ChaCha20Poly1305::<cipher::consts::U32>::new_from_slice(&key).unwrap();
    let mono = monocypher::ChaCha20Poly1305::<cipher::consts::U32>::new_from_slice(&key).unwrap();
    let (mut a, mut b) = (
        *b"a reading of 27 bytes, sent",
        *b"a reading of 27 bytes, sent",
    );
    let ta = mbed
        .encrypt_inout_detached(&nonce.into(), b"ad", (&mut a[..]).into())
        .unwrap();
    let tb = mono
        .encrypt_inout_detached(&nonce.into(), b"ad", (&mut b[..]).into())
        .unwrap();
    assert_eq!((a, ta), (b, tb));
    let mut bad = tb;
    bad[15] ^= 0x80;
    assert!(
        mono.decrypt_inout_detached(&nonce.into(), b"ad", (&mut b[..]).into(), &bad)
            .is_err()
    );
    mbed.decrypt_inout_detached(&nonce.into(), b"ad", (&mut a[..]).into(), &ta)
        .unwrap();
    assert_eq!(&a, b"a reading of 27 bytes, sent");
}
