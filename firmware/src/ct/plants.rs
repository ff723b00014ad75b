//! Planted leaks, each beside a constant-time twin that computes the same
//! result, so the host can show its check catches every kind it claims to
//! (crates/mcu `ct::PLANTED` lists the pairs; its tests hold them). Each is
//! its own function, never inlined, so a verdict can name it.

use core::hint::black_box;

use super::{RUNS, Secrets};
use crate::bench::Bench;
use crate::probe::Probe;

type Plant = fn(&[u8; 16], &[u8; 16]) -> u32;

/// Region names and functions, run in this order every run.
const PLANTS: [(&str, Plant); 12] = [
    ("ct-branch-on-key-bit", branch_on_key_bit),
    ("ct-select-on-key-bit", select_on_key_bit),
    ("ct-table-lookup", table_lookup),
    ("ct-table-scan", table_scan),
    ("ct-early-exit-compare", early_exit_compare),
    ("ct-constant-time-compare", constant_time_compare),
    ("ct-secret-division", secret_division),
    ("ct-division-by-multiplication", division_by_multiplication),
    ("ct-secret-long-multiply", secret_long_multiply),
    ("ct-long-multiply-by-halves", long_multiply_by_halves),
    ("ct-secret-condition", secret_condition),
    ("ct-public-condition", public_condition),
];

pub fn run<P: Probe>(b: &mut Bench<P>, secrets: &mut Secrets) {
    b.algorithm("plants");
    let mut secret = [0u8; 16];
    for run in 0..RUNS {
        secrets.fill(run, &mut secret);
        // What an attacker sends: the secret (a tag) with one byte wrong,
        // a later one each run, as in a byte-at-a-time forgery.
        let mut public = secret;
        public[run % 16] ^= 0x5a;
        for (name, plant) in PLANTS {
            b.op(name, run, || plant(black_box(&secret), black_box(&public)));
        }
    }
    b.kat("plants", Ok(()));
}

/// Work a branch can skip: too big to be turned into a conditional move.
#[inline(never)]
fn round(x: u32) -> u32 {
    let mut y = x;
    for i in 0..8 {
        y = y.rotate_left(5) ^ black_box(i);
    }
    y
}

#[inline(never)]
fn branch_on_key_bit(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for &k in secret {
        acc = acc.wrapping_add(u32::from(k));
        if k & 1 == 1 {
            acc = round(acc);
        }
    }
    acc
}

/// Both sides computed, one kept by a mask.
#[inline(never)]
fn select_on_key_bit(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for &k in secret {
        acc = acc.wrapping_add(u32::from(k));
        let mask = 0u32.wrapping_sub(black_box(u32::from(k & 1)));
        acc = (round(acc) & mask) | (acc & !mask);
    }
    acc
}

/// A byte permutation, like an S-box.
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
        i += 1;
    }
    t
};

/// The secret bytes looked up: four keep the scan's 1,024 reads short.
const LOOKUPS: usize = 4;

#[inline(never)]
fn table_lookup(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let table = black_box(&TABLE);
    secret[..LOOKUPS]
        .iter()
        .fold(0, |acc, &k| acc ^ u32::from(table[usize::from(k)]))
}

/// Every entry read each time; the wanted one kept by a mask.
#[inline(never)]
fn table_scan(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let table = black_box(&TABLE);
    let mut acc = 0u32;
    for &k in &secret[..LOOKUPS] {
        for (j, &t) in table.iter().enumerate() {
            // 1 when j == k, else 0, without a comparison the compiler could branch on.
            let d = black_box((j as u32) ^ u32::from(k));
            let equal = d.wrapping_sub(1) >> 31;
            acc ^= u32::from(t) & 0u32.wrapping_sub(equal);
        }
    }
    acc
}

#[inline(never)]
fn early_exit_compare(secret: &[u8; 16], public: &[u8; 16]) -> u32 {
    for i in 0..16 {
        if black_box(secret[i]) != public[i] {
            return 0;
        }
    }
    1
}

#[inline(never)]
fn constant_time_compare(secret: &[u8; 16], public: &[u8; 16]) -> u32 {
    let mut diff = 0u8;
    for i in 0..16 {
        diff |= black_box(secret[i] ^ public[i]);
    }
    // 1 when every byte agreed, else 0, from the bits alone.
    (u32::from(diff).wrapping_sub(1) >> 31) & 1
}

/// ML-KEM's modulus, as in KyberSlash.
const Q: u32 = 3329;

#[inline(never)]
fn secret_division(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for pair in secret.chunks_exact(2) {
        let x = u32::from(u16::from_le_bytes([pair[0], pair[1]]));
        acc = acc.wrapping_add(black_box(x) / black_box(Q));
    }
    acc
}

/// x / 3329 = (x * 20159) >> 26 for every 16-bit x (a test checks all).
#[inline(never)]
fn division_by_multiplication(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for pair in secret.chunks_exact(2) {
        let x = u32::from(u16::from_le_bytes([pair[0], pair[1]]));
        acc = acc.wrapping_add((black_box(x) * 20159) >> 26);
    }
    acc
}

/// A full-width constant: the secret's width alone decides a long multiply's time.
const WIDE: u32 = 0x9e37_79b9;

