//! Arithmetic modulo p = 2^255 - 19 on eight 32-bit words, little-endian.
//!
//! A value is kept below 2^256, not below p: 2^256 ≡ 38 (mod p), so a carry
//! out of the top word folds back as 38 at the bottom and no operation needs a
//! comparison with p. Only [`Fe::to_bytes`] reduces fully. Every operation is
//! straight-line: no branch or index depends on a value.
//!
//! On the Cortex-M4 (ARMv7E-M) multiplication and squaring are the
//! `umaal` assembly of `field_umaal`; elsewhere the portable code below,
//! whose `u64` sums LLVM turns into the core's widening multiplies.

/// A field element: eight little-endian words, value < 2^256.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct Fe(pub(crate) [u32; 8]);

impl Fe {
    /// 0.
    pub const ZERO: Fe = Fe([0; 8]);
    /// 1.
    pub const ONE: Fe = Fe([1, 0, 0, 0, 0, 0, 0, 0]);

    /// A little-endian encoding, its top bit ignored (RFC 7748 §5; RFC 8032
    /// keeps the sign of x there). Values from p to 2^255 - 1 are accepted
    /// unreduced, as both RFCs allow.
    pub fn from_bytes(bytes: &[u8; 32]) -> Fe {
        let mut w = [0u32; 8];
        for (word, chunk) in w.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        w[7] &= 0x7fff_ffff;
        Fe(w)
    }

