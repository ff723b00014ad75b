//! Poly1305 for 8-bit cores: h and r as bytes (radix 2^8), every product
//! one 8×8→16-bit MUL.
//!
//! h has 17 limbs (bytes 0..15 and a small top limb), r 16 (clamped, so
//! r < 2^124). Limb i of h·r mod 2^130 − 5 collects `h[j]·r[i − j]` and,
//! for the products at 2^(8·17) and above, `h[j]·r[i + 17 − j]` × 320
//! (2^136 = 2^130 · 2^6 ≡ 5 · 64), the 320 applied once per limb (as ×64
//! there and ×1 in the next limb): 272
//! MULs per block against the 400 of 16×16-bit products in 13-bit limbs,
//! each of which the AVR builds from four MULs.

// Compiled everywhere (the host tests hold it to the 13-bit form); used on the AVR.
#![cfg_attr(not(any(target_arch = "avr", test)), allow(dead_code))]

use cipher::zeroize::Zeroize;

/// One 8×8→16-bit product, widened for the sums.
#[inline(always)]
fn p(a: u8, b: u8) -> u32 {
    (a as u16 * b as u16) as u32
}

/// Poly1305 (RFC 8439 2.5) over whole 16-byte blocks.
pub(super) struct Poly1305 {
    r: [u8; 16],
    /// Carried after every block: bytes 0..15 and a top limb of at most 4.
    h: [u8; 17],
    s: [u8; 16],
}

impl Poly1305 {
    pub(super) fn new(otk: &[u8; 32]) -> Self {
        let mut r: [u8; 16] = otk[..16].try_into().expect("16 bytes");
        for i in [3, 7, 11, 15] {
            r[i] &= 0x0f;
        }
        for i in [4, 8, 12] {
            r[i] &= 0xfc;
        }
        Self {
            r,
            h: [0; 17],
            s: otk[16..].try_into().expect("16 bytes"),
        }
    }

    /// h = (h + m + 2^128)·r mod 2^130 − 5, carried to bytes (top limb ≤ 4).
    ///
    /// Written out (the firmware's opt-level "s" would keep loops, with their
    /// index arithmetic and bounds checks). Bounds: h < 2^128 · 7 after the
    /// addition; a limb's sum with its carries stays below
    /// 17·255² + 64·16·255² + 2^21 < 2^26.1.
    pub(super) fn block(&mut self, m: &[u8; 16]) {
        let mut h = [0u8; 17];
        let mut c = 0u16;
        macro_rules! add {
            ($($i:literal)*) => {$(
                c += self.h[$i] as u16 + m[$i] as u16;
                h[$i] = c as u8;
                c >>= 8;
            )*};
        }
        add!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        h[16] = self.h[16] + c as u8 + 1; // bit 128
        let r = &self.r;
        let mut d = [0u8; 16];
        let mut c = 0u32;
        macro_rules! col {
            ($i:literal; $($j:literal)*; $($k:literal)*) => {{
                let lo: u32 = 0 $(+ p(h[$j], r[$i - $j]))*;
                let hi: u32 = 0 $(+ p(h[$k], r[$i + 17 - $k]))*;
                // hi · 320 = hi · 64 here and hi · 256, i.e. hi in the next
                // limb: added after the shift (a multiply by 320 written in
                // one piece becomes a call of `__mulsi3` on the AVR).
                c += lo + (hi << 6);
                hi
            }};
        }
        macro_rules! limbs {
            ($(($i:literal; $($j:literal)*; $($k:literal)*))*) => {$(
                let hi = col!($i; $($j)*; $($k)*);
                d[$i] = c as u8;
                c >>= 8;
                c += hi;
            )*};
        }
        limbs!(
            (0; 0; 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
            (1; 0 1; 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
            (2; 0 1 2; 4 5 6 7 8 9 10 11 12 13 14 15 16)
            (3; 0 1 2 3; 5 6 7 8 9 10 11 12 13 14 15 16)
            (4; 0 1 2 3 4; 6 7 8 9 10 11 12 13 14 15 16)
            (5; 0 1 2 3 4 5; 7 8 9 10 11 12 13 14 15 16)
            (6; 0 1 2 3 4 5 6; 8 9 10 11 12 13 14 15 16)
            (7; 0 1 2 3 4 5 6 7; 9 10 11 12 13 14 15 16)
            (8; 0 1 2 3 4 5 6 7 8; 10 11 12 13 14 15 16)
            (9; 0 1 2 3 4 5 6 7 8 9; 11 12 13 14 15 16)
            (10; 0 1 2 3 4 5 6 7 8 9 10; 12 13 14 15 16)
            (11; 0 1 2 3 4 5 6 7 8 9 10 11; 13 14 15 16)
            (12; 0 1 2 3 4 5 6 7 8 9 10 11 12; 14 15 16)
            (13; 0 1 2 3 4 5 6 7 8 9 10 11 12 13; 15 16)
            (14; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14; 16)
            (15; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15;)
        );
        let _ = col!(16; 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16;);
        // Bits 130 and up fold back ×5 (2^130 ≡ 5), by shift and add.
        let top = c as u8 & 3;
        c >>= 2;
        c += c << 2;
        macro_rules! fold {
            ($($i:literal)*) => {$(
                c += d[$i] as u32;
                self.h[$i] = c as u8;
                c >>= 8;
            )*};
        }
        fold!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        self.h[16] = top + c as u8;
        h.zeroize();
        d.zeroize();
    }

    pub(super) fn finish(mut self) -> [u8; 16] {
        // h < 5 · 2^128 < 2p: subtract p once when h + 5 reaches 2^130.
        let mut g = [0u8; 17];
        let mut c = 5u16;
        for (g, h) in g.iter_mut().zip(&self.h) {
            c += *h as u16;
            *g = c as u8;
            c >>= 8;
        }
        let take_g = 0u8.wrapping_sub(g[16] >> 2);
        let mut tag = [0u8; 16];
        let mut carry = 0u16;
        for ((t, (h, g)), s) in tag.iter_mut().zip(self.h.iter().zip(&g)).zip(&self.s) {
            carry += ((h & !take_g) | (g & take_g)) as u16 + *s as u16;
            *t = carry as u8;
            carry >>= 8;
        }
        g.zeroize();
        self.h.zeroize();
        tag
    }
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        self.r.zeroize();
        self.h.zeroize();
        self.s.zeroize();
    }
}
