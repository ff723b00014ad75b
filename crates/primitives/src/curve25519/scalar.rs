//! Integers modulo the group order ℓ = 2^252 + 27742317777372353535851937790883648493
//! (RFC 8032's L), on eight 32-bit words: Barrett reduction of 512-bit values
//! (Handbook of Applied Cryptography, algorithm 14.42, base 2^32, k = 8).
//! Fixed loops and masked corrections: the time does not depend on the value.

/// ℓ, little-endian words.
const L: [u32; 8] = [
    0x5cf5_d3ed,
    0x5812_631a,
    0xa2f7_9cd6,
    0x14de_f9de,
    0,
    0,
    0,
    0x1000_0000,
];

/// μ = ⌊2^512 / ℓ⌋ (261 bits), Barrett's constant; `mu_is_floor_of_2_512_over_l`
/// checks it.
const MU: [u32; 9] = [
    0x0a2c_131b,
    0xed9c_e5a3,
    0x0863_29a7,
    0x2106_215d,
    0xffff_ffeb,
    0xffff_ffff,
    0xffff_ffff,
    0xffff_ffff,
    0x0000_000f,
];

/// A scalar below ℓ, little-endian words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar(pub(crate) [u32; 8]);

impl Scalar {
    /// A 64-byte little-endian integer (a SHA-512 output) reduced mod ℓ.
    pub fn from_bytes_wide(bytes: &[u8; 64]) -> Scalar {
        let mut x = [0u32; 16];
        for (word, chunk) in x.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Scalar(reduce(&x))
    }

    /// A 32-byte encoding, only if it is below ℓ (RFC 8032 §5.1.7 rejects
    /// an S that is not).
    pub fn from_canonical_bytes(bytes: &[u8; 32]) -> Option<Scalar> {
        let w = words(bytes);
        // w - ℓ borrows exactly when w < ℓ.
        let (_, borrow) = sub(&w, &L);
        (borrow == 1).then_some(Scalar(w))
    }

    /// (a·b + c) mod ℓ, for a and b below 2^256 (a clamped secret need
    /// not be reduced) and c below ℓ.
    pub fn mul_add(a: &[u8; 32], b: &Scalar, c: &Scalar) -> Scalar {
        let a = words(a);
        let mut t = [0u32; 16];
        t[..8].copy_from_slice(&c.0);
        for i in 0..8 {
            let mut carry = 0u64;
            for j in 0..8 {
                let v = u64::from(a[i]) * u64::from(b.0[j]) + u64::from(t[i + j]) + carry;
                t[i + j] = v as u32;
                carry = v >> 32;
            }
            // t[i + 8] holds only earlier rows' carries, below 2^32 - 1 in sum.
            let mut k = i + 8;
            while carry != 0 && k < 16 {
                let v = u64::from(t[k]) + carry;
                t[k] = v as u32;
                carry = v >> 32;
                k += 1;
            }
        }
        Scalar(reduce(&t))
    }

    /// The little-endian encoding.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.0) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }
}

/// Little-endian bytes as words.
pub(crate) fn words(bytes: &[u8; 32]) -> [u32; 8] {
    let mut w = [0u32; 8];
    for (word, chunk) in w.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    w
}

/// a - b with the borrow out (0 or 1).
fn sub(a: &[u32; 8], b: &[u32; 8]) -> ([u32; 8], u32) {
    let mut r = [0u32; 8];
    let mut borrow = 0i64;
    for i in 0..8 {
        let v = i64::from(a[i]) - i64::from(b[i]) + borrow;
        r[i] = v as u32;
        borrow = v >> 32;
    }
    (r, (borrow as u32) & 1)
}

