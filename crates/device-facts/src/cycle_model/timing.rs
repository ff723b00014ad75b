//! The timing table: cycles per instruction class for each core, with the
//! board's flash wait states, read from `data/cycle-timings/cortex-m.toml`.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::Class;
use crate::Target;

const TABLE: &str = include_str!("../../../../data/cycle-timings/cortex-m.toml");

/// The cost of one class: `low..=high` cycles, plus `per_register` for each
/// register of an LDM/STM/PUSH/POP list; from a `source`, or an `estimate`
/// where the core's maker publishes none (the Cortex-M33).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    pub low: u32,
    pub high: u32,
    #[serde(default)]
    pub per_register: u32,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub estimate: Option<String>,
}

/// A number with where it comes from: a `source`, or an `estimate` that
/// says what it rests on where no source gives it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub value: u32,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub estimate: Option<String>,
}

impl Figure {
    /// The source, or "estimate: …".
    pub fn provenance(&self) -> String {
        match (&self.source, &self.estimate) {
            (Some(s), _) => s.clone(),
            (None, Some(e)) => format!("estimate: {e}"),
            (None, None) => String::new(),
        }
    }

    fn check(&self, who: &str, field: &str) -> Result<(), String> {
        one_provenance(&self.source, &self.estimate, who, field)
    }
}

/// A figure's `source` or `estimate`: exactly one, not blank.
fn one_provenance(
    source: &Option<String>,
    estimate: &Option<String>,
    who: &str,
    field: &str,
) -> Result<(), String> {
    let given = |t: &Option<String>| t.as_deref().is_some_and(|t| !t.trim().is_empty());
    match (given(source), given(estimate)) {
        (true, false) | (false, true) => Ok(()),
        _ => Err(format!(
            "{who}: {field} needs a source or an estimate, not both"
        )),
    }
}

/// A part's clock and memory, as the model prices them (firmware/README.md
/// "Cycles on Cortex-M"): the board each table stands for
/// (`cortex-m.toml`), or any part in `parts.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// The short name a device or validation figure refers to (`parts.toml`).
    #[serde(default)]
    pub name: Option<String>,
    /// The core (a target name) in `parts.toml`; a table's board is its core's.
    #[serde(default)]
    pub core: Option<String>,
    pub part: String,
    pub clock_hz: u64,
    /// Flash wait states at `clock_hz`.
    pub wait_states: Figure,
    /// The most a flash access can wait where it varies (a flash clocked
    /// apart from the core waits to line the clocks up): the high end's.
    #[serde(default)]
    pub wait_states_high: Option<Figure>,
    /// Bytes the core fetches from flash at a time.
    pub fetch_bytes: Figure,
    /// Bytes one flash read returns to the prefetch buffer: sequential code
    /// streams at this many bytes per wait states + 1 cycles.
    pub flash_line_bytes: Figure,
    /// The instruction cache (0: none, or off).
    pub instruction_cache_bytes: Figure,
    /// A cache for data reads from flash (0: none, or off).
    pub data_cache_bytes: Figure,
    /// Cycles a data read from flash adds when no cache holds it.
    pub flash_data_wait: Figure,
}

impl Board {
    fn check(&self, who: &str) -> Result<(), String> {
        for (field, f) in [
            ("wait_states", &self.wait_states),
            ("fetch_bytes", &self.fetch_bytes),
            ("flash_line_bytes", &self.flash_line_bytes),
            ("instruction_cache_bytes", &self.instruction_cache_bytes),
            ("data_cache_bytes", &self.data_cache_bytes),
            ("flash_data_wait", &self.flash_data_wait),
        ] {
            f.check(who, field)?;
        }
        if let Some(high) = &self.wait_states_high {
            high.check(who, "wait_states_high")?;
            if high.value < self.wait_states.value {
                return Err(format!("{who}: wait_states_high is below wait_states"));
            }
        }
        if self.fetch_bytes.value == 0 || self.flash_line_bytes.value == 0 {
            return Err(format!(
                "{who}: fetch_bytes and flash_line_bytes must be above 0"
            ));
        }
        Ok(())
    }
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
        for (class, cost) in &core.cycles {
            if cost.low > cost.high {
                return Err(format!("cortex-m.toml: {name} {class:?}: low above high"));
            }
            one_provenance(
                &cost.source,
                &cost.estimate,
                &format!("cortex-m.toml: {name}"),
                &class.name(),
            )?;
        }
        core.board.check(&format!("cortex-m.toml: {name}"))?;
    }
    Ok(cores)
}

fn table() -> &'static BTreeMap<String, CoreTiming> {
    static CORES: OnceLock<BTreeMap<String, CoreTiming>> = OnceLock::new();
    CORES.get_or_init(|| parse(TABLE).expect("the built-in timing table is valid (tested)"))
}

const PARTS: &str = include_str!("../../../../data/cycle-timings/parts.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PartsFile {
    part: Vec<Board>,
}

