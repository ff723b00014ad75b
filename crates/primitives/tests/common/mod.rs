//! Shared helpers for the known-answer and compatibility tests.
#![allow(dead_code)]

use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, KeyInit,
    KeyIvInit, typenum::Unsigned,
};
use std::collections::HashMap;

/// One `key = value` record from a vector file; records are separated by blank lines.
pub type Record = HashMap<String, String>;

/// Parses `tests/vectors/<name>`: `#` comments, `key = hex` lines, blank-line separated.
pub fn records(name: &str) -> Vec<Record> {
    let path = format!("{}/tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    let mut cur = Record::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        cur.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    assert!(!out.is_empty(), "{name} has no vectors");
    out
}

/// Decodes the hex field `field` of a record (empty string = empty bytes).
pub fn field(r: &Record, field: &str) -> Vec<u8> {
    let v = r
        .get(field)
        .unwrap_or_else(|| panic!("record lacks {field}: {r:?}"));
    hex::decode(v).unwrap_or_else(|e| panic!("{field} = {v}: {e}"))
}

/// Runs every record with `key`, `pt`, `ct` whose key length matches `C`.
/// Returns how many vectors were checked so callers can assert coverage.
pub fn check_block_kats<C>(file: &str) -> usize
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
{
    let mut n = 0;
    for r in records(file) {
        let key = field(&r, "key");
        if key.len() != C::KeySize::USIZE {
            continue;
        }
        let (pt, ct) = (field(&r, "pt"), field(&r, "ct"));
        let c = C::new_from_slice(&key).unwrap();
        let mut block = Block::<C>::try_from(pt.as_slice()).unwrap();
        c.encrypt_block(&mut block);
        assert_eq!(hex::encode(&block), hex::encode(&ct), "encrypt {r:?}");
        c.decrypt_block(&mut block);
        assert_eq!(hex::encode(&block), hex::encode(&pt), "decrypt {r:?}");
        n += 1;
    }
    n
}

/// Drives `C` through the RustCrypto `cbc` crate and checks the result against
/// CBC computed by hand from single-block calls, then decrypts with `cbc` again.
pub fn check_cbc_compat<C>(key: &[u8], blocks: usize)
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt + Clone,
{
    let bs = C::BlockSize::USIZE;
    let iv: Vec<u8> = (0..bs as u8)
        .map(|i| i.wrapping_mul(17).wrapping_add(3))
        .collect();
    let msg: Vec<u8> = (0..bs * blocks).map(|i| (i * 31 + 7) as u8).collect();

    let mut via_crate = msg.clone();
    let mut enc = cbc::Encryptor::<C>::new_from_slices(key, &iv).unwrap();
    for chunk in via_crate.chunks_exact_mut(bs) {
        enc.encrypt_block(chunk.try_into().unwrap());
    }

    let cipher = C::new_from_slice(key).unwrap();
    let mut prev = iv.clone();
    let mut by_hand = Vec::new();
    for chunk in msg.chunks_exact(bs) {
        let mut b = Block::<C>::try_from(chunk).unwrap();
        for (x, p) in b.iter_mut().zip(&prev) {
            *x ^= p;
        }
        cipher.encrypt_block(&mut b);
        prev = b.to_vec();
        by_hand.extend_from_slice(&b);
    }
    assert_eq!(via_crate, by_hand, "cbc crate disagrees with hand-made CBC");

    let mut dec = cbc::Decryptor::<C>::new_from_slices(key, &iv).unwrap();
    for chunk in via_crate.chunks_exact_mut(bs) {
        dec.decrypt_block(chunk.try_into().unwrap());
    }
    assert_eq!(via_crate, msg, "cbc round trip");
}

/// ECB round trip over `data` (truncated to whole blocks); returns the ciphertext.
pub fn ecb_round_trip<C>(key: &[u8], data: &[u8]) -> Vec<u8>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
{
    let bs = C::BlockSize::USIZE;
    let whole = &data[..data.len() / bs * bs];
    let c = C::new_from_slice(key).unwrap();
    let mut buf = whole.to_vec();
    for chunk in buf.chunks_exact_mut(bs) {
        c.encrypt_block(chunk.try_into().unwrap());
    }
    let ct = buf.clone();
    for chunk in buf.chunks_exact_mut(bs) {
        c.decrypt_block(chunk.try_into().unwrap());
    }
    assert_eq!(buf, whole);
    ct
}

/// Checks every `key`/`nonce`/`ad`/`pt`/`ct` record (ct = ciphertext || tag)
/// in both directions, then flips one bit of the tag and expects rejection
/// with no plaintext left in the buffer. Returns the number of vectors.
pub fn check_aead_kats<A>(file: &str) -> usize
where
    A: KeyInit + aead::AeadInOut,
{
    use aead::Aead;
    let mut n = 0;
    for r in records(file) {
        let (key, nonce, ad, pt, ct) = (
            field(&r, "key"),
            field(&r, "nonce"),
            field(&r, "ad"),
            field(&r, "pt"),
            field(&r, "ct"),
        );
        let a = A::new_from_slice(&key).unwrap();
        let nonce = aead::Nonce::<A>::try_from(nonce.as_slice()).unwrap();
        let payload = aead::Payload { msg: &pt, aad: &ad };
        let got = a.encrypt(&nonce, payload).unwrap();
        assert_eq!(hex::encode(&got), hex::encode(&ct), "encrypt {r:?}");
        let back = a
            .decrypt(&nonce, aead::Payload { msg: &ct, aad: &ad })
            .unwrap();
        assert_eq!(back, pt, "decrypt {r:?}");

        let mut forged = ct.clone();
        *forged.last_mut().unwrap() ^= 1;
        assert!(
            a.decrypt(
                &nonce,
                aead::Payload {
                    msg: &forged,
                    aad: &ad
                }
            )
            .is_err()
        );
        let mut buf = forged.clone();
        let (msg, tag) = buf.split_at_mut(forged.len() - 16);
        let tag = aead::Tag::<A>::try_from(&*tag).unwrap();
        assert!(
            a.decrypt_inout_detached(&nonce, &ad, msg.into(), &tag)
                .is_err()
        );
        assert!(
            msg.iter().all(|&b| b == 0),
            "plaintext released on a bad tag"
        );
        n += 1;
    }
    n
}
