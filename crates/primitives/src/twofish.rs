//! Twofish (Schneier et al., AES submission 1998) with 128/192/256-bit keys,
//! using the paper's "full keying" option: at key setup the key-dependent
//! S-boxes and the MDS multiply are folded into four 256-entry u32 tables, so
//! the g function is four lookups and three XORs.
//!
//! Cost of that choice: 4 KiB of tables per key instance (RAM on a
//! microcontroller) and a slower key setup, in exchange for fast bulk
//! encryption.

use crate::block_plumbing::block_cipher;
use cipher::consts::{U16, U24, U32};
use cipher::zeroize::Zeroize;

/// The 4-bit permutations t0..t3 that build q0 and q1 (paper section 4.3.5).
const Q0_T: [[u8; 16]; 4] = [
    [
        0x8, 0x1, 0x7, 0xd, 0x6, 0xf, 0x3, 0x2, 0x0, 0xb, 0x5, 0x9, 0xe, 0xc, 0xa, 0x4,
    ],
    [
        0xe, 0xc, 0xb, 0x8, 0x1, 0x2, 0x3, 0x5, 0xf, 0x4, 0xa, 0x6, 0x7, 0x0, 0x9, 0xd,
    ],
    [
        0xb, 0xa, 0x5, 0xe, 0x6, 0xd, 0x9, 0x0, 0xc, 0x8, 0xf, 0x3, 0x2, 0x4, 0x7, 0x1,
    ],
    [
        0xd, 0x7, 0xf, 0x4, 0x1, 0x2, 0x6, 0xe, 0x9, 0xb, 0x3, 0x0, 0x8, 0x5, 0xc, 0xa,
    ],
];
const Q1_T: [[u8; 16]; 4] = [
    [
        0x2, 0x8, 0xb, 0xd, 0xf, 0x7, 0x6, 0xe, 0x3, 0x1, 0x9, 0x4, 0x0, 0xa, 0xc, 0x5,
    ],
    [
        0x1, 0xe, 0x2, 0xb, 0x4, 0xc, 0x3, 0x7, 0x6, 0xd, 0xa, 0x5, 0xf, 0x9, 0x0, 0x8,
    ],
    [
        0x4, 0xc, 0x7, 0x5, 0x1, 0x6, 0x9, 0xa, 0x0, 0xe, 0xd, 0x8, 0x2, 0xb, 0x3, 0xf,
    ],
    [
        0xb, 0x9, 0x5, 0x1, 0xc, 0x3, 0xd, 0xe, 0x6, 0x4, 0x7, 0xf, 0x2, 0x0, 0x8, 0xa,
    ],
];

const fn ror4(x: u8) -> u8 {
    ((x >> 1) | (x << 3)) & 0xf
}

/// Builds q0 or q1 from its four 4-bit tables.
const fn q_table(t: &[[u8; 16]; 4]) -> [u8; 256] {
    let mut q = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        let (a0, b0) = ((x >> 4) as u8, (x & 0xf) as u8);
        let a1 = a0 ^ b0;
        let b1 = a0 ^ ror4(b0) ^ ((a0 << 3) & 0xf);
        let (a2, b2) = (t[0][a1 as usize], t[1][b1 as usize]);
        let a3 = a2 ^ b2;
        let b3 = a2 ^ ror4(b2) ^ ((a2 << 3) & 0xf);
        let (a4, b4) = (t[2][a3 as usize], t[3][b3 as usize]);
        q[x] = (b4 << 4) | a4;
        x += 1;
    }
    q
}

static Q0: [u8; 256] = q_table(&Q0_T);
static Q1: [u8; 256] = q_table(&Q1_T);

/// Multiplication in GF(2^8) modulo the given primitive polynomial.
const fn gf_mul(mut a: u8, mut b: u8, poly: u16) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= (poly & 0xff) as u8;
        }
        b >>= 1;
    }
    r
}

/// MDS matrix over GF(2^8) mod x^8+x^6+x^5+x^3+1 (0x169).
const MDS: [[u8; 4]; 4] = [
    [0x01, 0xef, 0x5b, 0x5b],
    [0x5b, 0xef, 0xef, 0x01],
    [0xef, 0x5b, 0x01, 0xef],
    [0xef, 0x01, 0xef, 0x5b],
];

