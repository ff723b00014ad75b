//! The device's verify of one signature: from its shipped cost table
//! (data/device-costs/) where that measured it, else from the verify probe's
//! table (data/firmware-update/verify-cycles.json) for the device's target;
//! each figure says which, and a scheme neither measured says why.

use serde::Serialize;

use device_facts::Target;
use device_facts::cost_table::CostTable;
use device_facts::verify_cycles::{self, KnownAnswer};
use energy::profiles::Device;

pub const NOT_MEASURED: &str = "not measured on this device";

pub const DEVICE_TABLE: &str = "device table (data/device-costs/)";
pub const PROBE_TABLE: &str = "verify probe (data/firmware-update/verify-cycles.json)";

/// The device's verify of one signature.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VerifyCost {
    pub implementation: String,
    pub cycles: u64,
    /// "cycle estimate", "cycles" or "instructions" (a lower bound on cycles).
    pub counted: String,
    /// Which table the figure is from.
    pub source: String,
    pub ms: f64,
    pub mj: f64,
}

fn at_clock(
    implementation: String,
    cycles: u64,
    counted: String,
    source: &str,
    d: &Device,
) -> VerifyCost {
    let s = cycles as f64 / (d.clock_mhz.value * 1e6);
    VerifyCost {
        implementation,
        cycles,
        counted,
        source: source.into(),
        ms: s * 1e3,
        mj: d.voltage_v.value * d.active_ma.value * s,
    }
}

/// The device table's verify of `algorithm` if it has one (its failure if it
/// has only that), else the probe's of `scheme` on the device's target.
pub fn verify_cost(
    table: Option<&CostTable>,
    probe: &verify_cycles::Table,
    target: Option<Target>,
    algorithm: Option<&str>,
    scheme: &str,
    device: &Device,
) -> Result<VerifyCost, String> {
    let main = match (table, algorithm) {
        (Some(t), Some(alg)) => from_device_table(t, alg, device),
        _ => Err(NOT_MEASURED.to_string()),
    };
    match (main, target) {
        (Err(why), Some(t)) if why == NOT_MEASURED => from_probe(probe, t, scheme, device),
        (main, _) => main,
    }
}

/// The fastest verify of `algorithm` the table holds with passed known
/// answers; else why none counts (not measured, or the table's failure:
/// a build past the device's RAM).
fn from_device_table(
    table: &CostTable,
    algorithm: &str,
    device: &Device,
) -> Result<VerifyCost, String> {
    let rows: Vec<_> = table
        .entries
        .iter()
        .filter(|e| e.algorithm == algorithm)
        .collect();
    rows.iter()
        .filter(|e| e.operation == "verify" && e.error.is_none() && e.known_answers > 0)
        .filter_map(|e| {
            let &(_, cycles) = e.cycle_points().first()?;
            let counted = if e.cycle_estimates.is_empty() {
                table.counter.clone()
            } else {
                "cycle estimate".into()
            };
            Some(at_clock(
                e.implementation.clone(),
                cycles,
                counted,
                DEVICE_TABLE,
                device,
            ))
        })
        .min_by_key(|v| v.cycles)
        .ok_or_else(|| {
            rows.iter()
                .find_map(|e| e.error.clone())
                .unwrap_or_else(|| NOT_MEASURED.into())
        })
}

/// The probe's verify of `scheme` on `target`, if its known answer passed
/// and its stack and heap fit the device's RAM; else why not.
fn from_probe(
    probe: &verify_cycles::Table,
    target: Target,
    scheme: &str,
    device: &Device,
) -> Result<VerifyCost, String> {
    let Some(row) = probe.row(target.name(), scheme) else {
        return Err(NOT_MEASURED.into());
    };
    let m = match (&row.known_answer, &row.measured) {
        (KnownAnswer::Passed, Some(m)) => m,
        _ => {
            let why = row.reason.as_deref().unwrap_or("no passed known answer");
            return Err(short_by(probe, scheme, device)
                .map_or_else(|| why.to_string(), |more| format!("{why}; {more}")));
        }
    };
    if let Some(ram) = device.ram_kib.as_ref().map(|r| u64::from(r.value) * 1024)
        && let Some(why) = target.beyond_device_ram(&device.name, ram, m.stack_bytes + m.heap_bytes)
    {
        return Err(why);
    }
    // Cycles where the target has a model, else its counter (instructions, a lower bound).
    let counted = probe
        .target(target.name())
        .map_or("", |t| t.counted.as_str());
    Ok(at_clock(
        "rustcrypto".into(),
        m.count(),
        counted.into(),
        PROBE_TABLE,
        device,
    ))
}

/// By how much a verify that did not finish here misses the device's RAM:
/// the least stack and heap it took on a target where it passed (the same
/// code, another core), against the device's RAM.
fn short_by(probe: &verify_cycles::Table, scheme: &str, device: &Device) -> Option<String> {
    let (target, need) = probe
        .targets
        .iter()
        .filter_map(|t| {
            let row = t.schemes.iter().find(|r| r.scheme == scheme)?;
            let m = row.measured.as_ref()?;
            (row.known_answer == KnownAnswer::Passed)
                .then(|| (&t.target, m.stack_bytes + m.heap_bytes))
        })
        .min_by_key(|(_, need)| *need)?;
    let mut said = format!("on the {target} it took {need} B of stack and heap");
    if let Some(kib) = device.ram_kib.as_ref().map(|r| u64::from(r.value))
        && need > kib * 1024
    {
        said += &format!(
            ", {} B more than the {}'s {kib} KiB of RAM",
            need - kib * 1024,
            device.name
        );
    }
    Some(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe measured every scheme update-cost knows, under the same
    /// names, on every target it ran on: a renamed scheme cannot lose its
    /// verify silently.
    #[test]
    fn the_probe_table_names_every_scheme_update_cost_knows() {
        let facts = crate::firmware_update::facts::load().unwrap();
        let probe = verify_cycles::shipped().unwrap();
        assert!(!probe.targets.is_empty());
        for t in &probe.targets {
            for s in &facts.scheme {
                assert!(
                    probe.row(&t.target, &s.name).is_some(),
                    "{} has no row on {}",
                    s.name,
                    t.target
                );
            }
            assert_eq!(t.schemes.len(), facts.scheme.len(), "{}", t.target);
        }
    }
}
