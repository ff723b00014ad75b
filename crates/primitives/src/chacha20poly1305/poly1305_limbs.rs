//! Poly1305 in ten 13-bit limbs (the "donna-16" form): every product is
//! 16×16→32 bits, which a Cortex-M0+ does in one MULS; the 26-bit-limb form
//! needs 32×32→64 products, a library call there. 2^130 is exactly limb 10,
//! so reduction folds with ×5.

// Compiled everywhere (the AEAD's Poly1305 off the AVR, and the reference the
// host tests hold `poly1305_bytes` to).
#![cfg_attr(target_arch = "avr", allow(dead_code))]

use cipher::zeroize::Zeroize;

/// 16×16→32-bit product. On the AVR, LLVM widens `u16 as u32 * u16 as u32`
/// to a call of the 32×32 `__mulsi3`; four byte products use the MUL
/// instruction inline instead (measured: 1,078 against 1,149 cycles/B for
/// the whole AEAD at 1 KiB, though LLVM still spends about ten moves
/// assembling each MUL's result). On the AVR the AEAD uses `poly1305_bytes`
/// instead; there, summing these byte products by their offset and shifting
/// once per limb was slower (970,145 against 949,215 cycles) and, like
/// regrouping the five-product sums in `block`, failed the firmware's known
/// answer: the AVR back end miscompiled it.
#[cfg(target_arch = "avr")]
#[inline(always)]
fn mul(a: u16, b: u16) -> u32 {
    mul_by_bytes(a, b)
}

#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn mul(a: u16, b: u16) -> u32 {
    a as u32 * b as u32
}

#[cfg_attr(not(any(target_arch = "avr", test)), allow(dead_code))]
#[inline(always)]
fn mul_by_bytes(a: u16, b: u16) -> u32 {
    let (al, ah) = (a as u8 as u16, a >> 8);
    let (bl, bh) = (b as u8 as u16, b >> 8);
    let cross = (al * bh) as u32 + (ah * bl) as u32;
    (al * bl) as u32 + (cross << 8) + (((ah * bh) as u32) << 16)
}

const MASK13: u16 = 0x1fff;

/// A little-endian 16-byte block as ten 13-bit limbs (limb i = bits 13i..13i+12).
#[inline(always)]
fn limbs(b: &[u8; 16]) -> [u16; 10] {
    let t: [u16; 8] = core::array::from_fn(|i| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]));
    [
        t[0] & MASK13,
        ((t[0] >> 13) | (t[1] << 3)) & MASK13,
        ((t[1] >> 10) | (t[2] << 6)) & MASK13,
        ((t[2] >> 7) | (t[3] << 9)) & MASK13,
        ((t[3] >> 4) | (t[4] << 12)) & MASK13,
        (t[4] >> 1) & MASK13,
        ((t[4] >> 14) | (t[5] << 2)) & MASK13,
        ((t[5] >> 11) | (t[6] << 5)) & MASK13,
        ((t[6] >> 8) | (t[7] << 8)) & MASK13,
        t[7] >> 5,
    ]
}

