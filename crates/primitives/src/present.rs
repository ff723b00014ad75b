//! PRESENT, the 64-bit lightweight block cipher (Bogdanov et al., CHES 2007),
//! with 80-bit and 128-bit keys; 31 rounds plus a final key addition.
//!
//! The S-box layer and bit permutation are fused into one 256-entry table for
//! byte 0; because pLayer maps bit i to i/4 + 16(i mod 4), byte k of the state
//! lands in the same pattern shifted left by 2k, so one 2 KiB table serves all
//! eight bytes. Decryption spreads each 16-bit lane back with a stride-4 table.
//! The `compact-tables` feature (AVR) drops these 4.3 KiB of tables for a
//! nibble S-box and a bit loop.

use crate::block_plumbing::block_cipher;
use cipher::consts::{U8, U10, U16};
use cipher::zeroize::Zeroize;

const SBOX: [u8; 16] = [0xc, 5, 6, 0xb, 9, 0, 0xa, 0xd, 3, 0xe, 0xf, 8, 4, 7, 1, 2];

const fn invert(s: [u8; 16]) -> [u8; 16] {
    let mut inv = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        inv[s[i] as usize] = i as u8;
        i += 1;
    }
    inv
}

const SBOX_INV: [u8; 16] = invert(SBOX);

/// pLayer position of bit i (bit 0 = least significant).
const fn p_pos(i: u32) -> u32 {
    i / 4 + 16 * (i % 4)
}

/// S-box on both nibbles of byte 0, then pLayer; byte k is this shifted by 2k.
#[cfg(not(feature = "compact-tables"))]
const SP: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let s = (SBOX[b >> 4] << 4) | SBOX[b & 0xf];
        let mut out = 0u64;
        let mut i = 0;
        while i < 8 {
            if (s >> i) & 1 == 1 {
                out |= 1 << p_pos(i);
            }
            i += 1;
        }
        t[b] = out;
        b += 1;
    }
    t
};

/// Inverse pLayer for one byte of a 16-bit lane: bit t goes to 4t.
#[cfg(not(feature = "compact-tables"))]
const SPREAD4: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut out = 0u64;
        let mut i = 0;
        while i < 8 {
            if (b >> i) & 1 == 1 {
                out |= 1 << (4 * i);
            }
            i += 1;
        }
        t[b] = out;
        b += 1;
    }
    t
};

/// Inverse S-box on both nibbles of a byte.
#[cfg(not(feature = "compact-tables"))]
const SBOX_INV_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (SBOX_INV[b >> 4] << 4) | SBOX_INV[b & 0xf];
        b += 1;
    }
    t
};

#[cfg(not(feature = "compact-tables"))]
#[inline(always)]
fn sp_layer(x: u64) -> u64 {
    let mut out = 0;
    for k in 0..8 {
        out |= SP[((x >> (8 * k)) & 0xff) as usize] << (2 * k);
    }
    out
}

#[cfg(not(feature = "compact-tables"))]
#[inline(always)]
fn sp_layer_inv(x: u64) -> u64 {
    // Inverse pLayer: bit 8k + t goes to 4t + 32(k mod 2) + k/2.
    let mut p = 0;
    for k in 0..8 {
        p |= SPREAD4[((x >> (8 * k)) & 0xff) as usize] << (32 * (k % 2) + k / 2);
    }
    let mut out = 0;
    for k in 0..8 {
        out |= (SBOX_INV_BYTE[((p >> (8 * k)) & 0xff) as usize] as u64) << (8 * k);
    }
    out
}

/// Compact S-box + pLayer for small-RAM targets: nibble S-box, bit loop.
#[cfg(feature = "compact-tables")]
fn sp_layer(x: u64) -> u64 {
    let mut out = 0;
    for i in 0..16 {
        let s = SBOX[((x >> (4 * i)) & 0xf) as usize] as u64;
        for b in 0..4 {
            out |= ((s >> b) & 1) << p_pos(4 * i + b);
        }
    }
    out
}

#[cfg(feature = "compact-tables")]
fn sp_layer_inv(x: u64) -> u64 {
    let mut p = 0u64;
    for i in 0..64 {
        p |= ((x >> p_pos(i)) & 1) << i;
    }
    let mut out = 0;
    for i in 0..16 {
        out |= (SBOX_INV[((p >> (4 * i)) & 0xf) as usize] as u64) << (4 * i);
    }
    out
}

fn encrypt(block: &mut [u8; 8], rk: &[u64; 32]) {
    let mut s = u64::from_be_bytes(*block);
    for k in &rk[..31] {
        s = sp_layer(s ^ k);
    }
    *block = (s ^ rk[31]).to_be_bytes();
}

fn decrypt(block: &mut [u8; 8], rk: &[u64; 32]) {
    let mut s = u64::from_be_bytes(*block) ^ rk[31];
    for k in rk[..31].iter().rev() {
        s = sp_layer_inv(s) ^ k;
    }
    *block = s.to_be_bytes();
}

fn sbox_nibble(x: u128, shift: u32) -> u128 {
    let n = ((x >> shift) & 0xf) as usize;
    (x & !(0xf << shift)) | ((SBOX[n] as u128) << shift)
}

/// 80-bit key register k79..k0 (key byte 0 = k79..k72); round key = k79..k16.
fn schedule_80(key: &[u8; 10]) -> [u64; 32] {
    const MASK: u128 = (1 << 80) - 1;
    let mut k = key.iter().fold(0u128, |acc, &b| (acc << 8) | b as u128);
    let mut rk = [0u64; 32];
    rk[0] = (k >> 16) as u64;
    for (i, slot) in rk.iter_mut().enumerate().skip(1) {
        k = ((k << 61) | (k >> 19)) & MASK;
        k = sbox_nibble(k, 76);
        k ^= (i as u128) << 15;
        *slot = (k >> 16) as u64;
    }
    k.zeroize();
    rk
}

/// 128-bit key register; two S-boxes and the counter at k66..k62 per round.
fn schedule_128(key: &[u8; 16]) -> [u64; 32] {
    let mut k = u128::from_be_bytes(*key);
    let mut rk = [0u64; 32];
    rk[0] = (k >> 64) as u64;
    for (i, slot) in rk.iter_mut().enumerate().skip(1) {
        k = k.rotate_left(61);
        k = sbox_nibble(sbox_nibble(k, 124), 120);
        k ^= (i as u128) << 62;
        *slot = (k >> 64) as u64;
    }
    k.zeroize();
    rk
}

macro_rules! present_variant {
    ($(#[$doc:meta])* $name:ident, $key_bytes:literal, $key_size:ty, $alg:literal, $schedule:ident) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            rk: [u64; 32],
        }

        impl $name {
            fn expand(key: &[u8; $key_bytes]) -> Self {
                Self { rk: $schedule(key) }
            }

            fn encrypt_bytes(&self, block: &mut [u8; 8]) {
                encrypt(block, &self.rk);
            }

            fn decrypt_bytes(&self, block: &mut [u8; 8]) {
                decrypt(block, &self.rk);
            }

            fn wipe(&mut self) {
                self.rk.zeroize();
            }
        }

        block_cipher!($name, key: $key_size, block: U8, alg: $alg);
    };
}

present_variant!(
    /// PRESENT with an 80-bit key. Block 8 bytes, key 10 bytes (big-endian k79..k0).
    Present80, 10, U10, "PRESENT-80", schedule_80
);

present_variant!(
    /// PRESENT with a 128-bit key. Block 8 bytes, key 16 bytes (big-endian k127..k0).
    Present128, 16, U16, "PRESENT-128", schedule_128
);
