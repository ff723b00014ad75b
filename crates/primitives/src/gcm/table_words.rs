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

fn words(rows: &[[u8; 16]; 16], out: &mut [[u32; 4]; 16]) {
    for (o, r) in out.iter_mut().zip(rows) {
        for (w, b) in o.iter_mut().zip(r.chunks_exact(4)) {
            *w = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
}

#[cfg_attr(target_arch = "avr", allow(dead_code))]
impl Table {
    pub(super) const ZERO: Self = Self {
        hi: [[0; 4]; 16],
        lo: [[0; 4]; 16],
    };

    /// Fills the rows for `h`.
    pub(super) fn init(&mut self, h: &[u8; 16]) {
        let mut rows = [[0u8; 16]; 16];
        let mut v = nibble_rows(&mut rows, h);
        words(&rows, &mut self.hi);
        nibble_rows(&mut rows, &v);
        words(&rows, &mut self.lo);
        rows.zeroize();
        v.zeroize();
    }

    #[cfg(test)]
    pub(super) fn with(h: &[u8; 16]) -> Self {
        let mut t = Self::ZERO;
        t.init(h);
        t
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
