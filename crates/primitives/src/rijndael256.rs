//! Rijndael with a 256-bit block (Nb = 8) and 128/192/256-bit keys, as in the
//! Rijndael AES submission (Daemen & Rijmen, "AES Proposal: Rijndael", 1999)
//! and libmcrypt's `rijndael-256`. 14 rounds for every key size.
//!
//! Columns are little-endian words (byte r = row r). ShiftRows offsets for
//! Nb = 8 are 1, 3 and 4. Encryption uses one 1 KiB T-table rotated per row;
//! decryption is the equivalent inverse cipher (InvMixColumns folded into the
//! decryption round keys). S-boxes are generated at compile time.

use crate::block_plumbing::block_cipher;
use cipher::consts::{U16, U24, U32};
use cipher::zeroize::Zeroize;

const NB: usize = 8;
const ROUNDS: usize = 14;
const WORDS: usize = NB * (ROUNDS + 1);
/// ShiftRows offsets C1, C2, C3 for a 256-bit block.
const SHIFT: [usize; 4] = [0, 1, 3, 4];

const fn xtime(a: u8) -> u8 {
    (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 }
}

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    r
}

/// SubBytes: multiplicative inverse in GF(2^8) followed by the affine map.
const SBOX: [u8; 256] = {
    let mut s = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        // x^254 = x^-1 (and 0 -> 0).
        let mut inv = 1u8;
        let mut i = 0;
        while i < 254 {
            inv = gf_mul(inv, x as u8);
            i += 1;
        }
        if x == 0 {
            inv = 0;
        }
        let b = inv;
        s[x] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        x += 1;
    }
    s
};

const INV_SBOX: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        t[SBOX[x] as usize] = x as u8;
        x += 1;
    }
    t
};

const fn column(a: u8, b: u8, c: u8, d: u8) -> u32 {
    a as u32 | (b as u32) << 8 | (c as u32) << 16 | (d as u32) << 24
}

/// MixColumns column 0 applied to S(x): (2s, s, s, 3s).
static TE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        let s = SBOX[x];
        t[x] = column(xtime(s), s, s, xtime(s) ^ s);
        x += 1;
    }
    t
};

/// InvMixColumns column 0 applied to S^-1(x): (14s, 9s, 13s, 11s).
static TD: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut x = 0;
    while x < 256 {
        let s = INV_SBOX[x];
        t[x] = column(gf_mul(s, 14), gf_mul(s, 9), gf_mul(s, 13), gf_mul(s, 11));
        x += 1;
    }
    t
};

#[inline(always)]
fn byte(w: u32, r: usize) -> usize {
    ((w >> (8 * r)) & 0xff) as usize
}

fn sub_word(w: u32) -> u32 {
    column(
        SBOX[byte(w, 0)],
        SBOX[byte(w, 1)],
        SBOX[byte(w, 2)],
        SBOX[byte(w, 3)],
    )
}

/// InvMixColumns of one word, for the equivalent inverse cipher's keys.
fn inv_mix(w: u32) -> u32 {
    (0..4).fold(0, |acc, r| {
        acc ^ TD[SBOX[byte(w, r)] as usize].rotate_left(8 * r as u32)
    })
}