    /// The canonical encoding: the value reduced below p.
    pub fn to_bytes(&self) -> [u8; 32] {
        let w = self.reduced();
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(w) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    /// The value below p. A value below 2^256 is at most 2p + 37: fold bit 255
    /// (2^255 ≡ 19), which leaves it below p + 19, then subtract p once if
    /// adding 19 reaches 2^255.
    fn reduced(&self) -> [u32; 8] {
        let mut w = self.0;
        let top = w[7] >> 31;
        w[7] &= 0x7fff_ffff;
        let mut carry = u64::from(19 * top);
        for word in w.iter_mut() {
            let v = u64::from(*word) + carry;
            *word = v as u32;
            carry = v >> 32;
        }
        // w + 19 has bit 255 set exactly when w >= p; then w - p is
        // (w + 19) with that bit cleared.
        let mut plus19 = [0u32; 8];
        let mut carry = 19u64;
        for (out, word) in plus19.iter_mut().zip(w) {
            let v = u64::from(word) + carry;
            *out = v as u32;
            carry = v >> 32;
        }
        let ge_p = (plus19[7] >> 31).wrapping_neg();
        plus19[7] &= 0x7fff_ffff;
        for (word, alt) in w.iter_mut().zip(plus19) {
            *word = (*word & !ge_p) | (alt & ge_p);
        }
        w
    }

    /// Whether the value is 0 mod p (not secret-dependent in timing).
    pub fn is_zero(&self) -> bool {
        self.reduced().iter().fold(0, |acc, w| acc | w) == 0
    }

    /// Whether the canonical value is odd: RFC 8032's sign of x.
    pub fn is_negative(&self) -> bool {
        self.reduced()[0] & 1 == 1
    }

    /// a + b.
    #[inline]
    pub fn add(&self, b: &Fe) -> Fe {
        Fe(add_words(&self.0, &b.0))
    }

    /// a - b.
    #[inline]
    pub fn sub(&self, b: &Fe) -> Fe {
        Fe(sub_words(&self.0, &b.0))
    }

    /// out = a + b, written in place (no copy of the result).
    #[inline]
    pub fn add_into(out: &mut Fe, a: &Fe, b: &Fe) {
        add_into_words(&mut out.0, &a.0, &b.0)
    }

    /// out = a - b, written in place.
    #[inline]
    pub fn sub_into(out: &mut Fe, a: &Fe, b: &Fe) {
        sub_into_words(&mut out.0, &a.0, &b.0)
    }

    /// out = a * b, written in place.
    #[inline]
    pub fn mul_into(out: &mut Fe, a: &Fe, b: &Fe) {
        mul_into_words(&mut out.0, &a.0, &b.0)
    }

    /// self = self * b.
    #[inline]
    pub fn mul_assign(&mut self, b: &Fe) {
        mul_assign_words(&mut self.0, &b.0)
    }

    /// out = a², written in place.
    #[inline]
    pub fn square_into(out: &mut Fe, a: &Fe) {
        square_into_words(&mut out.0, &a.0)
    }

    /// out = aa + 121665·e (X25519's AA + a24·E), written in place.
    #[inline]
    pub fn mul121665_add_into(out: &mut Fe, e: &Fe, aa: &Fe) {
        mul121665_add_into_words(&mut out.0, &e.0, &aa.0)
    }

    /// -a.
    pub fn neg(&self) -> Fe {
        Fe::ZERO.sub(self)
    }

    /// a * b.
    #[inline]
    pub fn mul(&self, b: &Fe) -> Fe {
        Fe(mul_words(&self.0, &b.0))
    }

    /// a².
    #[inline]
    pub fn square(&self) -> Fe {
        Fe(square_words(&self.0))
    }

    /// a squared n times (n ≥ 1).
    pub fn square_times(&self, n: u32) -> Fe {
        let mut r = self.square();
        for _ in 1..n {
            r = r.square();
        }
        r
    }

    /// a * k for a small k (< 2^31): X25519's a24.
    #[inline]
    pub fn mul_small(&self, k: u32) -> Fe {
        let mut r = [0u32; 8];
        let mut carry = 0u64;
        for (out, word) in r.iter_mut().zip(self.0) {
            let v = u64::from(word) * u64::from(k) + carry;
            *out = v as u32;
            carry = v >> 32;
        }
        Fe(fold(r, carry as u32))
    }

    /// 1/a (0 for 0): a^(p-2), ref10's chain of 254 squarings and 11
    /// multiplications.
    pub fn invert(&self) -> Fe {
        Fe(invert_words(&self.0))
    }

    /// a^((p-5)/8) = a^(2^252 - 3), for RFC 8032's square root.
    pub fn pow_p58(&self) -> Fe {
        Fe(pow_p58_words(&self.0))
    }

    #[cfg_attr(umaal, allow(dead_code))]
    fn invert_portable(&self) -> Fe {
        let (z11, z2_250_0) = self.pow_2_250_1();
        z2_250_0.square_times(5).mul(&z11)
    }

    #[cfg_attr(umaal, allow(dead_code))]
    fn pow_p58_portable(&self) -> Fe {
        let (_, z2_250_0) = self.pow_2_250_1();
        z2_250_0.square_times(2).mul(self)
    }

    /// (a^11, a^(2^250 - 1)): the common start of inversion and pow_p58.
    #[cfg_attr(umaal, allow(dead_code))]
    fn pow_2_250_1(&self) -> (Fe, Fe) {
        let z2 = self.square();
        let z9 = z2.square_times(2).mul(self);
        let z11 = z9.mul(&z2);
        let z2_5_0 = z11.square().mul(&z9);
        let z2_10_0 = z2_5_0.square_times(5).mul(&z2_5_0);
        let z2_20_0 = z2_10_0.square_times(10).mul(&z2_10_0);
        let z2_40_0 = z2_20_0.square_times(20).mul(&z2_20_0);
        let z2_50_0 = z2_40_0.square_times(10).mul(&z2_10_0);
        let z2_100_0 = z2_50_0.square_times(50).mul(&z2_50_0);
        let z2_200_0 = z2_100_0.square_times(100).mul(&z2_100_0);
        let z2_250_0 = z2_200_0.square_times(50).mul(&z2_50_0);
        (z11, z2_250_0)
    }

    /// Swaps a and b when `swap` is 1 (0 or 1 only), without a branch (a
    /// `subtle` choice: its barrier keeps the compiler from branching on it).
    #[inline]
    pub fn cswap(a: &mut Fe, b: &mut Fe, swap: u32) {
        use subtle::{Choice, ConditionallySelectable};
        let choice = Choice::from(swap as u8);
        for (x, y) in a.0.iter_mut().zip(b.0.iter_mut()) {
            u32::conditional_swap(x, y, choice);
        }
    }

    /// Swaps two points (each two elements) when `swap` is 1 (0 or 1 only),
    /// without a branch: the ladder's one swap a step.
    #[inline]
    pub fn cswap2(a: &mut [Fe; 2], b: &mut [Fe; 2], swap: u32) {
        cswap2_words(a, b, swap)
    }

    /// b when `choose` is 1, else a (0 or 1 only), without a branch.
    #[inline]
    pub fn select(a: &Fe, b: &Fe, choose: u32) -> Fe {
        use subtle::{Choice, ConditionallySelectable};
        let choice = Choice::from(choose as u8);
        let mut r = a.0;
        for (x, y) in r.iter_mut().zip(b.0) {
            x.conditional_assign(&y, choice);
        }
        Fe(r)
    }

    /// Equality mod p (RFC 8032's checks on public values).
    pub fn ct_eq(&self, b: &Fe) -> bool {
        self.reduced()
            .iter()
            .zip(b.reduced())
            .fold(0, |acc, (x, y)| acc | (x ^ y))
            == 0
    }
}

/// Equal as field elements (mod p).
impl PartialEq for Fe {
    fn eq(&self, other: &Fe) -> bool {
        self.ct_eq(other)
    }
}

/// r + c·2^256 (c < 2^26) as a value below 2^256: adds 38·c, and 38 once
/// more if that carries out (then r wrapped to below 38·c, so it cannot
/// carry again).
#[inline(always)]
fn fold(r: [u32; 8], c: u32) -> [u32; 8] {
    let mut r = r;
    let mut carry = u64::from(c) * 38;
    for word in r.iter_mut() {
        let v = u64::from(*word) + carry;
        *word = v as u32;
        carry = v >> 32;
    }
    r[0] = r[0].wrapping_add(38 & (carry as u32).wrapping_neg());
    r
}

/// r - k for k < 2^32, with the borrow out of the top word (0 or 1).
#[inline(always)]
fn sub_small(r: [u32; 8], k: u32) -> ([u32; 8], u32) {
    let mut r = r;
    let mut borrow = -i64::from(k);
    for word in r.iter_mut() {
        let v = i64::from(*word) + borrow;
        *word = v as u32;
        borrow = v >> 32;
    }
    (r, (borrow as u32) & 1)
}

/// The 512-bit product's low half plus 38 times its high half.
#[cfg_attr(umaal, allow(dead_code))]
#[inline(always)]
fn reduce_wide(t: &[u32; 16]) -> [u32; 8] {
    let mut r = [0u32; 8];
    let mut carry = 0u64;
    for i in 0..8 {
        let v = u64::from(t[i]) + 38 * u64::from(t[i + 8]) + carry;
        r[i] = v as u32;
        carry = v >> 32;
    }
    fold(r, carry as u32)
}

/// Schoolbook: each step a·b + t + carry, which fits in 64 bits (UMAAL's
/// shape on ARM).
#[cfg_attr(umaal, allow(dead_code))]
fn mul_portable(a: &[u32; 8], b: &[u32; 8]) -> [u32; 8] {
    let mut t = [0u32; 16];
    for i in 0..8 {
        let mut carry = 0u32;
        for j in 0..8 {
            let v = u64::from(a[i]) * u64::from(b[j]) + u64::from(t[i + j]) + u64::from(carry);
            t[i + j] = v as u32;
            carry = (v >> 32) as u32;
        }
        t[i + 8] = carry;
    }
    reduce_wide(&t)
}

/// The 28 cross products once, doubled by a shift, plus the 8 squares.
#[cfg_attr(umaal, allow(dead_code))]
fn square_portable(a: &[u32; 8]) -> [u32; 8] {
    let mut t = [0u32; 16];
    for i in 0..7 {
        let mut carry = 0u32;
        for j in i + 1..8 {
            let v = u64::from(a[i]) * u64::from(a[j]) + u64::from(t[i + j]) + u64::from(carry);
            t[i + j] = v as u32;
            carry = (v >> 32) as u32;
        }
        t[i + 8] = carry;
    }
    let mut top = 0u32;
    for word in t.iter_mut() {
        let shifted = (*word << 1) | top;
        top = *word >> 31;
        *word = shifted;
    }
    let mut carry = 0u64;
    for i in 0..8 {
        let sq = u64::from(a[i]) * u64::from(a[i]);
        let lo = u64::from(t[2 * i]) + (sq & 0xffff_ffff) + carry;
        t[2 * i] = lo as u32;
        let hi = u64::from(t[2 * i + 1]) + (sq >> 32) + (lo >> 32);
        t[2 * i + 1] = hi as u32;
        carry = hi >> 32;
    }
    reduce_wide(&t)
}

/// a + b, the carry out folded.
#[cfg_attr(umaal, allow(dead_code))]
#[inline]
fn add_portable(a: &[u32; 8], b: &[u32; 8]) -> [u32; 8] {
    let mut r = [0u32; 8];
    let mut carry = 0u64;
    for i in 0..8 {
        let v = u64::from(a[i]) + u64::from(b[i]) + carry;
        r[i] = v as u32;
        carry = v >> 32;
    }
    fold(r, carry as u32)
}

/// a - b: a borrow out of the top word took 2^256 ≡ 38 too many.
#[cfg_attr(umaal, allow(dead_code))]
#[inline]
fn sub_portable(a: &[u32; 8], b: &[u32; 8]) -> [u32; 8] {
    let mut r = [0u32; 8];
    let mut borrow = 0i64;
    for i in 0..8 {
        let v = i64::from(a[i]) - i64::from(b[i]) + borrow;
        r[i] = v as u32;
        borrow = v >> 32;
    }
    // borrow is 0 or -1: take 38 once, and once more if that borrows (then
    // the words wrapped to at least 2^256 - 38, so the second cannot).
    let (mut r, again) = sub_small(r, 38 & borrow as u32);
    r[0] = r[0].wrapping_sub(38 & again.wrapping_neg());
    r
}

#[cfg_attr(umaal, allow(dead_code))]
#[inline]
fn mul121665_add_portable(e: &[u32; 8], aa: &[u32; 8]) -> [u32; 8] {
    add_portable(&Fe(*e).mul_small(121_665).0, aa)
}

#[cfg_attr(umaal, allow(dead_code))]
#[inline]
fn cswap2_portable(a: &mut [Fe; 2], b: &mut [Fe; 2], swap: u32) {
    let [a0, a1] = a;
    let [b0, b1] = b;
    Fe::cswap(a0, b0, swap);
    Fe::cswap(a1, b1, swap);
}

/// The in-place forms on the portable code: the result, then a copy.
#[cfg(not(umaal))]
mod into_portable {
    pub(super) fn add_into_words(out: &mut [u32; 8], a: &[u32; 8], b: &[u32; 8]) {
        *out = super::add_portable(a, b);
    }
    pub(super) fn sub_into_words(out: &mut [u32; 8], a: &[u32; 8], b: &[u32; 8]) {
        *out = super::sub_portable(a, b);
    }
    pub(super) fn mul_into_words(out: &mut [u32; 8], a: &[u32; 8], b: &[u32; 8]) {
        *out = super::mul_portable(a, b);
    }
    pub(super) fn mul_assign_words(a: &mut [u32; 8], b: &[u32; 8]) {
        *a = super::mul_portable(a, b);
    }
    pub(super) fn square_into_words(out: &mut [u32; 8], a: &[u32; 8]) {
        *out = super::square_portable(a);
    }
    pub(super) fn mul121665_add_into_words(out: &mut [u32; 8], e: &[u32; 8], aa: &[u32; 8]) {
        *out = super::mul121665_add_portable(e, aa);
    }
}

#[cfg(not(umaal))]
fn invert_words(a: &[u32; 8]) -> [u32; 8] {
    Fe(*a).invert_portable().0
}

#[cfg(not(umaal))]
fn pow_p58_words(a: &[u32; 8]) -> [u32; 8] {
    Fe(*a).pow_p58_portable().0
}

#[cfg(not(umaal))]
use {
    add_portable as add_words, cswap2_portable as cswap2_words, into_portable::*,
    mul_portable as mul_words, square_portable as square_words, sub_portable as sub_words,
};

#[cfg(umaal)]
use super::field_umaal::{
    add_into_words, add_words, cswap2_words, invert_words, mul_assign_words, mul_into_words,
    mul_words, mul121665_add_into_words, pow_p58_words, square_into_words, square_words,
    sub_into_words, sub_words,
};

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A deterministic stream of awkward words (all-ones, near 2^256, near p).
    fn samples() -> impl Iterator<Item = Fe> {
        let edge = [
            Fe([0xffff_ffff; 8]),
            Fe([
                0xffff_ffed,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0x7fff_ffff,
            ]),
            Fe([
                0xffff_ffda,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
                0xffff_ffff,
            ]),
            Fe::ZERO,
            Fe::ONE,
            Fe([37, 0, 0, 0, 0, 0, 0, 0]),
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let random = core::iter::repeat_with(move || {
            let mut w = [0u32; 8];
            for word in w.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *word = x as u32;
            }
            Fe(w)
        });
        edge.into_iter().chain(random.take(200))
    }

