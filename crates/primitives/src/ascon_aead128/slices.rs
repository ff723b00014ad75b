//! The Ascon permutation for 8-bit cores: every 64-bit word kept as eight
//! bit slices.
//!
//! Byte `j` of a word holds its bits `j, j + 8, …, j + 56` (bit `m` of byte
//! `j` is word bit `8m + j`), as in the Keccak of this crate (`keccak::slices`).
//! A rotation left by `r = 8q + s` then moves slice `j` to slice `j + s` and
//! rotates each byte by `q` (or `q + 1` where it wraps): a fixed choice of
//! source byte, folded into the addressing, and a one-byte rotation of a few
//! instructions at most (a nibble swap for 4), where LLVM's AVR back end
//! spends about sixty on a 64-bit rotation. The S-box works on one byte of
//! each of the five words at a time (a column), the linear layer on one word
//! at a time; both in place, each on `u8` values the AVR keeps in registers.
//!
//! Loading and reading words transpose their 8×8 bits ([`transpose`]).

/// Five words in slice form.
pub type Slices = [[u8; 8]; 5];

/// The bytes of `w`, read one by one (a whole-array copy becomes one 64-bit
/// load on the AVR, taken apart again with shifts).
#[inline(always)]
fn bytes(w: &[u8]) -> [u8; 8] {
    [w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]
}

/// Writes `v` into `w` one byte at a time (see [`bytes`]).
#[inline(always)]
fn store(w: &mut [u8], v: &[u8; 8]) {
    macro_rules! each {
        ($($i:literal)*) => {$( w[$i] = v[$i]; )*};
    }
    each!(0 1 2 3 4 5 6 7);
}

/// The 8×8 bit transpose (an involution), in place: bit `j` of `b[m]` ↔ bit
/// `m` of `b[j]`, which turns a little-endian word into its slices and back.
/// (The same swap network as `keccak::slices::transpose`.)
#[inline(always)]
fn transpose_in_place(b: &mut [u8; 8]) {
    macro_rules! swap {
        ($shift:literal, $mask:literal, $($r:literal)*) => {$(
            let t = ((b[$r] >> $shift) ^ b[$r + $shift]) & $mask;
            b[$r + $shift] ^= t;
            b[$r] ^= t << $shift;
        )*};
    }
    swap!(4, 0x0f, 0 1 2 3);
    swap!(2, 0x33, 0 1 4 5);
    swap!(1, 0x55, 0 2 4 6);
}

/// [`transpose_in_place`] of a copy.
#[inline(always)]
pub fn transpose(b: [u8; 8]) -> [u8; 8] {
    let mut t = bytes(&b);
    transpose_in_place(&mut t);
    t
}

/// Xors a 16-byte block (two little-endian words) into words 0 and 1.
#[inline(never)]
pub fn absorb(x: &mut Slices, block: &[u8; 16]) {
    for (w, b) in x.iter_mut().zip(block.chunks_exact(8)) {
        let mut t = bytes(b);
        transpose_in_place(&mut t);
        macro_rules! each {
            ($($i:literal)*) => {$( w[$i] ^= t[$i]; )*};
        }
        each!(0 1 2 3 4 5 6 7);
    }
}

/// One word of encryption in place: `w ^= P`, then `P = w` (little-endian).
#[inline(always)]
fn encrypt_word(w: &mut [u8; 8], b: &mut [u8]) {
    let mut t = bytes(b);
    transpose_in_place(&mut t);
    macro_rules! each {
        ($($i:literal)*) => {$( t[$i] ^= w[$i]; w[$i] = t[$i]; )*};
    }
    each!(0 1 2 3 4 5 6 7);
    transpose_in_place(&mut t);
    store(b, &t);
}

/// Encrypts a 16-byte block in place against words 0 and 1.
#[inline(never)]
pub fn encrypt_block(x: &mut Slices, block: &mut [u8; 16]) {
    let (b0, b1) = block.split_at_mut(8);
    encrypt_word(&mut x[0], b0);
    encrypt_word(&mut x[1], b1);
}

/// One word of decryption in place: `P = C ^ w`, then `w = C`.
#[inline(always)]
fn decrypt_word(w: &mut [u8; 8], b: &mut [u8]) {
    let mut c = bytes(b);
    let mut s = bytes(w);
    transpose_in_place(&mut s);
    macro_rules! each {
        ($($i:literal)*) => {$( b[$i] = c[$i] ^ s[$i]; )*};
    }
    each!(0 1 2 3 4 5 6 7);
    transpose_in_place(&mut c);
    store(w, &c);
}