/// Key expansion for Nk = key.len() / 4 and Nb = 8; returns (encryption, decryption) keys.
fn expand(key: &[u8]) -> ([u32; WORDS], [u32; WORDS]) {
    let nk = key.len() / 4;
    let mut w = [0u32; WORDS];
    for (i, chunk) in key.chunks_exact(4).enumerate() {
        w[i] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    let mut rcon = 1u8;
    for i in nk..WORDS {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = sub_word(t.rotate_right(8)) ^ rcon as u32;
            rcon = xtime(rcon);
        } else if nk > 6 && i % nk == 4 {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    // Equivalent inverse cipher: round keys in reverse round order, with
    // InvMixColumns applied to all but the first and last.
    let mut d = [0u32; WORDS];
    for round in 0..=ROUNDS {
        for c in 0..NB {
            let k = w[(ROUNDS - round) * NB + c];
            d[round * NB + c] = if round == 0 || round == ROUNDS {
                k
            } else {
                inv_mix(k)
            };
        }
    }
    (w, d)
}

fn load(block: &[u8; 32]) -> [u32; NB] {
    let mut s = [0u32; NB];
    for (c, chunk) in block.chunks_exact(4).enumerate() {
        s[c] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    s
}

fn store(block: &mut [u8; 32], s: [u32; NB]) {
    for (chunk, w) in block.chunks_exact_mut(4).zip(s) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

fn encrypt(block: &mut [u8; 32], ek: &[u32; WORDS]) {
    let mut s = load(block);
    for (x, k) in s.iter_mut().zip(&ek[..NB]) {
        *x ^= k;
    }
    for round in 1..ROUNDS {
        let rk = &ek[round * NB..];
        let mut t = [0u32; NB];
        for c in 0..NB {
            t[c] = rk[c]
                ^ TE[byte(s[c], 0)]
                ^ TE[byte(s[(c + SHIFT[1]) % NB], 1)].rotate_left(8)
                ^ TE[byte(s[(c + SHIFT[2]) % NB], 2)].rotate_left(16)
                ^ TE[byte(s[(c + SHIFT[3]) % NB], 3)].rotate_left(24);
        }
        s = t;
    }
    let rk = &ek[ROUNDS * NB..];
    let mut t = [0u32; NB];
    for c in 0..NB {
        let b = |r: usize| SBOX[byte(s[(c + SHIFT[r]) % NB], r)];
        t[c] = rk[c] ^ column(b(0), b(1), b(2), b(3));
    }
    store(block, t);
}

fn decrypt(block: &mut [u8; 32], dk: &[u32; WORDS]) {
    let mut s = load(block);
    for (x, k) in s.iter_mut().zip(&dk[..NB]) {
        *x ^= k;
    }
    for round in 1..ROUNDS {
        let rk = &dk[round * NB..];
        let mut t = [0u32; NB];
        for c in 0..NB {
            t[c] = rk[c]
                ^ TD[byte(s[c], 0)]
                ^ TD[byte(s[(c + NB - SHIFT[1]) % NB], 1)].rotate_left(8)
                ^ TD[byte(s[(c + NB - SHIFT[2]) % NB], 2)].rotate_left(16)
                ^ TD[byte(s[(c + NB - SHIFT[3]) % NB], 3)].rotate_left(24);
        }
        s = t;
    }
    let rk = &dk[ROUNDS * NB..];
    let mut t = [0u32; NB];
    for c in 0..NB {
        let b = |r: usize| INV_SBOX[byte(s[(c + NB - SHIFT[r]) % NB], r)];
        t[c] = rk[c] ^ column(b(0), b(1), b(2), b(3));
    }
    store(block, t);
}

macro_rules! rijndael_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $alg:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            ek: [u32; WORDS],
            dk: [u32; WORDS],
        }

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                let (ek, dk) = expand(key);
                Self { ek, dk }
            }

            fn encrypt_bytes(&self, block: &mut [u8; 32]) {
                encrypt(block, &self.ek);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 32]) {
                decrypt(block, &self.dk);
            }

            fn wipe(&mut self) {
                self.ek.zeroize();
                self.dk.zeroize();
            }
        }

        block_cipher!($name, key: $key_size, block: U32, alg: $alg);
    };
}

rijndael_variant!(
    /// Rijndael, 256-bit block, 128-bit key (libmcrypt `rijndael-256` with a 16-byte key).
    Rijndael256K128, 16, U16, "Rijndael-256/128"
);

rijndael_variant!(
    /// Rijndael, 256-bit block, 192-bit key (libmcrypt `rijndael-256` with a 24-byte key).
    Rijndael256K192, 24, U24, "Rijndael-256/192"
);

rijndael_variant!(
    /// Rijndael, 256-bit block, 256-bit key (libmcrypt `rijndael-256`'s default).
    Rijndael256K256, 32, U32, "Rijndael-256/256"
);