    /// The value as a big integer reduced mod p, by long arithmetic on
    /// bytes: an oracle independent of the word code.
    fn canonical(a: &Fe) -> [u8; 32] {
        a.to_bytes()
    }

    #[test]
    fn square_is_mul_by_itself_and_both_commute() {
        let all: [Fe; 206] = {
            let mut v = [Fe::ZERO; 206];
            for (slot, x) in v.iter_mut().zip(samples()) {
                *slot = x;
            }
            v
        };
        for (i, a) in all.iter().enumerate() {
            let b = &all[(i * 7 + 3) % all.len()];
            assert_eq!(canonical(&a.square()), canonical(&a.mul(a)));
            assert_eq!(canonical(&a.mul(b)), canonical(&b.mul(a)));
            // (a + b)(a - b) = a² - b²
            let lhs = a.add(b).mul(&a.sub(b));
            let rhs = a.square().sub(&b.square());
            assert_eq!(canonical(&lhs), canonical(&rhs));
            // a·121665 = a·(121665 as a field element)
            assert_eq!(
                canonical(&a.mul_small(121_665)),
                canonical(&a.mul(&Fe([121_665, 0, 0, 0, 0, 0, 0, 0])))
            );
            // -(-a) = a, a + (-a) = 0
            assert_eq!(canonical(&a.neg().neg()), canonical(a));
            assert!(a.add(&a.neg()).is_zero());
            if !a.is_zero() {
                assert_eq!(canonical(&a.mul(&a.invert())), canonical(&Fe::ONE));
            }
        }
    }

    #[test]
    fn reduction_meets_p_exactly() {
        // p itself and 2p + 37 (the largest word value) are 0 and 37.
        let p = Fe([
            0xffff_ffed,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0xffff_ffff,
            0x7fff_ffff,
        ]);
        assert!(p.is_zero());
        let mut thirty_seven = [0u8; 32];
        thirty_seven[0] = 37;
        assert_eq!(Fe([0xffff_ffff; 8]).to_bytes(), thirty_seven);
        // p - 1 stays.
        let mut p_minus_1 = [0xffu8; 32];
        p_minus_1[0] = 0xec;
        p_minus_1[31] = 0x7f;
        assert_eq!(Fe::from_bytes(&p_minus_1).to_bytes(), p_minus_1);
        // -1 is p - 1.
        assert_eq!(Fe::ONE.neg().to_bytes(), p_minus_1);
        // sqrt(-1)² = -1 (RFC 8032 §5.1's constant).
        let sqrt_m1 = Fe::from_bytes(&hex32(
            "b0a00e4a271beec478e42fad0618432fa7d7fb3d99004d2b0bdfc14f8024832b",
        ));
        assert_eq!(sqrt_m1.square().to_bytes(), p_minus_1);
    }

    pub fn hex32(s: &str) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }
}
