//! Authenticated encryption, generic over `AeadInOut`.

use aead::{AeadCore, AeadInOut, KeyInit, Nonce, Tag};
use core::hint::black_box;

use crate::bench::{Bench, Failure, expect, fill};
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

pub fn kat<A: AeadInOut + KeyInit>(kat: &AeadKat, buf: &mut [u8]) -> Result<(), Failure> {
    let cipher = A::new_from_slice(black_box(kat.key)).map_err(|_| "key length")?;
    let nonce = Nonce::<A>::try_from(kat.nonce).map_err(|_| "nonce length")?;
    let buf = &mut buf[..kat.pt.len()];
    buf.copy_from_slice(kat.pt);
    let tag = cipher
        .encrypt_inout_detached(&nonce, kat.ad, buf.into())
        .map_err(|_| "encrypt error")?;
    expect("ciphertext", &buf[..kat.ct.len()], kat.ct)?;
    expect("tag", &tag, kat.tag)?;
    cipher
        .decrypt_inout_detached(&nonce, kat.ad, buf.into(), &tag)
        .map_err(|_| "decrypt rejected")?;
    expect("decrypt", buf, kat.pt)?;
    // A flipped tag bit must be refused.
    let mut bad = tag.clone();
    bad[0] ^= 1;
    if cipher
        .decrypt_inout_detached(&nonce, kat.ad, buf.into(), &bad)
        .is_ok()
    {
        return Err(Failure::Step("forged tag accepted"));
    }
    Ok(())
}

/// A GCM ciphertext that is wrong: compute its first keystream block with
/// the block cipher directly, E(K, nonce || 00000002) (SP 800-38D). A right
/// block there means the cipher is right and the GCM path around it is what
/// this target computes wrong.
#[cfg(any(feature = "aes-128-gcm", feature = "aes-256-gcm"))]
pub fn diagnose_gcm<C>(kat: &AeadKat, result: Result<(), Failure>) -> Result<(), Failure>
where
    C: KeyInit
        + cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = cipher::consts::U16>,
{
    let wrong @ Err(Failure::Wrong {
        step: "ciphertext", ..
    }) = result
    else {
        return result;
    };
    let (Ok(block_cipher), 12, 16..) = (C::new_from_slice(kat.key), kat.nonce.len(), kat.pt.len())
    else {
        return wrong;
    };
    let mut block = cipher::Array::<u8, cipher::consts::U16>::default();
    block[..12].copy_from_slice(kat.nonce);
    block[15] = 2;
    block_cipher.encrypt_block(&mut block);
    let keystream_right = (0..16).all(|i| block[i] ^ kat.pt[i] == kat.ct[i]);
    Err(Failure::Diagnosed {
        step: "ciphertext",
        why: if keystream_right {
            "the block cipher alone gives the right first keystream block, the GCM crate around it does not: this target miscomputes the GCM path (compiler or simulator, not the algorithm)"
        } else {
            "the block cipher alone already gives a wrong keystream block for this key on this target, while its ECB vector passes (compiler or simulator, not the algorithm)"
        },
    })
}

/// Names the fault when a counter-carry vector (block 1 crosses a byte
/// carry of the CTR counter) is right in block 0 and wrong in block 1.
pub fn counter_carry(result: Result<(), Failure>) -> Result<(), Failure> {
    match result {
        Err(Failure::Wrong { step, at, .. }) if (16..32).contains(&at) => Err(Failure::Diagnosed {
            step,
            why: "block 0 is right and block 1, where the CTR counter crosses a byte carry, is wrong; the vectors without a carry pass: this target miscomputes the 128-bit counter step (compiler or simulator, not the algorithm)",
        }),
        other => other,
    }
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
    known_answer: Result<(), Failure>,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    A: AeadInOut + KeyInit,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, known_answer);
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
            b.kat(id, Err(Failure::Step("encrypt error at bench size")));
            continue;
        };
        let ok = b.op("decrypt", n, || {
            cipher
                .decrypt_inout_detached(black_box(&nonce), &[], black_box(&mut *buf).into(), &tag)
                .is_ok()
        });
        if !ok {
            b.kat(id, Err(Failure::Step("round trip rejected")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_block_1_fault_is_put_on_the_counter_carry() {
        let wrong = |at| {
            Err(Failure::Wrong {
                step: "ciphertext",
                at,
                len: 48,
            })
        };
        assert!(matches!(
            counter_carry(wrong(20)),
            Err(Failure::Diagnosed {
                step: "ciphertext",
                ..
            })
        ));
        assert_eq!(counter_carry(wrong(3)), wrong(3));
        assert_eq!(counter_carry(wrong(40)), wrong(40));
        assert_eq!(counter_carry(Ok(())), Ok(()));
    }
}
