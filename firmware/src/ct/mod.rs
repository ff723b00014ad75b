//! The constant-time check's device side (`ciphermeter ct`, crates/mcu
//! `ct`). One operation runs [`RUNS`] times, each on its own secrets and each
//! in its own measured region; the host compares the regions (exact cycles
//! on AVR, and the executed instruction addresses and data addresses where
//! the simulator shows them). Any difference is a timing leak under the
//! simulator's model, shown, not estimated.
//!
//! The secrets are drawn from the seed the host writes into its copy of the
//! ELF ([`CIPHERMETER_CT_SEED`]), so a verdict is reproduced from its seed.
//! A scheme build seals; a `ct-plants` build runs planted leaks and their
//! constant-time twins instead, to show the host catches each.

#[cfg(all(feature = "seal-oscore", not(feature = "ct-plants")))]
mod oscore_path;
#[cfg(feature = "ct-plants")]
pub mod plants;
#[cfg(all(seal_path, not(feature = "ct-plants"), not(feature = "seal-oscore")))]
mod seal_path;

/// One sensor record's worth of plaintext (study 003's smallest reading is 40 B).
#[cfg(all(seal_path, not(feature = "ct-plants")))]
pub const PLAINTEXT: usize = 40;

use crate::bench::Bench;
use crate::probe::Probe;

/// Runs per operation. Two unlike runs prove a leak; sixteen make a leak on
/// one key bit show with probability 1 - 2^-15. The first two runs take the
/// extremes (all-zero and all-one secrets), where zero-skipping code differs.
pub const RUNS: usize = 16;

/// The seed block, rewritten by the host in its copy of the ELF. Not zero, so
/// it is stored in the file (.data) and not left to .bss.
#[unsafe(no_mangle)]
#[used]
pub static CIPHERMETER_CT_SEED: [u8; 8] = *b"ct-seed!";

/// The seed as the host wrote it, read through a volatile load so the
/// compiler cannot fold the placeholder into the code.
pub fn seed() -> u64 {
    // SAFETY: a plain read of an initialised static.
    u64::from_le_bytes(unsafe { core::ptr::read_volatile(&raw const CIPHERMETER_CT_SEED) })
}

/// xorshift64: cheap on AVR, and only its spread matters here.
pub struct Secrets(u64);

impl Secrets {
    /// Every seed its own stream (xorshift's state must not be zero).
    pub fn from_seed(seed: u64) -> Self {
        match seed ^ 0x9e37_79b9_7f4a_7c15 {
            0 => Secrets(1),
            state => Secrets(state),
        }
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Fills `buf` for run `run`: zeros, then ones, then random bytes.
    pub fn fill(&mut self, run: usize, buf: &mut [u8]) {
        match run {
            0 => buf.fill(0),
            1 => buf.fill(0xff),
            _ => {
                for chunk in buf.chunks_mut(8) {
                    let word = self.next().to_le_bytes();
                    chunk.copy_from_slice(&word[..chunk.len()]);
                }
            }
        }
    }
}

/// The build's operations on [`RUNS`] secrets each.
pub fn run<P: Probe>(b: &mut Bench<P>, data: &mut [u8], out: &mut [u8]) {
    let mut secrets = Secrets::from_seed(seed());
    let _ = (&mut secrets, &data, &out);
    #[cfg(feature = "ct-plants")]
    plants::run(b, &mut secrets);
    #[cfg(all(seal_path, not(feature = "ct-plants"), not(feature = "seal-oscore")))]
    seal_path::run(b, &mut secrets, data, out);
    #[cfg(all(feature = "seal-oscore", not(feature = "ct-plants")))]
    oscore_path::run(b, &mut secrets, data, out);
    #[cfg(not(any(seal_path, feature = "ct-plants")))]
    b.kat(
        "ct",
        Err(crate::bench::Failure::Step(
            "a ct build needs a sealing scheme or ct-plants",
        )),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_start_at_the_extremes_then_differ() {
        let mut s = Secrets::from_seed(7);
        let (mut a, mut b, mut c) = ([1u8; 20], [0u8; 20], [0u8; 20]);
        s.fill(0, &mut a);
        assert_eq!(a, [0; 20]);
        s.fill(1, &mut a);
        assert_eq!(a, [0xff; 20]);
        s.fill(2, &mut b);
        s.fill(3, &mut c);
        assert_ne!(b, c);
        assert_ne!(b, [0; 20]);
        // Seeds one bit apart draw other secrets.
        let (mut d, mut e) = ([0u8; 8], [0u8; 8]);
        Secrets::from_seed(0xab).fill(2, &mut d);
        Secrets::from_seed(0xaa).fill(2, &mut e);
        assert_ne!(d, e);
    }
}
