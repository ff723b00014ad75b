//! CLEFIA, the Sony 128-bit block cipher (RFC 6114), 128/192/256-bit keys.
//!
//! Written from RFC 6114 sections 2-3. The F-functions use four 1 KiB const
//! tables each (S-box followed by one column of M0/M1), built at compile time
//! from the RFC's S0/S1 tables and matrices, so the round is eight lookups.
//! With the `compact-tables` feature (for AVR, where constant tables are
//! copied to SRAM) only the 512 bytes of S-boxes are kept.

use crate::block_plumbing::block_cipher;
use cipher::consts::{U16, U24, U32};
use cipher::zeroize::Zeroize;

/// S0 from RFC 6114 section 2.4.2 (built there from four 4-bit S-boxes).
#[rustfmt::skip]
const S0: [u8; 256] = [
    0x57, 0x49, 0xd1, 0xc6, 0x2f, 0x33, 0x74, 0xfb, 0x95, 0x6d, 0x82, 0xea, 0x0e, 0xb0, 0xa8, 0x1c,
    0x28, 0xd0, 0x4b, 0x92, 0x5c, 0xee, 0x85, 0xb1, 0xc4, 0x0a, 0x76, 0x3d, 0x63, 0xf9, 0x17, 0xaf,
    0xbf, 0xa1, 0x19, 0x65, 0xf7, 0x7a, 0x32, 0x20, 0x06, 0xce, 0xe4, 0x83, 0x9d, 0x5b, 0x4c, 0xd8,
    0x42, 0x5d, 0x2e, 0xe8, 0xd4, 0x9b, 0x0f, 0x13, 0x3c, 0x89, 0x67, 0xc0, 0x71, 0xaa, 0xb6, 0xf5,
    0xa4, 0xbe, 0xfd, 0x8c, 0x12, 0x00, 0x97, 0xda, 0x78, 0xe1, 0xcf, 0x6b, 0x39, 0x43, 0x55, 0x26,
    0x30, 0x98, 0xcc, 0xdd, 0xeb, 0x54, 0xb3, 0x8f, 0x4e, 0x16, 0xfa, 0x22, 0xa5, 0x77, 0x09, 0x61,
    0xd6, 0x2a, 0x53, 0x37, 0x45, 0xc1, 0x6c, 0xae, 0xef, 0x70, 0x08, 0x99, 0x8b, 0x1d, 0xf2, 0xb4,
    0xe9, 0xc7, 0x9f, 0x4a, 0x31, 0x25, 0xfe, 0x7c, 0xd3, 0xa2, 0xbd, 0x56, 0x14, 0x88, 0x60, 0x0b,
    0xcd, 0xe2, 0x34, 0x50, 0x9e, 0xdc, 0x11, 0x05, 0x2b, 0xb7, 0xa9, 0x48, 0xff, 0x66, 0x8a, 0x73,
    0x03, 0x75, 0x86, 0xf1, 0x6a, 0xa7, 0x40, 0xc2, 0xb9, 0x2c, 0xdb, 0x1f, 0x58, 0x94, 0x3e, 0xed,
    0xfc, 0x1b, 0xa0, 0x04, 0xb8, 0x8d, 0xe6, 0x59, 0x62, 0x93, 0x35, 0x7e, 0xca, 0x21, 0xdf, 0x47,
    0x15, 0xf3, 0xba, 0x7f, 0xa6, 0x69, 0xc8, 0x4d, 0x87, 0x3b, 0x9c, 0x01, 0xe0, 0xde, 0x24, 0x52,
    0x7b, 0x0c, 0x68, 0x1e, 0x80, 0xb2, 0x5a, 0xe7, 0xad, 0xd5, 0x23, 0xf4, 0x46, 0x3f, 0x91, 0xc9,
    0x6e, 0x84, 0x72, 0xbb, 0x0d, 0x18, 0xd9, 0x96, 0xf0, 0x5f, 0x41, 0xac, 0x27, 0xc5, 0xe3, 0x3a,
    0x81, 0x6f, 0x07, 0xa3, 0x79, 0xf6, 0x2d, 0x38, 0x1a, 0x44, 0x5e, 0xb5, 0xd2, 0xec, 0xcb, 0x90,
    0x9a, 0x36, 0xe5, 0x29, 0xc3, 0x4f, 0xab, 0x64, 0x51, 0xf8, 0x10, 0xd7, 0xbc, 0x02, 0x7d, 0x8e,
];

