//! A firmware image signature's verify on the QEMU targets: the verify probe
//! (firmware-verify/, one scheme a build) run in QEMU. On a target with a
//! cycle model (Cortex-M) with its execution log, the verify's instruction
//! mix priced by [`cycles`] as the device cost tables' Cortex-M rows are; on
//! one without (RISC-V) the instructions the probe counted (`minstret`), time
//! at the clock a lower bound. With the heap's peak and the stack's depth the
//! probe measured. `scripts/verify-device-cpu` writes
//! `data/firmware-update/verify-cycles.json` from [`table`]; the table's types
//! are `device_facts::verify_cycles`'.

use device_facts::verify_cycles::{KnownAnswer, Measured, Row, Table, TargetRow};

use crate::cycles;
use crate::probe::{Probe, Report};
use crate::{McuError, Target, emulate};

const PROBE: Probe = Probe {
    dir: "firmware-verify",
    package: "ciphermeter-verify-probe",
    title: "the verify probe",
    runs_on,
    runs_on_what: "the QEMU targets",
};

/// The probe's schemes: its features, data/firmware-update.toml's names.
pub const SCHEMES: [&str; 9] = [
    "ecdsa-p256",
    "ed25519",
    "rsa-2048",
    "rsa-3072",
    "lms-sha256-h10-w8",
    "ml-dsa-44",
    "ml-dsa-65",
    "slh-dsa-sha2-128s",
    "slh-dsa-sha2-128f",
];

/// The targets the probe runs on: QEMU's (firmware-verify has platform code
/// for Cortex-M and RISC-V; simavr's AVR has neither the RAM nor the code).
pub fn targets() -> Vec<Target> {
    Target::ALL.into_iter().filter(|&t| runs_on(t)).collect()
}

fn runs_on(target: Target) -> bool {
    target.qemu().is_some()
}

/// What [`counted`] calls the figures of a target with a cycle model.
pub const CYCLE_ESTIMATE: &str = "cycle estimate";

/// What `target`'s figures count: the cycle model's estimate, or its counter.
pub fn counted(target: Target) -> &'static str {
    if target.has_cycle_estimate() {
        CYCLE_ESTIMATE
    } else {
        target.counter()
    }
}

/// One scheme on `target`: built, run and priced, or why not.
pub fn measure(target: Target, scheme: &str) -> Result<Row, McuError> {
    let not_run = |reason: String| Row {
        scheme: scheme.into(),
        known_answer: KnownAnswer::NotRun,
        measured: None,
        reason: Some(reason),
    };
    let elf = match PROBE.build(target, &[scheme]) {
        Ok(elf) => elf,
        Err(McuError::Failed(why)) => return Ok(not_run(without_registry(&why))),
        Err(e) => return Err(e),
    };
    // A target with a cycle model is priced from QEMU's log; one without
    // counts its own instructions (the probe's `C` lines).
    let core = cycles::timing::for_target(target);
    let run = match core {
        Some(_) => emulate::run_traced(target, &elf).map(|(out, mixes)| (out, Some(mixes))),
        None => emulate::run(target, &elf, None).map(|out| (out, None)),
    };
    let (out, mixes) = match run {
        Ok(run) => run,
        Err(McuError::Failed(why)) => {
            return Ok(not_run(format!("the verify probe on {target}: {why}")));
        }
        Err(e) => return Err(e),
    };
    let report = Report::parse(&PROBE, &out.stdout);
    // A verify whose stack outgrows the board's RAM faults with no word
    // printed (the fault's own frame has nowhere to go): say what the board had.
    let unfinished = || {
        not_run(format!(
            "the verify probe did not finish on {target}, whose board has {} B of RAM (it printed: {})",
            target.memory_bytes().1,
            out.stdout.trim().replace('\n', "; ")
        ))
    };
    if report.find("V", scheme).is_err() {
        return Ok(unfinished());
    }
    let verdict = report
        .find("K", "verify")
        .ok()
        .and_then(|v| v.first().cloned());
    let known_answer = match (verdict.as_deref(), out.exit_ok) {
        (Some("pass"), true) => KnownAnswer::Passed,
        (Some(_), _) => KnownAnswer::Failed,
        (None, _) => return Ok(unfinished()),
    };
    let (instructions, estimate) = match (core, mixes) {
        (Some(core), Some(mixes)) => {
            let mixes = match mixes {
                Ok(m) => m,
                Err(why) => return Ok(not_run(format!("the verify probe on {target}: {why}"))),
            };
            let [empty, verify] = mixes.as_slice() else {
                return Ok(not_run(format!(
                    "the verify probe ran {} regions on {target}, not 2: {}",
                    mixes.len(),
                    out.stdout.trim()
                )));
            };
            let mix = verify.minus(empty);
            (
                mix.instructions,
                Some(cycles::estimate::estimate(&mix, core)),
            )
        }
        // The probe's own count, less the calibration region's (the marks').
        _ => {
            let count = |region| report.number("C", region, 0).map(|n| n as i64);
            (count("verify")? - count("empty")?, None)
        }
    };
    let figure = estimate.map_or(instructions.max(0) as u64, |e| e.estimate);
    let measured = Measured {
        instructions,
        cycles: estimate,
        us: figure as f64 * 1e6 / target.clock_hz() as f64,
        heap_bytes: report.number("H", "verify", 0)?,
        stack_bytes: report.number("S", "verify", 0)?,
    };
    let reason = match known_answer {
        KnownAnswer::Passed => None,
        _ => Some(format!(
            "the verify probe's vector did not verify on {target}: {}",
            out.stdout.trim()
        )),
    };
    Ok(Row {
        scheme: scheme.into(),
        known_answer,
        measured: Some(measured),
        reason,
    })
}

