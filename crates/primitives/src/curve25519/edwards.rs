//! The twisted Edwards curve -x² + y² = 1 + d x² y² (edwards25519, RFC 8032
//! §5.1) in extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z,
//! T = XY/Z, with Hisil-Wong-Carter-Dawson's a = -1 formulas: complete, so
//! the identity and equal points need no special case.
//!
//! The base point's multiples come from a fixed comb (four teeth 64 bits
//! apart, 16 precomputed points: 64 doublings and 64 additions, every table
//! entry read for each); a public point's multiples (verification) from a
//! window of 4 bits that may branch and index on the public scalar.

use super::field::Fe;

/// d = -121665/121666.
pub(crate) const D: Fe = Fe([
    0x135978a3, 0x75eb4dca, 0x4141d8ab, 0x00700a4d, 0x7779e898, 0x8cc74079, 0x2b6ffe73, 0x52036cee,
]);
/// 2d.
const D2: Fe = Fe([
    0x26b2f159, 0xebd69b94, 0x8283b156, 0x00e0149a, 0xeef3d130, 0x198e80f2, 0x56dffce7, 0x2406d9dc,
]);
/// √-1 = 2^((p-1)/4).
const SQRT_M1: Fe = Fe([
    0x4a0ea0b0, 0xc4ee1b27, 0xad2fe478, 0x2f431806, 0x3dfbd7a7, 0x2b4d0099, 0x4fc1df0b, 0x2b832480,
]);

/// A point in extended coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    x: Fe,
    y: Fe,
    z: Fe,
    t: Fe,
}

/// A point ready to be added: (Y + X, Y - X, 2Z, 2dT).
#[derive(Clone, Copy, Debug)]
struct Cached {
    y_plus_x: Fe,
    y_minus_x: Fe,
    z2: Fe,
    t2d: Fe,
}

/// An affine point ready to be added (Z = 1): (y + x, y - x, 2dxy).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub(crate) struct Niels {
    pub(crate) y_plus_x: Fe,
    pub(crate) y_minus_x: Fe,
    pub(crate) xy2d: Fe,
}

impl Point {
    /// The neutral element (0, 1).
    pub const IDENTITY: Point = Point {
        x: Fe::ZERO,
        y: Fe::ONE,
        z: Fe::ONE,
        t: Fe::ZERO,
    };

    /// 2P (dbl-2008-hwcd): 4 squarings, 4 multiplications.
    pub fn double(&self) -> Point {
        self.double_with::<true>()
    }

    /// 2P, its T computed only if `WITH_T` (only an addition reads T: a
    /// doubling followed by another saves a multiplication).
    fn double_with<const WITH_T: bool>(&self) -> Point {
        let a = self.x.square();
        let b = self.y.square();
        let zz = self.z.square();
        let c = zz.add(&zz);
        let e = self.x.add(&self.y).square().sub(&a).sub(&b);
        let g = b.sub(&a); // D + B with D = -A
        let f = g.sub(&c);
        let h = Fe::ZERO.sub(&a).sub(&b); // D - B
        Point {
            x: e.mul(&f),
            y: g.mul(&h),
            z: f.mul(&g),
            t: if WITH_T { e.mul(&h) } else { Fe::ZERO },
        }
    }

    fn cached(&self) -> Cached {
        Cached {
            y_plus_x: self.y.add(&self.x),
            y_minus_x: self.y.sub(&self.x),
            z2: self.z.add(&self.z),
            t2d: self.t.mul(&D2),
        }
    }

    /// P + Q (add-2008-hwcd-3): 8 multiplications.
    fn add_cached(&self, q: &Cached) -> Point {
        let a = self.y.sub(&self.x).mul(&q.y_minus_x);
        let b = self.y.add(&self.x).mul(&q.y_plus_x);
        let c = self.t.mul(&q.t2d);
        let d = self.z.mul(&q.z2);
        finish(&a, &b, &c, &d)
    }

