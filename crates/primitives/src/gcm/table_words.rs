//! GHASH's multiply by H on four big-endian `u32` words (32-bit cores and
//! the host): per input byte a one-byte shift of the accumulator across the
//! words, the 8-bit reduction into the top word, two table rows xored in.

use super::{nibble_rows, reduce8};
use cipher::zeroize::Zeroize;

/// `hi[n] = n·H`, `lo[n] = n·x⁴·H` for a nibble `n`, as words (512 bytes).
#[derive(Clone)]
pub(super) struct Table {
    hi: [[u32; 4]; 16],
    lo: [[u32; 4]; 16],
}

fn words(rows: [[u8; 16]; 16]) -> [[u32; 4]; 16] {
    rows.map(|r| {
        core::array::from_fn(|i| {
            u32::from_be_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]])
        })
    })
}

#[cfg_attr(target_arch = "avr", allow(dead_code))]
impl Table {
    pub(super) fn new(h: &[u8; 16]) -> Self {
        let (mut hi, mut lo) = (nibble_rows(h, 0), nibble_rows(h, 4));
        let table = Self {
            hi: words(hi),
            lo: words(lo),
        };
        hi.zeroize();
        lo.zeroize();
        table
    }

    /// y ← y·H, as the byte form: z ← z·x⁸ ⊕ hi[high nibble] ⊕ lo[low
    /// nibble] for the bytes of `y` from the last to the first.
    pub(super) fn mul(&self, y: &mut [u8; 16]) {
        let mut z = [0u32; 4];
        for j in (0..16).rev() {
            let b = y[j];
            let a = &self.hi[(b >> 4) as usize];
            let c = &self.lo[(b & 15) as usize];
            let (r0, r1) = reduce8(z[3] as u8);
            let r = u32::from_be_bytes([r0, r1, 0, 0]);
            z = [
                (z[0] >> 8) ^ r ^ a[0] ^ c[0],
                ((z[1] >> 8) | (z[0] << 24)) ^ a[1] ^ c[1],
                ((z[2] >> 8) | (z[1] << 24)) ^ a[2] ^ c[2],
                ((z[3] >> 8) | (z[2] << 24)) ^ a[3] ^ c[3],
            ];
        }
        for (o, w) in y.chunks_exact_mut(4).zip(z) {
            o.copy_from_slice(&w.to_be_bytes());
        }
    }

    pub(super) fn zeroize(&mut self) {
        self.hi.zeroize();
        self.lo.zeroize();
    }
}
