//! The uplink device on Cortex-M under QEMU (`ciphermeter device-send`): the
//! board's UART carries the frames (QEMU connects it to the host's pipe), and
//! the two counter slots are files the device writes through semihosting,
//! standing for its flash (QEMU's boards keep no flash across runs).

use ciphermeter_firmware::uplink::Device;
use core::ptr::{read_volatile, write_volatile};
use seal::{SLOT_LEN, Slots};

use super::semihost;

pub struct Board;

#[cfg(board_microbit)]
mod uart {
    //! nRF51 UART0 at 0x4000_2000: ENABLE, TASKS_STARTTX, TXD, EVENTS_TXDRDY.
    use super::*;
    const BASE: usize = 0x4000_2000;
    pub fn start() {
        // SAFETY: the nRF51 UART's registers.
        unsafe {
            write_volatile((BASE + 0x500) as *mut u32, 4);
            write_volatile((BASE + 0x008) as *mut u32, 1);
        }
    }
    pub fn put(byte: u8) {
        // SAFETY: as above; TXDRDY is set once the byte has left.
        unsafe {
            write_volatile((BASE + 0x51C) as *mut u32, byte as u32);
            while read_volatile((BASE + 0x11C) as *const u32) == 0 {}
            write_volatile((BASE + 0x11C) as *mut u32, 0);
        }
    }
}

#[cfg(not(board_microbit))]
mod uart {
    //! CMSDK APB UART0 at 0x4000_4000 (mps2): DATA, STATE (bit 0 TX full), CTRL, BAUDDIV.
    use super::*;
    const BASE: usize = 0x4000_4000;
    pub fn start() {
        // SAFETY: the CMSDK UART's registers.
        unsafe {
            write_volatile((BASE + 0x10) as *mut u32, 16);
            write_volatile((BASE + 0x8) as *mut u32, 1);
        }
    }
    pub fn put(byte: u8) {
        // SAFETY: as above.
        unsafe {
            while read_volatile((BASE + 0x4) as *const u32) & 1 != 0 {}
            write_volatile(BASE as *mut u32, byte as u32);
        }
    }
}

const SLOT_FILES: [&[u8]; 2] = [b"counter.0\0", b"counter.1\0"];
// Semihosting operations and SYS_OPEN modes (ARM's semihosting specification).
const SYS_OPEN: u32 = 0x01;
const SYS_CLOSE: u32 = 0x02;
const SYS_WRITE: u32 = 0x05;
const SYS_READ: u32 = 0x06;
const MODE_RB: usize = 1;
const MODE_WB: usize = 5;

fn open(slot: usize, mode: usize) -> Option<usize> {
    let name = SLOT_FILES[slot];
    let args = [name.as_ptr() as usize, mode, name.len() - 1];
    let handle = semihost(SYS_OPEN, args.as_ptr() as usize);
    (handle as isize >= 0).then_some(handle)
}

fn close(handle: usize) {
    let args = [handle];
    semihost(SYS_CLOSE, args.as_ptr() as usize);
}

impl Board {
    pub fn start() -> Board {
        uart::start();
        Board
    }
}

impl Slots for Board {
    fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]> {
        let handle = open(slot, MODE_RB)?;
        let mut buf = [0u8; SLOT_LEN];
        let args = [handle, buf.as_mut_ptr() as usize, SLOT_LEN];
        let left = semihost(SYS_READ, args.as_ptr() as usize);
        close(handle);
        (left == 0).then_some(buf)
    }

    fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool {
        let Some(handle) = open(slot, MODE_WB) else {
            return false;
        };
        let args = [handle, bytes.as_ptr() as usize, SLOT_LEN];
        let left = semihost(SYS_WRITE, args.as_ptr() as usize);
        close(handle);
        left == 0
    }
}

impl Device for Board {
    fn uart_write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            uart::put(b);
        }
    }
}