    /// P + Q for an affine Q: 7 multiplications.
    fn add_niels(&self, q: &Niels) -> Point {
        let a = self.y.sub(&self.x).mul(&q.y_minus_x);
        let b = self.y.add(&self.x).mul(&q.y_plus_x);
        let c = self.t.mul(&q.xy2d);
        let d = self.z.add(&self.z);
        finish(&a, &b, &c, &d)
    }

    /// -P.
    pub fn neg(&self) -> Point {
        Point {
            x: self.x.neg(),
            y: self.y,
            z: self.z,
            t: self.t.neg(),
        }
    }

    /// P + Q.
    pub fn add(&self, q: &Point) -> Point {
        self.add_cached(&q.cached())
    }

    /// RFC 8032 §5.1.2: y with the sign of x in bit 255.
    pub fn to_bytes(&self) -> [u8; 32] {
        let zinv = self.z.invert();
        let x = self.x.mul(&zinv);
        let y = self.y.mul(&zinv);
        let mut out = y.to_bytes();
        out[31] |= u8::from(x.is_negative()) << 7;
        out
    }

    /// RFC 8032 §5.1.3: None for a y at or above p, no square root, or a
    /// negative zero x. Public values only (it branches).
    pub fn from_bytes(bytes: &[u8; 32]) -> Option<Point> {
        let sign = bytes[31] >> 7;
        let y = Fe::from_bytes(bytes);
        let mut y_bytes = *bytes;
        y_bytes[31] &= 0x7f;
        if y.to_bytes() != y_bytes {
            return None;
        }
        let yy = y.square();
        let u = yy.sub(&Fe::ONE);
        let v = yy.mul(&D).add(&Fe::ONE);
        // x = u v³ (u v⁷)^((p-5)/8)
        let v3 = v.square().mul(&v);
        let v7 = v3.square().mul(&v);
        let mut x = u.mul(&v3).mul(&u.mul(&v7).pow_p58());
        let vxx = v.mul(&x.square());
        if vxx.ct_eq(&u) {
        } else if vxx.ct_eq(&u.neg()) {
            x = x.mul(&SQRT_M1);
        } else {
            return None;
        }
        if x.is_zero() && sign == 1 {
            return None;
        }
        if u8::from(x.is_negative()) != sign {
            x = x.neg();
        }
        Some(Point {
            x,
            y,
            z: Fe::ONE,
            t: x.mul(&y),
        })
    }

    /// [s]B for a secret s of 32 little-endian bytes (any 256-bit value):
    /// the comb. Constant time: every step doubles, reads all 16 entries
    /// and adds.
    pub fn mul_base(s: &[u8; 32]) -> Point {
        let bit = |i: usize| u32::from((s[i / 8] >> (i % 8)) & 1);
        let mut q = Point::IDENTITY;
        for i in (0..64).rev() {
            if i != 63 {
                q = q.double();
            }
            let index = bit(i) | bit(i + 64) << 1 | bit(i + 128) << 2 | bit(i + 192) << 3;
            q = q.add_niels(&select(&COMB, index));
        }
        q
    }

    /// [s]P for a public s and P (verification): 4-bit windows from the top,
    /// a table of 0P..15P. Branches and indexes on s.
    pub fn mul_vartime(&self, s: &[u8; 32]) -> Point {
        let mut table = [Point::IDENTITY.cached(); 16];
        let mut multiple = *self;
        for entry in table.iter_mut().skip(1) {
            *entry = multiple.cached();
            multiple = multiple.add_cached(&self.cached());
        }
        let mut q = Point::IDENTITY;
        for i in (0..64).rev() {
            if i != 63 {
                for _ in 0..3 {
                    q = q.double_with::<false>();
                }
                q = q.double();
            }
            let digit = usize::from((s[i / 2] >> (4 * (i % 2))) & 15);
            if digit != 0 {
                q = q.add_cached(&table[digit]);
            }
        }
        q
    }