/// A compiler's reason with the registry's checkout path cut from each file
/// it names (`crypto-bigint-0.7.11/src/…`): the table reads the same from
/// any machine.
fn without_registry(reason: &str) -> String {
    let mut out = String::new();
    let mut rest = reason;
    while let Some(at) = rest.find("/registry/src/") {
        let (before, after) = rest.split_at(at);
        // Back to the path's start: the last space or parenthesis before it.
        let start = before.rfind([' ', '(']).map_or(0, |i| i + 1);
        out.push_str(&before[..start]);
        let after = &after["/registry/src/".len()..];
        // Past the index directory (`index.crates.io-…/`).
        rest = after.split_once('/').map_or(after, |(_, tail)| tail);
    }
    out.push_str(rest);
    out
}

/// The table for `targets`, with the revisions it was measured at.
pub fn table(targets: &[Target]) -> Result<Table, McuError> {
    let root = crate::firmware_dir().join("..");
    let timings = std::fs::read_to_string(root.join("data/cycle-timings/cortex-m.toml"))?;
    let facts = |e: device_facts::FactsError| McuError::Failed(e.to_string());
    let mut rows = Vec::new();
    for &t in targets {
        let mut schemes = Vec::new();
        for s in SCHEMES {
            eprintln!("verify probe: {s} on {t}");
            schemes.push(measure(t, s)?);
        }
        rows.push(TargetRow {
            target: t.name().into(),
            clock_hz: t.clock_hz(),
            board_ram_bytes: t.memory_bytes().1,
            counted: counted(t).into(),
            schemes,
        });
    }
    Ok(Table {
        source: "scripts/verify-device-cpu: firmware-verify/ in QEMU, one scheme a build; on \
                 Cortex-M cycles estimated from the instruction mix (crates/mcu cycles, \
                 data/cycle-timings/cortex-m.toml) at the target's core, without a part's flash \
                 wait states; on RISC-V (no cycle model) the instructions minstret counted, \
                 time at one a cycle a lower bound"
            .into(),
        vectors:
            "firmware-verify/vectors/: Wycheproof (ECDSA P-256, RSA-PSS 2048/3072, ML-DSA-44/65), \
                  RFC 8032 §7.1 (Ed25519); LMS H10/W8 and SLH-DSA-SHA2-128s/128f made on the host \
                  by firmware-verify/make-vectors (no official vector for these sets), each file \
                  says how"
                .into(),
        probe_revision: device_facts::revision::verify_probe_revision(&root).map_err(facts)?,
        cycle_timings_revision: device_facts::revision::cycle_timings_revision(&timings)
            .map_err(facts)?,
        targets: rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_loses_the_registry_path_and_keeps_the_file() {
        let why = "error[E0432]: unresolved import (/root/.cargo/registry/src/index.crates.io-19/crypto-bigint-0.7.11/src/a.rs:3:5)";
        assert_eq!(
            without_registry(why),
            "error[E0432]: unresolved import (crypto-bigint-0.7.11/src/a.rs:3:5)"
        );
        assert_eq!(without_registry("no path"), "no path");
    }

    /// The shipped table is of the probe's sources and the timing model as
    /// they are (else `scripts/verify-device-cpu` must run), has every scheme
    /// on every QEMU target, every scheme's vector verified on the Cortex-M4
    /// (its board has the nRF52840's 256 KiB) and on every target without a
    /// cycle model (the RISC-V boards' 400 and 512 KiB) except where it does
    /// not build, a row without a figure says why, and the figures hold
    /// together: an estimate where the target has a cycle model, the
    /// instructions at the clock where it has none.
    #[test]
    fn the_shipped_table_is_of_these_sources_and_holds_together() {
        let root = crate::firmware_dir().join("..");
        let table = device_facts::verify_cycles::shipped().unwrap();
        let stale = "stale: run scripts/verify-device-cpu";
        assert_eq!(
            table.probe_revision,
            device_facts::revision::verify_probe_revision(&root).unwrap(),
            "{stale}"
        );
        let timings =
            std::fs::read_to_string(root.join("data/cycle-timings/cortex-m.toml")).unwrap();
        assert_eq!(
            table.cycle_timings_revision,
            device_facts::revision::cycle_timings_revision(&timings).unwrap(),
            "{stale}"
        );
        let names: Vec<&str> = table.targets.iter().map(|t| t.target.as_str()).collect();
        let want: Vec<&str> = targets().iter().map(|t| t.name()).collect();
        assert_eq!(names, want);
        for t in &table.targets {
            let schemes: Vec<&str> = t.schemes.iter().map(|r| r.scheme.as_str()).collect();
            assert_eq!(schemes, SCHEMES, "{}", t.target);
            let target: Target = t.target.parse().unwrap();
            assert_eq!(t.counted, counted(target), "{}", t.target);
            for r in &t.schemes {
                let at = format!("{} on {}", r.scheme, t.target);
                match (&r.known_answer, &r.measured) {
                    (KnownAnswer::Passed, Some(m)) => {
                        assert!(r.reason.is_none(), "{at}");
                        assert!(m.instructions > 0, "{at}");
                        match m.cycles {
                            Some(c) => assert!(c.low <= c.estimate && c.estimate <= c.high),
                            None => assert!(!target.has_cycle_estimate(), "{at}: no estimate"),
                        }
                        assert_eq!(m.cycles.is_some(), target.has_cycle_estimate(), "{at}");
                        let us = m.count() as f64 * 1e6 / t.clock_hz as f64;
                        assert!((m.us - us).abs() < 1e-6, "{at}");
                        assert!(
                            m.stack_bytes > 0 && m.stack_bytes < t.board_ram_bytes,
                            "{at}"
                        );
                    }
                    _ => assert!(r.reason.as_deref().is_some_and(|w| !w.is_empty()), "{at}"),
                }
                let builds = !r
                    .reason
                    .as_deref()
                    .is_some_and(|w| w.contains("does not build"));
                if t.target == "cortex-m4" || (!target.has_cycle_estimate() && builds) {
                    assert_eq!(r.known_answer, KnownAnswer::Passed, "{at}: {:?}", r.reason);
                }
            }
        }
    }
}
