//! The timing table: cycles per instruction class for each core, with the
//! board's flash wait states, read from `data/cycle-timings/cortex-m.toml`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Class;
use crate::Target;

const TABLE: &str = include_str!("../../../../data/cycle-timings/cortex-m.toml");

/// The cost of one class: `low..=high` cycles, plus `per_register` for each
/// register of an LDM/STM/PUSH/POP list.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    pub low: u32,
    pub high: u32,
    #[serde(default)]
    pub per_register: u32,
    pub source: String,
}

/// A number with where it comes from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub value: u32,
    pub source: String,
}

/// The part a target stands for: its clock and flash.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    pub part: String,
    pub clock_hz: u64,
    /// Flash wait states at `clock_hz`.
    pub wait_states: Figure,
    /// Bytes the core fetches from flash at a time.
    pub fetch_bytes: Figure,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreTiming {
    pub core: String,
    pub manual: String,
    pub board: Board,
    pub cycles: BTreeMap<Class, Cost>,
}

impl CoreTiming {
    /// The cost of `class`, or of `other` when the core has no such class.
    pub fn cost(&self, class: Class) -> &Cost {
        self.cycles
            .get(&class)
            .or_else(|| self.cycles.get(&Class::Other))
            .expect("checked when the table is loaded")
    }
}

fn parse(text: &str) -> Result<BTreeMap<String, CoreTiming>, String> {
    let cores: BTreeMap<String, CoreTiming> =
        toml::from_str(text).map_err(|e| format!("cortex-m.toml: {e}"))?;
    for (name, core) in &cores {
        for must in [Class::Other, Class::Alu, Class::Load, Class::Store] {
            if !core.cycles.contains_key(&must) {
                return Err(format!("cortex-m.toml: {name} has no `{must:?}` row"));
            }
        }
        if let Some((class, _)) = core.cycles.iter().find(|(_, c)| c.low > c.high) {
            return Err(format!("cortex-m.toml: {name} {class:?}: low above high"));
        }
        if core.board.fetch_bytes.value == 0 {
            return Err(format!("cortex-m.toml: {name}: fetch_bytes is 0"));
        }
    }
    Ok(cores)
}

fn table() -> &'static BTreeMap<String, CoreTiming> {
    static CORES: OnceLock<BTreeMap<String, CoreTiming>> = OnceLock::new();
    CORES.get_or_init(|| parse(TABLE).expect("the built-in timing table is valid (tested)"))
}

/// The timing of a Cortex-M target; None on AVR, whose cycles are exact,
/// and on riscv32imc, whose core's timings are not published.
pub fn for_target(target: Target) -> Option<&'static CoreTiming> {
    table().get(target.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every target with a cycle estimate has a table, and only those: the
    /// AVR's cycles are exact, and riscv32imc's core (ESP32-C3) has no
    /// published per-instruction timing, so it counts instructions only.
    #[test]
    fn every_cortex_m_target_has_a_sourced_table_matching_its_clock() {
        for t in Target::ALL {
            let Some(core) = for_target(t) else {
                assert!(!t.has_cycle_estimate(), "{t} has no timing table");
                continue;
            };
            assert!(t.has_cycle_estimate(), "{t} has a table but no estimate");
            assert_eq!(core.board.clock_hz, t.clock_hz(), "{t}");
            assert!(core.cycles.values().all(|c| !c.source.trim().is_empty()));
            assert!(!core.board.wait_states.source.is_empty());
        }
        assert!(for_target(Target::Atmega1284p).is_none());
        assert!(for_target(Target::Riscv32imc).is_none());
    }

    #[test]
    fn a_row_without_source_or_with_an_unknown_class_is_refused() {
        let row = |extra: &str| {
            format!(
                "[m]\ncore = \"x\"\nmanual = \"y\"\n[m.board]\npart = \"p\"\nclock_hz = 1\n\
                 wait_states = {{ value = 0, source = \"s\" }}\nfetch_bytes = {{ value = 4, source = \"s\" }}\n\
                 [m.cycles]\nother = {{ low = 1, high = 1, source = \"s\" }}\nalu = {{ low = 1, high = 1, source = \"s\" }}\n\
                 load = {{ low = 2, high = 2, source = \"s\" }}\nstore = {{ low = 2, high = 2, source = \"s\" }}\n{extra}"
            )
        };
        assert!(parse(&row("")).is_ok());
        assert!(parse(&row("mul = { low = 1, high = 1 }")).is_err());
        assert!(parse(&row("teleport = { low = 1, high = 1, source = \"s\" }")).is_err());
        assert!(parse(&row("mul = { low = 3, high = 1, source = \"s\" }")).is_err());
    }
}