/// Poly1305 (RFC 8439 2.5) over whole 16-byte blocks, as the AEAD only
/// ever feeds it (AD and ciphertext are zero-padded to 16 bytes).
pub(super) struct Poly1305 {
    /// `[5·r1, …, 5·r9, r0, …, r9]`: the coefficient of h_j in limb i of h·r
    /// mod 2^130 − 5 is `rr[9 + i − j]`, one index for both halves.
    rr: [u16; 19],
    h: [u16; 10],
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
        let rl = limbs(&r);
        r.zeroize();
        // Clamped r limbs are below 2^13, so 5·r fits in 16 bits.
        let rr = core::array::from_fn(|k| if k < 9 { 5 * rl[k + 1] } else { rl[k - 9] });
        Self {
            rr,
            h: [0; 10],
            s: otk[16..].try_into().expect("16 bytes"),
        }
    }

    /// h = (h + m + 2^128)·r mod 2^130 − 5, partially reduced.
    ///
    /// The 100 products are written out: at the firmware's opt-level "s"
    /// the loops would stay, with their index arithmetic and bounds checks.
    pub(super) fn block(&mut self, m: &[u8; 16]) {
        let m = limbs(m);
        let a = &self.h;
        let h: [u16; 10] = [
            a[0] + m[0],
            a[1] + m[1],
            a[2] + m[2],
            a[3] + m[3],
            a[4] + m[4],
            a[5] + m[5],
            a[6] + m[6],
            a[7] + m[7],
            a[8] + m[8],
            a[9] + (m[9] | 1 << 11), // bit 128
        ];
        let rr = &self.rr;
        // Limbs are below 2^14.1 and coefficients below 2^15.4: ten products
        // may pass 2^32, so each sum takes a carry out after five of them.
        let mut c = 0u32;
        macro_rules! limb {
            ($i:literal) => {{
                let mut acc = c
                    + mul(h[0], rr[9 + $i])
                    + mul(h[1], rr[8 + $i])
                    + mul(h[2], rr[7 + $i])
                    + mul(h[3], rr[6 + $i])
                    + mul(h[4], rr[5 + $i]);
                c = acc >> 13;
                acc &= MASK13 as u32;
                acc += mul(h[5], rr[4 + $i])
                    + mul(h[6], rr[3 + $i])
                    + mul(h[7], rr[2 + $i])
                    + mul(h[8], rr[1 + $i])
                    + mul(h[9], rr[$i]);
                c += acc >> 13;
                acc as u16 & MASK13
            }};
        }
        let mut d = [
            limb!(0),
            limb!(1),
            limb!(2),
            limb!(3),
            limb!(4),
            limb!(5),
            limb!(6),
            limb!(7),
            limb!(8),
            limb!(9),
        ];
        // The carry out of limb 9 is a multiple of 2^130 ≡ 5 (×5 by shift and
        // add: a constant multiply may become a library call on the AVR).
        c = (c << 2) + c + d[0] as u32;
        d[0] = c as u16 & MASK13;
        d[1] += (c >> 13) as u16;
        self.h = d;
    }

    pub(super) fn finish(mut self) -> [u8; 16] {
        let mut h = self.h;
        // Carry fully, then h mod p by subtracting p when h + 5 reaches 2^130.
        let mut c = 0u16;
        for l in h.iter_mut().skip(1) {
            *l += c;
            c = *l >> 13;
            *l &= MASK13;
        }
        h[0] += c * 5;
        c = h[0] >> 13;
        h[0] &= MASK13;
        h[1] += c;
        c = h[1] >> 13;
        h[1] &= MASK13;
        h[2] += c;
        let mut g = [0u16; 10];
        let mut c = 5u16;
        for (g, h) in g.iter_mut().zip(&h) {
            *g = h + c;
            c = *g >> 13;
            *g &= MASK13;
        }
        // c is the bit 2^130 of h + 5: set exactly when h >= p.
        let take_g = 0u16.wrapping_sub(c);
        for (h, g) in h.iter_mut().zip(&g) {
            *h = (*h & !take_g) | (g & take_g);
        }
        // Limbs to 128 bits (the rest is 0 mod 2^128) and add s with carry.
        let mut tag = [0u8; 16];
        let (mut acc, mut bits, mut n) = (0u32, 0, 0);
        for l in h {
            acc += (l as u32) << bits; // `+`: limb 2 may hold a carry bit
            bits += 13;
            while bits >= 8 && n < 16 {
                tag[n] = acc as u8;
                acc >>= 8;
                bits -= 8;
                n += 1;
            }
        }
        let mut carry = 0u16;
        for (t, s) in tag.iter_mut().zip(&self.s) {
            carry += *t as u16 + *s as u16;
            *t = carry as u8;
            carry >>= 8;
        }
        h.zeroize();
        g.zeroize();
        self.h.zeroize();
        tag
    }
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        self.rr.zeroize();
        self.h.zeroize();
        self.s.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_products_match_the_wide_product() {
        for a in (0..=u16::MAX).step_by(251) {
            for b in (0..=u16::MAX).step_by(257) {
                assert_eq!(mul_by_bytes(a, b), a as u32 * b as u32, "{a} {b}");
            }
        }
        assert_eq!(mul_by_bytes(u16::MAX, u16::MAX), 0xfffe_0001);
    }
}
