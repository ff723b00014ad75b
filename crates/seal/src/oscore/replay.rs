//! The recipient's replay window (RFC 8613 §7.4): the highest sequence
//! number accepted and a bitmap of the 64 below it. A number above the
//! window slides it; one inside is accepted once; one below it is refused,
//! as a replay cannot be told from a very late message there.
//!
//! A request is checked before it is decrypted and recorded only after its
//! tag verified, so a forged message cannot move the window.

use super::OscoreError;

const WIDTH: u64 = 64;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayWindow {
    /// The highest accepted sequence number, if any.
    highest: Option<u64>,
    /// Bit i: `highest - i` was accepted (bit 0 is `highest` itself).
    seen: u64,
}

impl ReplayWindow {
    pub fn new() -> ReplayWindow {
        ReplayWindow::default()
    }

    /// A window that refuses everything up to and including `floor`: what a
    /// recipient restores after a restart, from the highest number it stored.
    pub fn restored(floor: u64) -> ReplayWindow {
        ReplayWindow {
            highest: Some(floor),
            seen: u64::MAX,
        }
    }

    /// The window as stored: the highest accepted number and the bitmap below it.
    pub fn parts(&self) -> Option<(u64, u64)> {
        self.highest.map(|h| (h, self.seen))
    }

    pub fn from_parts(highest: u64, seen: u64) -> ReplayWindow {
        ReplayWindow {
            highest: Some(highest),
            seen,
        }
    }

    pub fn highest(&self) -> Option<u64> {
        self.highest
    }

    /// Whether `sequence` may be accepted.
    pub fn check(&self, sequence: u64) -> Result<(), OscoreError> {
        let Some(highest) = self.highest else {
            return Ok(());
        };
        if sequence > highest {
            return Ok(());
        }
        let back = highest - sequence;
        if back >= WIDTH || (self.seen >> back) & 1 == 1 {
            return Err(OscoreError::Replayed { sequence });
        }
        Ok(())
    }

    /// Records `sequence` as accepted; it must have passed [`check`](Self::check).
    pub fn accept(&mut self, sequence: u64) {
        match self.highest {
            Some(highest) if sequence <= highest => self.seen |= 1 << (highest - sequence),
            Some(highest) => {
                let shift = sequence - highest;
                self.seen = if shift >= WIDTH {
                    0
                } else {
                    self.seen << shift
                };
                self.seen |= 1;
                self.highest = Some(sequence);
            }
            None => {
                self.seen = 1;
                self.highest = Some(sequence);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_number_once_and_nothing_below_the_window() {
        let mut w = ReplayWindow::new();
        for s in [5, 3, 70, 69, 7] {
            w.check(s).unwrap();
            w.accept(s);
        }
        for s in [5, 70, 69, 6] {
            assert_eq!(
                w.check(s),
                Err(OscoreError::Replayed { sequence: s }),
                "{s}"
            );
        }
        // 7 is 63 below 70: inside the window, seen; 8 is not seen.
        assert!(w.check(7).is_err());
        w.check(8).unwrap();
        w.check(71).unwrap();
    }

    #[test]
    fn a_restored_window_refuses_the_floor_and_below() {
        let w = ReplayWindow::restored(100);
        assert!(w.check(100).is_err());
        assert!(w.check(40).is_err());
        w.check(101).unwrap();
    }
}
