//! The device targets: what each is, and the facts `mcu` builds, runs and
//! counts it by.
//!
//! The targets are data: `data/targets/NAME.toml` each (its core, Rust
//! target, toolchain, clock, memory map, simulator, counter, cycle table,
//! data cache, variable-latency instructions, the devices it stands for;
//! data/targets/README.md). build.rs lists the folder and makes one `Target`
//! variant per file, so a new target is its file and its linker script, and
//! code asks a target for facts instead of matching on its name: this is the
//! one module that may (`tests/target_matches.rs` counts the others). An
//! enum rather than an index into the files, so call sites keep
//! `Target::CortexM4`, stored rows keep its name, and a `match` that must
//! cover every target still fails to compile when one is added.

use std::{fmt, str::FromStr};

use crate::FactsError;

/// The target `mcu` and `ct` run without `--target`: study 003's board's
/// core, the ATmega1284P.
pub const DEFAULT_NAME: &str = "atmega1284p";

/// How every reason a build does not fit a target starts.
pub const DOES_NOT_FIT: &str = "does not fit";

/// build.rs's `Target`, `Target::ALL` and `FILES`, from `data/targets/`.
mod generated {
    use serde::{Deserialize, Serialize};

    /// A target's compiled-in files: its facts and its shipped tables (empty
    /// when none has been generated).
    pub(super) struct Files {
        pub name: &'static str,
        pub facts: &'static str,
        pub cost_table: &'static str,
        pub verdicts: &'static str,
    }

    include!(concat!(env!("OUT_DIR"), "/targets.rs"));
}

// The build scripts' reader reads files: not in the browser's build.
#[cfg(feature = "files")]
pub mod build_facts;
pub mod facts;

pub use generated::Target;
use generated::{FILES, Files};

pub use facts::{Facts, Family, Simulator};

/// The stable Rust the device tables (and the host) are built with: the
/// channel of rust-toolchain.toml, which must say the same (a test holds
/// them together). Moving it moves counts: regenerate the tables.
pub const STABLE_TOOLCHAIN: &str = "1.95.0";

/// The nightly, by date, the AVR firmware is built with (scripts/setup
/// installs the toolchain named here, with rust-src). Its rustc says the
/// day before: nightly-2026-05-20 is `rustc 1.97.0-nightly (e50aa6fba 2026-05-19)`.
pub const AVR_TOOLCHAIN: &str = "nightly-2026-05-20";