/// S1 from RFC 6114 section 2.4.2 (inversion in GF(2^8) between two affine maps).
#[rustfmt::skip]
const S1: [u8; 256] = [
    0x6c, 0xda, 0xc3, 0xe9, 0x4e, 0x9d, 0x0a, 0x3d, 0xb8, 0x36, 0xb4, 0x38, 0x13, 0x34, 0x0c, 0xd9,
    0xbf, 0x74, 0x94, 0x8f, 0xb7, 0x9c, 0xe5, 0xdc, 0x9e, 0x07, 0x49, 0x4f, 0x98, 0x2c, 0xb0, 0x93,
    0x12, 0xeb, 0xcd, 0xb3, 0x92, 0xe7, 0x41, 0x60, 0xe3, 0x21, 0x27, 0x3b, 0xe6, 0x19, 0xd2, 0x0e,
    0x91, 0x11, 0xc7, 0x3f, 0x2a, 0x8e, 0xa1, 0xbc, 0x2b, 0xc8, 0xc5, 0x0f, 0x5b, 0xf3, 0x87, 0x8b,
    0xfb, 0xf5, 0xde, 0x20, 0xc6, 0xa7, 0x84, 0xce, 0xd8, 0x65, 0x51, 0xc9, 0xa4, 0xef, 0x43, 0x53,
    0x25, 0x5d, 0x9b, 0x31, 0xe8, 0x3e, 0x0d, 0xd7, 0x80, 0xff, 0x69, 0x8a, 0xba, 0x0b, 0x73, 0x5c,
    0x6e, 0x54, 0x15, 0x62, 0xf6, 0x35, 0x30, 0x52, 0xa3, 0x16, 0xd3, 0x28, 0x32, 0xfa, 0xaa, 0x5e,
    0xcf, 0xea, 0xed, 0x78, 0x33, 0x58, 0x09, 0x7b, 0x63, 0xc0, 0xc1, 0x46, 0x1e, 0xdf, 0xa9, 0x99,
    0x55, 0x04, 0xc4, 0x86, 0x39, 0x77, 0x82, 0xec, 0x40, 0x18, 0x90, 0x97, 0x59, 0xdd, 0x83, 0x1f,
    0x9a, 0x37, 0x06, 0x24, 0x64, 0x7c, 0xa5, 0x56, 0x48, 0x08, 0x85, 0xd0, 0x61, 0x26, 0xca, 0x6f,
    0x7e, 0x6a, 0xb6, 0x71, 0xa0, 0x70, 0x05, 0xd1, 0x45, 0x8c, 0x23, 0x1c, 0xf0, 0xee, 0x89, 0xad,
    0x7a, 0x4b, 0xc2, 0x2f, 0xdb, 0x5a, 0x4d, 0x76, 0x67, 0x17, 0x2d, 0xf4, 0xcb, 0xb1, 0x4a, 0xa8,
    0xb5, 0x22, 0x47, 0x3a, 0xd5, 0x10, 0x4c, 0x72, 0xcc, 0x00, 0xf9, 0xe0, 0xfd, 0xe2, 0xfe, 0xae,
    0xf8, 0x5f, 0xab, 0xf1, 0x1b, 0x42, 0x81, 0xd6, 0xbe, 0x44, 0x29, 0xa6, 0x57, 0xb9, 0xaf, 0xf2,
    0xd4, 0x75, 0x66, 0xbb, 0x68, 0x9f, 0x50, 0x02, 0x01, 0x3c, 0x7f, 0x8d, 0x1a, 0x88, 0xbd, 0xac,
    0xf7, 0xe4, 0x79, 0x96, 0xa2, 0xfc, 0x6d, 0xb2, 0x6b, 0x03, 0xe1, 0x2e, 0x7d, 0x14, 0x95, 0x1d,
];

