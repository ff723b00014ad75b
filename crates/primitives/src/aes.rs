//! AES-128 and AES-256 (FIPS-197), byte-oriented for 8-bit and small 32-bit cores.
//!
//! Only 8-bit operations: S-box lookups (two 256-byte tables, the inverse
//! for decryption), `xtime` by shift and masked xor, and MixColumns as
//! `a_i ^ x ^ xtime(a_i ^ a_{i+1})` with `x` the xor of the column. No
//! 32-bit T-tables: on the AVR they would cost 4 KiB of SRAM and 4-byte
//! loads, on the Cortex-M0+ rotations it lacks. The key is expanded once at
//! `KeyInit`; the round keys are wiped on drop.
//!
//! The S-box is indexed by secret bytes; like every table AES this is not
//! constant-time on cores with data caches (the AVR and M0+ have none).

use crate::block_plumbing::block_cipher;
use cipher::consts::{U16, U32};
use cipher::zeroize::Zeroize;

/// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, without a
/// branch: the arithmetic shift turns the top bit into an all-ones mask.
#[inline(always)]
const fn xtime(b: u8) -> u8 {
    (b << 1) ^ ((((b as i8) >> 7) as u8) & 0x1b)
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

/// FIPS-197 5.1.1: the multiplicative inverse (x^254) then the affine map.
const fn sbox() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let x = i as u8;
        // x^254 = x^-1 (0 maps to 0): square-and-multiply over 254 = 0b11111110.
        let mut inv = 1u8;
        let mut k = 0;
        while k < 7 {
            inv = gf_mul(gf_mul(inv, inv), x);
            k += 1;
        }
        inv = gf_mul(inv, inv);
        t[i] = inv
            ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63;
        i += 1;
    }
    t
}

const fn invert(s: &[u8; 256]) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[s[i] as usize] = i as u8;
        i += 1;
    }
    t
}

// `static`, not `const`: one copy, read through a pointer (SRAM on the AVR).
static SBOX: [u8; 256] = sbox();
static INV_SBOX: [u8; 256] = invert(&SBOX);

#[inline(always)]
fn sub(b: u8) -> u8 {
    SBOX[b as usize]
}

#[inline(always)]
fn inv_sub(b: u8) -> u8 {
    INV_SBOX[b as usize]
}

/// SubBytes and ShiftRows in one pass. State byte `r + 4c` is row r, column c;
/// row r moves left by r, so column c takes rows from columns c, c+1, c+2, c+3.
#[inline(always)]
fn sub_shift(s: &[u8; 16]) -> [u8; 16] {
    [
        sub(s[0]),
        sub(s[5]),
        sub(s[10]),
        sub(s[15]),
        sub(s[4]),
        sub(s[9]),
        sub(s[14]),
        sub(s[3]),
        sub(s[8]),
        sub(s[13]),
        sub(s[2]),
        sub(s[7]),
        sub(s[12]),
        sub(s[1]),
        sub(s[6]),
        sub(s[11]),
    ]
}

/// InvShiftRows and InvSubBytes in one pass (row r moves right by r).
#[inline(always)]
fn inv_shift_sub(s: &[u8; 16]) -> [u8; 16] {
    [
        inv_sub(s[0]),
        inv_sub(s[13]),
        inv_sub(s[10]),
        inv_sub(s[7]),
        inv_sub(s[4]),
        inv_sub(s[1]),
        inv_sub(s[14]),
        inv_sub(s[11]),
        inv_sub(s[8]),
        inv_sub(s[5]),
        inv_sub(s[2]),
        inv_sub(s[15]),
        inv_sub(s[12]),
        inv_sub(s[9]),
        inv_sub(s[6]),
        inv_sub(s[3]),
    ]
}

/// MixColumns of one column: b_i = a_i ^ x ^ xtime(a_i ^ a_{i+1}), x = a0^a1^a2^a3
/// (2a_i ^ 3a_{i+1} ^ a_{i+2} ^ a_{i+3} with the common terms shared).
#[inline(always)]
fn mix_column(a: [u8; 4]) -> [u8; 4] {
    let x = a[0] ^ a[1] ^ a[2] ^ a[3];
    [
        a[0] ^ x ^ xtime(a[0] ^ a[1]),
        a[1] ^ x ^ xtime(a[1] ^ a[2]),
        a[2] ^ x ^ xtime(a[2] ^ a[3]),
        a[3] ^ x ^ xtime(a[3] ^ a[0]),
    ]
}

/// InvMixColumns as a cheap pre-step then MixColumns: the inverse matrix is
/// MixColumns times circ(5, 0, 4, 0), and that factor needs two xtimes per pair.
#[inline(always)]
fn inv_mix_column(mut a: [u8; 4]) -> [u8; 4] {
    let u = xtime(xtime(a[0] ^ a[2]));
    let v = xtime(xtime(a[1] ^ a[3]));
    a[0] ^= u;
    a[1] ^= v;
    a[2] ^= u;
    a[3] ^= v;
    mix_column(a)
}

