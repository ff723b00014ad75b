//! Fixed-size modular arithmetic for RSA: Montgomery multiplication (CIOS)
//! over little-endian limbs. No allocation, so it runs on every target;
//! `crypto-bigint` builds on 32- and 64-bit targets only (it stops with a
//! `compile_error!` on the AVR's 16-bit pointers), so the firmware carries
//! this one and measures the same code everywhere.
//!
//! Limbs are 32 bits everywhere. Where the core has no 32×32→64 multiply
//! (Cortex-M0+ `muls` keeps the low 32 bits; the AVR multiplies 8×8), a
//! 64-bit product becomes the compiler's 64×64 routine, so there [`mac`]
//! forms it from four 16×16→32 products instead (build.rs sets
//! `mul_by_halves`): on the M0+ an RSA-2048 private operation otherwise
//! takes over 2^32 timer ticks.

pub type Word = u32;
type Wide = u64;
pub const WORD_BITS: usize = Word::BITS as usize;
const WORD_BYTES: usize = WORD_BITS / 8;

/// a·b + c + d, which always fits 64 bits.
#[inline(always)]
fn mac(a: Word, b: Word, c: Word, d: Word) -> Wide {
    #[cfg(not(mul_by_halves))]
    let product = Wide::from(a) * Wide::from(b);
    #[cfg(mul_by_halves)]
    let product = {
        let (a0, a1, b0, b1) = (a & 0xffff, a >> 16, b & 0xffff, b >> 16);
        let (mid, mid_carry) = (a0 * b1).overflowing_add(a1 * b0);
        let (lo, lo_carry) = (a0 * b0).overflowing_add(mid << 16);
        let hi = a1 * b1 + (mid >> 16) + (Word::from(mid_carry) << 16) + Word::from(lo_carry);
        (Wide::from(hi) << WORD_BITS) | Wide::from(lo)
    };
    product + Wide::from(c) + Wide::from(d)
}

/// A big-endian byte string as `L` little-endian limbs (the string must fit).
pub fn from_be<const L: usize>(bytes: &[u8]) -> [Word; L] {
    let mut out = [0; L];
    for (i, &b) in bytes.iter().rev().enumerate() {
        out[i / WORD_BYTES] |= Word::from(b) << (8 * (i % WORD_BYTES));
    }
    out
}

/// Writes `x` big-endian into all of `out`.
pub fn to_be<const L: usize>(x: &[Word; L], out: &mut [u8]) {
    let len = out.len();
    for (i, b) in out.iter_mut().enumerate() {
        let at = len - 1 - i;
        *b = (x[at / WORD_BYTES] >> (8 * (at % WORD_BYTES))) as u8;
    }
}

/// `a - b` in place; returns the borrow (1 when `a < b`).
fn sub_in_place(a: &mut [Word], b: &[Word]) -> Word {
    let mut borrow: Word = 0;
    for (x, &y) in a.iter_mut().zip(b) {
        let (d, b1) = x.overflowing_sub(y);
        let (d, b2) = d.overflowing_sub(borrow);
        *x = d;
        borrow = Word::from(b1 | b2);
    }
    borrow
}

/// `a + b` in place; returns the carry.
fn add_in_place(a: &mut [Word], b: &[Word]) -> Word {
    let mut carry: Word = 0;
    for (x, &y) in a.iter_mut().zip(b) {
        let (s, c1) = x.overflowing_add(y);
        let (s, c2) = s.overflowing_add(carry);
        *x = s;
        carry = Word::from(c1 | c2);
    }
    carry
}

/// `dst = if choose { src } else { dst }`, without a branch on `choose`.
fn select(dst: &mut [Word], src: &[Word], choose: Word) {
    let mask = choose.wrapping_neg();
    for (d, &s) in dst.iter_mut().zip(src) {
        *d ^= (*d ^ s) & mask;
    }
}

