//! Raw RSA with e = 65537 (RFC 8017 RSAEP/RSADP, no padding): the public-key
//! operation m^e mod n and the private-key operation c^d mod n by the
//! Chinese remainder theorem (RFC 8017 §5.1.2, 2.b). One modular
//! exponentiation is one measured operation, recorded at the modulus size in
//! bytes: a message up to that size costs one operation whatever its length.
//!
//! `N` is the modulus in limbs (`bignum::Word`), `H` = N/2 the primes'.

use core::hint::black_box;

use super::bignum::{self, Modulus, WORD_BITS, Word};

/// Limbs of an RSA-1024 modulus and of its primes; the same for RSA-2048.
pub const N1024: usize = 1024 / WORD_BITS;
pub const H1024: usize = N1024 / 2;
pub const N2048: usize = 2048 / WORD_BITS;
pub const H2048: usize = N2048 / 2;
use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

/// A test key and two known answers computed apart from the firmware
/// (firmware/testdata/make-rsa-vectors.py): c = m^e mod n and s = m2^d mod n.
/// The primes are ordered p > q, with qinv = q^-1 mod p.
pub struct RsaKat {
    pub n: &'static [u8],
    pub p: &'static [u8],
    pub q: &'static [u8],
    pub dp: &'static [u8],
    pub dq: &'static [u8],
    pub qinv: &'static [u8],
    pub m: &'static [u8],
    pub c: &'static [u8],
    pub m2: &'static [u8],
    pub s: &'static [u8],
}

pub struct PrivateKey<const N: usize, const H: usize> {
    n: Modulus<N>,
    p: Modulus<H>,
    q: Modulus<H>,
    /// R^3 mod p (R = 2^(WORD_BITS·H)): moves the high half of a ciphertext into p's
    /// Montgomery form in one multiplication.
    p_r3: [Word; H],
    q_r3: [Word; H],
    dp: &'static [u8],
    dq: &'static [u8],
    /// q^-1 mod p in Montgomery form.
    qinv: [Word; H],
}

impl<const N: usize, const H: usize> PrivateKey<N, H> {
    /// The Montgomery constants of n, p and q; None for a malformed key.
    pub fn new(kat: &RsaKat) -> Option<Self> {
        let n = Modulus::new(bignum::from_be::<N>(kat.n))?;
        let p = Modulus::new(bignum::from_be::<H>(kat.p))?;
        let q = Modulus::new(bignum::from_be::<H>(kat.q))?;
        let qinv = p.to_mont(&bignum::from_be::<H>(kat.qinv));
        Some(PrivateKey {
            p_r3: p.mul(&p.r2, &p.r2),
            q_r3: q.mul(&q.r2, &q.r2),
            n,
            p,
            q,
            dp: kat.dp,
            dq: kat.dq,
            qinv,
        })
    }

    /// m^65537 mod n, m < n (big-endian, modulus length).
    pub fn public(&self, m: &[u8], out: &mut [u8]) {
        let x = self.n.to_mont(&bignum::from_be::<N>(m));
        bignum::to_be(&self.n.from_mont(&self.n.pow_f4(&x)), out);
    }

    /// c^d mod n by CRT, c < n (big-endian, modulus length).
    pub fn private(&self, c: &[u8], out: &mut [u8]) {
        let c = bignum::from_be::<N>(c);
        let m1 = self.half(&self.p, &self.p_r3, self.dp, &c);
        let m2 = self.half(&self.q, &self.q_r3, self.dq, &c);
        // h = qinv (m1 - m2) mod p; m2 < q < p is already reduced mod p, and
        // a plain value times a Montgomery-form one is plain.
        let h = self.p.mul(&self.p.sub(&m1, &m2), &self.qinv);
        let mut m: [Word; N] = bignum::mul_wide(&h, &self.q.n);
        bignum::add_short(&mut m, &m2);
        bignum::to_be(&m, out);
    }

