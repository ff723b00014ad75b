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

/// The 8×8 bit transpose (an involution): bit `j` of `b[m]` ↔ bit `m` of `b[j]`,
/// which turns a little-endian word into its slices and back. (The same
/// swap network as `keccak::slices::transpose`.)
#[inline]
pub fn transpose(mut b: [u8; 8]) -> [u8; 8] {
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
    b
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
/// Not inlined, so the five bytes of a column stay in registers with the
/// one state pointer and none of the round's other values.
#[inline(never)]
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

/// The linear layer of one word, `w ^= (w >>> A) ^ (w >>> B)`, in place:
/// a right rotation by `A` is a left rotation by `64 - A`.
///
/// One copy per word (constant rotations), not inlined: the eight bytes are
/// loaded once, kept in registers and stored once.
#[inline(never)]
fn linear<const A: u32, const B: u32>(w: &mut [u8; 8]) {
    let x = *w;
    macro_rules! byte {
        ($($t:literal)*) => {$(
            w[$t] = x[$t] ^ rot(&x, 64 - A, $t) ^ rot(&x, 64 - B, $t);
        )*};
    }
    byte!(0 1 2 3 4 5 6 7);
}

/// The last `rounds` rounds of Ascon-p\[12\] on a state in slice form.
pub fn permute(x: &mut Slices, rounds: usize) {
    for rc in &RC[12 - rounds..] {
        sbox(x, rc);
        let [x0, x1, x2, x3, x4] = x;
        linear::<19, 28>(x0);
        linear::<61, 39>(x1);
        linear::<1, 6>(x2);
        linear::<10, 17>(x3);
        linear::<7, 41>(x4);
    }
}
