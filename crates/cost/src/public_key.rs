//! P-256 on a device, every way it can run there: each implementation the
//! device's core measured (simulated), and each of the chip's engines with
//! published figures (`device_facts::engine`), operation by operation. What
//! `handshake edhoc --device` prints under the handshake, so a hardware
//! engine that loses to software (the STM32WL's PKA) shows it.

use device_facts::Implementation;
use device_facts::cost_table::CostTable;
use device_facts::engine::Engine;
use serde::Serialize;

/// P-256's operations, as the firmware names them.
const OPERATIONS: [(&str, &str); 4] = [
    ("p256-ecdh", "shared"),
    ("p256-ecdh", "keygen"),
    ("p256-ecdsa", "sign"),
    ("p256-ecdsa", "verify"),
];

/// One operation by one implementation or engine.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PublicKeyRow {
    pub algorithm: String,
    pub operation: String,
    /// An implementation's name, or `hardware (published: ENGINE)`.
    pub implementation: String,
    pub cycles: f64,
    pub ms: f64,
    /// `simulated` or `published`.
    pub basis: String,
    /// Where a published figure comes from; none for a simulated one.
    pub source: Option<String>,
}

/// Every P-256 operation on the device: its table's rows (with passing known
/// answers) and its engines' published figures, fastest first per operation.
pub fn p256_rows(table: &CostTable, engines: &[Engine], clock_hz: f64) -> Vec<PublicKeyRow> {
    let mut rows = Vec::new();
    for (algorithm, operation) in OPERATIONS {
        let mut these: Vec<PublicKeyRow> = Vec::new();
        for imp in Implementation::ALL {
            let Some(e) = table.entry_of(algorithm, imp, operation) else {
                continue;
            };
            let Some(&(_, cycles)) = e.cycle_points().first() else {
                continue;
            };
            these.push(row(
                algorithm,
                operation,
                imp.name().into(),
                cycles as f64,
                clock_hz,
                None,
            ));
        }
        for engine in engines {
            if let Some(o) = engine.operation(algorithm, operation) {
                these.push(row(
                    algorithm,
                    operation,
                    device_facts::engine::hardware_label(&engine.title),
                    o.cycles(),
                    clock_hz,
                    Some(o.source.clone()),
                ));
            }
        }
        these.sort_by(|a, b| a.cycles.total_cmp(&b.cycles));
        rows.extend(these);
    }
    rows
}

fn row(
    algorithm: &str,
    operation: &str,
    implementation: String,
    cycles: f64,
    clock_hz: f64,
    source: Option<String>,
) -> PublicKeyRow {
    PublicKeyRow {
        algorithm: algorithm.into(),
        operation: operation.into(),
        implementation,
        cycles,
        ms: cycles / clock_hz * 1e3,
        basis: if source.is_some() {
            "published"
        } else {
            "simulated"
        }
        .into(),
        source,
    }
}

/// The rows as lines: each operation's fastest first, and how many times
/// slower each engine is than the fastest software where it loses.
pub fn text(rows: &[PublicKeyRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("P-256 here, each way it runs (fastest first per operation):\n");
    for r in rows {
        let fastest_software = rows
            .iter()
            .filter(|o| o.algorithm == r.algorithm && o.operation == r.operation)
            .find(|o| o.source.is_none());
        let verdict = match (&r.source, fastest_software) {
            (Some(_), Some(s)) if s.cycles < r.cycles => {
                format!(
                    "  hardware loses: {:.1}× {}'s",
                    r.cycles / s.cycles,
                    s.implementation
                )
            }
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {:<10} {:<7} {:<44} {:>10.0} cycles {:>8.1} ms  {}{verdict}\n",
            r.algorithm, r.operation, r.implementation, r.cycles, r.ms, r.basis
        ));
    }
    for r in rows.iter().filter(|r| r.source.is_some()) {
        if let Some(s) = &r.source {
            out.push_str(&format!("  [{}] {s}\n", r.implementation));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The STM32WL's PKA against the Cortex-M4's assembly, from the shipped
    /// table priced on the STM32WLE5's flash and caches and the PKA's
    /// published figures: hardware loses, by about 10x.
    #[test]
    fn the_stm32wl_pka_loses_to_the_assembly() {
        let wl = crate::data::profiles(None)
            .unwrap()
            .device("stm32wl")
            .unwrap()
            .clone();
        let table = crate::device_times::shipped_for(&wl, device_facts::Target::CortexM4)
            .unwrap()
            .unwrap();
        let engines = device_facts::engine::of_device("stm32wl").unwrap();
        let rows = p256_rows(&table, &engines, 48e6);
        let sign: Vec<&PublicKeyRow> = rows.iter().filter(|r| r.operation == "sign").collect();
        assert_eq!(sign[0].implementation, "p256-cortex-m4");
        let pka = sign.iter().find(|r| r.basis == "published").unwrap();
        assert_eq!(pka.cycles, 5_211_859.0);
        assert!(pka.cycles / sign[0].cycles > 10.0);
        assert!(text(&rows).contains("hardware loses"));
    }
}
