//! The boards the measuring firmware runs on (`ciphermeter mcu --board`):
//! three boards of the studies' devices, and two QEMU machines that run the
//! same board code (its SysTick, its UART) without hardware, for the tests.
//! The firmware side is `firmware/examples/board/`; docs/boards/ has a page
//! per board.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::{FactsError, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Board {
    /// Nordic nRF52840-DK (Cortex-M4F, 64 MHz): the Cortex-M4 rows' device.
    Nrf52840Dk,
    /// Arduino MKR WAN 1300 (SAMD21G18A, Cortex-M0+), study 004's board,
    /// clocked at 8 MHz so that flash has no wait state.
    #[serde(rename = "mkr-wan-1300")]
    MkrWan1300,
    /// SODAQ Mbili (ATmega1284P, 8 MHz), study 003's board.
    SodaqMbili,
    /// QEMU `mps2-an386` (Cortex-M4): the board code with the CMSDK UART.
    QemuMps2An386,
    /// QEMU `microbit` (nRF51, Cortex-M0): the board code with the nRF UART
    /// and GPIO the nRF52840-DK has too.
    QemuMicrobit,
}

/// How a board's counter reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counts {
    /// The core's clock cycles (SysTick at the core clock; Timer1 at clk/1).
    Cycles,
    /// QEMU's virtual clock under `-icount`: the target's timer ticks, which
    /// [`Target::to_counter`] turns into instructions.
    QemuTicks,
}

