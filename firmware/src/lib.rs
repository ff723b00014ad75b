//! Device-side benchmark of the catalogue's algorithms.
//!
//! The library is target-independent: it runs each algorithm's official
//! known-answer vector, then brackets key setup, encrypt and decrypt in
//! measured regions of a [`Probe`]. The binary (`main.rs`) supplies the probe
//! for the platform: simavr marker registers on AVR, a hardware timer plus
//! semihosting on Cortex-M. On the host the same code runs under `cargo test`.
//!
//! Output is line oriented so the host runner can parse it:
//! `A <algorithm>` starts an algorithm, `K <algorithm> pass|FAIL <why>` is the
//! known-answer result, `M <operation> <bytes>` names the next measured region
//! and the probe answers with `C <count> <stack bytes> [<room>]` (room: the
//! free stack the region had, so a peak that reaches it did not fit, and the
//! board's RAM less room plus peak is the build's whole need; none in a
//! constant-time build); `O` after it says the region's stack ran into the static data
//! (Cortex-M); `N <bytes>` that an algorithm's bench frame reached that far
//! past the free RAM before it began (Cortex-M; the run ends there); `E`
//! ends the run.

#![cfg_attr(not(test), no_std)]

pub mod algorithms;
pub mod bench;
pub mod clib;
#[cfg(feature = "ct")]
pub mod ct;
pub mod probe;
#[cfg(all(feature = "uplink", seal_path))]
pub mod uplink;

pub use bench::Bench;
pub use probe::Probe;

/// The message sizes chosen at build time (CIPHERMETER_SIZES).
pub mod sizes {
    include!(concat!(env!("OUT_DIR"), "/sizes.rs"));
}

/// Scratch room besides the message for tags, padding and base64 envelopes.
pub const SLACK: usize = 64;

/// Runs calibration, then every algorithm enabled by cargo features, then ends.
pub fn run_all<P: Probe>(probe: &mut P, data: &mut [u8], out: &mut [u8]) -> bool {
    let mut b = Bench::new(probe);
    b.calibrate();
    #[cfg(not(feature = "ct"))]
    algorithms::run(&mut b, data, out);
    #[cfg(feature = "ct")]
    ct::run(&mut b, data, out);
    b.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Recorder;

    /// Every enabled algorithm passes its known answer on the host too, and
    /// every measured region is labelled (`M`) and answered (`C`).
    #[test]
    fn every_enabled_algorithm_passes_on_the_host() {
        let mut probe = Recorder::default();
        let mut data = [0u8; sizes::MAX_SIZE + SLACK];
        let mut out = [0u8; 4 * (sizes::MAX_SIZE + SLACK)];
        let ok = run_all(&mut probe, &mut data, &mut out);
        let text = probe.out;
        assert!(ok, "a known answer failed:\n{text}");
        assert!(!text.contains("FAIL"), "{text}");
        let labels = text.lines().filter(|l| l.starts_with("M ")).count();
        let counts = text.lines().filter(|l| l.starts_with("C ")).count();
        assert_eq!(labels, counts);
        assert!(text.ends_with("E\n"));
    }
}
