//! The result rows: one per algorithm, operation and message size.

use serde::{Deserialize, Serialize};

use crate::parse::Run;
use crate::{McuError, Target};

/// simavr: the empty region costs the stop marker's `ldi` plus the start `out`.
pub const AVR_MARKER_CYCLES: u64 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McuResult {
    pub target: Target,
    pub algorithm: String,
    /// keysetup, encrypt, decrypt, hash, mac, seal; "build" or "run" for a failure.
    pub operation: String,
    pub size_bytes: usize,
    /// "cycles" (simavr, exact) or "instructions" (QEMU -icount, exact).
    pub counter: String,
    /// The count, whichever the counter; marker cost removed.
    pub cycles: u64,
    /// None for key setup (no message bytes).
    pub cycles_per_byte: Option<f64>,
    /// At the target clock; on Cortex-M one instruction per cycle (a lower bound).
    pub time_us: f64,
    pub clock_hz: u64,
    /// Flash bytes over the `identity` firmware (study 003 Fig. 12, FELICS).
    pub code_size_bytes: Option<i64>,
    /// The whole firmware's flash bytes.
    pub flash_bytes: Option<u64>,
    /// Peak stack of the operation itself, bytes.
    pub stack_bytes: Option<u32>,
    pub kat_passed: bool,
    /// Why there is no measurement (a build failure carries the compiler's reason).
    pub error: Option<String>,
}

impl McuResult {
    pub fn failure(
        target: Target,
        algorithm: &str,
        operation: &str,
        why: impl Into<String>,
    ) -> McuResult {
        McuResult {
            target,
            algorithm: algorithm.to_string(),
            operation: operation.to_string(),
            size_bytes: 0,
            counter: target.counter().to_string(),
            cycles: 0,
            cycles_per_byte: None,
            time_us: 0.0,
            clock_hz: target.clock_hz(),
            code_size_bytes: None,
            flash_bytes: None,
            stack_bytes: None,
            kat_passed: false,
            error: Some(why.into()),
        }
    }

    pub fn is_measurement(&self) -> bool {
        self.error.is_none()
    }
}

/// The marker cost, after checking the calibration regions: 100 `nop`s must
/// add exactly 100 (cycles on AVR, instructions on ARM), and on AVR the empty
/// region must cost exactly [`AVR_MARKER_CYCLES`].
pub fn calibration(target: Target, run: &Run) -> Result<u64, McuError> {
    let (Some(empty), Some(nops)) = (run.calibrate_empty, run.calibrate_nop100) else {
        return Err(McuError::Failed(
            "the firmware did not report its calibration regions".into(),
        ));
    };
    let (empty, nops) = (target.to_counter(empty), target.to_counter(nops));
    if nops.checked_sub(empty) != Some(100) {
        return Err(McuError::Failed(format!(
            "calibration failed: 100 nops measured {} {} over the empty region",
            nops as i64 - empty as i64,
            target.counter()
        )));
    }
    if target.is_avr() && empty != AVR_MARKER_CYCLES {
        return Err(McuError::Failed(format!(
            "calibration failed: the empty region took {empty} cycles, the markers cost {AVR_MARKER_CYCLES}"
        )));
    }
    Ok(empty)
}

