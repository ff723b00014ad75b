//! AES-128/256: FIPS-197 known answers, agreement with the `aes` crate, and
//! use as the block cipher of the `aes-gcm` and `ccm` crates and of `CtrWholeBlock`.
mod common;

use aead::{Aead, KeyInit, Payload};
use cipher::consts::{U10, U12, U13, U16};
use cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyIvInit, StreamCipher};
use ciphermeter_primitives::{Aes128, Aes256, CtrWholeBlock};
use proptest::prelude::*;

#[test]
fn fips197_known_answers() {
    assert_eq!(common::check_block_kats::<Aes128>("aes.txt"), 2);
    assert_eq!(common::check_block_kats::<Aes256>("aes.txt"), 1);
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Aes128>(&[7; 16], 5);
    common::check_cbc_compat::<Aes256>(&[9; 32], 5);
}

fn same_blocks<A, B>(key: &[u8], blocks: &[[u8; 16]])
where
    A: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
    B: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
    A: cipher::BlockSizeUser<BlockSize = U16>,
    B: cipher::BlockSizeUser<BlockSize = U16>,
{
    let (a, b) = (
        A::new_from_slice(key).unwrap(),
        B::new_from_slice(key).unwrap(),
    );
    for block in blocks {
        let (mut x, mut y) = (Block::<A>::from(*block), Block::<B>::from(*block));
        a.encrypt_block(&mut x);
        b.encrypt_block(&mut y);
        assert_eq!(x.as_slice(), y.as_slice(), "encrypt");
        a.decrypt_block(&mut x);
        assert_eq!(x.as_slice(), block, "decrypt");
        let (mut x, mut y) = (Block::<A>::from(*block), Block::<B>::from(*block));
        a.decrypt_block(&mut x);
        b.decrypt_block(&mut y);
        assert_eq!(x.as_slice(), y.as_slice(), "decrypt of arbitrary data");
    }
}

type OurGcm = aes_gcm::AesGcm<Aes128, U12>;
type OurGcm256 = aes_gcm::AesGcm<Aes256, U12>;
type OurCcm = ccm::Ccm<Aes128, U16, U13>;
type TheirCcm = ccm::Ccm<aes::Aes128, U16, U13>;
type OurCcm8 = ccm::Ccm<Aes256, ccm::consts::U8, U10>;
type TheirCcm8 = ccm::Ccm<aes::Aes256, ccm::consts::U8, U10>;

/// Our AEAD and theirs agree, both open it, and a flipped tag bit is refused.
fn same_aead<A: Aead + KeyInit, B: Aead + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    ad: &[u8],
    msg: &[u8],
) {
    let (a, b) = (
        A::new_from_slice(key).unwrap(),
        B::new_from_slice(key).unwrap(),
    );
    let na = aead::Nonce::<A>::try_from(nonce).unwrap();
    let nb = aead::Nonce::<B>::try_from(nonce).unwrap();
    let ct = a.encrypt(&na, Payload { msg, aad: ad }).unwrap();
    assert_eq!(ct, b.encrypt(&nb, Payload { msg, aad: ad }).unwrap());
    assert_eq!(b.decrypt(&nb, Payload { msg: &ct, aad: ad }).unwrap(), msg);
    assert_eq!(a.decrypt(&na, Payload { msg: &ct, aad: ad }).unwrap(), msg);
    let mut bad = ct.clone();
    *bad.last_mut().unwrap() ^= 0x80;
    assert!(a.decrypt(&na, Payload { msg: &bad, aad: ad }).is_err());
}

proptest! {
    #[test]
    fn agrees_with_the_aes_crate(key in proptest::collection::vec(any::<u8>(), 32),
                                 blocks in proptest::collection::vec(any::<[u8; 16]>(), 1..8)) {
        same_blocks::<Aes128, aes::Aes128>(&key[..16], &blocks);
        same_blocks::<Aes256, aes::Aes256>(&key, &blocks);
    }

    #[test]
    fn gcm_ccm_ctr_agree(key in proptest::collection::vec(any::<u8>(), 32),
                         nonce in any::<[u8; 16]>(),
                         ad in proptest::collection::vec(any::<u8>(), 0..40),
                         msg in proptest::collection::vec(any::<u8>(), 0..300)) {
        same_aead::<OurGcm, aes_gcm::Aes128Gcm>(&key[..16], &nonce[..12], &ad, &msg);
        same_aead::<OurGcm256, aes_gcm::Aes256Gcm>(&key, &nonce[..12], &ad, &msg);
        same_aead::<OurCcm, TheirCcm>(&key[..16], &nonce[..13], &ad, &msg);
        same_aead::<OurCcm8, TheirCcm8>(&key, &nonce[..10], &ad, &msg);
        let mut ours = msg.clone();
        CtrWholeBlock::<Aes128>::new_from_slices(&key[..16], &nonce).unwrap().apply_keystream(&mut ours);
        let mut theirs = msg.clone();
        CtrWholeBlock::<aes::Aes128>::new_from_slices(&key[..16], &nonce).unwrap().apply_keystream(&mut theirs);
        prop_assert_eq!(ours, theirs);
    }
}

#[test]
fn every_length_to_300_through_gcm() {
    let key: Vec<u8> = (0..16).collect();
    let ad = b"header";
    for len in 0..300 {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
        same_aead::<OurGcm, aes_gcm::Aes128Gcm>(&key, &[len as u8; 12], ad, &msg);
    }
}