/// Multiplication in GF(2^8) modulo z^8 + z^4 + z^3 + z^2 + 1 (0x11d), as RFC 6114 uses.
const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1d } else { 0 };
        b >>= 1;
    }
    r
}

/// The diffusion matrices M0 and M1 (RFC 6114 section 2.4.3).
const M0: [[u8; 4]; 4] = [[1, 2, 4, 6], [2, 1, 6, 4], [4, 6, 1, 2], [6, 4, 2, 1]];
const M1: [[u8; 4]; 4] = [[1, 8, 2, 10], [8, 1, 10, 2], [2, 10, 1, 8], [10, 2, 8, 1]];

/// `table[j][x]` = column j of `m` times `sbox_j(x)`, packed big-endian.
#[cfg(not(feature = "compact-tables"))]
const fn f_tables(m: [[u8; 4]; 4], first: &[u8; 256], second: &[u8; 256]) -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    let mut j = 0;
    while j < 4 {
        let sbox = if j % 2 == 0 { first } else { second };
        let mut x = 0;
        while x < 256 {
            let s = sbox[x];
            let mut w = 0u32;
            let mut row = 0;
            while row < 4 {
                w = (w << 8) | gf_mul(m[row][j], s) as u32;
                row += 1;
            }
            t[j][x] = w;
            x += 1;
        }
        j += 1;
    }
    t
}

#[cfg(not(feature = "compact-tables"))]
static F0_T: [[u32; 256]; 4] = f_tables(M0, &S0, &S1);
#[cfg(not(feature = "compact-tables"))]
static F1_T: [[u32; 256]; 4] = f_tables(M1, &S1, &S0);

#[cfg(not(feature = "compact-tables"))]
#[inline(always)]
fn lookup(t: &[[u32; 256]; 4], x: u32) -> u32 {
    t[0][(x >> 24) as usize]
        ^ t[1][((x >> 16) & 0xff) as usize]
        ^ t[2][((x >> 8) & 0xff) as usize]
        ^ t[3][(x & 0xff) as usize]
}

#[cfg(not(feature = "compact-tables"))]
#[inline(always)]
fn f0(rk: u32, x: u32) -> u32 {
    lookup(&F0_T, rk ^ x)
}

#[cfg(not(feature = "compact-tables"))]
#[inline(always)]
fn f1(rk: u32, x: u32) -> u32 {
    lookup(&F1_T, rk ^ x)
}

/// Compact F-function for small-RAM targets (AVR copies tables to SRAM):
/// only the two 256-byte S-boxes, the matrix product computed per call.
#[cfg(feature = "compact-tables")]
fn f_compact(m: &[[u8; 4]; 4], first: &[u8; 256], second: &[u8; 256], x: u32) -> u32 {
    let b = x.to_be_bytes();
    let s = [
        first[b[0] as usize],
        second[b[1] as usize],
        first[b[2] as usize],
        second[b[3] as usize],
    ];
    let mut y = 0u32;
    for row in m {
        let v = row.iter().zip(s).fold(0, |acc, (&c, v)| acc ^ gf_mul(c, v));
        y = (y << 8) | v as u32;
    }
    y
}

#[cfg(feature = "compact-tables")]
fn f0(rk: u32, x: u32) -> u32 {
    f_compact(&M0, &S0, &S1, rk ^ x)
}

#[cfg(feature = "compact-tables")]
fn f1(rk: u32, x: u32) -> u32 {
    f_compact(&M1, &S1, &S0, rk ^ x)
}