/// Reed-Solomon matrix over GF(2^8) mod x^8+x^6+x^3+x^2+1 (0x14d).
const RS: [[u8; 8]; 4] = [
    [0x01, 0xa4, 0x55, 0x87, 0x5a, 0x58, 0xdb, 0x9e],
    [0xa4, 0x56, 0x82, 0xf3, 0x1e, 0xc6, 0x68, 0xe5],
    [0x02, 0xa1, 0xfc, 0xc1, 0x47, 0xae, 0x3d, 0x19],
    [0xa4, 0x55, 0x87, 0x5a, 0x58, 0xdb, 0x9e, 0x03],
];

/// Column j of MDS times y, as a little-endian word.
fn mds_column(j: usize, y: u8) -> u32 {
    (0..4).fold(0, |acc, row| {
        acc | (gf_mul(MDS[row][j], y, 0x169) as u32) << (8 * row)
    })
}

/// The S-box chain of h for byte position j: q-permutations interleaved with
/// XORs of byte j of the key words L (paper figure 2; `l[0]` is L0).
fn chain(j: usize, x: u8, l: &[u32]) -> u8 {
    // Which q is applied at each level, from the k = 4 level down to the output.
    const Q_ORDER: [[bool; 4]; 5] = [
        // true = q1, false = q0; columns are byte positions 0..3.
        [true, false, false, true], // before XOR with L3
        [true, true, false, false], // before XOR with L2
        [false, true, false, true], // before XOR with L1
        [false, false, true, true], // before XOR with L0
        [true, false, true, false], // final
    ];
    let q = |one: bool, v: u8| if one { Q1[v as usize] } else { Q0[v as usize] };
    let lb = |i: usize| (l[i] >> (8 * j)) as u8;
    let mut y = x;
    let k = l.len();
    if k == 4 {
        y = q(Q_ORDER[0][j], y) ^ lb(3);
    }
    if k >= 3 {
        y = q(Q_ORDER[1][j], y) ^ lb(2);
    }
    y = q(Q_ORDER[2][j], y) ^ lb(1);
    y = q(Q_ORDER[3][j], y) ^ lb(0);
    q(Q_ORDER[4][j], y)
}

/// The function h(X, L) of the paper.
fn h(x: u32, l: &[u32]) -> u32 {
    (0..4).fold(0, |acc, j| {
        acc ^ mds_column(j, chain(j, (x >> (8 * j)) as u8, l))
    })
}

/// Expanded Twofish key: 40 subkeys plus the four full-keying g tables.
#[derive(Clone)]
struct Schedule {
    k: [u32; 40],
    g: [[u32; 256]; 4],
}

impl Schedule {
    fn new(key: &[u8]) -> Self {
        let k = key.len() / 8;
        let mut me = [0u32; 4];
        let mut mo = [0u32; 4];
        let mut s = [0u32; 4];
        for i in 0..k {
            let word = |n: usize| {
                u32::from_le_bytes([key[4 * n], key[4 * n + 1], key[4 * n + 2], key[4 * n + 3]])
            };
            me[i] = word(2 * i);
            mo[i] = word(2 * i + 1);
            // S_i = RS · m[8i..8i+8]; the S vector is reversed: L_i = S_{k-1-i}.
            let chunk = &key[8 * i..8 * i + 8];
            let mut si = 0u32;
            for (row, coeffs) in RS.iter().enumerate() {
                let b = coeffs
                    .iter()
                    .zip(chunk)
                    .fold(0, |acc, (&c, &m)| acc ^ gf_mul(c, m, 0x14d));
                si |= (b as u32) << (8 * row);
            }
            s[k - 1 - i] = si;
        }

        let mut sub = [0u32; 40];
        const RHO: u32 = 0x0101_0101;
        for i in 0..20 {
            let a = h((2 * i as u32).wrapping_mul(RHO), &me[..k]);
            let b = h((2 * i as u32 + 1).wrapping_mul(RHO), &mo[..k]).rotate_left(8);
            sub[2 * i] = a.wrapping_add(b);
            sub[2 * i + 1] = a.wrapping_add(b.wrapping_mul(2)).rotate_left(9);
        }

        let mut g = [[0u32; 256]; 4];
        for (j, table) in g.iter_mut().enumerate() {
            for (x, entry) in table.iter_mut().enumerate() {
                *entry = mds_column(j, chain(j, x as u8, &s[..k]));
            }
        }
        me.zeroize();
        mo.zeroize();
        s.zeroize();
        Self { k: sub, g }
    }

