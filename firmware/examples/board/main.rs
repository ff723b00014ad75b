//! The measuring firmware for a board on the desk (`ciphermeter mcu --board`):
//! the library's benchmark and known answers, as the simulated builds run
//! them, with the board's own counter, serial port and a marker pin.
//!
//! - Counter: SysTick with a count of its wraps on every Cortex-M (the M0+
//!   has no DWT cycle counter, and QEMU models SysTick, so the code a board
//!   runs is the code the tests run); Timer1 with its overflows on the AVR.
//! - Output: the result lines of `firmware/src/lib.rs` on the board's UART,
//!   after a banner `B <board>`.
//! - Marker: a GPIO high around each measured operation, for a power meter's
//!   logic channel (`ciphermeter energy import --marker`).
//!
//! The board is `CIPHERMETER_BOARD` at build time (crates/mcu `compile::board`
//! sets it); the boards' facts are device-facts' `board`. An example, not a
//! second binary of the package: the cost builds never compile it, so it
//! cannot move a count of theirs (nor the firmware revision).

#![no_std]
#![no_main]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch, abi_avr_interrupt))]

#[cfg(target_arch = "arm")]
#[path = "arm.rs"]
mod platform;

#[cfg(target_arch = "avr")]
#[path = "avr.rs"]
mod platform;

use ciphermeter_firmware::probe::ProbeExt;
use ciphermeter_firmware::{SLACK, run_all, sizes::MAX_SIZE};

/// The board this build is for.
const BOARD: &str = env!("CIPHERMETER_BOARD");

/// `a == b` at compile time: the board's peripherals are chosen by constant
/// conditions the optimiser folds, so a build carries one board's drivers.
const fn is(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The benchmark proper, after the banner; the buffers live in this frame,
/// as in the simulated builds, so a region's stack is the algorithm's own.
fn run(probe: &mut platform::Platform) -> ! {
    probe.text("B ");
    probe.text(BOARD);
    probe.text("\n");
    let mut data = [0u8; MAX_SIZE + SLACK];
    let mut out = [0u8; MAX_SIZE + SLACK];
    let ok = run_all(probe, &mut data, &mut out);
    platform::idle(ok)
}

/// `C <count> <stack> <room>`: a region's line, as the simulated builds
/// write it (the room is the stack that was free below the region's frame).
fn report(probe: &mut impl ProbeExt, count: u32, stack: usize, room: usize) {
    probe.text("C ");
    probe.number(count);
    probe.text(" ");
    probe.number(stack as u32);
    probe.text(" ");
    probe.number(room as u32);
    probe.text("\n");
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    platform::Platform.text("PANIC\n");
    platform::idle(false)
}