/// An odd modulus `n` of `L` limbs whose top bit is set (RSA moduli and
/// primes of exact size), with its Montgomery constants for R = 2^(32L).
#[derive(Clone)]
pub struct Modulus<const L: usize> {
    pub n: [Word; L],
    /// -n^-1 mod 2^WORD_BITS.
    n0inv: Word,
    /// R mod n: 1 in Montgomery form.
    pub one: [Word; L],
    /// R^2 mod n: converts into Montgomery form.
    pub r2: [Word; L],
}

impl<const L: usize> Modulus<L> {
    /// None unless `n` is odd with its top bit set.
    pub fn new(n: [Word; L]) -> Option<Self> {
        if n[0] & 1 == 0 || n[L - 1] >> (WORD_BITS - 1) == 0 {
            return None;
        }
        // Newton's iteration doubles the correct low bits: 3, 6, 12, 24, 48.
        let mut inv: Word = n[0];
        for _ in 0..4 {
            inv = inv.wrapping_mul((2 as Word).wrapping_sub(n[0].wrapping_mul(inv)));
        }
        // R mod n = R - n, as n > R/2, is 1 in Montgomery form. Doubling it
        // k times gives 2^k in Montgomery form, and each Montgomery squaring
        // doubles the exponent: k·2^j = log2(R) ends at R, i.e. R^2 mod n.
        let mut one = [0; L];
        sub_in_place(&mut one, &n);
        let (mut doublings, mut squarings) = (L * WORD_BITS, 0);
        while doublings % 2 == 0 && doublings > WORD_BITS {
            doublings /= 2;
            squarings += 1;
        }
        let mut r2 = one;
        for _ in 0..doublings {
            let top = r2[L - 1] >> (WORD_BITS - 1);
            let mut carry = 0;
            for w in r2.iter_mut() {
                let next = *w >> (WORD_BITS - 1);
                *w = (*w << 1) | carry;
                carry = next;
            }
            // 2x < 2n: one subtraction, kept when 2x overflowed or 2x >= n.
            let mut less = r2;
            let borrow = sub_in_place(&mut less, &n);
            select(&mut r2, &less, top | (borrow ^ 1));
        }
        let mut m = Modulus {
            n,
            n0inv: inv.wrapping_neg(),
            one,
            r2,
        };
        for _ in 0..squarings {
            m.r2 = m.mul(&m.r2, &m.r2);
        }
        Some(m)
    }

    /// a * b / R mod n, for a, b < n (CIOS: Koç, Acar, Kaliski 1996).
    pub fn mul(&self, a: &[Word; L], b: &[Word; L]) -> [Word; L] {
        // t has two limbs above L for the carries of one pass.
        let mut t = [0 as Word; L];
        let (mut t_hi, mut t_top): (Word, Word);
        t_hi = 0;
        for &bi in b.iter() {
            let mut carry: Word = 0;
            for (tj, &aj) in t.iter_mut().zip(a.iter()) {
                let s = mac(aj, bi, *tj, carry);
                *tj = s as Word;
                carry = (s >> WORD_BITS) as Word;
            }
            let s = Wide::from(t_hi) + Wide::from(carry);
            t_hi = s as Word;
            t_top = (s >> WORD_BITS) as Word;

            let m = t[0].wrapping_mul(self.n0inv);
            let s = mac(m, self.n[0], t[0], 0);
            let mut carry = (s >> WORD_BITS) as Word;
            for j in 1..L {
                let s = mac(m, self.n[j], t[j], carry);
                t[j - 1] = s as Word;
                carry = (s >> WORD_BITS) as Word;
            }
            let s = Wide::from(t_hi) + Wide::from(carry);
            t[L - 1] = s as Word;
            t_hi = t_top + (s >> WORD_BITS) as Word;
        }
        // t < 2n: subtract n unless that borrows past the top limb.
        let mut less = t;
        let borrow = sub_in_place(&mut less, &self.n);
        select(&mut t, &less, t_hi | (borrow ^ 1));
        t
    }