pub fn rows(
    target: Target,
    algorithm: &str,
    run: &Run,
    flash: u64,
    baseline_flash: u64,
    exit_ok: bool,
) -> Vec<McuResult> {
    let marker = match calibration(target, run) {
        Ok(m) => m,
        Err(e) => return vec![McuResult::failure(target, algorithm, "run", e.to_string())],
    };
    let failures: Vec<String> = run
        .kats
        .iter()
        .filter(|k| !k.passed)
        .map(|k| format!("{}: {}", k.algorithm, k.why.as_deref().unwrap_or("failed")))
        .collect();
    let kat_passed = exit_ok && !run.kats.is_empty() && failures.is_empty();
    let error = (!failures.is_empty()).then(|| {
        format!(
            "known-answer test FAILED on the device: {}",
            failures.join("; ")
        )
    });
    run.ops
        .iter()
        .map(|op| {
            let count = target.to_counter(op.raw).saturating_sub(marker);
            McuResult {
                target,
                algorithm: algorithm.to_string(),
                operation: op.operation.clone(),
                size_bytes: op.size,
                counter: target.counter().to_string(),
                cycles: count,
                cycles_per_byte: (op.size > 0).then(|| count as f64 / op.size as f64),
                time_us: count as f64 * 1e6 / target.clock_hz() as f64,
                clock_hz: target.clock_hz(),
                code_size_bytes: Some(flash as i64 - baseline_flash as i64),
                flash_bytes: Some(flash),
                stack_bytes: Some(op.stack),
                kat_passed,
                error: error.clone(),
            }
        })
        .collect()
}

/// The table `mcu` prints: counts per algorithm, operation and size, with
/// each failure's reason in place of its counts.
pub fn table(rows: &[McuResult]) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let counter = rows.first().map(|r| r.counter.as_str()).unwrap_or("cycles");
    let _ = writeln!(
        o,
        "{:<32} {:<9} {:>6} {:>12} {:>10} {:>11} {:>8} {:>7} {:>5}",
        "algorithm",
        "operation",
        "bytes",
        counter,
        "per byte",
        "time (µs)",
        "code (B)",
        "stack",
        "KAT"
    );
    for r in rows {
        if let (Some(e), false) = (&r.error, r.is_measurement() && r.kat_passed)
            && r.cycles == 0
        {
            let _ = writeln!(
                o,
                "{:<32} {:<9} {:>6} {e}",
                r.algorithm, r.operation, r.size_bytes
            );
            continue;
        }
        let _ = writeln!(
            o,
            "{:<32} {:<9} {:>6} {:>12} {:>10} {:>11.1} {:>8} {:>7} {:>5}",
            r.algorithm,
            r.operation,
            r.size_bytes,
            r.cycles,
            r.cycles_per_byte
                .map(|c| format!("{c:.1}"))
                .unwrap_or_else(|| "-".into()),
            r.time_us,
            r.code_size_bytes
                .map(|c| c.to_string())
                .unwrap_or_else(|| "-".into()),
            r.stack_bytes
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
            if r.kat_passed { "pass" } else { "FAIL" },
        );
    }
    if let Some(r) = rows.first() {
        let _ = writeln!(
            o,
            "\n{}: {} at {} MHz; code = flash over the identity firmware; stack = the operation's own peak.",
            r.target,
            r.counter,
            r.clock_hz / 1_000_000
        );
        if r.counter == "instructions" {
            let _ = writeln!(
                o,
                "QEMU counts instructions, not cycles: time assumes one instruction per cycle (a lower bound)."
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn avr_rows_subtract_the_pinned_marker_cost() {
        let run = parse("M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nA x\nK x pass\nM encrypt 16\nC 1602 40\nE\n").unwrap();
        let rows = rows(Target::Atmega1284p, "x", &run, 12_000, 9_000, true);
        assert_eq!(rows[0].cycles, 1600);
        assert_eq!(rows[0].cycles_per_byte, Some(100.0));
        assert_eq!(rows[0].time_us, 200.0);
        assert_eq!(rows[0].code_size_bytes, Some(3000));
        assert!(rows[0].kat_passed);
    }

    #[test]
    fn a_wrong_calibration_or_a_failed_kat_is_reported() {
        let off = parse("M calibrate-empty 0\nC 3 0\nM calibrate-nop100 0\nC 103 0\nE\n").unwrap();
        assert!(calibration(Target::Atmega1284p, &off).is_err());
        let failed = parse("M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nK x FAIL tag\nM encrypt 16\nC 10 0\nE\n").unwrap();
        let rows = rows(Target::Atmega1284p, "x", &failed, 1, 1, false);
        assert!(!rows[0].kat_passed);
        assert!(rows[0].error.as_deref().unwrap().contains("FAILED"));
    }
}
