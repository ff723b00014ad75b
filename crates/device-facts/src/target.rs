//! The five device targets: what each is, and the facts `mcu` builds, runs and counts it by.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::FactsError;

/// How every reason a build does not fit a target starts.
pub const DOES_NOT_FIT: &str = "does not fit";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// ATmega1284P at 8 MHz (study 003's SODAQ Mbili), simulated by simavr.
    Atmega1284p,
    /// SAMD21 Cortex-M0+ at 48 MHz (study 004's MKR WAN 1300); run on QEMU
    /// `microbit` (nRF51, Cortex-M0: the same ARMv6-M instruction set).
    CortexM0plus,
    /// Cortex-M3 on QEMU `mps2-an385`.
    CortexM3,
    /// Cortex-M4 on QEMU `mps2-an386`.
    CortexM4,
    /// RV32IMC, the ISA of the ESP32-C3's core, on QEMU `virt` with an
    /// ESP32-C3-like memory map (firmware/memory/esp32c3.x). Counted in
    /// exact instructions from `minstret`; Espressif publishes no
    /// per-instruction timing for the core, so there is no cycle estimate
    /// and time at the clock is a lower bound (CPI >= 1).
    Riscv32imc,
}

/// QEMU `-icount` shift on Cortex-M: each instruction advances virtual time by
/// 2^SHIFT ns. 10 makes one instruction ≥ 16 timer ticks, so counts are exact
/// after rounding. (riscv32imc reads `minstret` and runs at shift 0:
/// [`Target::icount_shift`].)
pub const ICOUNT_SHIFT: u32 = 10;

/// The stable Rust the device tables (and the host) are built with: the
/// channel of rust-toolchain.toml, which must say the same (a test holds
/// them together). Moving it moves counts: regenerate the tables.
pub const STABLE_TOOLCHAIN: &str = "1.95.0";

/// The nightly, by date, the AVR firmware is built with (scripts/setup
/// installs the toolchain named here, with rust-src). Its rustc says the
/// day before: nightly-2026-05-20 is `rustc 1.97.0-nightly (e50aa6fba 2026-05-19)`.
pub const AVR_TOOLCHAIN: &str = "nightly-2026-05-20";

