//! The `identity` baseline: copies the message. Its build is the reference
//! that every algorithm's code size is measured against.

use core::hint::black_box;

use crate::bench::{Bench, expect, fill};
use crate::probe::Probe;

pub fn run<P: Probe>(b: &mut Bench<P>, data: &mut [u8], out: &mut [u8], sizes: &[usize]) {
    b.algorithm("identity");
    for &n in sizes {
        fill(&mut data[..n]);
        let (src, dst) = (&data[..n], &mut out[..n]);
        b.op("encrypt", n, || {
            black_box(&mut *dst).copy_from_slice(black_box(src))
        });
        b.op("decrypt", n, || {
            black_box(&mut *dst).copy_from_slice(black_box(src))
        });
    }
    let n = sizes.first().copied().unwrap_or(0);
    b.kat("identity", expect("copy", &out[..n], &data[..n]));
}