fn parse_parts(text: &str) -> Result<Vec<Board>, String> {
    let parts = toml::from_str::<PartsFile>(text)
        .map_err(|e| format!("parts.toml: {e}"))?
        .part;
    for p in &parts {
        let who = format!("parts.toml: {}", p.part);
        let (Some(name), Some(core)) = (&p.name, &p.core) else {
            return Err(format!("{who}: needs a name and a core"));
        };
        if core.parse::<Target>().ok().and_then(for_target).is_none() {
            return Err(format!("{who}: core {core} has no timing table"));
        }
        if parts
            .iter()
            .filter(|q| q.name.as_ref() == Some(name))
            .count()
            > 1
        {
            return Err(format!("{who}: the name {name} is taken twice"));
        }
        p.check(&who)?;
    }
    Ok(parts)
}

/// The parts whose memory the model knows (`data/cycle-timings/parts.toml`).
pub fn parts() -> &'static [Board] {
    static PARTS_TABLE: OnceLock<Vec<Board>> = OnceLock::new();
    PARTS_TABLE
        .get_or_init(|| parse_parts(PARTS).expect("the built-in parts table is valid (tested)"))
}

/// A part by its short name, with its core's target: one of `parts.toml`,
/// or a table's board.
pub fn part(name: &str) -> Option<(&'static Board, Target)> {
    if let Some(p) = parts().iter().find(|p| p.name.as_deref() == Some(name)) {
        return Some((p, p.core.as_deref()?.parse().ok()?));
    }
    Target::ALL.into_iter().find_map(|t| {
        let core = for_target(t)?;
        (core.board.name.as_deref() == Some(name)).then_some((&core.board, t))
    })
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
            // Each row's provenance is checked when the table loads (parse).
        }
        assert!(for_target(Target::Atmega1284p).is_none());
        assert!(for_target(Target::Riscv32imc).is_none());
    }

    #[test]
    fn every_part_has_a_core_with_a_table_and_a_provenance_for_each_figure() {
        assert!(parse_parts(PARTS).is_ok());
        assert!(!parts().is_empty());
        for p in parts() {
            let (_, target) = part(p.name.as_deref().unwrap()).unwrap();
            assert!(for_target(target).is_some());
        }
    }

    #[test]
    fn a_part_without_provenance_or_with_a_name_twice_is_refused() {
        let part = |name: &str, wait: &str| {
            format!(
                "[[part]]\nname = \"{name}\"\ncore = \"cortex-m4\"\npart = \"p\"\nclock_hz = 1\n\
                 wait_states = {wait}\nfetch_bytes = {{ value = 4, source = \"s\" }}\n\
                 flash_line_bytes = {{ value = 8, source = \"s\" }}\n\
                 instruction_cache_bytes = {{ value = 0, source = \"s\" }}\n\
                 data_cache_bytes = {{ value = 0, source = \"s\" }}\n\
                 flash_data_wait = {{ value = 1, estimate = \"e\" }}\n"
            )
        };
        let ok = "{ value = 1, source = \"s\" }";
        assert!(parse_parts(&part("a", ok)).is_ok());
        assert!(parse_parts(&part("a", "{ value = 1 }")).is_err());
        assert!(
            parse_parts(&part(
                "a",
                "{ value = 1, source = \"s\", estimate = \"e\" }"
            ))
            .is_err()
        );
        assert!(parse_parts(&(part("a", ok) + &part("a", ok))).is_err());
        assert!(parse_parts(&part("a", ok).replace("cortex-m4", "atmega1284p")).is_err());
    }

    #[test]
    fn a_row_without_source_or_with_an_unknown_class_is_refused() {
        let row = |extra: &str| {
            format!(
                "[m]\ncore = \"x\"\nmanual = \"y\"\n[m.board]\npart = \"p\"\nclock_hz = 1\n\
                 wait_states = {{ value = 0, source = \"s\" }}\nfetch_bytes = {{ value = 4, source = \"s\" }}\n\
                 flash_line_bytes = {{ value = 8, source = \"s\" }}\n\
                 instruction_cache_bytes = {{ value = 0, source = \"s\" }}\n\
                 data_cache_bytes = {{ value = 0, source = \"s\" }}\n\
                 flash_data_wait = {{ value = 0, source = \"s\" }}\n\
                 [m.cycles]\nother = {{ low = 1, high = 1, source = \"s\" }}\nalu = {{ low = 1, high = 1, source = \"s\" }}\n\
                 load = {{ low = 2, high = 2, source = \"s\" }}\nstore = {{ low = 2, high = 2, source = \"s\" }}\n{extra}"
            )
        };
        assert!(parse(&row("")).is_ok());
        assert!(parse(&row("mul = { low = 1, high = 1 }")).is_err());
        assert!(parse(&row("teleport = { low = 1, high = 1, source = \"s\" }")).is_err());
        assert!(parse(&row("mul = { low = 3, high = 1, source = \"s\" }")).is_err());
        // Where the maker publishes no timing (the Cortex-M33): an estimate,
        // labelled as one, never beside a source.
        assert!(parse(&row("mul = { low = 1, high = 2, estimate = \"e\" }")).is_ok());
        let both = "mul = { low = 1, high = 1, source = \"s\", estimate = \"e\" }";
        assert!(parse(&row(both)).is_err());
        assert!(parse(&row("mul = { low = 1, high = 1, estimate = \" \" }")).is_err());
    }
}
