//! P-256 (NIST SP 800-186) over the firmware's own Montgomery arithmetic
//! ([`super::bignum`]), for EDHOC where RustCrypto's `p256` does not build:
//! its crypto-bigint needs a usize of at least 32 bits, and the ATmega1284P's
//! is 16. Only what EDHOC asks of a curve: a public key's x from a private
//! key, and the x of an ECDH shared point from the peer's x.
//!
//! Points are Jacobian (X, Y, Z) in Montgomery form; a = −3. The scalar
//! multiplication doubles and adds on every bit, keeping the sum by a
//! constant-time select, so its time does not depend on the private key.
//! With a scalar in [1, n−1] and a point of order n, the running point is
//! never ±P when P is added (it is a multiple 2m·P with 2m < n − 1), so the
//! addition's exceptional cases cannot occur; the point at infinity (the
//! start) is handled by a select.

use super::bignum::{Modulus, Word, from_be, to_be};

const L: usize = 8;
type Fe = [Word; L];

const P: [u8; 32] =
    hex_literal::hex!("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff");
const B: [u8; 32] =
    hex_literal::hex!("5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b");
const GX: [u8; 32] =
    hex_literal::hex!("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296");
const GY: [u8; 32] =
    hex_literal::hex!("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5");
/// p − 2 (Fermat inversion) and (p + 1)/4 (square root, p ≡ 3 mod 4).
const P_MINUS_2: [u8; 32] =
    hex_literal::hex!("ffffffff00000001000000000000000000000000fffffffffffffffffffffffd");
const P_PLUS_1_OVER_4: [u8; 32] =
    hex_literal::hex!("3fffffffc0000000400000000000000000000000400000000000000000000000");
/// The group order n.
const N: [u8; 32] =
    hex_literal::hex!("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");

struct Point {
    x: Fe,
    y: Fe,
    z: Fe,
}

struct Curve {
    f: Modulus<L>,
    b: Fe,
}

impl Curve {
    fn new() -> Option<Curve> {
        let f = Modulus::new(from_be::<L>(&P))?;
        let b = f.to_mont(&from_be::<L>(&B));
        Some(Curve { f, b })
    }

    fn sq(&self, a: &Fe) -> Fe {
        self.f.mul(a, a)
    }

    fn double(&self, p: &Point) -> Point {
        let f = &self.f;
        let delta = self.sq(&p.z);
        let gamma = self.sq(&p.y);
        let beta = f.mul(&p.x, &gamma);
        let t = f.mul(&f.sub(&p.x, &delta), &f.add(&p.x, &delta));
        let alpha = f.add(&f.add(&t, &t), &t);
        let beta4 = f.add(&f.add(&beta, &beta), &f.add(&beta, &beta));
        let x = f.sub(&self.sq(&alpha), &f.add(&beta4, &beta4));
        let yz = f.add(&p.y, &p.z);
        let z = f.sub(&f.sub(&self.sq(&yz), &gamma), &delta);
        let gamma2 = self.sq(&gamma);
        let g4 = f.add(&f.add(&gamma2, &gamma2), &f.add(&gamma2, &gamma2));
        let y = f.sub(&f.mul(&alpha, &f.sub(&beta4, &x)), &f.add(&g4, &g4));
        Point { x, y, z }
    }

    /// p + q for q affine (z = 1), p not ±q and not infinity.
    fn add_affine(&self, p: &Point, qx: &Fe, qy: &Fe) -> Point {
        let f = &self.f;
        let z1z1 = self.sq(&p.z);
        let u2 = f.mul(qx, &z1z1);
        let s2 = f.mul(qy, &f.mul(&p.z, &z1z1));
        let h = f.sub(&u2, &p.x);
        let hh = self.sq(&h);
        let i = f.add(&f.add(&hh, &hh), &f.add(&hh, &hh));
        let j = f.mul(&h, &i);
        let d = f.sub(&s2, &p.y);
        let r = f.add(&d, &d);
        let v = f.mul(&p.x, &i);
        let x = f.sub(&f.sub(&self.sq(&r), &j), &f.add(&v, &v));
        let yj = f.mul(&p.y, &j);
        let y = f.sub(&f.mul(&r, &f.sub(&v, &x)), &f.add(&yj, &yj));
        let zh = f.add(&p.z, &h);
        let z = f.sub(&f.sub(&self.sq(&zh), &z1z1), &hh);
        Point { x, y, z }
    }

    /// k·(qx, qy), k big-endian in [1, n−1]; the x of the result, plain.
    fn mul_x(&self, k: &[u8; 32], qx: &Fe, qy: &Fe) -> Fe {
        let mut r = Point {
            x: self.f.one,
            y: self.f.one,
            z: [0; L],
        };
        for byte in k {
            for bit in (0..8).rev() {
                r = self.double(&r);
                let sum = self.add_affine(&r, qx, qy);
                // Infinity plus q is q: the addition formula does not know it.
                let infinity = is_zero(&r.z);
                let sum = Point {
                    x: choose(&sum.x, qx, infinity),
                    y: choose(&sum.y, qy, infinity),
                    z: choose(&sum.z, &self.f.one, infinity),
                };
                let take = Word::from((byte >> bit) & 1);
                r = Point {
                    x: choose(&r.x, &sum.x, take),
                    y: choose(&r.y, &sum.y, take),
                    z: choose(&r.z, &sum.z, take),
                };
            }
        }
        let zinv = self.f.pow_secret(&r.z, &P_MINUS_2);
        let x = self.f.mul(&r.x, &self.sq(&zinv));
        self.f.from_mont(&x)
    }

