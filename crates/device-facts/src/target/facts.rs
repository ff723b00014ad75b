//! What a target's file (`data/targets/NAME.toml`) says, parsed once.
//!
//! Every key a target has is required (unknown keys are refused); the few
//! that only some targets have are `Option`s whose absence the tests hold to
//! the rest (a QEMU target names its linker script, a timer count its tick).
//! The files are compiled in (build.rs), so a parse error is a bug caught by
//! this module's tests, and naming the file is all the help it needs.

use std::sync::OnceLock;

use serde::Deserialize;

use super::{FILES, Files};
use crate::FactsError;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// One line on what the target is and what runs it.
    pub summary: String,
    /// Other names `--target` takes (`m4`, `samd21`).
    pub aliases: Vec<String>,
    /// The devices (`data/devices`) that name it as their `simulated_target`.
    pub stands_for: Vec<String>,
    pub core: Core,
    pub memory: Memory,
    pub simulator: Simulator,
    pub counter: Counter,
    pub timing: Timing,
    pub build: Build,
    /// Why `device-send` has no uplink board for it (no platform code sends
    /// the device's frames); none: it has one.
    #[serde(default)]
    pub no_uplink_board: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Core {
    /// How an instruction is decoded.
    pub family: Family,
    /// The architecture (`armv7e-m`), for people: code asks the flags below.
    pub isa: String,
    pub rust_target: String,
    pub toolchain: Toolchain,
    /// The cross C compiler of the C libraries (and, on AVR, the linker).
    pub c_compiler: String,
    /// The clock `time_us` is at.
    pub clock_hz: u64,
    /// Thumb-2's IT blocks (ARMv7-M and later).
    pub it_blocks: bool,
    /// ARMv7E-M's DSP extension (UMAAL), which assembly-class crates need.
    pub dsp: bool,
    /// The core rustc builds for (`-C target-cpu`), where the Rust target
    /// alone leaves out what the parts have (the M33's DSP).
    #[serde(default)]
    pub target_cpu: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Avr,
    Arm,
    Riscv,
}

