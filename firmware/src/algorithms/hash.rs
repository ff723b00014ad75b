//! Hash functions and HMAC, generic over the `digest` traits.

use core::hint::black_box;
use digest::{Digest, KeyInit, Mac};

use crate::bench::{Bench, Failure, expect, fill};
use crate::probe::Probe;

pub fn digest_kat<D: Digest>(msg: &[u8], expected: &[u8]) -> Result<(), Failure> {
    expect("digest", &D::digest(black_box(msg)), expected)
}

pub fn hash<D: Digest, P: Probe>(
    b: &mut Bench<P>,
    id: &str,
    msg: &[u8],
    expected: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) {
    b.algorithm(id);
    b.kat(id, digest_kat::<D>(msg, expected));
    for &n in sizes {
        let buf = &mut data[..n];
        fill(buf);
        b.op("hash", n, || D::digest(black_box(&*buf)));
    }
}

pub fn mac_kat<M: Mac + KeyInit>(key: &[u8], msg: &[u8], expected: &[u8]) -> Result<(), Failure> {
    let mut mac = <M as KeyInit>::new_from_slice(black_box(key)).map_err(|_| "key length")?;
    mac.update(msg);
    let tag = mac.finalize().into_bytes();
    expect("mac", &tag, expected)?;
    let mut check = <M as KeyInit>::new_from_slice(key).map_err(|_| "key length")?;
    check.update(msg);
    // verify_slice compares in constant time; a flipped bit must be refused.
    let mut bad = [0u8; 64];
    bad[..expected.len()].copy_from_slice(expected);
    bad[0] ^= 1;
    if check.verify_slice(&bad[..expected.len()]).is_ok() {
        return Err(Failure::Step("forged tag accepted"));
    }
    Ok(())
}

pub fn hmac<M, P>(
    b: &mut Bench<P>,
    id: &str,
    kat: (&[u8], &[u8], &[u8]),
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    M: Mac + KeyInit + Clone,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, mac_kat::<M>(kat.0, kat.1, kat.2));
    let Some(keyed) = b.op("keysetup", 0, || {
        <M as KeyInit>::new_from_slice(black_box(key)).ok()
    }) else {
        return;
    };
    for &n in sizes {
        let buf = &mut data[..n];
        fill(buf);
        b.op("mac", n, || {
            let mut m = keyed.clone();
            m.update(black_box(&*buf));
            m.finalize().into_bytes()
        });
    }
}