    /// A point's y (either one) from its x, in Montgomery form; None when x
    /// is not on the curve.
    fn lift(&self, x: &Fe) -> Option<Fe> {
        let f = &self.f;
        let x3 = f.mul(&self.sq(x), x);
        let x_3 = f.add(&f.add(x, x), x);
        let rhs = f.add(&f.sub(&x3, &x_3), &self.b);
        let y = f.pow_secret(&rhs, &P_PLUS_1_OVER_4);
        (self.sq(&y) == rhs).then_some(y)
    }
}

fn is_zero(a: &Fe) -> Word {
    let any = a.iter().fold(0, |acc, &w| acc | w);
    // 1 when every word is zero.
    ((any | any.wrapping_neg()) >> (Word::BITS - 1)) ^ 1
}

/// `a`, or `b` when `take` is 1, without a branch.
fn choose(a: &Fe, b: &Fe, take: Word) -> Fe {
    let mask = take.wrapping_neg();
    let mut out = *a;
    for (o, &s) in out.iter_mut().zip(b) {
        *o ^= (*o ^ s) & mask;
    }
    out
}

/// A scalar EDHOC may use: 1 ≤ k < n (big-endian compare).
fn valid_scalar(k: &[u8; 32]) -> bool {
    k.iter().any(|&b| b != 0) && k.as_slice() < N.as_slice()
}

/// The x-coordinate of k·G; None for a scalar outside [1, n−1].
pub fn public_x(k: &[u8; 32]) -> Option<[u8; 32]> {
    let c = Curve::new()?;
    if !valid_scalar(k) {
        return None;
    }
    let gx = c.f.to_mont(&from_be::<L>(&GX));
    let gy = c.f.to_mont(&from_be::<L>(&GY));
    let mut out = [0u8; 32];
    to_be(&c.mul_x(k, &gx, &gy), &mut out);
    Some(out)
}

/// The x of k·Q for the peer's Q given by its x (either y: the shared x is
/// the same, RFC 9528 §3.7); None for an x off the curve or a bad scalar.
pub fn ecdh_x(k: &[u8; 32], peer_x: &[u8; 32]) -> Option<[u8; 32]> {
    let c = Curve::new()?;
    if !valid_scalar(k) || peer_x.as_slice() >= P.as_slice() {
        return None;
    }
    let qx = c.f.to_mont(&from_be::<L>(peer_x));
    let qy = c.lift(&qx)?;
    let mut out = [0u8; 32];
    to_be(&c.mul_x(k, &qx, &qy), &mut out);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hex_literal::hex;

    /// RFC 9529 §3: X's public x (G_X), and X with R's public key G_R
    /// gives the trace's G_RX, as the `p256` crate agrees.
    #[test]
    fn the_traces_public_key_and_a_shared_secret() {
        let x = hex!("368ec1f69aeb659ba37d5a8d45b21bdc0299dceaa8ef235f3ca42ce3530f9525");
        let g_x = hex!("8af6f430ebe18d34184017a9a11bf511c8dff8f834730b96c1b7c8dbca2fc3b6");
        assert_eq!(public_x(&x), Some(g_x));
        let g_r = hex!("bbc34960526ea4d32e940cad2a234148ddc21791a12afbcbac93622046dd44f0");
        let y = hex!("e2f4126777205e853b437d6eaca1e1f753cdcc3e2c69fa884b0a1a640977e418");
        let g_y = public_x(&y).unwrap();
        // ECDH is symmetric: X·G_Y = Y·G_X, and both equal the crate's.
        assert_eq!(ecdh_x(&x, &g_y), ecdh_x(&y, &g_x));
        for (k, peer) in [(&x, &g_r), (&y, &g_x)] {
            let secret = p256::SecretKey::from_bytes(&(*k).into()).unwrap();
            use p256::elliptic_curve::point::DecompressPoint;
            let point: Option<p256::AffinePoint> =
                p256::AffinePoint::decompress(&(*peer).into(), 0u8.into()).into();
            let want = p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), point.unwrap());
            let want: [u8; 32] = (*want.raw_secret_bytes()).into();
            assert_eq!(ecdh_x(k, peer), Some(want));
        }
    }

    #[test]
    fn bad_scalars_and_points_are_refused() {
        assert_eq!(public_x(&[0; 32]), None);
        assert_eq!(public_x(&N), None);
        let k = [7u8; 32];
        // x = 0 is not on P-256 (b is not a square... checked by lifting).
        let on_curve = ecdh_x(&k, &[0; 32]).is_some();
        let lifted = Curve::new().unwrap().lift(&[0; L]).is_some();
        assert_eq!(on_curve, lifted);
        assert_eq!(ecdh_x(&k, &P), None);
    }
}