    /// c^e mod r for one prime r, c of N = 2H limbs: c = hi·R + lo, so in
    /// Montgomery form c·R = hi·R^3/R + lo·R^2/R (mod r).
    fn half(&self, r: &Modulus<H>, r3: &[Word; H], e: &[u8], c: &[Word; N]) -> [Word; H] {
        let mut lo = [0; H];
        let mut hi = [0; H];
        lo.copy_from_slice(&c[..H]);
        hi.copy_from_slice(&c[H..]);
        let (lo, hi) = (r.reduce(&lo), r.reduce(&hi));
        let x = r.add(&r.mul(&hi, r3), &r.mul(&lo, &r.r2));
        r.from_mont(&r.pow_secret(&x, e))
    }
}

/// Measures key setup, the public operation on the known answer's m and the
/// private operation on its m2, then checks both results and a round trip
/// (a simulated RSA-2048 private operation on the AVR takes long enough that
/// the known answers are the measured runs themselves).
pub fn bench<const N: usize, const H: usize, P: Probe>(b: &mut Bench<P>, id: &str, kat: &RsaKat) {
    b.algorithm(id);
    let k = kat.n.len();
    // Own buffers: the message buffers are sized by the benchmark's sizes.
    let (mut c, mut s) = ([0u8; 256], [0u8; 256]);
    let (c, s) = (&mut c[..k], &mut s[..k]);
    let Some(key) = b.op("keysetup", 0, || PrivateKey::<N, H>::new(black_box(kat))) else {
        b.kat(id, Err(Failure::Step("key setup refused the test key")));
        return;
    };
    b.op("encrypt", k, || key.public(black_box(kat.m), &mut *c));
    b.op("decrypt", k, || key.private(black_box(kat.m2), &mut *s));
    b.kat(id, check(&key, kat, c, s));
}

fn check<const N: usize, const H: usize>(
    key: &PrivateKey<N, H>,
    kat: &RsaKat,
    c: &[u8],
    s: &[u8],
) -> Result<(), Failure> {
    expect("public", c, kat.c)?;
    expect("private", s, kat.s)?;
    // Each operation undoes the other: s^e = m2 (public op on the device's s).
    let mut back = [0u8; 256];
    let back = &mut back[..kat.n.len()];
    key.public(s, back);
    expect("round trip", back, kat.m2)
}

/// The host check of the private operation on c itself (c^d = m), which the
/// device leaves out for time.
#[cfg(test)]
pub fn private_undoes_public<const N: usize, const H: usize>(kat: &RsaKat) -> Result<(), Failure> {
    let key = PrivateKey::<N, H>::new(kat).ok_or("key")?;
    let mut m = [0u8; 256];
    let m = &mut m[..kat.n.len()];
    key.private(kat.c, m);
    expect("private", m, kat.m)
}

#[cfg(test)]
mod tests {
    use super::super::rsa_vectors::{RSA1024, RSA2048};
    use super::*;

    #[test]
    fn the_private_operation_undoes_the_public_one() {
        assert_eq!(private_undoes_public::<N1024, H1024>(&RSA1024), Ok(()));
        assert_eq!(private_undoes_public::<N2048, H2048>(&RSA2048), Ok(()));
    }

    #[test]
    fn a_wrong_answer_is_caught() {
        let key = PrivateKey::<N1024, H1024>::new(&RSA1024).unwrap();
        let mut c = [0u8; 128];
        key.public(RSA1024.m, &mut c);
        let mut s = [0u8; 128];
        key.private(RSA1024.m2, &mut s);
        assert_eq!(check(&key, &RSA1024, &c, &s), Ok(()));
        s[127] ^= 1;
        assert!(check(&key, &RSA1024, &c, &s).is_err());
    }

    #[test]
    fn an_even_modulus_is_refused() {
        let mut n = [0u8; 128];
        n[0] = 0x80;
        assert!(bignum::Modulus::<N1024>::new(bignum::from_be::<N1024>(&n)).is_none());
    }
}
