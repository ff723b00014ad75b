//! Keccak-f\[1600\] for 8-bit cores: every lane kept as eight bit slices.
//!
//! Byte `j` of a lane holds its bits `j, j + 8, …, j + 56` (bit `m` of byte
//! `j` is lane bit `8m + j`). A rotation by `r = 8q + s` then moves slice `j`
//! to slice `j + s` and rotates each byte by `q` (or `q + 1` where it wraps):
//! a fixed choice of source byte, folded into the addressing, and a one-byte
//! rotation of at most a few instructions, where LLVM's AVR back end spends
//! about sixty on a 64-bit rotation. Theta's xor, rho, pi, chi and iota run
//! as one pass per output plane, byte column by byte column, on `u8` values
//! the AVR keeps in registers, and add up the output's column parities for
//! the next round's theta as they go. The state goes back and forth between
//! two buffers, so no pass writes over a lane it still has to read.
//!
//! Absorbing and squeezing transpose each lane's 8×8 bits ([`transpose`]).

/// A state of 25 lanes in slice form.
pub type Slices = [[u8; 8]; 25];

/// The 8×8 bit transpose (an involution): bit `j` of `b[m]` ↔ bit `m` of `b[j]`,
/// which turns a little-endian lane into its slices and back.
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

/// The round constants in slice form: only slices 0, 1, 3 and 7 are ever set.
const fn round_constants() -> [[u8; 4]; 24] {
    let rc = super::round_constants();
    let mut out = [[0u8; 4]; 24];
    let mut i = 0;
    while i < 24 {
        let mut bit = 0;
        while bit < 64 {
            if rc[i] >> bit & 1 != 0 {
                let slot = match bit % 8 {
                    0 => 0,
                    1 => 1,
                    3 => 2,
                    _ => 3, // slice 7
                };
                out[i][slot] |= 1 << (bit / 8);
            }
            bit += 1;
        }
        i += 1;
    }
    out
}

static RC: [[u8; 4]; 24] = round_constants();

/// Byte `t` of lane `l` xored with theta's `d` and rotated left by `r`.
#[inline(always)]
fn rho(l: &[u8; 8], d: &[u8; 8], r: u32, t: usize) -> u8 {
    let s = (r % 8) as usize;
    let j = (t + 8 - s) % 8;
    let q = r / 8 + if t < s { 1 } else { 0 };
    (l[j] ^ d[j]).rotate_left(q)
}

/// The column parities of `a`.
pub fn parities(a: &Slices) -> [[u8; 8]; 5] {
    let mut c = [[0u8; 8]; 5];
    for plane in a.chunks_exact(5) {
        for (c, lane) in c.iter_mut().zip(plane) {
            for (c, b) in c.iter_mut().zip(lane) {
                *c ^= b;
            }
        }
    }
    c
}

/// Theta's `d[x] = c[x - 1] ^ rot(c[x + 1], 1)`.
fn theta(c: &[[u8; 8]; 5]) -> [[u8; 8]; 5] {
    let mut d = [[0u8; 8]; 5];
    macro_rules! theta {
        ($($x:literal $prev:literal $next:literal)*) => {$(
            d[$x][0] = c[$prev][0] ^ c[$next][7].rotate_left(1);
            d[$x][1] = c[$prev][1] ^ c[$next][0];
            d[$x][2] = c[$prev][2] ^ c[$next][1];
            d[$x][3] = c[$prev][3] ^ c[$next][2];
            d[$x][4] = c[$prev][4] ^ c[$next][3];
            d[$x][5] = c[$prev][5] ^ c[$next][4];
            d[$x][6] = c[$prev][6] ^ c[$next][5];
            d[$x][7] = c[$prev][7] ^ c[$next][6];
        )*};
    }
    theta!(0 4 1  1 0 2  2 1 3  3 2 4  4 3 0);
    d
}