/// Which pinned Rust toolchain builds the firmware ([`super::STABLE_TOOLCHAIN`]
/// or [`super::AVR_TOOLCHAIN`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Toolchain {
    Stable,
    Nightly,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Flash and RAM of the memory map the firmware is linked for and runs in.
    pub flash_bytes: u64,
    pub ram_bytes: u64,
    /// Our linker script with that map (from the repository's root), and
    /// where its flash and RAM start; none where the toolchain brings the
    /// part's own (avr-gcc).
    pub linker_script: Option<String>,
    pub flash_origin: Option<u64>,
    pub ram_origin: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Simulator {
    /// simavr, through the firmware's harness, as this `--mcu`.
    Simavr {
        mcu: String,
    },
    Qemu(Qemu),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qemu {
    /// The system emulator and the Debian package that has it.
    pub binary: String,
    pub package: String,
    pub machine: String,
    /// Options right after `-M machine` that size or boot the board as the
    /// memory map says.
    pub options: Vec<String>,
    /// `-icount shift`: each instruction advances virtual time by 2^SHIFT ns.
    pub icount_shift: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    pub unit: Unit,
    /// What the firmware's raw count is.
    pub raw: Raw,
    /// Nanoseconds per tick of the timer the firmware reads, when it reads one.
    pub timer_tick_ns: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Cycles,
    Instructions,
}

impl Unit {
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Cycles => "cycles",
            Unit::Instructions => "instructions",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Raw {
    /// The count itself (simavr's cycles, RISC-V's `minstret`).
    Count,
    /// QEMU's virtual clock through a timer: ticks of `timer_tick_ns`.
    Timer,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// The file whose `[NAME]` table prices the executed instruction mix
    /// (`cycle_model`), or else why there is none (`no_cycle_table`): the
    /// counts are exact, or nobody publishes the core's timings.
    pub cycle_table: Option<String>,
    pub no_cycle_table: Option<String>,
    /// Whether data reads can take other times by their address.
    pub data_cache: bool,
    /// The instructions whose time follows their operands (the
    /// constant-time check's judge, crates/mcu/src/ct/latency.rs).
    pub variable_latency: Vec<String>,
    /// Whether the core's maker publishes their cycles.
    pub variable_latency_published: bool,
    /// How the constant-time check's verdicts state their judgement (its
    /// `model`), in words.
    pub variable_latency_judged: String,
}

/// What the build scripts read ([`super::build_facts`], a line reader this
/// module's tests hold to these fields).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    /// The cross C compiler's flags for the core (`-mcpu=`, `-march=`).
    pub c_flags: Vec<String>,
    /// The FPU `-mfpu=` names under a hard-float ABI (`eabihf`).
    #[serde(default)]
    pub c_fpu: Option<String>,
    /// The cfg the firmware's platform code selects the board by.
    #[serde(default)]
    pub board_cfg: Option<String>,
}

/// `text`, the file of target `name`, parsed; an error names the file.
pub fn parse(name: &str, text: &str) -> Result<Facts, FactsError> {
    toml::from_str(text).map_err(|e| FactsError::Failed(format!("data/targets/{name}.toml: {e}")))
}

/// Every target's facts, in [`super::Target::ALL`]'s order.
pub(super) fn all() -> &'static [Facts] {
    static FACTS: OnceLock<Vec<Facts>> = OnceLock::new();
    FACTS.get_or_init(|| {
        FILES
            .iter()
            .map(|f: &Files| parse(f.name, f.facts).unwrap_or_else(|e| panic!("{e} (tested)")))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use std::{collections::BTreeMap, path::Path};

    use super::*;
    use crate::Target;

    fn root() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    }

    #[test]
    fn every_file_parses_and_a_bad_one_is_named() {
        for f in &FILES {
            parse(f.name, f.facts).unwrap();
        }
        let text = FILES[0].facts.replace("clock_hz", "clock_mhz");
        let e = parse("z80", &text).unwrap_err().to_string();
        assert!(e.contains("data/targets/z80.toml"), "{e}");
        for f in &FILES {
            let text = f
                .facts
                .replace("[simulator]\n", "[simulator]\nsurprise = 1\n");
            let e = parse(f.name, &text).unwrap_err().to_string();
            assert!(e.contains("surprise"), "{e}");
        }
        let e = parse("z80", &format!("surprise = 1\n{}", FILES[0].facts)).unwrap_err();
        assert!(e.to_string().contains("surprise"), "{e}");
    }

    #[test]
    fn names_and_aliases_are_unique_and_lowercase() {
        let mut seen = BTreeMap::new();
        for t in Target::ALL {
            for name in
                std::iter::once(t.name()).chain(t.facts().aliases.iter().map(|a| a.as_str()))
            {
                assert_eq!(name, name.to_ascii_lowercase(), "{t}: '{name}'");
                if let Some(other) = seen.insert(name, t) {
                    panic!("'{name}' names both {other} and {t}");
                }
            }
        }
    }

    #[test]
    fn the_counter_and_the_simulator_agree() {
        for t in Target::ALL {
            let f = t.facts();
            assert!(f.core.clock_hz > 0 && f.memory.flash_bytes > 0 && f.memory.ram_bytes > 0);
            match &f.simulator {
                Simulator::Simavr { .. } => {
                    assert_eq!(f.counter.unit, Unit::Cycles, "{t}: simavr counts cycles");
                    assert_eq!(f.counter.raw, Raw::Count, "{t}");
                    assert!(f.memory.linker_script.is_none(), "{t}: avr-gcc's map");
                }
                Simulator::Qemu(_) => {
                    assert_eq!(
                        f.counter.unit,
                        Unit::Instructions,
                        "{t}: QEMU counts instructions"
                    );
                    assert!(
                        f.memory.linker_script.is_some(),
                        "{t}: a QEMU board's map is ours"
                    );
                }
            }
            assert_eq!(
                f.counter.raw == Raw::Timer,
                f.counter.timer_tick_ns.is_some(),
                "{t}: a timer count needs its tick, and only it"
            );
            assert!(
                f.timing.cycle_table.is_some() != f.timing.no_cycle_table.is_some(),
                "{t}: a cycle_table, or why there is none (no_cycle_table)"
            );
            if f.timing.variable_latency_published {
                assert!(!f.timing.variable_latency.is_empty(), "{t}");
            }
        }
    }

    /// The memory map's sizes and RAM's start are the linker script's.
    #[test]
    fn memory_sizes_are_the_linker_scripts() {
        for t in Target::ALL {
            let m = &t.facts().memory;
            assert_eq!(m.linker_script.is_some(), m.ram_origin.is_some(), "{t}");
            assert_eq!(m.linker_script.is_some(), m.flash_origin.is_some(), "{t}");
            let Some(script) = &m.linker_script else {
                continue;
            };
            let text = std::fs::read_to_string(root().join(script)).unwrap();
            let field = |region: &str, key: &str| {
                let line = text
                    .lines()
                    .find(|l| l.trim_start().starts_with(region) && l.contains("LENGTH"))
                    .unwrap_or_else(|| panic!("{script}: no {region}"));
                let value = line.split(key).nth(1).unwrap();
                value
                    .split([',', ' '])
                    .find(|w| !w.is_empty())
                    .unwrap()
                    .to_string()
            };
            let length = |region: &str| {
                let k = field(region, "LENGTH =");
                k.strip_suffix('K').unwrap().parse::<u64>().unwrap() * 1024
            };
            assert_eq!(
                (length("FLASH"), length("RAM")),
                t.memory_bytes(),
                "{t}: {script}"
            );
            let origin = |region: &str| {
                let o = field(region, "ORIGIN =");
                u64::from_str_radix(o.trim_start_matches("0x"), 16).unwrap()
            };
            assert_eq!(Some(origin("RAM")), m.ram_origin, "{t}: {script}");
            assert_eq!(Some(origin("FLASH")), m.flash_origin, "{t}: {script}");
        }
    }

    /// `stands_for` is exactly the devices that name the target.
    /// The build scripts' line reader says what the parser says, for every file.
    #[cfg(feature = "files")]
    #[test]
    fn the_build_scripts_read_what_the_parser_reads() {
        use crate::target::build_facts::{build_facts_for, read_build_facts};
        for (t, f) in Target::ALL.iter().zip(&FILES) {
            let read = read_build_facts(f.name, f.facts);
            let facts = t.facts();
            assert_eq!(
                read.family,
                format!("{:?}", facts.core.family).to_lowercase(),
                "{t}"
            );
            assert_eq!(read.rust_target, facts.core.rust_target, "{t}");
            assert_eq!(read.target_cpu, facts.core.target_cpu, "{t}");
            assert_eq!(read.dsp, facts.core.dsp, "{t}");
            assert_eq!(read.linker_script, facts.memory.linker_script, "{t}");
            assert_eq!(read.c_flags, facts.build.c_flags, "{t}");
            assert_eq!(read.c_fpu, facts.build.c_fpu, "{t}");
            assert_eq!(read.board_cfg, facts.build.board_cfg, "{t}");
            // And a build of its triple, for its core, finds it.
            let flags = facts
                .core
                .target_cpu
                .as_ref()
                .map_or(String::new(), |c| format!("-C\x1ftarget-cpu={c}"));
            let dir = root().join("data/targets");
            let found = build_facts_for(&dir, &facts.core.rust_target, &flags).unwrap();
            assert_eq!(found.map(|b| b.name), Some(t.name().to_string()));
        }
        let dir = root().join("data/targets");
        assert_eq!(
            build_facts_for(&dir, "x86_64-unknown-linux-gnu", "").unwrap(),
            None
        );
        // The soft-float triple of an architecture a target has is that target's.
        let soft = build_facts_for(&dir, "thumbv7em-none-eabi", "")
            .unwrap()
            .unwrap();
        assert_eq!(soft.name, "cortex-m4");
        let m33 = build_facts_for(&dir, "thumbv8m.main-none-eabihf", "")
            .unwrap()
            .unwrap();
        assert!(
            !m33.core_is_built(""),
            "a bare triple is not built for the M33's core"
        );
        assert!(m33.core_is_built("-Ctarget-cpu=cortex-m33\x1f-Ctarget-feature=+dsp"));
        assert!(!m33.core_is_built("-C\x1ftarget-cpu=cortex-m3"));
    }

    #[test]
    fn stands_for_is_the_devices_that_name_it() {
        let mut named: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for entry in std::fs::read_dir(root().join("data/devices")).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let file: toml::Value = toml::from_str(&text).unwrap();
            for d in file["device"].as_array().unwrap() {
                if let Some(t) = d.get("simulated_target") {
                    let target = t["value"].as_str().unwrap().to_string();
                    named
                        .entry(target)
                        .or_default()
                        .push(d["name"].as_str().unwrap().into());
                }
            }
        }
        for t in Target::ALL {
            let mut said = t.facts().stands_for.clone();
            let mut found = named.remove(t.name()).unwrap_or_default();
            said.sort();
            found.sort();
            assert_eq!(said, found, "{t}: stands_for");
        }
        assert!(named.is_empty(), "devices name unknown targets: {named:?}");
    }

    /// A cycle table is a file with the target's table in it.
    #[test]
    fn cycle_tables_hold_the_target() {
        for t in Target::ALL {
            if let Some(file) = &t.facts().timing.cycle_table {
                let text = std::fs::read_to_string(root().join(file)).unwrap();
                let table: toml::Value = toml::from_str(&text).unwrap();
                assert!(table.get(t.name()).is_some(), "{file} has no [{t}]");
            }
        }
    }
}