/// x mod ℓ for x < 2^512: q = ⌊⌊x / b^7⌋ μ / b^9⌋ is ⌊x / ℓ⌋ or up to two
/// less, so x - qℓ (computed mod b^9) is below 3ℓ; two masked subtractions
/// of ℓ finish.
fn reduce(x: &[u32; 16]) -> [u32; 8] {
    // q2 = q1 · μ, with q1 = x[7..16]; only its words 9.. are kept (q3).
    let mut q2 = [0u32; 18];
    for i in 0..9 {
        let mut carry = 0u64;
        for j in 0..9 {
            let v = u64::from(x[7 + i]) * u64::from(MU[j]) + u64::from(q2[i + j]) + carry;
            q2[i + j] = v as u32;
            carry = v >> 32;
        }
        q2[i + 9] = carry as u32;
    }
    let q3 = &q2[9..18];
    // r2 = q3 · ℓ mod b^9.
    let mut r2 = [0u32; 9];
    for i in 0..9 {
        let mut carry = 0u64;
        for j in 0..9 - i {
            let lj = if j < 8 { L[j] } else { 0 };
            let v = u64::from(q3[i]) * u64::from(lj) + u64::from(r2[i + j]) + carry;
            r2[i + j] = v as u32;
            carry = v >> 32;
        }
    }
    // r = x mod b^9 - r2 mod b^9.
    let mut r = [0u32; 9];
    let mut borrow = 0i64;
    for i in 0..9 {
        let v = i64::from(x[i]) - i64::from(r2[i]) + borrow;
        r[i] = v as u32;
        borrow = v >> 32;
    }
    for _ in 0..2 {
        // r - ℓ over nine words; keep it unless it borrowed.
        let mut s = [0u32; 9];
        let mut borrow = 0i64;
        for i in 0..9 {
            let li = if i < 8 { L[i] } else { 0 };
            let v = i64::from(r[i]) - i64::from(li) + borrow;
            s[i] = v as u32;
            borrow = v >> 32;
        }
        let keep_r = (borrow as u32) & 1;
        let mask = keep_r.wrapping_neg();
        for i in 0..9 {
            r[i] = (r[i] & mask) | (s[i] & !mask);
        }
    }
    let mut out = [0u32; 8];
    out.copy_from_slice(&r[..8]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schoolbook 16-word product of two 9-word numbers (test oracle).
    fn mul9(a: &[u32; 9], b: &[u32; 9]) -> [u32; 18] {
        let mut t = [0u32; 18];
        for i in 0..9 {
            let mut carry = 0u64;
            for j in 0..9 {
                let v = u64::from(a[i]) * u64::from(b[j]) + u64::from(t[i + j]) + carry;
                t[i + j] = v as u32;
                carry = v >> 32;
            }
            t[i + 9] = carry as u32;
        }
        t
    }

    #[test]
    fn mu_is_floor_of_2_512_over_l() {
        // μ·ℓ ≤ 2^512 < (μ + 1)·ℓ: μ·ℓ has no word at 2^512 and 2^512 - μ·ℓ < ℓ.
        let l9 = [L[0], L[1], L[2], L[3], L[4], L[5], L[6], L[7], 0];
        let prod = mul9(&MU, &l9);
        assert_eq!(prod[16..], [0, 0]);
        // 2^512 - prod, over 16 words (the 2^512 word is 1).
        let mut diff = [0u32; 16];
        let mut borrow = 0i64;
        for i in 0..16 {
            let v = -i64::from(prod[i]) + borrow;
            diff[i] = v as u32;
            borrow = v >> 32;
        }
        assert_eq!(diff[8..], [0; 8]);
        let low: [u32; 8] = diff[..8].try_into().unwrap();
        assert_eq!(sub(&low, &L).1, 1, "2^512 - μℓ must be below ℓ");
    }

    #[test]
    fn reduction_of_known_values() {
        // ℓ itself, 2ℓ + 5 and 2^512 - 1 (whose residue, from Python's
        // (2**512 - 1) % L, is below).
        let mut x = [0u32; 16];
        x[..8].copy_from_slice(&L);
        assert_eq!(reduce(&x), [0; 8]);
        let mut two_l = [0u32; 16];
        let mut carry = 0u64;
        for i in 0..8 {
            let v = 2 * u64::from(L[i]) + carry + if i == 0 { 5 } else { 0 };
            two_l[i] = v as u32;
            carry = v >> 32;
        }
        two_l[8] = carry as u32;
        assert_eq!(reduce(&two_l), [5, 0, 0, 0, 0, 0, 0, 0]);
        let all = [0xffff_ffffu32; 16];
        let expected = Scalar::from_canonical_bytes(&super::super::field::tests::hex32(
            "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903",
        ));
        assert_eq!(Some(Scalar(reduce(&all))), expected);
    }

    #[test]
    fn canonical_bytes_stop_at_l() {
        let l = Scalar(L).to_bytes();
        assert!(Scalar::from_canonical_bytes(&l).is_none());
        let mut below = l;
        below[0] -= 1;
        assert!(Scalar::from_canonical_bytes(&below).is_some());
    }
}