// Output plane y, byte t: theta's xor and rho on the five source lanes
// (pi: output lane (x, y) comes from (x + 3y, x)), then chi, iota on lane 0,
// and the output's column parities for the next round's theta. One function
// per plane, not inlined: LLVM would otherwise keep each `d` byte (read by
// five lanes) live across the whole round and spill, on the AVR, to stack
// slots beyond its 64-byte displacement.
macro_rules! plane {
    ($name:ident, $first:literal, $lanes:tt) => {
        #[inline(never)]
        fn $name(a: &Slices, d: &[[u8; 8]; 5], e: &mut [[u8; 8]], c: &mut [[u8; 8]; 5], rc: &[u8; 8]) {
            let e: &mut [[u8; 8]; 5] = e.try_into().expect("one plane");
            plane!(@byte a, d, e, c, rc, $first, 0, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 1, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 2, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 3, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 4, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 5, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 6, $lanes);
            plane!(@byte a, d, e, c, rc, $first, 7, $lanes);
        }
    };
    (@byte $a:ident, $d:ident, $e:ident, $c:ident, $rc:ident, $first:literal, $t:literal,
     [$(($src:literal, $dx:literal, $rot:literal)),*]) => {
        chi(
            [$(rho(&$a[$src], &$d[$dx], $rot, $t)),*],
            if $first { $rc[$t] } else { 0 },
            $e,
            $c,
            $t,
            $first,
        );
    };
}

/// Chi and iota on byte `t` of one plane, written to `e` and added to the parities `c`.
#[inline(always)]
fn chi(b: [u8; 5], rc: u8, e: &mut [[u8; 8]; 5], c: &mut [[u8; 8]; 5], t: usize, first: bool) {
    let [b0, b1, b2, b3, b4] = b;
    let o = [
        b0 ^ (!b1 & b2) ^ rc,
        b1 ^ (!b2 & b3),
        b2 ^ (!b3 & b4),
        b3 ^ (!b4 & b0),
        b4 ^ (!b0 & b1),
    ];
    macro_rules! out {
        ($($x:literal)*) => {$(
            e[$x][t] = o[$x];
            c[$x][t] = if first { o[$x] } else { c[$x][t] ^ o[$x] };
        )*};
    }
    out!(0 1 2 3 4);
}

// Output plane y takes lanes (x + 3y, x) for x = 0..4 (pi), each with theta's
// d of its column and its rho offset: (source lane, its column, offset).
plane!(
    plane0,
    true,
    [(0, 0, 0), (6, 1, 44), (12, 2, 43), (18, 3, 21), (24, 4, 14)]
);
plane!(
    plane1,
    false,
    [(3, 3, 28), (9, 4, 20), (10, 0, 3), (16, 1, 45), (22, 2, 61)]
);
plane!(
    plane2,
    false,
    [(1, 1, 1), (7, 2, 6), (13, 3, 25), (19, 4, 8), (20, 0, 18)]
);
plane!(
    plane3,
    false,
    [
        (4, 4, 27),
        (5, 0, 36),
        (11, 1, 10),
        (17, 2, 15),
        (23, 3, 56)
    ]
);
plane!(
    plane4,
    false,
    [(2, 2, 62), (8, 3, 55), (14, 4, 39), (15, 0, 41), (21, 1, 2)]
);

/// One round from `a` into `e`; `c` holds the column parities of `a` on
/// entry and those of `e` on return.
fn round(a: &Slices, e: &mut Slices, c: &mut [[u8; 8]; 5], rc: &[u8; 4]) {
    let d = theta(c);
    let rc = [rc[0], rc[1], 0, rc[2], 0, 0, 0, rc[3]];
    plane0(a, &d, &mut e[..5], c, &rc);
    plane1(a, &d, &mut e[5..10], c, &rc);
    plane2(a, &d, &mut e[10..15], c, &rc);
    plane3(a, &d, &mut e[15..20], c, &rc);
    plane4(a, &d, &mut e[20..], c, &rc);
}

/// Keccak-f\[1600\] on a state in slice form; `e` is scratch space of the same size.
pub fn keccak_f1600(a: &mut Slices, e: &mut Slices) {
    let mut c = parities(a);
    for rc in RC.chunks_exact(2) {
        round(a, e, &mut c, &rc[0]);
        round(e, a, &mut c, &rc[1]);
    }
}