/// A secret word that is 16 or 32 bits wide by its first bit, cut by a mask
/// (a variable shift would loop on the AVR, and leak before the multiply).
fn varying_width(word: &[u8]) -> u32 {
    let keep_high = 0u32.wrapping_sub(black_box(u32::from(word[0] & 1)));
    u32::from_le_bytes([word[0], word[1], word[2], word[3]]) & (0xffff | (keep_high & 0xffff_0000))
}

/// A 32x32->64 multiply of secret words (UMULL on ARMv7-M): the Cortex-M3
/// ends it early when the secret's upper halfword is zero.
#[inline(never)]
fn secret_long_multiply(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u64;
    for word in secret.chunks_exact(4) {
        let x = varying_width(word);
        acc = acc.wrapping_add(u64::from(black_box(x)) * u64::from(black_box(WIDE)));
    }
    (acc ^ (acc >> 32)) as u32
}

/// The same product from 16x16->32 multiplies (MUL, one cycle on every
/// ARMv7-M), so no operand's width can show.
#[inline(never)]
fn long_multiply_by_halves(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u64;
    for word in secret.chunks_exact(4) {
        let x = varying_width(word);
        let (xl, xh) = (x & 0xffff, x >> 16);
        let (wl, wh) = (WIDE & 0xffff, WIDE >> 16);
        let low = u64::from(black_box(xl * wl));
        let middle = u64::from(black_box(xl * wh)) + u64::from(black_box(xh * wl));
        let high = u64::from(black_box(xh * wh));
        acc = acc.wrapping_add(low + (middle << 16) + (high << 32));
    }
    (acc ^ (acc >> 32)) as u32
}

/// A dividend and divisor the same in every run: a division's time alone
/// cannot follow the secret, only whether it runs.
const DIVIDEND: u32 = 0x00ff_ffff;

/// Divides where a key bit is set: on ARMv7-M in an IT block (`it ne;
/// udivne`), whose skipped UDIV takes one cycle and a run one 2 to 12, on the
/// same instruction addresses; elsewhere a branch around the division.
#[inline(never)]
fn secret_condition(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for &k in secret {
        acc = acc.wrapping_add(divide_if(
            u32::from(k) & 1,
            black_box(DIVIDEND),
            black_box(Q),
        ));
    }
    acc
}

/// The same sum with the division run every time, under a condition that is
/// public (the dividend is not zero), and its quotient kept by a mask.
#[inline(never)]
fn public_condition(secret: &[u8; 16], _: &[u8; 16]) -> u32 {
    let mut acc = 0u32;
    for &k in secret {
        let dividend = black_box(DIVIDEND);
        let quotient = divide_if(dividend, dividend, black_box(Q));
        let mask = 0u32.wrapping_sub(black_box(u32::from(k) & 1));
        acc = acc.wrapping_add(quotient & mask);
    }
    acc
}

/// `dividend / divisor` where `condition` is not zero, else 0.
#[cfg(all(target_arch = "arm", not(board_microbit)))]
#[inline(always)]
fn divide_if(condition: u32, dividend: u32, divisor: u32) -> u32 {
    let mut quotient = 0u32;
    // SAFETY: flags and registers only; UDIV by a non-zero divisor.
    unsafe {
        core::arch::asm!(
            "cmp {c}, #0",
            "it ne",
            "udivne {q}, {n}, {d}",
            c = in(reg) condition,
            n = in(reg) dividend,
            d = in(reg) divisor,
            q = inout(reg) quotient,
            options(pure, nomem, nostack),
        );
    }
    quotient
}

#[cfg(not(all(target_arch = "arm", not(board_microbit))))]
#[inline(always)]
fn divide_if(condition: u32, dividend: u32, divisor: u32) -> u32 {
    if black_box(condition) != 0 {
        dividend / divisor
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_twin_computes_what_its_leak_computes() {
        let mut s = Secrets::from_seed(99);
        for run in 0..64 {
            let mut secret = [0u8; 16];
            s.fill(run, &mut secret);
            let mut public = secret;
            public[run % 16] ^= 0x5a;
            let same = if run % 5 == 0 { secret } else { public };
            for pair in PLANTS.chunks(2) {
                let (leak, twin) = (pair[0].1, pair[1].1);
                assert_eq!(leak(&secret, &same), twin(&secret, &same), "{}", pair[0].0);
            }
        }
    }

    #[test]
    fn the_multiplication_divides_every_16_bit_value_by_q() {
        for x in 0..=u32::from(u16::MAX) {
            assert_eq!((x * 20159) >> 26, x / Q, "{x}");
        }
    }

    #[test]
    fn the_host_lists_the_same_pairs() {
        // crates/mcu ct::PLANTED names these regions in these pairs.
        let names: [&str; 12] = PLANTS.map(|(n, _)| n);
        assert_eq!(
            names,
            [
                "ct-branch-on-key-bit",
                "ct-select-on-key-bit",
                "ct-table-lookup",
                "ct-table-scan",
                "ct-early-exit-compare",
                "ct-constant-time-compare",
                "ct-secret-division",
                "ct-division-by-multiplication",
                "ct-secret-long-multiply",
                "ct-long-multiply-by-halves",
                "ct-secret-condition",
                "ct-public-condition",
            ]
        );
    }
}
