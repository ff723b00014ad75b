//! A firmware image signature's verify on the Cortex-M targets: the verify
//! probe (firmware-verify/, one scheme a build) run in QEMU with its
//! execution log, the verify's instruction mix priced by [`cycles`] as the
//! device cost tables' Cortex-M rows are, with the heap's peak and the stack's
//! depth the probe measured. `scripts/verify-device-cpu` writes
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

/// The targets the probe runs on: those with a cycle model.
pub fn targets() -> Vec<Target> {
    crate::schc_probe::targets()
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
    let core = cycles::timing::for_target(target)
        .ok_or_else(|| McuError::Failed(format!("no cycle model for {target}")))?;
    let (out, mixes) = match emulate::run_traced(target, &elf) {
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
    let estimate = cycles::estimate::estimate(&mix, core);
    let measured = Measured {
        instructions: mix.instructions,
        cycles: estimate,
        us: estimate.estimate as f64 * 1e6 / target.clock_hz() as f64,
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
            schemes,
        });
    }
    Ok(Table {
        source: "scripts/verify-device-cpu: firmware-verify/ in QEMU, one scheme a build, cycles \
                 estimated from the instruction mix (crates/mcu cycles, \
                 data/cycle-timings/cortex-m.toml) at the target's core, without a part's flash \
                 wait states"
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
    /// on every Cortex-M target, every scheme's vector verified on the
    /// Cortex-M4 (its board has the nRF52840's 256 KiB), a row without a
    /// figure says why, and the figures hold together.
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
            for r in &t.schemes {
                let at = format!("{} on {}", r.scheme, t.target);
                match (&r.known_answer, &r.measured) {
                    (KnownAnswer::Passed, Some(m)) => {
                        assert!(r.reason.is_none(), "{at}");
                        let c = m.cycles;
                        assert!(m.instructions > 0 && c.low <= c.estimate && c.estimate <= c.high);
                        let us = c.estimate as f64 * 1e6 / t.clock_hz as f64;
                        assert!((m.us - us).abs() < 1e-6, "{at}");
                        assert!(
                            m.stack_bytes > 0 && m.stack_bytes < t.board_ram_bytes,
                            "{at}"
                        );
                    }
                    _ => assert!(r.reason.as_deref().is_some_and(|w| !w.is_empty()), "{at}"),
                }
                if t.target == "cortex-m4" {
                    assert_eq!(r.known_answer, KnownAnswer::Passed, "{at}: {:?}", r.reason);
                }
            }
        }
    }
}
