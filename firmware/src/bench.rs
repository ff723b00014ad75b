//! The measurement vocabulary shared by every algorithm module.

use core::hint::black_box;

use crate::probe::{Probe, ProbeExt};

pub struct Bench<'p, P: Probe> {
    probe: &'p mut P,
    all_passed: bool,
}

impl<'p, P: Probe> Bench<'p, P> {
    pub fn new(probe: &'p mut P) -> Self {
        Bench {
            probe,
            all_passed: true,
        }
    }

    /// An empty region and a 100-`nop` region: the host subtracts the first
    /// from every count and checks that the second adds exactly 100. Where
    /// the platform has one, a hand-countable loop follows, which pins the
    /// host's cycle estimate (crates/mcu/tests/cycle_model.rs).
    pub fn calibrate(&mut self) {
        self.label("calibrate-empty", 0);
        self.probe.region(|| ());
        self.label("calibrate-nop100", 0);
        self.probe.region(P::nop100);
        if P::HAS_CALIBRATION_LOOP {
            self.label("calibrate-loop", 0);
            self.probe.region(P::calibration_loop);
        }
    }

    #[inline(always)]
    pub fn algorithm(&mut self, id: &str) {
        self.probe.check_frame();
        self.probe.text("A ");
        self.probe.text(id);
        self.probe.text("\n");
    }

    /// Reports a known-answer check. A failure is printed loudly, with where
    /// the output first went wrong, and makes the firmware exit with a failure
    /// status after the run.
    pub fn kat(&mut self, id: &str, result: Result<(), Failure>) {
        self.probe.text("K ");
        self.probe.text(id);
        let Err(failure) = result else {
            self.probe.text(" pass\n");
            return;
        };
        self.all_passed = false;
        self.probe.text(" FAIL ");
        match failure {
            Failure::Step(why) => self.probe.text(why),
            Failure::Wrong { step, at, len } => {
                self.probe.text(step);
                self.probe.text(": first wrong byte ");
                self.probe.number(at as u32);
                self.probe.text(" of ");
                self.probe.number(len as u32);
            }
            Failure::Diagnosed { step, why } => {
                self.probe.text(step);
                self.probe.text(": ");
                self.probe.text(why);
            }
        }
        self.probe.text("\n");
    }

    /// Measures one operation on `bytes` bytes of message.
    pub fn op<R>(&mut self, name: &str, bytes: usize, f: impl FnOnce() -> R) -> R {
        self.label(name, bytes);
        let r = black_box(self.probe.region(f));
        self.out_of_stack();
        r
    }

    /// `O`: the region's stack ran into the static data (it does not fit).
    /// Out of line, so the measured regions' code stays as it was.
    #[inline(never)]
    fn out_of_stack(&mut self) {
        if self.probe.ran_into_data() {
            self.probe.text("O\n");
            self.probe.abandon();
        }
    }

    fn label(&mut self, name: &str, bytes: usize) {
        self.probe.text("M ");
        self.probe.text(name);
        self.probe.text(" ");
        self.probe.number(bytes as u32);
        self.probe.text("\n");
    }

    /// `S <container> <hex>`: a sealed message for the host to compare
    /// with what it seals from the same key, nonce and reading.
    pub fn sealed(&mut self, container: &str, bytes: &[u8]) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.probe.text("S ");
        self.probe.text(container);
        self.probe.text(" ");
        for b in bytes {
            self.probe
                .write(&[HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
        }
        self.probe.text("\n");
    }

    pub fn finish(self) -> bool {
        self.probe.text("E\n");
        self.all_passed
    }
}

/// Fills `buf` with a fixed, non-trivial pattern so no run measures zeros.
pub fn fill(buf: &mut [u8]) {
    let mut x: u8 = 0x5a;
    for b in buf.iter_mut() {
        x = x.wrapping_mul(37).wrapping_add(11);
        *b = x;
    }
}

/// Compares two byte strings; used only on public test data.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Why a known answer failed. Where the output first differs tells a wrong
/// algorithm (wrong from byte 0) from a target that computes part of it wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// A step that could not run or was refused.
    Step(&'static str),
    /// The step's output differs from the vector, first at byte `at` of `len`.
    Wrong {
        step: &'static str,
        at: usize,
        len: usize,
    },
    /// The step is wrong and an on-device check found why.
    Diagnosed {
        step: &'static str,
        why: &'static str,
    },
}

impl From<&'static str> for Failure {
    fn from(step: &'static str) -> Self {
        Failure::Step(step)
    }
}

/// `Ok` when `got` is the expected answer, else where it first differs.
pub fn expect(step: &'static str, got: &[u8], want: &[u8]) -> Result<(), Failure> {
    if same(got, want) {
        return Ok(());
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(x, y)| x != y)
        .unwrap_or(got.len().min(want.len()));
    Err(Failure::Wrong {
        step,
        at,
        len: want.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::Recorder;

    #[test]
    fn expect_points_at_the_first_wrong_byte() {
        assert_eq!(expect("x", b"abc", b"abc"), Ok(()));
        let wrong = |at, len| Err(Failure::Wrong { step: "x", at, len });
        assert_eq!(expect("x", b"abd", b"abc"), wrong(2, 3));
        assert_eq!(expect("x", b"zbc", b"abc"), wrong(0, 3));
        // A short output is wrong where it ends.
        assert_eq!(expect("x", b"ab", b"abc"), wrong(2, 3));
    }

    #[test]
    fn a_failure_is_reported_with_its_reason_and_fails_the_run() {
        let mut probe = Recorder::default();
        let mut b = Bench::new(&mut probe);
        b.kat("good", Ok(()));
        b.kat("bad", expect("encrypt", &[0; 32], &[1; 32]));
        b.kat(
            "why",
            Err(Failure::Diagnosed {
                step: "tag",
                why: "because",
            }),
        );
        assert!(!b.finish());
        assert_eq!(
            probe.out,
            "K good pass\nK bad FAIL encrypt: first wrong byte 0 of 32\nK why FAIL tag: because\nE\n"
        );
    }
}
