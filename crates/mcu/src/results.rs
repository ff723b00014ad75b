//! The result rows, made from a run: one per algorithm, operation and
//! message size. The row type itself ([`McuResult`]) is data, so it lives
//! in `device_facts::measurement`; parsing, calibration and estimates here.

use crate::cycles::{self, Mix};
use crate::parse::Run;
use crate::{McuError, Target};
pub use device_facts::measurement::{McuResult, time_basis};

/// simavr: the empty region costs the stop marker's `ldi` plus the start `out`.
pub const AVR_MARKER_CYCLES: u64 = 2;

/// Each measured region's mix less the empty calibration region's (the
/// same subtraction as for the exact counts), by region name, in run order.
pub fn net_mixes(run: &Run, mixes: &[Mix]) -> Result<Vec<(String, Mix)>, String> {
    if mixes.len() != run.regions.len() {
        return Err(format!(
            "the execution log has {} regions, the firmware reported {}",
            mixes.len(),
            run.regions.len()
        ));
    }
    let empty = run
        .regions
        .iter()
        .position(|r| r == "calibrate-empty")
        .map(|i| mixes[i].clone())
        .ok_or("no empty calibration region")?;
    Ok(run
        .regions
        .iter()
        .zip(mixes)
        .map(|(name, mix)| (name.clone(), mix.minus(&empty)))
        .collect())
}

/// Fills the cycle estimate of each measured row from the regions' mixes
/// and times it by the estimate. Fails, leaving the rows as they were, when
/// the log does not match the run: a region count differs, or a region's
/// logged instructions differ from its exact count.
pub fn add_estimates(
    target: Target,
    run: &Run,
    mixes: &[Mix],
    rows: &mut [McuResult],
) -> Result<(), String> {
    let Some(core) = cycles::timing::for_target(target) else {
        return Ok(());
    };
    let ops: Vec<Mix> = net_mixes(run, mixes)?
        .into_iter()
        .filter(|(name, _)| !name.starts_with("calibrate-"))
        .map(|(_, mix)| mix)
        .collect();
    let measured: Vec<&mut McuResult> = rows
        .iter_mut()
        .filter(|r| r.cycles > 0 || r.error.is_none())
        .collect();
    if ops.len() != measured.len() {
        return Err(format!(
            "{} logged regions for {} rows",
            ops.len(),
            measured.len()
        ));
    }
    if let Some((row, mix)) = measured
        .iter()
        .zip(&ops)
        .find(|(r, m)| m.instructions != r.cycles as i64)
    {
        return Err(format!(
            "{} {}: the log counts {} instructions, the timer {}",
            row.operation, row.size_bytes, mix.instructions, row.cycles
        ));
    }
    for (row, mix) in measured.into_iter().zip(&ops) {
        let e = cycles::estimate::estimate(mix, core);
        row.cycles_estimate = Some(e.estimate);
        row.cycles_low = Some(e.low);
        row.cycles_high = Some(e.high);
        row.mix = Some(mix.clone());
        row.time_us = e.estimate as f64 * 1e6 / target.clock_hz() as f64;
        row.time_basis = "cycles_estimate".into();
    }
    Ok(())
}

/// How a run's raw counts read: a simulator's (the target's timer or
/// simavr's cycles), or a board's own counter (`mcu --board`).
#[derive(Clone, Copy, Debug)]
pub enum Counting {
    Simulated(Target),
    Board(device_facts::Board),
}

impl Counting {
    pub fn target(self) -> Target {
        match self {
            Counting::Simulated(t) => t,
            Counting::Board(b) => b.target(),
        }
    }

    fn count(self, raw: u64) -> u64 {
        match self {
            Counting::Simulated(t) => t.to_counter(raw),
            Counting::Board(b) => b.to_count(raw),
        }
    }

    fn counter(self) -> &'static str {
        match self {
            Counting::Simulated(t) => t.counter(),
            Counting::Board(b) => b.counter(),
        }
    }

    fn clock_hz(self) -> u64 {
        match self {
            Counting::Simulated(t) => t.clock_hz(),
            Counting::Board(b) => b.clock_hz(),
        }
    }

    /// What `time_us` is from: the count itself, a cycle or an instruction.
    fn time_basis(self) -> &'static str {
        match self {
            Counting::Simulated(t) => time_basis(t),
            Counting::Board(b) => b.counter(),
        }
    }
}

/// The marker cost, after checking the calibration regions: 100 `nop`s must
/// add exactly 100 (cycles on AVR, instructions on ARM), and on AVR the empty
/// region must cost exactly [`AVR_MARKER_CYCLES`].
pub fn calibration(target: Target, run: &Run) -> Result<u64, McuError> {
    calibration_of(Counting::Simulated(target), run)
}