    /// Equality as points (cross-multiplied: no inversion).
    pub fn ct_eq(&self, q: &Point) -> bool {
        self.x.mul(&q.z).ct_eq(&q.x.mul(&self.z)) && self.y.mul(&q.z).ct_eq(&q.y.mul(&self.z))
    }
}

/// The common end of both additions: E = B - A, F = D - C, G = D + C,
/// H = B + A; (EF, GH, FG, EH).
fn finish(a: &Fe, b: &Fe, c: &Fe, d: &Fe) -> Point {
    let e = b.sub(a);
    let f = d.sub(c);
    let g = d.add(c);
    let h = b.add(a);
    Point {
        x: e.mul(&f),
        y: g.mul(&h),
        z: f.mul(&g),
        t: e.mul(&h),
    }
}

/// table[index], reading every entry (index is secret).
#[cfg(umaal)]
use super::field_umaal::comb_select as select;

/// table[index], reading every entry (index is secret): each entry is kept
/// or not under a `subtle` choice, whose barrier keeps the compiler from
/// turning the mask back into a branch.
#[cfg(not(umaal))]
fn select(table: &[Niels; 16], index: u32) -> Niels {
    use subtle::{ConditionallySelectable, ConstantTimeEq};
    let mut out = table[0];
    for (j, entry) in (0u32..).zip(table.iter()).skip(1) {
        let hit = j.ct_eq(&index);
        for (o, e) in [
            (&mut out.y_plus_x, &entry.y_plus_x),
            (&mut out.y_minus_x, &entry.y_minus_x),
            (&mut out.xy2d, &entry.xy2d),
        ] {
            for (ow, ew) in o.0.iter_mut().zip(e.0) {
                ow.conditional_assign(&ew, hit);
            }
        }
    }
    out
}

