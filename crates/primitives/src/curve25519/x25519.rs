//! X25519 (RFC 7748 §5): the Montgomery ladder on u-coordinates.

use cipher::zeroize::Zeroize;

use super::field::Fe;

/// The base point's u-coordinate, 9.
pub const BASE_POINT: [u8; 32] = {
    let mut u = [0u8; 32];
    u[0] = 9;
    u
};

/// The scalar multiplication X25519(k, u): the scalar clamped as RFC 7748
/// §5 decodes it, u's top bit ignored. The result may be all zeros for a
/// low-order u; RFC 7748 §6.1 leaves that check to the protocol.
pub fn x25519(scalar: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
    let mut k = *scalar;
    k[0] &= 248;
    k[31] &= 127;
    k[31] |= 64;

    let x1 = Fe::from_bytes(u);
    let [x2, z2] = ladder(&x1, &k);
    k.zeroize();
    x2.mul(&z2.invert()).to_bytes()
}

/// RFC 7748's ladder over a clamped scalar: (x2 : z2) of k·(x1 : 1).
#[cfg(umaal)]
use super::field_umaal::ladder;

/// RFC 7748's ladder over a clamped scalar: (x2 : z2) of k·(x1 : 1), each
/// value written in place (no copies of field elements).
#[cfg(not(umaal))]
fn ladder(x1: &Fe, k: &[u8; 32]) -> [Fe; 2] {
    // (x2 : z2) and (x3 : z3), each one contiguous point for the swap.
    let mut p2 = [Fe::ONE, Fe::ZERO];
    let mut p3 = [*x1, Fe::ONE];
    let (mut a, mut b, mut c, mut d) = (Fe::ZERO, Fe::ZERO, Fe::ZERO, Fe::ZERO);
    let mut swap = 0u32;
    for t in (0..255).rev() {
        let bit = u32::from((k[t / 8] >> (t % 8)) & 1);
        swap ^= bit;
        Fe::cswap2(&mut p2, &mut p3, swap);
        swap = bit;

        let [x2, z2] = &mut p2;
        let [x3, z3] = &mut p3;
        Fe::add_into(&mut a, x2, z2);
        Fe::sub_into(&mut b, x2, z2);
        Fe::add_into(&mut c, x3, z3);
        Fe::sub_into(&mut d, x3, z3);
        Fe::square_into(x2, &a); // AA
        Fe::square_into(z2, &b); // BB
        Fe::mul_into(x3, &d, &a); // DA
        Fe::mul_into(z3, &c, &b); // CB
        Fe::add_into(&mut a, x3, z3);
        Fe::sub_into(&mut b, x3, z3);
        Fe::square_into(x3, &a); // x3 = (DA + CB)²
        Fe::square_into(&mut c, &b);
        Fe::mul_into(z3, x1, &c); // z3 = x1 (DA - CB)²
        Fe::sub_into(&mut d, x2, z2); // E = AA - BB
        Fe::mul121665_add_into(&mut a, &d, x2); // AA + a24 E
        x2.mul_assign(z2); // x2 = AA BB
        Fe::mul_into(z2, &d, &a); // z2 = E (AA + a24 E)
    }
    Fe::cswap2(&mut p2, &mut p3, swap);
    p2
}

/// The public key of a secret: X25519(k, 9).
pub fn public_key(scalar: &[u8; 32]) -> [u8; 32] {
    x25519(scalar, &BASE_POINT)
}

#[cfg(test)]
mod tests {
    use super::super::field::tests::hex32;
    use super::*;

    /// RFC 7748 §5.2's two single-multiplication vectors.
    #[test]
    fn rfc7748_section_5_2() {
        let cases = [
            (
                "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
                "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
                "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552",
            ),
            (
                "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
                "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
                "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957",
            ),
        ];
        for (k, u, out) in cases {
            assert_eq!(x25519(&hex32(k), &hex32(u)), hex32(out));
        }
    }

    /// RFC 7748 §5.2's iteration: k ← X25519(k, u), u ← old k; after 1 and
    /// 1,000 iterations.
    #[test]
    fn rfc7748_iterated() {
        let mut k = BASE_POINT;
        let mut u = BASE_POINT;
        for i in 1..=1000 {
            let next = x25519(&k, &u);
            u = k;
            k = next;
            if i == 1 {
                assert_eq!(
                    k,
                    hex32("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079")
                );
            }
        }
        assert_eq!(
            k,
            hex32("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")
        );
    }

    /// RFC 7748 §6.1: both parties' public keys and their shared secret.
    #[test]
    fn rfc7748_diffie_hellman() {
        let alice = hex32("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        let bob = hex32("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
        let alice_pub = public_key(&alice);
        let bob_pub = public_key(&bob);
        assert_eq!(
            alice_pub,
            hex32("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        );
        assert_eq!(
            bob_pub,
            hex32("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        );
        let shared = hex32("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        assert_eq!(x25519(&alice, &bob_pub), shared);
        assert_eq!(x25519(&bob, &alice_pub), shared);
    }
}
