//! Authenticated encryption, generic over `AeadInOut`.

use aead::{AeadCore, AeadInOut, KeyInit, Nonce, Tag};
use core::hint::black_box;

use crate::bench::{Bench, fill, same};
use crate::probe::Probe;

pub struct AeadKat {
    pub key: &'static [u8],
    pub nonce: &'static [u8],
    pub ad: &'static [u8],
    pub pt: &'static [u8],
    /// Expected ciphertext; may be a prefix when the tag alone pins the rest.
    pub ct: &'static [u8],
    pub tag: &'static [u8],
}

pub fn kat<A: AeadInOut + KeyInit>(kat: &AeadKat, buf: &mut [u8]) -> Result<(), &'static str> {
    let cipher = A::new_from_slice(black_box(kat.key)).map_err(|_| "key length")?;
    let nonce = Nonce::<A>::try_from(kat.nonce).map_err(|_| "nonce length")?;
    let buf = &mut buf[..kat.pt.len()];
    buf.copy_from_slice(kat.pt);
    let tag = cipher
        .encrypt_inout_detached(&nonce, kat.ad, buf.into())
        .map_err(|_| "encrypt error")?;
    if !same(&buf[..kat.ct.len()], kat.ct) {
        return Err("ciphertext");
    }
    if !same(&tag, kat.tag) {
        return Err("tag");
    }
    cipher
        .decrypt_inout_detached(&nonce, kat.ad, buf.into(), &tag)
        .map_err(|_| "decrypt rejected")?;
    if !same(buf, kat.pt) {
        return Err("decrypt");
    }
    // A flipped tag bit must be refused.
    let mut bad = tag.clone();
    bad[0] ^= 1;
    if cipher
        .decrypt_inout_detached(&nonce, kat.ad, buf.into(), &bad)
        .is_ok()
    {
        return Err("forged tag accepted");
    }
    Ok(())
}

/// A nonce that differs for every message of the run (never reused under the key).
pub fn nonce_for<A: AeadCore>(message: usize) -> Nonce<A> {
    let mut nonce = Nonce::<A>::default();
    let len = nonce.len();
    nonce[len - 1] = message as u8 + 1;
    nonce[0] = 0xc3;
    nonce
}

/// `known_answer` is the result of [`kat`], run by the caller because some
/// official vectors use other parameters (CCM's 4-byte tag) than the timed type.
pub fn bench<A, P>(
    b: &mut Bench<P>,
    id: &str,
    known_answer: Result<(), &'static str>,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    A: AeadInOut + KeyInit,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, known_answer.err());
    let Some(cipher) = b.op("keysetup", 0, || A::new_from_slice(black_box(key)).ok()) else {
        return;
    };
    for (i, &n) in sizes.iter().enumerate() {
        let nonce = nonce_for::<A>(i);
        let buf = &mut data[..n];
        fill(buf);
        let tag: Option<Tag<A>> = b.op("encrypt", n, || {
            cipher
                .encrypt_inout_detached(black_box(&nonce), &[], black_box(&mut *buf).into())
                .ok()
        });
        let Some(tag) = tag else {
            b.kat(id, Some("encrypt error at bench size"));
            continue;
        };
        let ok = b.op("decrypt", n, || {
            cipher
                .decrypt_inout_detached(black_box(&nonce), &[], black_box(&mut *buf).into(), &tag)
                .is_ok()
        });
        if !ok {
            b.kat(id, Some("round trip rejected"));
        }
    }
}
