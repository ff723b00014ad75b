//! Piccolo, the 64-bit lightweight block cipher of Shibutani et al. (CHES 2011),
//! with 80-bit (25 rounds) and 128-bit (31 rounds) keys.
//!
//! The state is four big-endian 16-bit words X0..X3 (bytes x0..x7). Each round
//! XORs F(X0) and F(X2) into X1 and X3, then applies the byte permutation RP.
//! Decryption runs the rounds backwards with the inverse permutation.

use crate::block_plumbing::block_cipher;
use cipher::consts::{U8, U10, U16};
use cipher::zeroize::Zeroize;

const SBOX: [u8; 16] = [0xe, 4, 0xb, 2, 3, 8, 0, 9, 1, 0xa, 7, 0xf, 6, 0xc, 5, 0xd];

/// Multiplication in GF(2^4) modulo x^4 + x + 1.
const fn gf16_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a <<= 1;
        if a & 0x10 != 0 {
            a ^= 0x13;
        }
        b >>= 1;
    }
    r
}

/// Diffusion matrix M of the F-function.
const M: [[u8; 4]; 4] = [[2, 3, 1, 1], [1, 2, 3, 1], [1, 1, 2, 3], [3, 1, 1, 2]];

/// `MIX[j][x]` = column j of M times S(x), as a 16-bit word (nibble 0 on top).
const MIX: [[u16; 16]; 4] = {
    let mut t = [[0u16; 16]; 4];
    let mut j = 0;
    while j < 4 {
        let mut x = 0;
        while x < 16 {
            let s = SBOX[x];
            let mut w = 0u16;
            let mut row = 0;
            while row < 4 {
                w = (w << 4) | gf16_mul(M[row][j], s) as u16;
                row += 1;
            }
            t[j][x] = w;
            x += 1;
        }
        j += 1;
    }
    t
};

/// S-box on both nibbles of a byte.
const SBOX_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (SBOX[b >> 4] << 4) | SBOX[b & 0xf];
        b += 1;
    }
    t
};

/// F(x) = S(M · S(x)) on the four nibbles of x.
#[inline(always)]
fn f(x: u16) -> u16 {
    let m = MIX[0][(x >> 12) as usize]
        ^ MIX[1][((x >> 8) & 0xf) as usize]
        ^ MIX[2][((x >> 4) & 0xf) as usize]
        ^ MIX[3][(x & 0xf) as usize];
    ((SBOX_BYTE[(m >> 8) as usize] as u16) << 8) | SBOX_BYTE[(m & 0xff) as usize] as u16
}

/// RP: (x0..x7) -> (x2, x7, x4, x1, x6, x3, x0, x5).
#[inline(always)]
fn rp(x: [u8; 8]) -> [u8; 8] {
    [x[2], x[7], x[4], x[1], x[6], x[3], x[0], x[5]]
}

#[inline(always)]
fn rp_inv(x: [u8; 8]) -> [u8; 8] {
    [x[6], x[3], x[0], x[5], x[2], x[7], x[4], x[1]]
}

fn word(x: &[u8; 8], i: usize) -> u16 {
    u16::from_be_bytes([x[2 * i], x[2 * i + 1]])
}

fn set_word(x: &mut [u8; 8], i: usize, w: u16) {
    x[2 * i..2 * i + 2].copy_from_slice(&w.to_be_bytes());
}

fn xor_word(x: &mut [u8; 8], i: usize, v: u16) {
    let w = word(x, i) ^ v;
    set_word(x, i, w);
}

fn feistel(x: &mut [u8; 8], rk0: u16, rk1: u16) {
    let (f0, f2) = (f(word(x, 0)), f(word(x, 2)));
    xor_word(x, 1, f0 ^ rk0);
    xor_word(x, 3, f2 ^ rk1);
}

fn encrypt(block: &mut [u8; 8], wk: &[u16; 4], rk: &[u16]) {
    let rounds = rk.len() / 2;
    let mut x = *block;
    xor_word(&mut x, 0, wk[0]);
    xor_word(&mut x, 2, wk[1]);
    for i in 0..rounds {
        feistel(&mut x, rk[2 * i], rk[2 * i + 1]);
        if i + 1 < rounds {
            x = rp(x);
        }
    }
    xor_word(&mut x, 0, wk[2]);
    xor_word(&mut x, 2, wk[3]);
    *block = x;
}