impl Target {
    pub const ALL: [Target; 5] = [
        Target::Atmega1284p,
        Target::CortexM0plus,
        Target::CortexM3,
        Target::CortexM4,
        Target::Riscv32imc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Atmega1284p => "atmega1284p",
            Target::CortexM0plus => "cortex-m0plus",
            Target::CortexM3 => "cortex-m3",
            Target::CortexM4 => "cortex-m4",
            Target::Riscv32imc => "riscv32imc",
        }
    }

    pub fn rust_target(self) -> &'static str {
        match self {
            Target::Atmega1284p => "avr-none",
            Target::CortexM0plus => "thumbv6m-none-eabi",
            Target::CortexM3 => "thumbv7m-none-eabi",
            Target::CortexM4 => "thumbv7em-none-eabihf",
            Target::Riscv32imc => "riscv32imc-unknown-none-elf",
        }
    }

    /// The pinned Rust toolchain the firmware is built with: AVR needs
    /// nightly (`-Zbuild-std=core`), Cortex-M and RISC-V build on stable.
    pub fn toolchain(self) -> &'static str {
        match self {
            Target::Atmega1284p => AVR_TOOLCHAIN,
            _ => STABLE_TOOLCHAIN,
        }
    }

    pub fn is_avr(self) -> bool {
        self == Target::Atmega1284p
    }

    pub fn is_riscv(self) -> bool {
        self == Target::Riscv32imc
    }

    /// Whether data reads can take other times by their address: the
    /// ESP32-C3 reads its flash (constant tables) through a cache (ESP32-C3
    /// Technical Reference Manual, "Cache"). The AVR has none, and the
    /// Cortex-M parts these stand for (SAMD21, nRF52840) have no data cache,
    /// so a secret address on them costs no time (the constant-time check
    /// then warns).
    pub fn has_data_cache(self) -> bool {
        self == Target::Riscv32imc
    }

    /// Whether runs are priced in cycles from the executed instruction mix
    /// (`mcu`'s `cycles`): Cortex-M, whose timings ARM publishes. Not AVR
    /// (its cycles are exact) and not riscv32imc (no published timings for
    /// the ESP32-C3's core: instructions only).
    pub fn has_cycle_estimate(self) -> bool {
        matches!(
            self,
            Target::CortexM0plus | Target::CortexM3 | Target::CortexM4
        )
    }

    /// "cycles" (simavr) or "instructions" (QEMU).
    pub fn counter(self) -> &'static str {
        if self.is_avr() {
            "cycles"
        } else {
            "instructions"
        }
    }

    /// The clock used for `time_us`. For Cortex-M3/M4 (no study device) a
    /// typical part: STM32F103 at 72 MHz, STM32L4 at 80 MHz. On ARM the time
    /// assumes one instruction per cycle, a lower bound, unless estimated.
    /// riscv32imc: the ESP32-C3's 160 MHz; one instruction per cycle, a
    /// lower bound (the core's timings are not published).
    pub fn clock_hz(self) -> u64 {
        match self {
            Target::Atmega1284p => 8_000_000,
            Target::CortexM0plus => 48_000_000,
            Target::CortexM3 => 72_000_000,
            Target::CortexM4 => 80_000_000,
            Target::Riscv32imc => 160_000_000,
        }
    }

    /// Flash and RAM of the memory map the firmware is linked for and runs
    /// in (firmware/memory/*.x; avr-gcc's ATmega1284P map): (flash, RAM).
    /// The Cortex-M0+ runs on QEMU's nRF51 with its SRAM set to the SAMD21's
    /// 32 KiB ([`Target::qemu_board_options`]); a device with less (the
    /// STM32L072's 20 KiB) is judged by each build's measured need
    /// ([`Target::beyond_device_ram`]).
    /// The Cortex-M4 has the nRF52840's 256 KiB (its device profile's part).
    /// riscv32imc has the ESP32-C3's 4 MiB of flash and 400 KiB of SRAM
    /// (16 KiB of which the real part can give its cache).
    pub fn memory_bytes(self) -> (u64, u64) {
        match self {
            Target::Atmega1284p => (128 * 1024, 16 * 1024),
            Target::CortexM0plus => (256 * 1024, 32 * 1024),
            Target::CortexM3 => (4096 * 1024, 64 * 1024),
            Target::CortexM4 => (4096 * 1024, 256 * 1024),
            Target::Riscv32imc => (4096 * 1024, 400 * 1024),
        }
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

    pub fn qemu_machine(self) -> Option<&'static str> {
        match self {
            Target::Atmega1284p => None,
            Target::CortexM0plus => Some("microbit"),
            Target::CortexM3 => Some("mps2-an385"),
            Target::CortexM4 => Some("mps2-an386"),
            Target::Riscv32imc => Some("virt"),
        }
    }

    /// QEMU options that size the board as [`Target::memory_bytes`] says:
    /// the nRF51's SRAM is a property of the SoC (16 KiB by default).
    pub fn qemu_board_options(self) -> &'static [&'static str] {
        match self {
            Target::CortexM0plus => &["-global", "nrf51-soc.sram-size=32768"],
            _ => &[],
        }
    }

    /// The QEMU system emulator that runs the target (none for AVR).
    pub fn qemu_binary(self) -> Option<&'static str> {
        match self {
            Target::Atmega1284p => None,
            Target::Riscv32imc => Some("qemu-system-riscv32"),
            _ => Some("qemu-system-arm"),
        }
    }

    /// The Debian package with [`Target::qemu_binary`].
    pub fn qemu_package(self) -> Option<&'static str> {
        match self {
            Target::Atmega1284p => None,
            Target::Riscv32imc => Some("qemu-system-misc"),
            _ => Some("qemu-system-arm"),
        }
    }

    /// The `-icount shift` QEMU runs the target with. At 0, one instruction
    /// is one nanosecond of virtual time, and RISC-V's `minstret` (read from
    /// QEMU's instruction counter) counts exactly one per instruction.
    pub fn icount_shift(self) -> u32 {
        if self.is_riscv() { 0 } else { ICOUNT_SHIFT }
    }

    /// Nanoseconds per tick of the timer the firmware reads (Cortex-M only).
    pub fn timer_tick_ns(self) -> f64 {
        match self {
            Target::CortexM0plus => 62.5, // nRF51 TIMER0, 16 MHz
            _ => 40.0,                    // CMSDK APB timer, 25 MHz
        }
    }

    /// Converts a raw count from the firmware/harness into cycles or instructions.
    /// AVR's cycles and riscv32imc's `minstret` are counts already.
    pub fn to_counter(self, raw: u64) -> u64 {
        if self.is_avr() || self.is_riscv() {
            raw
        } else {
            let per_instruction = f64::from(1u32 << ICOUNT_SHIFT) / self.timer_tick_ns();
            (raw as f64 / per_instruction).round() as u64
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
            .find(|t| t.name() == s)
            .or(match s.as_str() {
                "avr" | "atmega1284" => Some(Target::Atmega1284p),
                "samd21" | "cortex-m0" | "cortex-m0+" | "m0" | "m0plus" => {
                    Some(Target::CortexM0plus)
                }
                "m3" => Some(Target::CortexM3),
                "m4" => Some(Target::CortexM4),
                "rv32imc" | "riscv32" | "riscv32imc-unknown-none-elf" => Some(Target::Riscv32imc),
                _ => None,
            });
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
