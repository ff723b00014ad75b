//! SCHC compression's CPU on the Cortex-M targets: the probe (firmware-schc/,
//! crates/schc with a bump allocator) built for the target, run in QEMU with
//! its execution log, and each region's instruction mix priced by [`cycles`]
//! as the device cost tables' Cortex-M rows are. The regions: a reading's
//! OSCORE plaintext compressed by inner rule 110, and the request it travels
//! in by outer rule 101 (docs/schc.md). `scripts/schc-device-cpu` writes
//! `data/schc/device-cpu.json` from [`table`].

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::cycles::{self, Estimate};
use crate::probe::{Probe, Report};
use crate::{McuError, Target, emulate};

const PROBE: Probe = Probe {
    dir: "firmware-schc",
    package: "ciphermeter-schc-probe",
    title: "the SCHC probe",
    runs_on: Target::has_cycle_estimate,
    runs_on_what: "the Cortex-M targets",
};

/// One measured region on one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Region {
    /// `inner` (the plaintext, RFC 8824 §7.2) or `outer` (the request).
    pub region: String,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Instructions QEMU ran in the region, less the empty region's.
    pub instructions: i64,
    pub cycles: Estimate,
    /// The estimate's cycles at the target's clock.
    pub us: f64,
    /// The bump heap the region took (freed after it).
    pub heap_bytes: u64,
}

/// One target's regions, and the heap the rule set keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRow {
    pub target: String,
    pub clock_hz: u64,
    pub rules_heap_bytes: u64,
    pub regions: Vec<Region>,
}

/// `data/schc/device-cpu.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub source: String,
    /// `device_facts::revision::schc_probe_revision` of the sources measured.
    pub probe_revision: String,
    /// The Cortex-M timing model the cycles were priced with.
    pub cycle_timings_revision: String,
    pub targets: Vec<TargetRow>,
}

/// The targets the probe runs on: those with a cycle model.
pub fn targets() -> Vec<Target> {
    Target::ALL
        .into_iter()
        .filter(|t| t.has_cycle_estimate())
        .collect()
}

/// Builds the probe for `target`; the ELF's path.
pub fn build(target: Target) -> Result<PathBuf, McuError> {
    PROBE.build(target, &[])
}

/// Builds and runs the probe on `target`: its regions, priced.
pub fn measure(target: Target) -> Result<TargetRow, McuError> {
    let elf = build(target)?;
    let core = cycles::timing::for_target(target)
        .ok_or_else(|| McuError::Failed(format!("no cycle model for {target}")))?;
    let (out, mixes) = emulate::run_traced(target, &elf)?;
    if !out.exit_ok {
        return Err(McuError::Failed(format!(
            "the SCHC probe failed on {target}: {}{}",
            out.stdout, out.stderr
        )));
    }
    let mixes = mixes.map_err(McuError::Failed)?;
    let report = Report::parse(&PROBE, &out.stdout);
    let [empty, inner, outer] = mixes.as_slice() else {
        return Err(McuError::Failed(format!(
            "the SCHC probe ran {} regions on {target}, not 3",
            mixes.len()
        )));
    };
    let mut regions = Vec::new();
    for (name, mix) in [("inner", inner), ("outer", outer)] {
        let mix = mix.minus(empty);
        let cycles = cycles::estimate::estimate(&mix, core);
        let (bytes_in, bytes_out) = (report.number("B", name, 0)?, report.number("B", name, 1)?);
        regions.push(Region {
            region: name.into(),
            bytes_in,
            bytes_out,
            instructions: mix.instructions,
            cycles,
            us: cycles.estimate as f64 * 1e6 / target.clock_hz() as f64,
            heap_bytes: report.number("H", name, 0)?,
        });
    }
    Ok(TargetRow {
        target: target.name().into(),
        clock_hz: target.clock_hz(),
        rules_heap_bytes: report.number("H", "rules", 0)?,
        regions,
    })
}

/// The table for `targets`, with the revisions it was measured at.
pub fn table(targets: &[Target]) -> Result<Table, McuError> {
    let root = crate::firmware_dir().join("..");
    let timings = std::fs::read_to_string(root.join("data/cycle-timings/cortex-m.toml"))?;
    let facts = |e: device_facts::FactsError| McuError::Failed(e.to_string());
    Ok(Table {
        source: "scripts/schc-device-cpu: firmware-schc/ in QEMU, cycles estimated from the \
                 instruction mix (crates/mcu cycles, data/cycle-timings/cortex-m.toml)"
            .into(),
        probe_revision: device_facts::revision::schc_probe_revision(&root).map_err(facts)?,
        cycle_timings_revision: device_facts::revision::cycle_timings_revision(&timings)
            .map_err(facts)?,
        targets: targets
            .iter()
            .map(|&t| measure(t))
            .collect::<Result<_, _>>()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped table is of the probe's sources and the timing model as
    /// they are (else `scripts/schc-device-cpu` must run), covers every
    /// Cortex-M target, and its figures hold together: the sizes are the
    /// host's (a 216-byte reading's 229-byte plaintext is rule 110's id and
    /// the reading; its 235-byte request loses 4 bytes to rule 101), and the
    /// time is the estimate at the clock.
    #[test]
    fn the_shipped_table_is_of_these_sources_and_holds_together() {
        let root = crate::firmware_dir().join("..");
        let text = std::fs::read_to_string(root.join("data/schc/device-cpu.json")).unwrap();
        let table: Table = serde_json::from_str(&text).unwrap();
        let stale = "stale: run scripts/schc-device-cpu";
        assert_eq!(
            table.probe_revision,
            device_facts::revision::schc_probe_revision(&root).unwrap(),
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
            let sizes: Vec<(&str, u64, u64)> = t
                .regions
                .iter()
                .map(|r| (r.region.as_str(), r.bytes_in, r.bytes_out))
                .collect();
            assert_eq!(sizes, [("inner", 229, 217), ("outer", 235, 231)]);
            for r in &t.regions {
                let c = r.cycles;
                assert!(r.instructions > 0 && c.low <= c.estimate && c.estimate <= c.high);
                let us = c.estimate as f64 * 1e6 / t.clock_hz as f64;
                assert!((r.us - us).abs() < 1e-6, "{} {}", t.target, r.region);
                assert!(r.heap_bytes > 0);
            }
        }
    }
}