/// GFN_{4,r}: the 4-branch generalised Feistel network, r = rk.len() / 2.
fn gfn4(mut t: [u32; 4], rk: &[u32]) -> [u32; 4] {
    let rounds = rk.len() / 2;
    for (i, pair) in rk.chunks_exact(2).enumerate() {
        t[1] ^= f0(pair[0], t[0]);
        t[3] ^= f1(pair[1], t[2]);
        if i + 1 < rounds {
            t = [t[1], t[2], t[3], t[0]];
        }
    }
    t
}

/// GFN^{-1}_{4,r}, consuming the round keys from the end.
fn gfn4_inv(mut t: [u32; 4], rk: &[u32]) -> [u32; 4] {
    let rounds = rk.len() / 2;
    for (i, pair) in rk.rchunks_exact(2).enumerate() {
        t[1] ^= f0(pair[0], t[0]);
        t[3] ^= f1(pair[1], t[2]);
        if i + 1 < rounds {
            t = [t[3], t[0], t[1], t[2]];
        }
    }
    t
}

/// GFN_{8,r}, used only by the 192/256-bit key schedules.
fn gfn8(mut t: [u32; 8], rk: &[u32]) -> [u32; 8] {
    let rounds = rk.len() / 4;
    for (i, quad) in rk.chunks_exact(4).enumerate() {
        t[1] ^= f0(quad[0], t[0]);
        t[3] ^= f1(quad[1], t[2]);
        t[5] ^= f0(quad[2], t[4]);
        t[7] ^= f1(quad[3], t[6]);
        if i + 1 < rounds {
            t.rotate_left(1);
        }
    }
    t
}

/// The constants CON^(k)_i (RFC 6114 section 3.1): `iv` is the 16-bit seed
/// for the key length; P = 0xb7e1, Q = 0x243f; T is multiplied by x^{-1} in
/// GF(2^16) modulo z^16+z^15+z^13+z^11+z^5+z^4+1 after every pair.
fn constants<const N: usize>(iv: u16) -> [u32; N] {
    const P: u16 = 0xb7e1;
    const Q: u16 = 0x243f;
    let mut con = [0u32; N];
    let mut t = iv;
    for pair in con.chunks_exact_mut(2) {
        pair[0] = (((t ^ P) as u32) << 16) | (!t.rotate_left(1)) as u32;
        pair[1] = (((!t ^ Q) as u32) << 16) | t.rotate_left(8) as u32;
        t = if t & 1 != 0 {
            ((t as u32 ^ 0x1_a831) >> 1) as u16
        } else {
            t >> 1
        };
    }
    con
}

/// The DoubleSwap function Σ on a 128-bit value (bit 0 = most significant).
fn double_swap(l: [u32; 4]) -> [u32; 4] {
    let x = words_to_u128(l);
    let y = ((x << 7) & (!0u128 << 71))
        | ((x & 0x7f) << 64)
        | ((x >> 64) & (0x7f << 57))
        | ((x >> 7) & ((1u128 << 57) - 1));
    u128_to_words(y)
}

fn words_to_u128(w: [u32; 4]) -> u128 {
    ((w[0] as u128) << 96) | ((w[1] as u128) << 64) | ((w[2] as u128) << 32) | w[3] as u128
}

fn u128_to_words(x: u128) -> [u32; 4] {
    [
        (x >> 96) as u32,
        (x >> 64) as u32,
        (x >> 32) as u32,
        x as u32,
    ]
}

fn load_words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    let mut w = [0u32; N];
    for (word, chunk) in w.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    w
}

