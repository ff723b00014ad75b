//! The uplink device on the ATmega1284P under simavr (`ciphermeter
//! device-send`): USART0 carries the frames (the harness's `--uart` copies its
//! output to the host), and the two counter slots are EEPROM cells 0 and 16,
//! which the harness's `--eeprom FILE` keeps across runs.

use core::arch::asm;
use core::ptr::{read_volatile, write_volatile};

use ciphermeter_firmware::uplink::Device;
use seal::{SLOT_LEN, Slots};

// Data-space addresses of USART0 and the EEPROM registers.
const UCSR0A: *mut u8 = 0xC0 as *mut u8;
const UCSR0B: *mut u8 = 0xC1 as *mut u8;
const UCSR0C: *mut u8 = 0xC2 as *mut u8;
const UBRR0L: *mut u8 = 0xC4 as *mut u8;
const UDR0: *mut u8 = 0xC6 as *mut u8;
const EECR: *mut u8 = 0x3F as *mut u8;
const EEDR: *mut u8 = 0x40 as *mut u8;
const EEARL: *mut u8 = 0x41 as *mut u8;
const EEARH: *mut u8 = 0x42 as *mut u8;

pub struct Board;

impl Board {
    pub fn start() -> Board {
        // SAFETY: USART0 registers: double speed, 111,111 baud at 8 MHz, TX on, 8N1.
        unsafe {
            write_volatile(UCSR0A, 1 << 1);
            write_volatile(UBRR0L, 8);
            write_volatile(UCSR0C, 0b110);
            write_volatile(UCSR0B, 1 << 3);
        }
        Board
    }
}

fn eeprom_ready() {
    // SAFETY: reads EECR; EEPE (bit 1) clears when the last write is done.
    while unsafe { read_volatile(EECR) } & 0b10 != 0 {}
}

fn eeprom_address(at: u16) {
    // SAFETY: EEPROM address registers.
    unsafe {
        write_volatile(EEARH, (at >> 8) as u8);
        write_volatile(EEARL, at as u8);
    }
}

impl Slots for Board {
    fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]> {
        let mut out = [0u8; SLOT_LEN];
        for (i, b) in out.iter_mut().enumerate() {
            eeprom_ready();
            eeprom_address((slot * SLOT_LEN + i) as u16);
            // SAFETY: EERE (EECR bit 0) loads EEDR from the addressed cell.
            unsafe {
                asm!("sbi 0x1F, 0", options(nostack, preserves_flags));
                *b = read_volatile(EEDR);
            }
        }
        Some(out)
    }

    fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool {
        for (i, &b) in bytes.iter().enumerate() {
            eeprom_ready();
            eeprom_address((slot * SLOT_LEN + i) as u16);
            // SAFETY: EEMPE then EEPE within four cycles starts the write.
            unsafe {
                write_volatile(EEDR, b);
                asm!(
                    "sbi 0x1F, 2",
                    "sbi 0x1F, 1",
                    options(nostack, preserves_flags)
                );
            }
        }
        eeprom_ready();
        // The harness saves the EEPROM to its file here (command 6): the cells
        // a real part keeps without power.
        super::sync_eeprom();
        true
    }
}

impl Device for Board {
    fn uart_write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            // SAFETY: UDRE0 (UCSR0A bit 5) says the data register is free.
            unsafe {
                while read_volatile(UCSR0A) & (1 << 5) == 0 {}
                write_volatile(UDR0, b);
            }
        }
    }
}
