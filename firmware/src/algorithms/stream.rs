//! Stream ciphers with a nonce (Salsa20, XChaCha20), generic over the
//! RustCrypto `cipher` traits.

use cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use core::hint::black_box;

use crate::bench::{Bench, Failure, expect, fill};
use crate::probe::Probe;

/// One official vector: key, nonce, the keystream position it starts at, and
/// plaintext and ciphertext.
pub struct StreamKat {
    pub key: &'static [u8],
    pub nonce: &'static [u8],
    pub offset: u32,
    pub pt: &'static [u8],
    pub ct: &'static [u8],
}

fn new<C: KeyIvInit>(key: &[u8], nonce: &[u8]) -> Option<C> {
    C::new_from_slices(black_box(key), black_box(nonce)).ok()
}

pub fn stream_kat<C>(kat: &StreamKat) -> Result<(), Failure>
where
    C: KeyIvInit + StreamCipher + StreamCipherSeek,
{
    // Its own room: the vector may be longer than the benchmark's buffer.
    let mut room = [0u8; 128];
    let buf = room
        .get_mut(..kat.pt.len())
        .ok_or("vector longer than 128 bytes")?;
    for (step, from, to) in [("encrypt", kat.pt, kat.ct), ("decrypt", kat.ct, kat.pt)] {
        let mut cipher = new::<C>(kat.key, kat.nonce).ok_or("key or nonce length")?;
        cipher.seek(kat.offset);
        buf.copy_from_slice(from);
        cipher.apply_keystream(buf);
        expect(step, buf, to)?;
    }
    Ok(())
}

/// Key setup is the cipher's state from key and nonce; each message then
/// costs a fresh state (a new nonce) plus the keystream.
pub fn stream<C, P>(
    b: &mut Bench<P>,
    id: &str,
    kat: &StreamKat,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    C: KeyIvInit + StreamCipher + StreamCipherSeek,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, stream_kat::<C>(kat));
    let mut nonce = [0u8; 24];
    let nonce = &mut nonce[..kat.nonce.len()];
    if b.op("keysetup", 0, || new::<C>(key, nonce)).is_none() {
        return;
    }
    for (i, &n) in sizes.iter().enumerate() {
        // A distinct nonce per message: never reuse a keystream.
        nonce[0] = i as u8 + 1;
        let buf = &mut data[..n];
        fill(buf);
        for op in ["encrypt", "decrypt"] {
            b.op(op, n, || {
                if let Some(mut c) = new::<C>(key, nonce) {
                    c.apply_keystream(black_box(&mut *buf));
                }
            });
        }
    }
}