/// Decrypts a 16-byte block in place against words 0 and 1.
#[inline(never)]
pub fn decrypt_block(x: &mut Slices, block: &mut [u8; 16]) {
    let (b0, b1) = block.split_at_mut(8);
    decrypt_word(&mut x[0], b0);
    decrypt_word(&mut x[1], b1);
}

/// The round constants in slice form, by round number 0..12: constant
/// `c = 0xf0 - 0x0f·i` sits in bits 0..7 of word 2, so slice `j` gets bit `j`
/// of `c` as its bit 0.
const fn round_constants() -> [[u8; 8]; 12] {
    let mut out = [[0u8; 8]; 12];
    let mut i = 0;
    while i < 12 {
        let c = 0xf0 - 0x0f * i as u8;
        let mut j = 0;
        while j < 8 {
            out[i][j] = (c >> j) & 1;
            j += 1;
        }
        i += 1;
    }
    out
}

static RC: [[u8; 8]; 12] = round_constants();

/// The S-box layer (with the round constant) on every column, in place.
///
#[inline(always)]
fn sbox(x: &mut Slices, rc: &[u8; 8]) {
    macro_rules! column {
        ($($t:literal)*) => {$(
            let mut x0 = x[0][$t];
            let mut x1 = x[1][$t];
            let mut x2 = x[2][$t] ^ rc[$t];
            let mut x3 = x[3][$t];
            let mut x4 = x[4][$t];
            x0 ^= x4;
            x4 ^= x3;
            x2 ^= x1;
            let (t0, t1, t2, t3, t4) = (!x0 & x1, !x1 & x2, !x2 & x3, !x3 & x4, !x4 & x0);
            x0 ^= t1;
            x1 ^= t2;
            x2 ^= t3;
            x3 ^= t4;
            x4 ^= t0;
            x1 ^= x0;
            x0 ^= x4;
            x3 ^= x2;
            x[0][$t] = x0;
            x[1][$t] = x1;
            x[2][$t] = !x2;
            x[3][$t] = x3;
            x[4][$t] = x4;
        )*};
    }
    column!(0 1 2 3 4 5 6 7);
}

/// Byte `t` of `w` rotated left by `r` (slice form).
#[inline(always)]
fn rot(w: &[u8; 8], r: u32, t: usize) -> u8 {
    let s = (r % 8) as usize;
    let j = (t + 8 - s) % 8;
    let q = (r / 8 + if t < s { 1 } else { 0 }) % 8;
    w[j].rotate_left(q)
}

/// The linear layer of one word, `w ^= rotl(w, A) ^ rotl(w, B)` (left
/// rotations: Ascon's right rotation by `r` is a left one by `64 - r`), in
/// place: the eight bytes are loaded once, kept in registers and stored once.
#[inline(always)]
fn linear<const A: u32, const B: u32>(w: &mut [u8; 8]) {
    let x = *w;
    macro_rules! byte {
        ($($t:literal)*) => {$(
            w[$t] = x[$t] ^ rot(&x, A, $t) ^ rot(&x, B, $t);
        )*};
    }
    byte!(0 1 2 3 4 5 6 7);
}

/// The same layer as `w ^= rotl(w ^ rotl(w, D), R)`, for the words whose
/// two rotations cost fewer byte rotations that way (rotations by `D` and
/// `R` instead of `R` and `R + D`); each byte of `w ^ rotl(w, D)` is used
/// once, so it is rotated where it stands.
#[inline(always)]
fn linear_factored<const D: u32, const R: u32>(w: &mut [u8; 8]) {
    let x = *w;
    let mut y = [0u8; 8];
    macro_rules! first {
        ($($t:literal)*) => {$( y[$t] = x[$t] ^ rot(&x, D, $t); )*};
    }
    first!(0 1 2 3 4 5 6 7);
    macro_rules! second {
        ($($t:literal)*) => {$( w[$t] = x[$t] ^ rot(&y, R, $t); )*};
    }
    second!(0 1 2 3 4 5 6 7);
}

/// The last `rounds` rounds of Ascon-p\[12\] on a state in slice form.
///
/// One function for the whole permutation: the registers it needs are saved
/// once, not in each step.
#[inline(never)]
pub fn permute(x: &mut Slices, rounds: usize) {
    for rc in &RC[12 - rounds..] {
        sbox(x, rc);
        // Ascon's right rotations (19, 28), (61, 39), (1, 6), (10, 17) and
        // (7, 41) as left ones, in the form with the cheapest byte rotations
        // (one-byte rotations by 4 and by 1, 5, 7 cost least on the AVR).
        let [x0, x1, x2, x3, x4] = x;
        linear_factored::<9, 36>(x0);
        linear::<3, 25>(x1);
        linear_factored::<59, 63>(x2);
        linear_factored::<57, 54>(x3);
        linear_factored::<30, 57>(x4);
    }
}