/// `s = MixColumns(t) ^ k`, written out: the firmware builds at opt-level
/// "s", which would keep loops over columns and index the arrays in memory.
#[inline(always)]
fn mix_add(s: &mut [u8; 16], t: &[u8; 16], k: &[u8; 16]) {
    macro_rules! col {
        ($($c:literal)*) => {$(
            let m = mix_column([t[4 * $c], t[4 * $c + 1], t[4 * $c + 2], t[4 * $c + 3]]);
            s[4 * $c] = m[0] ^ k[4 * $c];
            s[4 * $c + 1] = m[1] ^ k[4 * $c + 1];
            s[4 * $c + 2] = m[2] ^ k[4 * $c + 2];
            s[4 * $c + 3] = m[3] ^ k[4 * $c + 3];
        )*};
    }
    col!(0 1 2 3);
}

/// `s = InvMixColumns(t ^ k)`, written out as [`mix_add`].
#[inline(always)]
fn add_inv_mix(s: &mut [u8; 16], t: &[u8; 16], k: &[u8; 16]) {
    macro_rules! col {
        ($($c:literal)*) => {$(
            let m = inv_mix_column([
                t[4 * $c] ^ k[4 * $c],
                t[4 * $c + 1] ^ k[4 * $c + 1],
                t[4 * $c + 2] ^ k[4 * $c + 2],
                t[4 * $c + 3] ^ k[4 * $c + 3],
            ]);
            s[4 * $c..4 * $c + 4].copy_from_slice(&m);
        )*};
    }
    col!(0 1 2 3);
}

#[inline(always)]
fn add_key(s: &mut [u8; 16], k: &[u8; 16]) {
    macro_rules! xor {
        ($($i:literal)*) => {$( s[$i] ^= k[$i]; )*};
    }
    xor!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
}

/// Encrypts with `rk.len() - 1` rounds. The round loop is not unrolled: the
/// rounds are the same code, and flash is small.
fn encrypt(rk: &[[u8; 16]], block: &mut [u8; 16]) {
    let (first, rest) = rk.split_first().expect("round keys");
    let (last, middle) = rest.split_last().expect("round keys");
    let mut s = *block;
    add_key(&mut s, first);
    for k in middle {
        let t = sub_shift(&s);
        mix_add(&mut s, &t, k);
    }
    s = sub_shift(&s);
    add_key(&mut s, last);
    *block = s;
}

fn decrypt(rk: &[[u8; 16]], block: &mut [u8; 16]) {
    let (first, rest) = rk.split_first().expect("round keys");
    let (last, middle) = rest.split_last().expect("round keys");
    let mut s = *block;
    add_key(&mut s, last);
    for k in middle.iter().rev() {
        let t = inv_shift_sub(&s);
        add_inv_mix(&mut s, &t, k);
    }
    s = inv_shift_sub(&s);
    add_key(&mut s, first);
    *block = s;
}

/// FIPS-197 5.2 over bytes: `NK` key words, `R` round keys of 16 bytes.
fn expand_key<const NK: usize, const R: usize>(key: &[u8]) -> [[u8; 16]; R] {
    let mut rk = [[0u8; 16]; R];
    let mut rcon = 1u8;
    for i in 0..4 * R {
        let w = if i < NK {
            [key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]
        } else {
            let p = (i - 1) / 4;
            let q = (i - 1) % 4 * 4;
            let mut t = [rk[p][q], rk[p][q + 1], rk[p][q + 2], rk[p][q + 3]];
            if i % NK == 0 {
                t = [sub(t[1]) ^ rcon, sub(t[2]), sub(t[3]), sub(t[0])];
                rcon = xtime(rcon);
            } else if NK > 6 && i % NK == 4 {
                t = t.map(sub);
            }
            let (p, q) = ((i - NK) / 4, (i - NK) % 4 * 4);
            for (j, b) in t.iter_mut().enumerate() {
                *b ^= rk[p][q + j];
            }
            t
        };
        rk[i / 4][i % 4 * 4..i % 4 * 4 + 4].copy_from_slice(&w);
    }
    rk
}

macro_rules! aes_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $nk:literal, $rounds:literal, $alg:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            rk: [[u8; 16]; $rounds + 1],
        }

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                Self {
                    rk: expand_key::<$nk, { $rounds + 1 }>(key),
                }
            }

            fn encrypt_bytes(&self, block: &mut [u8; 16]) {
                encrypt(&self.rk, block);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 16]) {
                decrypt(&self.rk, block);
            }

            fn wipe(&mut self) {
                self.rk.zeroize();
            }
        }

        block_cipher!($name, key: $key_size, block: U16, alg: $alg);
    };
}

aes_variant!(
    /// AES-128 (FIPS-197): 16-byte key and block, 10 rounds.
    Aes128, 16, U16, 4, 10, "AES-128"
);

aes_variant!(
    /// AES-256 (FIPS-197): 32-byte key, 16-byte block, 14 rounds.
    Aes256, 32, U32, 8, 14, "AES-256"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_matches_fips197_figure7_corners() {
        assert_eq!(
            (SBOX[0x00], SBOX[0x01], SBOX[0x53], SBOX[0xff]),
            (0x63, 0x7c, 0xed, 0x16)
        );
        assert_eq!(INV_SBOX[0x63], 0);
    }

    #[test]
    fn inv_mix_undoes_mix() {
        for a in [[0xdb, 0x13, 0x53, 0x45], [1, 2, 3, 4], [0xff; 4]] {
            assert_eq!(inv_mix_column(mix_column(a)), a);
        }
        // FIPS-197 example column (the standard MixColumns test value).
        assert_eq!(
            mix_column([0xdb, 0x13, 0x53, 0x45]),
            [0x8e, 0x4d, 0xa1, 0xbc]
        );
    }
}