/// [`calibration`] for any counter; a board's empty region is its own
/// counter's reads, whatever they cost.
fn calibration_of(counting: Counting, run: &Run) -> Result<u64, McuError> {
    let (Some(empty), Some(nops)) = (run.calibrate_empty, run.calibrate_nop100) else {
        return Err(McuError::Failed(
            "the firmware did not report its calibration regions".into(),
        ));
    };
    let (empty, nops) = (counting.count(empty), counting.count(nops));
    if nops.checked_sub(empty) != Some(100) {
        return Err(McuError::Failed(format!(
            "calibration failed: 100 nops measured {} {} over the empty region",
            nops as i64 - empty as i64,
            counting.counter()
        )));
    }
    if let Counting::Simulated(target) = counting
        && target.is_avr()
        && empty != AVR_MARKER_CYCLES
    {
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
    rows_counted(
        Counting::Simulated(target),
        algorithm,
        run,
        (flash, baseline_flash),
        exit_ok,
    )
}

/// [`rows`], with counts read as `counting` says; `flash` is the build's
/// and the identity baseline's flash bytes.
pub fn rows_counted(
    counting: Counting,
    algorithm: &str,
    run: &Run,
    (flash, baseline_flash): (u64, u64),
    exit_ok: bool,
) -> Vec<McuResult> {
    let target = counting.target();
    let marker = match calibration_of(counting, run) {
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
    // A count without a passed known answer is no measurement: it never
    // enters a cost table (`CostTable::from_results` keeps errors apart).
    let error = if !failures.is_empty() {
        Some(format!(
            "known-answer test FAILED on the device: {}",
            failures.join("; ")
        ))
    } else if run.kats.is_empty() {
        Some("no known answer ran on the device: its counts prove nothing".to_string())
    } else if !exit_ok {
        Some("the device's run ended in failure after its known answers".to_string())
    } else {
        None
    };
    run.ops
        .iter()
        .map(|op| {
            let count = counting.count(op.raw).saturating_sub(marker);
            McuResult {
                target,
                algorithm: algorithm.to_string(),
                implementation: crate::implementation::rustcrypto_name(),
                operation: op.operation.clone(),
                size_bytes: op.size,
                counter: counting.counter().to_string(),
                cycles: count,
                cycles_per_byte: (op.size > 0).then(|| count as f64 / op.size as f64),
                time_us: count as f64 * 1e6 / counting.clock_hz() as f64,
                time_basis: counting.time_basis().to_string(),
                cycles_estimate: None,
                cycles_low: None,
                cycles_high: None,
                mix: None,
                clock_hz: counting.clock_hz(),
                code_size_bytes: Some(flash as i64 - baseline_flash as i64),
                flash_bytes: Some(flash),
                stack_bytes: Some(op.stack),
                ram_bytes: op.room.map(|room| {
                    let never_touched = room.saturating_sub(op.stack);
                    (target.memory_bytes().1 as u32).saturating_sub(never_touched)
                }),
                kat_passed,
                known_answers: if error.is_none() {
                    run.kats.len() as u32
                } else {
                    0
                },
                error: error.clone(),
                measured_on: None,
            }
        })
        .collect()
}

/// The table `mcu` prints: counts per algorithm, operation and size, with
/// each failure's reason in place of its counts. On Cortex-M it shows the
/// exact instruction count beside the cycle estimate and its range; the time
/// column is from the estimate where there is one.
pub fn table(rows: &[McuResult]) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let counter = rows.first().map(|r| r.counter.as_str()).unwrap_or("cycles");
    let estimated = rows.iter().any(|r| r.cycles_estimate.is_some());
    let dash = || "-".to_string();
    let _ = writeln!(
        o,
        "{:<32} {:<9} {:>6} {:>12} {:>26} {:>10} {:>11} {:>8} {:>7} {:>5}  timing",
        "algorithm",
        "operation",
        "bytes",
        counter,
        if estimated {
            "cycles est. [low-high]"
        } else {
            ""
        },
        "per byte",
        "time (µs)",
        "code (B)",
        "stack",
        "KAT"
    );
    // Each scheme build's constant-time verdict on the core (ciphermeter ct).
    let verdicts = rows.first().and_then(|r| {
        device_facts::constant_time::shipped(r.target)
            .ok()
            .flatten()
    });
    let timing = |r: &McuResult| match verdicts.as_ref().and_then(|t| t.report(&r.build_id())) {
        Some(v) if v.verdict == device_facts::constant_time::Verdict::Leaks => "LEAKS",
        Some(v) if v.verdict == device_facts::constant_time::Verdict::ConstantTime => "ct",
        Some(_) => "unchecked",
        None => "-",
    };
    for r in rows {
        if let (Some(e), false) = (&r.error, r.is_measurement() && r.kat_passed)
            && r.cycles == 0
        {
            let _ = writeln!(
                o,
                "{:<32} {:<9} {:>6} {e}",
                r.build_id(),
                r.operation,
                r.size_bytes
            );
            continue;
        }
        let estimate = match (r.cycles_estimate, r.cycles_low, r.cycles_high) {
            (Some(e), Some(lo), Some(hi)) => format!("{e} [{lo}-{hi}]"),
            _ => String::new(),
        };
        // Per byte of the figure the time is from: the estimate where there is one.
        let per_byte_of = r.cycles_estimate.unwrap_or(r.cycles);
        let _ = writeln!(
            o,
            "{:<32} {:<9} {:>6} {:>12} {:>26} {:>10} {:>11.1} {:>8} {:>7} {:>5}  {}",
            r.build_id(),
            r.operation,
            r.size_bytes,
            r.cycles,
            estimate,
            if r.size_bytes > 0 {
                format!("{:.1}", per_byte_of as f64 / r.size_bytes as f64)
            } else {
                dash()
            },
            r.time_us,
            r.code_size_bytes
                .map(|c| c.to_string())
                .unwrap_or_else(dash),
            r.stack_bytes.map(|s| s.to_string()).unwrap_or_else(dash),
            if r.kat_passed { "pass" } else { "FAIL" },
            timing(r),
        );
    }
    if let Some(r) = rows.first() {
        let _ = writeln!(
            o,
            "\n{}: {} at {} MHz; code = flash over the identity firmware; stack = the operation's own peak; \
             timing = the scheme build's constant-time verdict here (ciphermeter ct, data/constant-time/).",
            r.target,
            r.counter,
            r.clock_hz / 1_000_000
        );
        if estimated {
            let board = cycles::timing::for_target(r.target)
                .map(|c| {
                    format!(
                        "{}, {} flash wait state(s)",
                        c.board.part, c.board.wait_states.value
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "QEMU counts instructions exactly; cycles are ESTIMATED from the executed instruction mix with ARM's \
                 timing tables ({board}); per byte and time use the estimate. See firmware/README.md."
            );
        } else if r.counter == "instructions" {
            let _ = writeln!(
                o,
                "QEMU counts instructions, not cycles: time assumes one instruction per cycle (a lower bound)."
            );
            if let Some(why) = &r.target.facts().timing.no_cycle_table {
                let _ = writeln!(o, "No cycle estimate on {}: {why}.", r.target);
            }
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
    fn the_table_shows_each_scheme_builds_constant_time_verdict() {
        // Mbed TLS's Poly1305 leaks on the AVR through libgcc's __muldi3;
        // RustCrypto's ChaCha20-Poly1305 does not (data/constant-time/).
        let out = "M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nA x\nK x pass\nM seal 16\nC 1602 40\nE\n";
        let run = parse(out).unwrap();
        let row = |build: &str| {
            let mut r = rows(Target::Atmega1284p, build, &run, 1, 1, true).remove(0);
            let (algorithm, imp) = build.split_once('@').unwrap_or((build, "rustcrypto"));
            r.algorithm = algorithm.into();
            r.implementation = imp.into();
            r
        };
        let text = table(&[
            row("aead:chacha20-poly1305@mbedtls"),
            row("aead:chacha20-poly1305"),
            row("speck64-128-ecb"),
        ]);
        let line = |id: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(id))
                .unwrap_or_else(|| panic!("no {id} in\n{text}"))
                .to_string()
        };
        assert!(
            line("aead:chacha20-poly1305@mbedtls").ends_with("  LEAKS"),
            "{text}"
        );
        assert!(line("aead:chacha20-poly1305").ends_with("  ct"), "{text}");
        assert!(line("speck64-128-ecb").ends_with("  -"), "{text}");
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

    /// Counts with no known answer printed, or a run that failed after its
    /// known answers, are errors: such a row never enters a table.
    #[test]
    fn counts_without_a_passed_known_answer_are_no_measurement() {
        let none = parse(
            "M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nM encrypt 16\nC 10 0\nE\n",
        )
        .unwrap();
        let unchecked = rows(Target::Atmega1284p, "x", &none, 1, 1, true);
        assert!(
            unchecked[0]
                .error
                .as_deref()
                .unwrap()
                .contains("no known answer")
        );
        let passed = parse("M calibrate-empty 0\nC 2 0\nM calibrate-nop100 0\nC 102 0\nK x pass\nM encrypt 16\nC 10 0\nE\n").unwrap();
        let crashed = rows(Target::Atmega1284p, "x", &passed, 1, 1, false);
        assert!(
            crashed[0]
                .error
                .as_deref()
                .unwrap()
                .contains("ended in failure")
        );
        let table = device_facts::cost_table::CostTable::from_results(
            Target::Atmega1284p,
            &crashed,
            serde_json::Value::Null,
            String::new(),
            String::new(),
        );
        assert!(
            table.entries.iter().all(|e| e.error.is_some()),
            "{:?}",
            table.entries
        );
    }
}