/// The comb: entry j is Σ 2^(64t)·B over the bits t of j, affine, as
/// (y + x, y - x, 2dxy). Computed with Python's integers from RFC 8032's B;
/// `comb_table_is_the_base_points_multiples` recomputes it with this code.
pub(crate) const COMB: [Niels; 16] = [
    Niels {
        y_plus_x: Fe([
            0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
            0x00000000,
        ]),
        y_minus_x: Fe([
            0x00000001, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
            0x00000000,
        ]),
        xy2d: Fe([
            0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000,
            0x00000000,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0xf58c3b85, 0x2fbc93c6, 0xfb8c0e19, 0xcf932dc6, 0x643d42c2, 0x270b4898, 0x33d4ba65,
            0x07cf9d3a,
        ]),
        y_minus_x: Fe([
            0xd740913e, 0x9d103905, 0xd140beb3, 0xfd399f05, 0x688f8a09, 0xa5c18434, 0x98f81267,
            0x44fd2f92,
        ]),
        xy2d: Fe([
            0x877aaa68, 0xabc91205, 0xccaac49e, 0x26d9e823, 0xdd43598c, 0x5a1b7dcb, 0x9f0c65a8,
            0x6f117b68,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x77d1f515, 0xcd2a65e7, 0x8faa60f1, 0x54899187, 0xdabc06e5, 0xb1b73bbc, 0xa97cc9fb,
            0x654878cb,
        ]),
        y_minus_x: Fe([
            0x8df6b0fe, 0x51138ec7, 0xe575f51b, 0x5397da89, 0x717af1b9, 0x09207a1d, 0x2b20d650,
            0x2102fdba,
        ]),
        xy2d: Fe([
            0x055ce6a1, 0x969ee405, 0x1251ad29, 0x36bca768, 0xaa7da415, 0x3a1af517, 0x29ecb2ba,
            0x0ad725db,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x601e59e8, 0x0055c585, 0x66480e60, 0x8793342b, 0xfe45e44c, 0x3e14aad0, 0x4813cf2b,
            0x26ead8e6,
        ]),
        y_minus_x: Fe([
            0x9c8462a4, 0xcb75b8b6, 0x67d31cd7, 0x2dd86fc5, 0x881342f6, 0xcd1972ec, 0x0fc12f2f,
            0x0975b597,
        ]),
        xy2d: Fe([
            0xda5ba743, 0x63cf2303, 0x52f1ba6e, 0x04bf9d81, 0xaa7367da, 0x333790d0, 0x9df6c5ea,
            0x53467047,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0xacad8ea2, 0x583b04bf, 0x148be884, 0x29b743e8, 0x0810c5db, 0x2b1e583b, 0x8eb3bbaa,
            0x2b5449e5,
        ]),
        y_minus_x: Fe([
            0xeb3dbe47, 0x5f3a7562, 0x8ebda0b8, 0xf7ea3854, 0x45747299, 0x00c3e531, 0x1627d551,
            0x1304e9e7,
        ]),
        xy2d: Fe([
            0x6adc9cfe, 0x789814d2, 0x8b48dd0b, 0x3c1bab3f, 0xf979c60a, 0xda0fe1ff, 0x7c2dd693,
            0x4468de2d,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0xe3bc6748, 0x2118278d, 0xd0b20ef7, 0xe71ffd60, 0xc67bb198, 0xf551be51, 0xd0543d4d,
            0x26a13664,
        ]),
        y_minus_x: Fe([
            0x13a339ee, 0x29522d3b, 0x6cd89529, 0x85522550, 0xacf4f0f1, 0xdfea3ad4, 0x7942742e,
            0x49d76bba,
        ]),
        xy2d: Fe([
            0x8d56e61d, 0x14fa4233, 0xc351299a, 0x191d3946, 0xa7adb185, 0x247d576d, 0xa8fcedc2,
            0x4e1fafe3,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x236a044c, 0x15e7053d, 0x3b8d87e3, 0x3cddbcb1, 0xd321a828, 0x519960d2, 0x0fc5bba4,
            0x4e559a0f,
        ]),
        y_minus_x: Fe([
            0x9c12701c, 0xfe00e876, 0x039c3b5f, 0x95dcdc0a, 0x0c02eb1b, 0xc169454b, 0x5f87530c,
            0x727021d3,
        ]),
        xy2d: Fe([
            0x27df241e, 0xa5710407, 0xb2900d36, 0xdf45efaa, 0x60a69ade, 0xfe6edb5c, 0x07bbc01d,
            0x64fcb730,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x6fd390ca, 0x38ef58cc, 0x171a98fc, 0xef786575, 0xc442d65f, 0x8850b78f, 0x6fd086ef,
            0x6f34c66d,
        ]),
        y_minus_x: Fe([
            0x3898dc04, 0x93f3cbb4, 0x4307b727, 0x0791ffb2, 0xce34981d, 0xd7bd8096, 0x8b849f6d,
            0x0b598b8e,
        ]),
        xy2d: Fe([
            0x0cc2f689, 0x11cfc18a, 0xb529ce2a, 0x81114607, 0xc00b5940, 0x0a9bc046, 0xb1ac66c8,
            0x412128b0,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0xc80c1ac0, 0xa66dcc9d, 0x1b38a436, 0x97a05cf4, 0x95dbd7c6, 0xa7ebf3be, 0x8d7e7dab,
            0x7da0b8f6,
        ]),
        y_minus_x: Fe([
            0x385675a6, 0xef782014, 0xaafda9e8, 0xa2649f30, 0x5cdfa8cb, 0x4cd1eb50, 0x1d4dc0b3,
            0x46115aba,
        ]),
        xy2d: Fe([
            0xc3b5da76, 0xd40f1953, 0x21119e9b, 0x1dac6f73, 0xfeb25960, 0x03cc6021, 0x83674b4b,
            0x5a5f887e,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x0ca2c1f4, 0x0a8d6018, 0xcc68df40, 0x815eb0db, 0xb82f4e99, 0xd7e67a47, 0x607f15c0,
            0x45a02890,
        ]),
        y_minus_x: Fe([
            0xfd41f184, 0xfef366d1, 0x01cfe11e, 0x8b694a11, 0x0150a74d, 0x4b39e15e, 0x6ad351ba,
            0x4013f03d,
        ]),
        xy2d: Fe([
            0x6ee065cc, 0xbd0282dc, 0x224ae646, 0x36b994fd, 0xfebce874, 0x534e9ad8, 0xd9f06e4f,
            0x482255c1,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x71cef800, 0x3c03eacf, 0xca8afebb, 0x90367544, 0x6a29c477, 0x383fea28, 0xbc655462,
            0x4e8593b0,
        ]),
        y_minus_x: Fe([
            0xa3e5638c, 0x12de114a, 0x29c4f20d, 0xba2a4aa9, 0x7b8b13a3, 0x56b0d29d, 0x7b9b7944,
            0x6bb91a49,
        ]),
        xy2d: Fe([
            0xc5e7d206, 0x2a49e646, 0x9263c445, 0xb13ef9cd, 0xedab529e, 0x50ab6ce8, 0xb0ebe39b,
            0x20cf7d79,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x8ae75c48, 0xcbd28f4e, 0x44000b60, 0x3cde0291, 0x98bc2170, 0x373bb9c8, 0x9f570886,
            0x7c118853,
        ]),
        y_minus_x: Fe([
            0xf0fe7dca, 0x7db4939d, 0xcba951ce, 0xf50eb90f, 0x357e1d1d, 0x098be61c, 0x8899469d,
            0x02356237,
        ]),
        xy2d: Fe([
            0xe15a4c03, 0x20f6effa, 0x3c778e05, 0x2f470a94, 0xfc99de67, 0x79f50a03, 0xd1061483,
            0x38d20188,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x0e6315df, 0x23e811ad, 0xe2aeb290, 0x0b650d05, 0xa75d586c, 0xb7ba0f59, 0x5e1f4dee,
            0x043eedd4,
        ]),
        y_minus_x: Fe([
            0xc7073217, 0xf6c147f2, 0xf3afd20c, 0xc651b919, 0x7041f802, 0x258fdbfd, 0x4f45073e,
            0x173c4fa9,
        ]),
        xy2d: Fe([
            0x928df9c4, 0x3d71ea60, 0x3373562d, 0x5b7e7806, 0xa29552b2, 0xd9b0514c, 0x993cc472,
            0x1e2a7024,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0xd45c811f, 0x601a0fbc, 0x92ec0803, 0x24b7bc7d, 0x17d2407f, 0xa0cae62b, 0x06225b26,
            0x5fcb43ee,
        ]),
        y_minus_x: Fe([
            0x3509fba4, 0x310509b9, 0x05631b75, 0x0d8db376, 0x52401c87, 0x97deccba, 0x11b2e773,
            0x044649f4,
        ]),
        xy2d: Fe([
            0x9598215f, 0x0c0d24ad, 0xcc36628c, 0x1b7f9026, 0x7016dcea, 0x338e2f55, 0x5cc0e58f,
            0x0c8a1bfa,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x681d104c, 0x8de703b5, 0x1263cb45, 0x3d2f7a59, 0x1ce56c63, 0xae710c17, 0xfcc3e6ca,
            0x6b857c7e,
        ]),
        y_minus_x: Fe([
            0x8b2801c0, 0x79d256b4, 0x3c400fc4, 0x7e9fbeac, 0x4733ba41, 0xa751ab1d, 0xdd418aca,
            0x09de2bf5,
        ]),
        xy2d: Fe([
            0xeff0687f, 0x3bf10ff3, 0xf1e37ba2, 0x5ebaea34, 0x1d66034d, 0xe49e6126, 0xc3b242ca,
            0x5b466e2a,
        ]),
    },
    Niels {
        y_plus_x: Fe([
            0x47fbb842, 0x137eeb67, 0x60811a8b, 0x79df5c75, 0x71f8c89a, 0x5a2ba76f, 0x3bc8ffc2,
            0x09952a56,
        ]),
        y_minus_x: Fe([
            0xdc7ef83c, 0xa2a8cb4b, 0x5f93c226, 0x96b5c6fa, 0x0664e3a5, 0xd4ebeb1b, 0xe5c6cf2f,
            0x409b4adc,
        ]),
        xy2d: Fe([
            0x834350c4, 0x44d53db9, 0xa5f505b4, 0x89299305, 0x5949ff2f, 0xfb22faa2, 0x04657d64,
            0x69b968a7,
        ]),
    },
];