    /// x in Montgomery form (x < n).
    pub fn to_mont(&self, x: &[Word; L]) -> [Word; L] {
        self.mul(x, &self.r2)
    }

    /// Back from Montgomery form.
    pub fn from_mont(&self, x: &[Word; L]) -> [Word; L] {
        let mut one = [0; L];
        one[0] = 1;
        self.mul(x, &one)
    }

    /// x mod n for any x < R: one conditional subtraction, as n > R/2.
    pub fn reduce(&self, x: &[Word; L]) -> [Word; L] {
        let mut out = *x;
        let mut less = *x;
        let borrow = sub_in_place(&mut less, &self.n);
        select(&mut out, &less, borrow ^ 1);
        out
    }

    /// (a - b) mod n for a, b < n.
    pub fn sub(&self, a: &[Word; L], b: &[Word; L]) -> [Word; L] {
        let mut d = *a;
        let borrow = sub_in_place(&mut d, b);
        let mut plus = d;
        add_in_place(&mut plus, &self.n);
        select(&mut d, &plus, borrow);
        d
    }

    /// (a + b) mod n for a, b < n.
    pub fn add(&self, a: &[Word; L], b: &[Word; L]) -> [Word; L] {
        let mut s = *a;
        let carry = add_in_place(&mut s, b);
        let mut less = s;
        let borrow = sub_in_place(&mut less, &self.n);
        select(&mut s, &less, carry | (borrow ^ 1));
        s
    }

    /// base^65537 in Montgomery form: sixteen squarings and one multiply.
    pub fn pow_f4(&self, base: &[Word; L]) -> [Word; L] {
        let mut x = *base;
        for _ in 0..16 {
            x = self.mul(&x, &x);
        }
        self.mul(&x, base)
    }

    /// base^exp in Montgomery form, `exp` big-endian and secret: a fixed
    /// 4-bit window, every window multiplied (window 0 by 1), and each table
    /// entry read by scanning the whole table.
    pub fn pow_secret(&self, base: &[Word; L], exp: &[u8]) -> [Word; L] {
        let mut table = [self.one; 16];
        for i in 1..16 {
            table[i] = self.mul(&table[i - 1], base);
        }
        let mut x = self.one;
        for &byte in exp {
            for nibble in [byte >> 4, byte & 15] {
                for _ in 0..4 {
                    x = self.mul(&x, &x);
                }
                let mut entry = [0; L];
                for (i, t) in table.iter().enumerate() {
                    // 1 when i == nibble, computed without a branch.
                    let diff = (i as Word) ^ Word::from(nibble);
                    let eq = (diff.wrapping_sub(1) >> (WORD_BITS - 1)) & 1;
                    select(&mut entry, t, eq);
                }
                x = self.mul(&x, &entry);
            }
        }
        x
    }
}

/// a * b (H limbs each) into `out` (2H limbs), schoolbook.
pub fn mul_wide<const H: usize, const F: usize>(a: &[Word; H], b: &[Word; H]) -> [Word; F] {
    let mut out = [0; F];
    for (i, &bi) in b.iter().enumerate() {
        let mut carry: Word = 0;
        for (j, &aj) in a.iter().enumerate() {
            let s = mac(aj, bi, out[i + j], carry);
            out[i + j] = s as Word;
            carry = (s >> WORD_BITS) as Word;
        }
        out[i + H] = carry;
    }
    out
}

/// `a + b` where b is shorter; the carry out of `a` is dropped (callers
/// know the sum fits).
pub fn add_short<const F: usize, const H: usize>(a: &mut [Word; F], b: &[Word; H]) {
    let carry = add_in_place(&mut a[..H], b);
    let mut c = carry;
    for w in a[H..].iter_mut() {
        let (s, o) = w.overflowing_add(c);
        *w = s;
        c = Word::from(o);
    }
}