    #[inline(always)]
    fn g(&self, x: u32) -> u32 {
        self.g[0][(x & 0xff) as usize]
            ^ self.g[1][((x >> 8) & 0xff) as usize]
            ^ self.g[2][((x >> 16) & 0xff) as usize]
            ^ self.g[3][(x >> 24) as usize]
    }

    #[inline(always)]
    fn f(&self, a: u32, b: u32, round: usize) -> (u32, u32) {
        let t0 = self.g(a);
        let t1 = self.g(b.rotate_left(8));
        (
            t0.wrapping_add(t1).wrapping_add(self.k[2 * round + 8]),
            t0.wrapping_add(t1.wrapping_mul(2))
                .wrapping_add(self.k[2 * round + 9]),
        )
    }

    fn encrypt(&self, block: &mut [u8; 16]) {
        let w = load(block);
        let [mut r0, mut r1, mut r2, mut r3] = [
            w[0] ^ self.k[0],
            w[1] ^ self.k[1],
            w[2] ^ self.k[2],
            w[3] ^ self.k[3],
        ];
        // Two rounds per iteration so the halves never need swapping.
        for round in (0..16).step_by(2) {
            let (f0, f1) = self.f(r0, r1, round);
            r2 = (r2 ^ f0).rotate_right(1);
            r3 = r3.rotate_left(1) ^ f1;
            let (f0, f1) = self.f(r2, r3, round + 1);
            r0 = (r0 ^ f0).rotate_right(1);
            r1 = r1.rotate_left(1) ^ f1;
        }
        store(
            block,
            [
                r2 ^ self.k[4],
                r3 ^ self.k[5],
                r0 ^ self.k[6],
                r1 ^ self.k[7],
            ],
        );
    }

    fn decrypt(&self, block: &mut [u8; 16]) {
        let w = load(block);
        let [mut r2, mut r3, mut r0, mut r1] = [
            w[0] ^ self.k[4],
            w[1] ^ self.k[5],
            w[2] ^ self.k[6],
            w[3] ^ self.k[7],
        ];
        for round in (0..16).step_by(2).rev() {
            let (f0, f1) = self.f(r2, r3, round + 1);
            r0 = r0.rotate_left(1) ^ f0;
            r1 = (r1 ^ f1).rotate_right(1);
            let (f0, f1) = self.f(r0, r1, round);
            r2 = r2.rotate_left(1) ^ f0;
            r3 = (r3 ^ f1).rotate_right(1);
        }
        store(
            block,
            [
                r0 ^ self.k[0],
                r1 ^ self.k[1],
                r2 ^ self.k[2],
                r3 ^ self.k[3],
            ],
        );
    }

    fn wipe(&mut self) {
        self.k.zeroize();
        for t in self.g.iter_mut() {
            t.zeroize();
        }
    }
}

fn load(block: &[u8; 16]) -> [u32; 4] {
    let mut w = [0u32; 4];
    for (x, c) in w.iter_mut().zip(block.chunks_exact(4)) {
        *x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    w
}

fn store(block: &mut [u8; 16], w: [u32; 4]) {
    for (c, x) in block.chunks_exact_mut(4).zip(w) {
        c.copy_from_slice(&x.to_le_bytes());
    }
}

macro_rules! twofish_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $alg:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name(Schedule);

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                Self(Schedule::new(key))
            }

            fn encrypt_bytes(&self, block: &mut [u8; 16]) {
                self.0.encrypt(block);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 16]) {
                self.0.decrypt(block);
            }

            fn wipe(&mut self) {
                self.0.wipe();
            }
        }

        block_cipher!($name, key: $key_size, block: U16, alg: $alg);
    };
}

twofish_variant!(
    /// Table-driven Twofish with a 128-bit key. Block 16 bytes, key 16 bytes.
    Twofish128, 16, U16, "Twofish-128"
);
twofish_variant!(
    /// Table-driven Twofish with a 192-bit key. Block 16 bytes, key 24 bytes.
    Twofish192, 24, U24, "Twofish-192"
);
twofish_variant!(
    /// Table-driven Twofish with a 256-bit key. Block 16 bytes, key 32 bytes.
    Twofish256, 32, U32, "Twofish-256"
);
