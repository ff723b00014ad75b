//! GHASH's multiply by H on bytes, for the 8-bit AVR: per input byte a
//! one-byte shift of the accumulator (moves), the 8-bit reduction (8-bit
//! shifts), and the two nibbles' table rows xored in. No `u32`/`u64`.

use super::{nibble_rows, reduce8};
use cipher::zeroize::Zeroize;

/// `hi[n] = n·H`, `lo[n] = n·x⁴·H` for a nibble `n` (512 bytes).
#[derive(Clone)]
pub(super) struct Table {
    hi: [[u8; 16]; 16],
    lo: [[u8; 16]; 16],
}

#[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
impl Table {
    pub(super) const ZERO: Self = Self {
        hi: [[0; 16]; 16],
        lo: [[0; 16]; 16],
    };

    /// Fills the rows for `h`.
    pub(super) fn init(&mut self, h: &[u8; 16]) {
        let mut v = nibble_rows(&mut self.hi, h);
        nibble_rows(&mut self.lo, &v);
        v.zeroize();
    }

    #[cfg(test)]
    pub(super) fn with(h: &[u8; 16]) -> Self {
        let mut t = Self::ZERO;
        t.init(h);
        t
    }

    /// y ← y·H: Horner over the bytes from the last (x¹²⁰…x¹²⁷) to the first,
    /// z ← z·x⁸ ⊕ hi[high nibble] ⊕ lo[low nibble]. The rows are picked by
    /// the bytes of `y` (Y ⊕ X, see the module's note on timing).
    pub(super) fn mul(&self, y: &mut [u8; 16]) {
        let mut z = [0u8; 16];
        for j in (0..16).rev() {
            let b = y[j];
            let a = &self.hi[(b >> 4) as usize];
            let c = &self.lo[(b & 15) as usize];
            let (r0, r1) = reduce8(z[15]);
            // z·x⁸: byte k moves to k + 1; written out with constant indices.
            z = [
                r0 ^ a[0] ^ c[0],
                z[0] ^ r1 ^ a[1] ^ c[1],
                z[1] ^ a[2] ^ c[2],
                z[2] ^ a[3] ^ c[3],
                z[3] ^ a[4] ^ c[4],
                z[4] ^ a[5] ^ c[5],
                z[5] ^ a[6] ^ c[6],
                z[6] ^ a[7] ^ c[7],
                z[7] ^ a[8] ^ c[8],
                z[8] ^ a[9] ^ c[9],
                z[9] ^ a[10] ^ c[10],
                z[10] ^ a[11] ^ c[11],
                z[11] ^ a[12] ^ c[12],
                z[12] ^ a[13] ^ c[13],
                z[13] ^ a[14] ^ c[14],
                z[14] ^ a[15] ^ c[15],
            ];
        }
        *y = z;
    }

    pub(super) fn zeroize(&mut self) {
        self.hi.zeroize();
        self.lo.zeroize();
    }
}