impl Target {
    /// Everything its file says.
    pub fn facts(self) -> &'static Facts {
        &facts::all()[self as usize]
    }

    fn files(self) -> &'static Files {
        &FILES[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.files().name
    }

    /// The shipped device cost table's text (`data/device-costs/NAME.json`), or "".
    pub(crate) fn shipped_cost_table(self) -> &'static str {
        self.files().cost_table
    }

    /// The shipped constant-time verdicts' text (`data/constant-time/NAME.json`), or "".
    pub(crate) fn shipped_verdicts(self) -> &'static str {
        self.files().verdicts
    }

    pub fn rust_target(self) -> &'static str {
        &self.facts().core.rust_target
    }

    /// The environment that gives a firmware build the target's
    /// `target_cpu`: cargo's per-target RUSTFLAGS variable. Not a
    /// `[target.TRIPLE]` table in firmware/.cargo/config.toml: cargo does not
    /// find one whose triple has a dot (`thumbv8m.main-none-eabihf`), and
    /// the Cortex-M33's builds ran without their core for it.
    ///
    /// With `dsp`, the DSP extension is asked for by name too: LLVM's
    /// `cortex-m33` leaves out this optional extension (UMAAL in
    /// `global_asm!` fails with "instruction requires: dsp" without it), and
    /// rustc warns that the feature is unstable.
    pub fn rustflags_env(self) -> Option<(String, String)> {
        let core = &self.facts().core;
        let cpu = core.target_cpu.as_ref()?;
        let triple = self.rust_target().to_uppercase().replace(['.', '-'], "_");
        let mut flags = format!("-C target-cpu={cpu}");
        if core.dsp {
            flags.push_str(" -C target-feature=+dsp");
        }
        Some((format!("CARGO_TARGET_{triple}_RUSTFLAGS"), flags))
    }

    /// The pinned Rust toolchain the firmware is built with: AVR needs
    /// nightly (`-Zbuild-std=core`), Cortex-M and RISC-V build on stable.
    pub fn toolchain(self) -> &'static str {
        match self.facts().core.toolchain {
            facts::Toolchain::Stable => STABLE_TOOLCHAIN,
            facts::Toolchain::Nightly => AVR_TOOLCHAIN,
        }
    }

    /// The cross C compiler the C libraries are compiled with (on AVR also the linker).
    pub fn c_compiler(self) -> &'static str {
        &self.facts().core.c_compiler
    }

    pub fn family(self) -> Family {
        self.facts().core.family
    }

    pub fn is_avr(self) -> bool {
        self.family() == Family::Avr
    }

    pub fn is_riscv(self) -> bool {
        self.family() == Family::Riscv
    }

    /// Why `device-send` cannot run on it (its file's `no_uplink_board`),
    /// naming the targets that can; none where it can.
    pub fn uplink_refusal(self) -> Option<String> {
        let why = self.facts().no_uplink_board.as_ref()?;
        let boards: Vec<&str> = Target::ALL
            .into_iter()
            .filter(|t| t.facts().no_uplink_board.is_none())
            .map(Target::name)
            .collect();
        Some(format!(
            "device-send runs on {}; {} has no uplink board yet ({why})",
            boards.join(", "),
            self.name()
        ))
    }

    /// Whether it has Thumb-2's IT blocks (conditional execution the
    /// constant-time check judges).
    pub fn has_it_blocks(self) -> bool {
        self.facts().core.it_blocks
    }

    /// Whether it has ARMv7E-M's DSP instructions (UMAAL), which the
    /// assembly-class crates need.
    pub fn has_dsp(self) -> bool {
        self.facts().core.dsp
    }

    /// Whether data reads can take other times by their address (a secret
    /// address is then a leak, else a warning).
    pub fn has_data_cache(self) -> bool {
        self.facts().timing.data_cache
    }

    /// Whether runs are priced in cycles from the executed instruction mix
    /// (`mcu`'s `cycles`): where a cycle table exists for the core.
    pub fn has_cycle_estimate(self) -> bool {
        self.facts().timing.cycle_table.is_some()
    }

    /// The instructions whose time follows their operands.
    pub fn variable_latency(self) -> &'static [String] {
        &self.facts().timing.variable_latency
    }

    /// Whether the core's maker publishes those instructions' cycles (else
    /// only their classes are judged).
    pub fn variable_latency_published(self) -> bool {
        self.facts().timing.variable_latency_published
    }

    /// How the constant-time check states its judgement of them.
    pub fn variable_latency_judged(self) -> &'static str {
        &self.facts().timing.variable_latency_judged
    }

    /// "cycles" (simavr) or "instructions" (QEMU).
    pub fn counter(self) -> &'static str {
        self.facts().counter.unit.as_str()
    }

    /// The clock used for `time_us`. On QEMU the time assumes one
    /// instruction per cycle, a lower bound, unless estimated.
    pub fn clock_hz(self) -> u64 {
        self.facts().core.clock_hz
    }

    /// Flash and RAM of the memory map the firmware is linked for and runs
    /// in: (flash, RAM). A device with less RAM is judged by each build's
    /// measured need ([`Target::beyond_device_ram`]).
    pub fn memory_bytes(self) -> (u64, u64) {
        let m = &self.facts().memory;
        (m.flash_bytes, m.ram_bytes)
    }

    /// How a reason that a build does not fit this target's RAM starts:
    /// "does not fit in cortex-m0plus's RAM (32768 B)". `mcu` writes such
    /// reasons into the tables; readers that select on them match this.
    pub fn short_of_ram(self) -> String {
        format!(
            "{DOES_NOT_FIT} in {self}'s RAM ({} B)",
            self.memory_bytes().1
        )
    }

    /// Why a build that needed `need` bytes of RAM on this target's board
    /// does not fit a device with `ram`, if it does not: "does not fit in
    /// stm32l072's RAM (20480 B): it needs 23100 B …, measured on …".
    pub fn beyond_device_ram(self, device: &str, ram: u64, need: u64) -> Option<String> {
        (need > ram).then(|| {
            format!(
                "{DOES_NOT_FIT} in {device}'s RAM ({ram} B): it needs {need} B (static data and its \
                 deepest stack, measured on {}'s {} B)",
                self.board(),
                self.memory_bytes().1
            )
        })
    }

    /// The simulated board the code runs on: QEMU's machine, or simavr.
    pub fn board(self) -> &'static str {
        self.qemu_machine().unwrap_or("simavr")
    }

    /// The same for flash: "does not fit in atmega1284p's flash (131072 B)".
    pub fn short_of_flash(self) -> String {
        format!(
            "{DOES_NOT_FIT} in {self}'s flash ({} B)",
            self.memory_bytes().0
        )
    }

    /// The QEMU that runs it, if QEMU does.
    pub fn qemu(self) -> Option<&'static facts::Qemu> {
        match &self.facts().simulator {
            Simulator::Qemu(q) => Some(q),
            Simulator::Simavr { .. } => None,
        }
    }

    /// The part simavr simulates (its `--mcu`), if simavr runs it.
    pub fn simavr_mcu(self) -> Option<&'static str> {
        match &self.facts().simulator {
            Simulator::Simavr { mcu } => Some(mcu),
            Simulator::Qemu(_) => None,
        }
    }

    pub fn qemu_machine(self) -> Option<&'static str> {
        self.qemu().map(|q| q.machine.as_str())
    }

    /// QEMU options that size and boot the board as [`Target::memory_bytes`]
    /// says (after `-M`).
    pub fn qemu_board_options(self) -> &'static [String] {
        self.qemu().map_or(&[], |q| q.options.as_slice())
    }

    /// The QEMU system emulator that runs the target (none under simavr).
    pub fn qemu_binary(self) -> Option<&'static str> {
        self.qemu().map(|q| q.binary.as_str())
    }

    /// The Debian package with [`Target::qemu_binary`].
    pub fn qemu_package(self) -> Option<&'static str> {
        self.qemu().map(|q| q.package.as_str())
    }

    /// The `-icount shift` QEMU runs the target with (0 under simavr, which
    /// has none).
    pub fn icount_shift(self) -> u32 {
        self.qemu().map_or(0, |q| q.icount_shift)
    }

    /// Nanoseconds per tick of the timer the firmware reads, if it reads one.
    pub fn timer_tick_ns(self) -> Option<f64> {
        self.facts().counter.timer_tick_ns
    }

    /// Converts a raw count from the firmware/harness into cycles or
    /// instructions: QEMU's timer ticks become whole instructions; a count
    /// (AVR's cycles, RISC-V's `minstret`) is one already.
    pub fn to_counter(self, raw: u64) -> u64 {
        match self.timer_tick_ns() {
            None => raw,
            Some(tick_ns) => {
                let per_instruction = f64::from(1u32 << self.icount_shift()) / tick_ns;
                (raw as f64 / per_instruction).round() as u64
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = FactsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.to_ascii_lowercase();
        let found = Target::ALL
            .into_iter()
            .find(|t| t.name() == s || t.facts().aliases.contains(&s));
        found.ok_or_else(|| {
            let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
            FactsError::Usage(format!(
                "unknown target '{s}'{}; choose one of: {}",
                ::names::did_you_mean(&s, names.iter().copied()),
                names.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_a_usage_error() {
        for t in Target::ALL {
            assert_eq!(t.name().parse::<Target>().unwrap(), t);
        }
        assert!(matches!("z80".parse::<Target>(), Err(FactsError::Usage(_))));
    }

    #[test]
    fn the_stable_pin_is_rust_toolchain_tomls_channel() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rust-toolchain.toml");
        let file = std::fs::read_to_string(path).unwrap();
        let channel = file
            .lines()
            .find_map(|l| l.trim().strip_prefix("channel = "))
            .map(|v| v.trim_matches('"'));
        assert_eq!(channel, Some(STABLE_TOOLCHAIN), "{path}");
        assert_eq!(Target::CortexM0plus.toolchain(), STABLE_TOOLCHAIN);
        assert_eq!(Target::Atmega1284p.toolchain(), AVR_TOOLCHAIN);
        assert!(AVR_TOOLCHAIN.starts_with("nightly-20"), "a nightly by date");
    }

    /// The facts as the code held them before they moved to data/targets/
    /// (each target's match arms): the move changed none.
    /// The M33's core reaches its builds through cargo's per-target variable
    /// (the triple's dot becomes `_`); a target the triple describes needs none.
    #[test]
    fn a_target_cpu_is_passed_as_its_triples_rustflags() {
        assert_eq!(
            Target::CortexM33.rustflags_env(),
            Some((
                "CARGO_TARGET_THUMBV8M_MAIN_NONE_EABIHF_RUSTFLAGS".into(),
                "-C target-cpu=cortex-m33 -C target-feature=+dsp".into()
            ))
        );
        assert_eq!(Target::CortexM4.rustflags_env(), None);
    }

    #[test]
    fn the_files_say_what_the_code_said() {
        type Row = (
            Target,
            &'static str,
            &'static str,
            u64,
            (u64, u64),
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            &'static str,
            &'static str,
        );
        let rows: [Row; 7] = [
            (
                Target::Atmega1284p,
                "avr-none",
                AVR_TOOLCHAIN,
                8_000_000,
                (128 * 1024, 16 * 1024),
                None,
                None,
                None,
                "cycles",
                "avr-gcc",
            ),
            (
                Target::CortexM0plus,
                "thumbv6m-none-eabi",
                STABLE_TOOLCHAIN,
                48_000_000,
                (256 * 1024, 32 * 1024),
                Some("microbit"),
                Some("qemu-system-arm"),
                Some("qemu-system-arm"),
                "instructions",
                "arm-none-eabi-gcc",
            ),
            (
                Target::CortexM3,
                "thumbv7m-none-eabi",
                STABLE_TOOLCHAIN,
                72_000_000,
                (4096 * 1024, 64 * 1024),
                Some("mps2-an385"),
                Some("qemu-system-arm"),
                Some("qemu-system-arm"),
                "instructions",
                "arm-none-eabi-gcc",
            ),
            (
                Target::CortexM33,
                "thumbv8m.main-none-eabihf",
                STABLE_TOOLCHAIN,
                160_000_000,
                (4096 * 1024, 256 * 1024),
                Some("mps2-an505"),
                Some("qemu-system-arm"),
                Some("qemu-system-arm"),
                "instructions",
                "arm-none-eabi-gcc",
            ),
            (
                Target::CortexM4,
                "thumbv7em-none-eabihf",
                STABLE_TOOLCHAIN,
                80_000_000,
                (4096 * 1024, 256 * 1024),
                Some("mps2-an386"),
                Some("qemu-system-arm"),
                Some("qemu-system-arm"),
                "instructions",
                "arm-none-eabi-gcc",
            ),
            (
                Target::Riscv32imac,
                "riscv32imac-unknown-none-elf",
                STABLE_TOOLCHAIN,
                160_000_000,
                (4096 * 1024, 512 * 1024),
                Some("virt"),
                Some("qemu-system-riscv32"),
                Some("qemu-system-misc"),
                "instructions",
                "riscv64-unknown-elf-gcc",
            ),
            (
                Target::Riscv32imc,
                "riscv32imc-unknown-none-elf",
                STABLE_TOOLCHAIN,
                160_000_000,
                (4096 * 1024, 400 * 1024),
                Some("virt"),
                Some("qemu-system-riscv32"),
                Some("qemu-system-misc"),
                "instructions",
                "riscv64-unknown-elf-gcc",
            ),
        ];
        for (t, rust, toolchain, clock, memory, machine, binary, package, counter, cc) in rows {
            let said = (
                t.rust_target(),
                t.toolchain(),
                t.clock_hz(),
                t.memory_bytes(),
                t.qemu_machine(),
                t.qemu_binary(),
                t.qemu_package(),
                t.counter(),
                t.c_compiler(),
            );
            assert_eq!(
                said,
                (
                    rust, toolchain, clock, memory, machine, binary, package, counter, cc
                ),
                "{t}"
            );
        }
        assert_eq!(
            Target::ALL.map(|t| t.name()),
            [
                "atmega1284p",
                "cortex-m0plus",
                "cortex-m3",
                "cortex-m33",
                "cortex-m4",
                "riscv32imac",
                "riscv32imc"
            ]
        );
        let flags = |f: fn(Target) -> bool| Target::ALL.map(f);
        assert_eq!(
            flags(Target::is_avr),
            [true, false, false, false, false, false, false]
        );
        assert_eq!(
            flags(Target::is_riscv),
            [false, false, false, false, false, true, true]
        );
        assert_eq!(
            flags(Target::has_data_cache),
            [false, false, false, true, false, true, true]
        );
        assert_eq!(
            flags(Target::has_cycle_estimate),
            [false, true, true, true, true, false, false]
        );
        assert_eq!(
            flags(Target::has_it_blocks),
            [false, false, true, true, true, false, false]
        );
        assert_eq!(
            flags(Target::has_dsp),
            [false, false, false, true, true, false, false]
        );
        let options: Vec<&[String]> = Target::ALL.iter().map(|t| t.qemu_board_options()).collect();
        assert_eq!(options[1], ["-global", "nrf51-soc.sram-size=32768"]);
        // riscv32imc's boot options were emulate.rs's own before; riscv32imac's are the same.
        assert_eq!(options[5], ["-bios", "none", "-m", "16M"]);
        assert_eq!(options[6], ["-bios", "none", "-m", "16M"]);
        assert!(
            options[..5]
                .iter()
                .enumerate()
                .all(|(i, o)| i == 1 || o.is_empty())
        );
        assert_eq!(
            Target::ALL.map(|t| t.timer_tick_ns()),
            [
                None,
                Some(62.5),
                Some(40.0),
                Some(50.0),
                Some(40.0),
                None,
                None
            ]
        );
        for (alias, t) in [
            ("avr", Target::Atmega1284p),
            ("atmega1284", Target::Atmega1284p),
            ("samd21", Target::CortexM0plus),
            ("cortex-m0", Target::CortexM0plus),
            ("cortex-m0+", Target::CortexM0plus),
            ("m0", Target::CortexM0plus),
            ("m0plus", Target::CortexM0plus),
            ("m3", Target::CortexM3),
            ("M4", Target::CortexM4),
            ("m33", Target::CortexM33),
            ("thumbv8m.main-none-eabihf", Target::CortexM33),
            ("rv32imc", Target::Riscv32imc),
            ("riscv32", Target::Riscv32imc),
            ("riscv32imc-unknown-none-elf", Target::Riscv32imc),
            ("rv32imac", Target::Riscv32imac),
            ("riscv32imac-unknown-none-elf", Target::Riscv32imac),
        ] {
            assert_eq!(alias.parse::<Target>().unwrap(), t, "{alias}");
        }
        for t in Target::ALL {
            assert_eq!(serde_json::to_string(&t).unwrap(), format!("\"{t}\""));
            assert_eq!(
                serde_json::from_str::<Target>(&format!("\"{t}\"")).unwrap(),
                t
            );
        }
    }

    #[test]
    fn qemu_ticks_convert_to_whole_instructions() {
        // 100 instructions at shift 10: 2560 ticks of 40 ns, 1638.4 of 62.5 ns.
        assert_eq!(Target::CortexM3.to_counter(2560), 100);
        assert_eq!(Target::CortexM0plus.to_counter(1638), 100);
        assert_eq!(Target::CortexM0plus.to_counter(1640), 100);
        assert_eq!(Target::Atmega1284p.to_counter(1234), 1234);
        // minstret at -icount shift=0 is the instruction count itself.
        assert_eq!(Target::Riscv32imc.to_counter(101), 101);
        assert_eq!(Target::Riscv32imc.icount_shift(), 0);
    }

    #[test]
    fn riscv32imc_is_an_esp32_c3_shaped_qemu_virt_counted_in_instructions() {
        let t: Target = "riscv32imc".parse().unwrap();
        assert_eq!(t, Target::Riscv32imc);
        assert_eq!("rv32imc".parse::<Target>().unwrap(), t);
        assert_eq!(t.rust_target(), "riscv32imc-unknown-none-elf");
        assert_eq!(t.toolchain(), STABLE_TOOLCHAIN);
        assert_eq!(t.qemu_machine(), Some("virt"));
        assert_eq!(t.qemu_binary(), Some("qemu-system-riscv32"));
        assert_eq!(t.memory_bytes(), (4 * 1024 * 1024, 400 * 1024));
        assert_eq!(t.clock_hz(), 160_000_000);
        assert_eq!(t.counter(), "instructions");
        assert!(!t.has_cycle_estimate());
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            "\"riscv32imc\"",
            "stored rows name it as the CLI does"
        );
    }
}