fn xor4(a: [u32; 4], b: &[u32]) -> [u32; 4] {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// 128-bit key schedule: returns (whitening keys, 36 round keys).
fn schedule_128(key: &[u8; 16]) -> ([u32; 4], [u32; 36]) {
    let k: [u32; 4] = load_words(key);
    let con: [u32; 60] = constants(0x428a);
    let mut l = gfn4(k, &con[..24]);
    let mut rk = [0u32; 36];
    for i in 0..9 {
        let mut t = xor4(l, &con[24 + 4 * i..]);
        l = double_swap(l);
        if i % 2 == 1 {
            t = xor4(t, &k);
        }
        rk[4 * i..4 * i + 4].copy_from_slice(&t);
    }
    (k, rk)
}

/// 192/256-bit key schedule over the 256-bit KL|KR (`R` = 4 * rounds / 2 round keys).
fn schedule_wide<const NCON: usize, const R: usize>(k: [u32; 8], iv: u16) -> ([u32; 4], [u32; R]) {
    let con: [u32; NCON] = constants(iv);
    let l = gfn8(k, &con[..40]);
    let (kl, kr) = ([k[0], k[1], k[2], k[3]], [k[4], k[5], k[6], k[7]]);
    let (mut ll, mut lr) = ([l[0], l[1], l[2], l[3]], [l[4], l[5], l[6], l[7]]);
    let wk = xor4(kl, &kr);
    let mut rk = [0u32; R];
    for i in 0..R / 4 {
        let c = &con[40 + 4 * i..];
        let t = if (i / 2) % 2 == 0 {
            let t = xor4(ll, c);
            ll = double_swap(ll);
            if i % 2 == 1 { xor4(t, &kr) } else { t }
        } else {
            let t = xor4(lr, c);
            lr = double_swap(lr);
            if i % 2 == 1 { xor4(t, &kl) } else { t }
        };
        rk[4 * i..4 * i + 4].copy_from_slice(&t);
    }
    (wk, rk)
}

fn encrypt(block: &mut [u8; 16], wk: &[u32; 4], rk: &[u32]) {
    let p: [u32; 4] = load_words(block);
    let t = gfn4([p[0], p[1] ^ wk[0], p[2], p[3] ^ wk[1]], rk);
    store(block, [t[0], t[1] ^ wk[2], t[2], t[3] ^ wk[3]]);
}

fn decrypt(block: &mut [u8; 16], wk: &[u32; 4], rk: &[u32]) {
    let c: [u32; 4] = load_words(block);
    let t = gfn4_inv([c[0], c[1] ^ wk[2], c[2], c[3] ^ wk[3]], rk);
    store(block, [t[0], t[1] ^ wk[0], t[2], t[3] ^ wk[1]]);
}

fn store(block: &mut [u8; 16], w: [u32; 4]) {
    for (chunk, word) in block.chunks_exact_mut(4).zip(w) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
}

macro_rules! clefia_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $rk:literal, $alg:literal, $schedule:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            wk: [u32; 4],
            rk: [u32; $rk],
        }

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                let (wk, rk) = $schedule(key);
                Self { wk, rk }
            }

            fn encrypt_bytes(&self, block: &mut [u8; 16]) {
                encrypt(block, &self.wk, &self.rk);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 16]) {
                decrypt(block, &self.wk, &self.rk);
            }

            fn wipe(&mut self) {
                self.wk.zeroize();
                self.rk.zeroize();
            }
        }

        block_cipher!($name, key: $key_size, block: U16, alg: $alg);
    };
}

clefia_variant!(
    /// CLEFIA with a 128-bit key (18 rounds). Block 16 bytes, key 16 bytes.
    Clefia128, 16, U16, 36, "CLEFIA-128", schedule_128
);

clefia_variant!(
    /// CLEFIA with a 192-bit key (22 rounds). Block 16 bytes, key 24 bytes.
    Clefia192, 24, U24, 44, "CLEFIA-192",
    |key: &[u8; 24]| {
        let head: [u32; 6] = load_words(key);
        // RFC 6114 3.3: K6 = ~K0, K7 = ~K1 complete the 256-bit KL|KR.
        let k = [head[0], head[1], head[2], head[3], head[4], head[5], !head[0], !head[1]];
        schedule_wide::<84, 44>(k, 0x7137)
    }
);

clefia_variant!(
    /// CLEFIA with a 256-bit key (26 rounds). Block 16 bytes, key 32 bytes.
    Clefia256, 32, U32, 52, "CLEFIA-256",
    |key: &[u8; 32]| schedule_wide::<92, 52>(load_words(key), 0xb5c0)
);