impl Board {
    pub const ALL: [Board; 5] = [
        Board::Nrf52840Dk,
        Board::MkrWan1300,
        Board::SodaqMbili,
        Board::QemuMps2An386,
        Board::QemuMicrobit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Board::Nrf52840Dk => "nrf52840-dk",
            Board::MkrWan1300 => "mkr-wan-1300",
            Board::SodaqMbili => "sodaq-mbili",
            Board::QemuMps2An386 => "qemu-mps2-an386",
            Board::QemuMicrobit => "qemu-microbit",
        }
    }

    /// The simulated target whose instruction set, build and cost table the
    /// board shares.
    pub fn target(self) -> Target {
        match self {
            Board::Nrf52840Dk | Board::QemuMps2An386 => Target::CortexM4,
            Board::MkrWan1300 | Board::QemuMicrobit => Target::CortexM0plus,
            Board::SodaqMbili => Target::Atmega1284p,
        }
    }

    pub fn counts(self) -> Counts {
        match self {
            Board::QemuMps2An386 | Board::QemuMicrobit => Counts::QemuTicks,
            _ => Counts::Cycles,
        }
    }

    /// A raw count from the board, in the board's counter.
    pub fn to_count(self, raw: u64) -> u64 {
        match self.counts() {
            Counts::Cycles => raw,
            Counts::QemuTicks => self.target().to_counter(raw),
        }
    }

    /// "cycles", or "instructions" under QEMU.
    pub fn counter(self) -> &'static str {
        match self.counts() {
            Counts::Cycles => "cycles",
            Counts::QemuTicks => self.target().counter(),
        }
    }

    /// The clock the board firmware runs at (its `clock()`), which the
    /// measured cycles are timed by; a QEMU machine's is its target's.
    pub fn clock_hz(self) -> u64 {
        match self {
            Board::Nrf52840Dk => 64_000_000,
            Board::MkrWan1300 | Board::SodaqMbili => 8_000_000,
            Board::QemuMps2An386 | Board::QemuMicrobit => self.target().clock_hz(),
        }
    }

    /// The part's own flash, which a build must fit (the QEMU maps the
    /// firmware links for can be larger).
    pub fn flash_bytes(self) -> u64 {
        match self {
            Board::Nrf52840Dk => 1024 * 1024,
            Board::MkrWan1300 => 256 * 1024,
            Board::SodaqMbili => 128 * 1024,
            Board::QemuMps2An386 | Board::QemuMicrobit => self.target().memory_bytes().0,
        }
    }

    /// The QEMU machine that runs this board's build, if it is one.
    pub fn qemu_machine(self) -> Option<&'static str> {
        match self {
            Board::QemuMps2An386 | Board::QemuMicrobit => self.target().qemu_machine(),
            _ => None,
        }
    }

    /// Whether a simulator runs this board's own build: the QEMU machines,
    /// and simavr for the Mbili (the ATmega1284P's Timer1 and USART0).
    pub fn simulated(self) -> bool {
        self.qemu_machine().is_some() || self == Board::SodaqMbili
    }

    /// The UART's rate, which `mcu --serial` sets on a real port; none for
    /// QEMU's serial0, which has no rate.
    pub fn baud(self) -> Option<u32> {
        match self {
            Board::Nrf52840Dk | Board::MkrWan1300 => Some(115_200),
            Board::SodaqMbili => Some(38_400),
            Board::QemuMps2An386 | Board::QemuMicrobit => None,
        }
    }

    /// The serial line the board writes: baud rate and pins.
    pub fn serial(self) -> &'static str {
        match self {
            Board::Nrf52840Dk => "115200 8N1 on UART0, TX P0.06 (the DK's USB virtual COM port)",
            Board::MkrWan1300 => "115200 8N1 on Serial1 (SERCOM5), TX pin 14 (PB22)",
            Board::SodaqMbili => "38400 8N1 on USART0, TX PD1 (the board's FTDI header)",
            Board::QemuMps2An386 => "QEMU's serial0 (CMSDK UART0)",
            Board::QemuMicrobit => "QEMU's serial0 (nRF51 UART0)",
        }
    }

    /// The pin that is high during each measured operation.
    pub fn marker(self) -> Option<&'static str> {
        match self {
            Board::Nrf52840Dk | Board::QemuMicrobit => Some("P0.03"),
            Board::MkrWan1300 => Some("PA20 (pin 6, LED_BUILTIN)"),
            Board::SodaqMbili => Some("PB0"),
            Board::QemuMps2An386 => None,
        }
    }

    /// How a user puts the ELF on the board (docs/boards/).
    pub fn flash_command(self) -> &'static str {
        match self {
            Board::Nrf52840Dk => {
                "probe-rs download --chip nRF52840_xxAA ELF && probe-rs reset --chip nRF52840_xxAA"
            }
            Board::MkrWan1300 => {
                "probe-rs download --chip ATSAMD21G18A ELF (over SWD; it replaces the Arduino bootloader)"
            }
            Board::SodaqMbili => {
                "avr-objcopy -O ihex ELF fw.hex && avrdude -p m1284p -c arduino -P PORT -b 57600 -U flash:w:fw.hex:i"
            }
            Board::QemuMps2An386 => {
                "qemu-system-arm -M mps2-an386 -icount shift=10 -serial pty -kernel ELF"
            }
            Board::QemuMicrobit => {
                "qemu-system-arm -M microbit -global nrf51-soc.sram-size=32768 -icount shift=10 -serial pty -kernel ELF"
            }
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Board {
    type Err = FactsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let names = Board::ALL.map(Board::name);
        Board::ALL
            .into_iter()
            .find(|b| b.name() == s.to_ascii_lowercase())
            .ok_or_else(|| {
                FactsError::Usage(format!(
                    "unknown board '{s}'{}; choose one of: {}",
                    ::names::did_you_mean(s, names.iter().copied()),
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_unknown_board_is_a_usage_error() {
        for b in Board::ALL {
            assert_eq!(b.name().parse::<Board>().unwrap(), b);
            // Stored tables name it as the CLI does.
            assert_eq!(serde_json::to_string(&b).unwrap(), format!("\"{b}\""));
        }
        let e = "nrf52840dk".parse::<Board>().unwrap_err().to_string();
        assert!(e.contains("nrf52840-dk"), "{e}");
    }

    #[test]
    fn real_boards_count_cycles_and_qemu_machines_their_targets_ticks() {
        assert_eq!(Board::Nrf52840Dk.to_count(1234), 1234);
        assert_eq!(Board::Nrf52840Dk.counter(), "cycles");
        // 100 instructions at -icount shift=10 on the CMSDK clock: 2560 ticks.
        assert_eq!(Board::QemuMps2An386.to_count(2560), 100);
        assert_eq!(Board::QemuMps2An386.counter(), "instructions");
        assert!(Board::SodaqMbili.simulated() && !Board::MkrWan1300.simulated());
    }
}