#[cfg(test)]
mod tests {
    use super::super::field::tests::hex32;
    use super::*;

    /// RFC 8032's B, decoded from its encoding (y = 4/5, x even).
    fn base() -> Point {
        let mut b = [0x66u8; 32];
        b[0] = 0x58;
        Point::from_bytes(&b).unwrap()
    }

    fn affine_niels(p: &Point) -> Niels {
        let zinv = p.z.invert();
        let (x, y) = (p.x.mul(&zinv), p.y.mul(&zinv));
        Niels {
            y_plus_x: y.add(&x),
            y_minus_x: y.sub(&x),
            xy2d: x.mul(&y).mul(&D2),
        }
    }

    #[test]
    fn comb_table_is_the_base_points_multiples() {
        let mut teeth = [base(); 4];
        for t in 1..4 {
            let mut p = teeth[t - 1];
            for _ in 0..64 {
                p = p.double();
            }
            teeth[t] = p;
        }
        for (j, entry) in COMB.iter().enumerate() {
            let mut p = Point::IDENTITY;
            for (t, tooth) in teeth.iter().enumerate() {
                if j >> t & 1 == 1 {
                    p = p.add(tooth);
                }
            }
            assert_eq!(&affine_niels(&p), entry, "comb entry {j}");
        }
    }

