//! OFB8 and whole-block CTR: anchored to FIPS-197 / SP 800-38A, checked
//! against independent formulations and the `ctr` crate, round trips.
mod common;

use aes::Aes128;
use cipher::{Block, BlockCipherEncrypt, KeyInit, KeyIvInit, StreamCipher};
use ciphermeter_primitives::{CtrWholeBlock, Ofb8, Rijndael256K256};
use proptest::prelude::*;

fn vector(name: &str) -> common::Record {
    common::records("modes.txt")
        .into_iter()
        .find(|r| r["name"] == name)
        .unwrap()
}

/// OFB8 written the obvious way: a Vec register, shift, append.
fn naive_ofb8<C: KeyInit + BlockCipherEncrypt>(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let c = C::new_from_slice(key).unwrap();
    let mut reg = iv.to_vec();
    data.iter()
        .map(|&p| {
            let mut b = Block::<C>::try_from(reg.as_slice()).unwrap();
            c.encrypt_block(&mut b);
            reg.remove(0);
            reg.push(b[0]);
            p ^ b[0]
        })
        .collect()
}

/// CTR written the obvious way: the counter as one big-endian integer of
/// block-size bytes, incremented with carry through every byte.
fn naive_ctr<C: KeyInit + BlockCipherEncrypt>(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let c = C::new_from_slice(key).unwrap();
    let mut counter = iv.to_vec();
    let mut out = Vec::new();
    for chunk in data.chunks(iv.len()) {
        let mut b = Block::<C>::try_from(counter.as_slice()).unwrap();
        c.encrypt_block(&mut b);
        out.extend(chunk.iter().zip(b.iter()).map(|(p, k)| p ^ k));
        let mut i = counter.len();
        loop {
            i -= 1;
            let (v, carry) = counter[i].overflowing_add(1);
            counter[i] = v;
            if !carry || i == 0 {
                break;
            }
        }
    }
    out
}

#[test]
fn ofb8_first_byte_is_the_fips197_block_output() {
    let v = vector("fips197-c1");
    let (key, pt, ct) = (
        common::field(&v, "key"),
        common::field(&v, "pt"),
        common::field(&v, "ct"),
    );
    let mut ofb = Ofb8::<Aes128>::new_from_slices(&key, &pt).unwrap();
    let mut ks = [0u8; 4];
    ofb.write_keystream(&mut ks);
    assert_eq!(ks[0], ct[0]);
    // The following bytes follow the shifted register.
    assert_eq!(ks.to_vec(), naive_ofb8::<Aes128>(&key, &pt, &[0; 4]));
}

#[test]
fn ctr_matches_sp800_38a_f51_and_the_ctr_crate() {
    let v = vector("sp800-38a-f.5.1");
    let (key, iv, pt, ct) = (
        common::field(&v, "key"),
        common::field(&v, "iv"),
        common::field(&v, "pt"),
        common::field(&v, "ct"),
    );
    let mut buf = pt.clone();
    CtrWholeBlock::<Aes128>::new_from_slices(&key, &iv)
        .unwrap()
        .apply_keystream(&mut buf);
    assert_eq!(hex::encode(&buf), hex::encode(&ct));

    let mut theirs = pt.clone();
    ctr::Ctr128BE::<Aes128>::new_from_slices(&key, &iv)
        .unwrap()
        .apply_keystream(&mut theirs);
    assert_eq!(buf, theirs);
}

#[test]
fn ctr_carries_across_the_whole_block() {
    // AES: ff..ff wraps to 00..00, so keystream block 2 = E_K(0).
    let key = [9u8; 16];
    let mut ks = [0u8; 32];
    CtrWholeBlock::<Aes128>::new_from_slices(&key, &[0xff; 16])
        .unwrap()
        .write_keystream(&mut ks);
    let mut zero = Block::<Aes128>::default();
    Aes128::new_from_slice(&key)
        .unwrap()
        .encrypt_block(&mut zero);
    assert_eq!(&ks[16..], zero.as_slice());

    // Rijndael-256: the carry must cross the 128-bit boundary (the `ctr`
    // crate's Ctr128BE would not touch the first 16 bytes).
    let key = [3u8; 32];
    let mut iv = [0xffu8; 32];
    iv[0] = 0x00;
    let mut ks = [0u8; 64];
    CtrWholeBlock::<Rijndael256K256>::new_from_slices(&key, &iv)
        .unwrap()
        .write_keystream(&mut ks);
    let mut next = [0u8; 32];
    next[0] = 0x01;
    let mut expected = Block::<Rijndael256K256>::try_from(next.as_slice()).unwrap();
    Rijndael256K256::new_from_slice(&key)
        .unwrap()
        .encrypt_block(&mut expected);
    assert_eq!(&ks[32..], expected.as_slice());

    // And the all-ones 256-bit counter wraps to zero.
    let mut ks = [0u8; 64];
    CtrWholeBlock::<Rijndael256K256>::new_from_slices(&key, &[0xff; 32])
        .unwrap()
        .write_keystream(&mut ks);
    let mut zero = Block::<Rijndael256K256>::default();
    Rijndael256K256::new_from_slice(&key)
        .unwrap()
        .encrypt_block(&mut zero);
    assert_eq!(&ks[32..], zero.as_slice());
}

proptest! {
    // Byte-wise OFB8 costs one block encryption per byte in debug builds.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn modes_agree_with_naive_forms_and_round_trip(
        key in any::<[u8; 32]>(), iv in any::<[u8; 32]>(),
        data in proptest::collection::vec(any::<u8>(), 0..4096),
        split in 0usize..4096,
    ) {
        let split = split.min(data.len());

        // OFB8 over AES-128 and Rijndael-256, in two calls to exercise state.
        let mut a = data.clone();
        let mut ofb = Ofb8::<Aes128>::new_from_slices(&key[..16], &iv[..16]).unwrap();
        ofb.apply_keystream(&mut a[..split]);
        ofb.apply_keystream(&mut a[split..]);
        prop_assert_eq!(&a, &naive_ofb8::<Aes128>(&key[..16], &iv[..16], &data));
        Ofb8::<Aes128>::new_from_slices(&key[..16], &iv[..16]).unwrap().apply_keystream(&mut a);
        prop_assert_eq!(&a, &data);

        let mut r = data.clone();
        Ofb8::<Rijndael256K256>::new_from_slices(&key, &iv).unwrap().apply_keystream(&mut r);
        prop_assert_eq!(&r, &naive_ofb8::<Rijndael256K256>(&key, &iv, &data));

        // Whole-block CTR, same split, against the naive form and Ctr128BE.
        let mut c = data.clone();
        let mut ctr = CtrWholeBlock::<Rijndael256K256>::new_from_slices(&key, &iv).unwrap();
        ctr.apply_keystream(&mut c[..split]);
        ctr.apply_keystream(&mut c[split..]);
        prop_assert_eq!(&c, &naive_ctr::<Rijndael256K256>(&key, &iv, &data));
        CtrWholeBlock::<Rijndael256K256>::new_from_slices(&key, &iv).unwrap().apply_keystream(&mut c);
        prop_assert_eq!(&c, &data);

        let mut x = data.clone();
        CtrWholeBlock::<Aes128>::new_from_slices(&key[..16], &iv[..16]).unwrap().apply_keystream(&mut x);
        let mut y = data.clone();
        ctr::Ctr128BE::<Aes128>::new_from_slices(&key[..16], &iv[..16]).unwrap().apply_keystream(&mut y);
        prop_assert_eq!(x, y);
    }
}
