//! The four device targets and how each is built, run and counted.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::McuError;

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
}

/// QEMU `-icount` shift: each instruction advances virtual time by 2^SHIFT ns.
/// 10 makes one instruction ≥ 16 timer ticks, so counts are exact after rounding.
pub const ICOUNT_SHIFT: u32 = 10;

impl Target {
    pub const ALL: [Target; 4] = [
        Target::Atmega1284p,
        Target::CortexM0plus,
        Target::CortexM3,
        Target::CortexM4,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Atmega1284p => "atmega1284p",
            Target::CortexM0plus => "cortex-m0plus",
            Target::CortexM3 => "cortex-m3",
            Target::CortexM4 => "cortex-m4",
        }
    }

    pub fn rust_target(self) -> &'static str {
        match self {
            Target::Atmega1284p => "avr-none",
            Target::CortexM0plus => "thumbv6m-none-eabi",
            Target::CortexM3 => "thumbv7m-none-eabi",
            Target::CortexM4 => "thumbv7em-none-eabihf",
        }
    }

    /// AVR needs nightly (`-Zbuild-std=core`); Cortex-M builds on stable.
    pub fn toolchain(self) -> &'static str {
        match self {
            Target::Atmega1284p => "nightly",
            _ => "stable",
        }
    }

    pub fn is_avr(self) -> bool {
        self == Target::Atmega1284p
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
    /// assumes one instruction per cycle, a lower bound.
    pub fn clock_hz(self) -> u64 {
        match self {
            Target::Atmega1284p => 8_000_000,
            Target::CortexM0plus => 48_000_000,
            Target::CortexM3 => 72_000_000,
            Target::CortexM4 => 80_000_000,
        }
    }

    /// Flash and RAM of the memory map the firmware is linked for and runs
    /// in (firmware/memory/*.x; avr-gcc's ATmega1284P map): (flash, RAM).
    /// The Cortex-M0+ runs on QEMU's nRF51 with 16 KiB of RAM, half the
    /// SAMD21's 32 KiB, so what fits there fits the MKR WAN 1300.
    pub fn memory_bytes(self) -> (u64, u64) {
        match self {
            Target::Atmega1284p => (128 * 1024, 16 * 1024),
            Target::CortexM0plus => (256 * 1024, 16 * 1024),
            Target::CortexM3 | Target::CortexM4 => (4096 * 1024, 64 * 1024),
        }
    }

    pub fn qemu_machine(self) -> Option<&'static str> {
        match self {
            Target::Atmega1284p => None,
            Target::CortexM0plus => Some("microbit"),
            Target::CortexM3 => Some("mps2-an385"),
            Target::CortexM4 => Some("mps2-an386"),
        }
    }

    /// Nanoseconds per tick of the timer the firmware reads (ARM only).
    pub fn timer_tick_ns(self) -> f64 {
        match self {
            Target::CortexM0plus => 62.5, // nRF51 TIMER0, 16 MHz
            _ => 40.0,                    // CMSDK APB timer, 25 MHz
        }
    }

    /// Converts a raw count from the firmware/harness into cycles or instructions.
    pub fn to_counter(self, raw: u64) -> u64 {
        if self.is_avr() {
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
    type Err = McuError;

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
                _ => None,
            });
        found.ok_or_else(|| {
            let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
            McuError::Usage(format!(
                "unknown target '{s}'; choose one of: {}",
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
        assert!(matches!("z80".parse::<Target>(), Err(McuError::Usage(_))));
    }

    #[test]
    fn qemu_ticks_convert_to_whole_instructions() {
        // 100 instructions at shift 10: 2560 ticks of 40 ns, 1638.4 of 62.5 ns.
        assert_eq!(Target::CortexM3.to_counter(2560), 100);
        assert_eq!(Target::CortexM0plus.to_counter(1638), 100);
        assert_eq!(Target::CortexM0plus.to_counter(1640), 100);
        assert_eq!(Target::Atmega1284p.to_counter(1234), 1234);
    }
}