    #[test]
    fn constants_hold() {
        // d·121666 = -121665; (√-1)² = -1.
        assert!(
            D.mul_small(121_666)
                .add(&Fe::ONE.mul_small(121_665))
                .is_zero()
        );
        assert!(SQRT_M1.square().add(&Fe::ONE).is_zero());
        assert!(D2.ct_eq(&D.add(&D)));
    }

    #[test]
    fn comb_and_window_agree_with_doubling_and_adding() {
        let b = base();
        let scalars = [
            hex32("0100000000000000000000000000000000000000000000000000000000000000"),
            hex32("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
            hex32("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010"),
            hex32("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
        ];
        for s in scalars {
            // Double and add, bit by bit from the top.
            let mut expected = Point::IDENTITY;
            for i in (0..256).rev() {
                expected = expected.double();
                if (s[i / 8] >> (i % 8)) & 1 == 1 {
                    expected = expected.add(&b);
                }
            }
            assert!(Point::mul_base(&s).ct_eq(&expected));
            assert!(b.mul_vartime(&s).ct_eq(&expected));
        }
        // ℓ·B is the identity (the third scalar above is ℓ).
        assert!(Point::mul_base(&scalars[2]).ct_eq(&Point::IDENTITY));
    }

    #[test]
    fn decoding_refuses_what_rfc_8032_refuses() {
        // y = p (not below p), and y = 2 (x² = 3/(4d + 1) has no root).
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        assert!(Point::from_bytes(&p).is_none());
        let mut two = [0u8; 32];
        two[0] = 2;
        assert!(Point::from_bytes(&two).is_none());
        // y = 1, x = 0 with the sign bit set: a negative zero.
        let mut one = [0u8; 32];
        one[0] = 1;
        assert!(Point::from_bytes(&one).is_some());
        one[31] = 0x80;
        assert!(Point::from_bytes(&one).is_none());
        // B round-trips.
        let b = base();
        let mut enc = [0x66u8; 32];
        enc[0] = 0x58;
        assert_eq!(b.to_bytes(), enc);
    }
}
