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
    /// from every count and checks that the second adds exactly 100.
    pub fn calibrate(&mut self) {
        self.label("calibrate-empty", 0);
        self.probe.region(|| ());
        self.label("calibrate-nop100", 0);
        self.probe.region(P::nop100);
    }

    pub fn algorithm(&mut self, id: &str) {
        self.probe.text("A ");
        self.probe.text(id);
        self.probe.text("\n");
    }

    /// Reports a known-answer check. A failure is printed loudly and makes the
    /// firmware exit with a failure status after the run.
    pub fn kat(&mut self, id: &str, failure: Option<&str>) {
        self.probe.text("K ");
        self.probe.text(id);
        match failure {
            None => self.probe.text(" pass\n"),
            Some(why) => {
                self.all_passed = false;
                self.probe.text(" FAIL ");
                self.probe.text(why);
                self.probe.text("\n");
            }
        }
    }

    /// Measures one operation on `bytes` bytes of message.
    pub fn op<R>(&mut self, name: &str, bytes: usize, f: impl FnOnce() -> R) -> R {
        self.label(name, bytes);
        black_box(self.probe.region(f))
    }

    fn label(&mut self, name: &str, bytes: usize) {
        self.probe.text("M ");
        self.probe.text(name);
        self.probe.text(" ");
        self.probe.number(bytes as u32);
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