fn decrypt(block: &mut [u8; 8], wk: &[u16; 4], rk: &[u16]) {
    let rounds = rk.len() / 2;
    let mut x = *block;
    xor_word(&mut x, 0, wk[2]);
    xor_word(&mut x, 2, wk[3]);
    for i in (0..rounds).rev() {
        if i + 1 < rounds {
            x = rp_inv(x);
        }
        feistel(&mut x, rk[2 * i], rk[2 * i + 1]);
    }
    xor_word(&mut x, 0, wk[0]);
    xor_word(&mut x, 2, wk[1]);
    *block = x;
}

/// con_{2i} | con_{2i+1} = (c_{i+1} | c_0 | c_{i+1} | 00 | c_{i+1} | c_0 | c_{i+1}) ^ base,
/// with c_j the 5-bit value j (CHES 2011 paper, section 3.2).
fn constant_pair(i: usize, base: u32) -> (u16, u16) {
    let c = (i as u32 + 1) & 0x1f;
    let v = ((c << 27) | (c << 17) | (c << 10) | c) ^ base;
    ((v >> 16) as u16, v as u16)
}

/// Whitening keys from key words a, b (first pair) and c, d (last pair):
/// wk0 = a_L|b_R, wk1 = b_L|a_R, wk2 = c_L|d_R, wk3 = d_L|c_R.
fn whitening(a: u16, b: u16, c: u16, d: u16) -> [u16; 4] {
    let mix = |hi: u16, lo: u16| (hi & 0xff00) | (lo & 0x00ff);
    [mix(a, b), mix(b, a), mix(c, d), mix(d, c)]
}

fn key_words<const N: usize>(key: &[u8]) -> [u16; N] {
    let mut k = [0u16; N];
    for (w, chunk) in k.iter_mut().zip(key.chunks_exact(2)) {
        *w = u16::from_be_bytes([chunk[0], chunk[1]]);
    }
    k
}

fn schedule_80(key: &[u8; 10]) -> ([u16; 4], [u16; 50]) {
    let mut k: [u16; 5] = key_words(key);
    let wk = whitening(k[0], k[1], k[4], k[3]);
    let mut rk = [0u16; 50];
    for i in 0..25 {
        let (c0, c1) = constant_pair(i, 0x0f1e_2d3c);
        let (a, b) = match i % 5 {
            0 | 2 => (k[2], k[3]),
            1 | 4 => (k[0], k[1]),
            _ => (k[4], k[4]),
        };
        rk[2 * i] = c0 ^ a;
        rk[2 * i + 1] = c1 ^ b;
    }
    k.zeroize();
    (wk, rk)
}

fn schedule_128(key: &[u8; 16]) -> ([u16; 4], [u16; 62]) {
    let mut k: [u16; 8] = key_words(key);
    let wk = whitening(k[0], k[1], k[4], k[7]);
    let mut rk = [0u16; 62];
    for i in 0..31 {
        let (c0, c1) = constant_pair(i, 0x6547_a98b);
        rk[2 * i] = c0;
        rk[2 * i + 1] = c1;
    }
    for (i, r) in rk.iter_mut().enumerate() {
        if (i + 2) % 8 == 0 {
            k = [k[2], k[1], k[6], k[7], k[0], k[3], k[4], k[5]];
        }
        *r ^= k[(i + 2) % 8];
    }
    k.zeroize();
    (wk, rk)
}

macro_rules! piccolo_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $rk:literal, $alg:literal, $schedule:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            wk: [u16; 4],
            rk: [u16; $rk],
        }

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                let (wk, rk) = $schedule(key);
                Self { wk, rk }
            }

            fn encrypt_bytes(&self, block: &mut [u8; 8]) {
                encrypt(block, &self.wk, &self.rk);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 8]) {
                decrypt(block, &self.wk, &self.rk);
            }

            fn wipe(&mut self) {
                self.wk.zeroize();
                self.rk.zeroize();
            }
        }

        block_cipher!($name, key: $key_size, block: U8, alg: $alg);
    };
}

piccolo_variant!(
    /// Piccolo with an 80-bit key (25 rounds). Block 8 bytes, key 10 bytes.
    Piccolo80, 10, U10, 50, "Piccolo-80", schedule_80
);

piccolo_variant!(
    /// Piccolo with a 128-bit key (31 rounds). Block 8 bytes, key 16 bytes.
    Piccolo128, 16, U16, 62, "Piccolo-128", schedule_128
);
