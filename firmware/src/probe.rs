//! What the platform provides: a text channel and a measured region.

pub trait Probe {
    /// Sends raw bytes of the result stream to the host.
    fn write(&mut self, bytes: &[u8]);

    /// Runs `f` between the start and stop markers. The platform then reports
    /// `C <count> <stack>` for the region (the AVR harness does so itself).
    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R;

    /// Exactly 100 `nop` instructions, for the calibration region.
    fn nop100();

    /// Whether the platform has [`Probe::calibration_loop`]: Cortex-M does
    /// (its cycles are estimated from the instruction mix, and this region
    /// checks the estimate against a count by hand); AVR cycles are exact.
    const HAS_CALIBRATION_LOOP: bool = false;

    /// A fixed loop of loads, stores, ALU operations and taken branches whose
    /// cycles can be counted by hand from the core's manual.
    fn calibration_loop() {}

    /// After a region: its stack reached the lowest painted word, the end
    /// of the static data (Cortex-M; the AVR harness reports its room).
    fn ran_into_data(&self) -> bool {
        false
    }

    /// Ends the run after a region ran into the static data: what follows
    /// would run on corrupted state and may never finish (the host then
    /// reports the `O` as "does not fit"). The host's recorder keeps going.
    fn abandon(&mut self) {}

    /// Called where an algorithm starts, inside its bench function once that
    /// function's frame is allocated: a frame that reaches below the end of
    /// the static data cannot run (Cortex-M says by how much, `N <bytes>`,
    /// and ends the run). Nothing elsewhere.
    #[inline(always)]
    fn check_frame(&mut self) {}
}

/// Small formatting helpers that avoid `core::fmt` (large, and slow on AVR).
pub trait ProbeExt: Probe {
    fn text(&mut self, s: &str) {
        self.write(s.as_bytes());
    }

    fn number(&mut self, mut n: u32) {
        let mut digits = [0u8; 10];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.write(&digits[i..]);
    }
}

impl<P: Probe + ?Sized> ProbeExt for P {}

/// A probe that records the stream and counts nothing; for host tests.
#[cfg(test)]
#[derive(Default)]
pub struct Recorder {
    pub out: std::string::String,
}

#[cfg(test)]
impl Probe for Recorder {
    fn write(&mut self, bytes: &[u8]) {
        self.out.push_str(core::str::from_utf8(bytes).unwrap());
    }

    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let r = f();
        self.out.push_str("C 0 0\n");
        r
    }

    fn nop100() {}
}
