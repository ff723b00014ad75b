//! Firmware entry: the platform's probe around the shared benchmark library.
//! AVR talks to the simavr harness through GPIOR registers; Cortex-M reads a
//! hardware timer under QEMU `-icount` and prints through semihosting;
//! riscv32imc reads `minstret` under QEMU `-icount` and prints through
//! semihosting too.

#![no_std]
#![no_main]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch))]

#[cfg(target_arch = "avr")]
#[path = "platform/avr.rs"]
mod platform;

#[cfg(target_arch = "arm")]
#[path = "platform/arm.rs"]
mod platform;

#[cfg(target_arch = "riscv32")]
#[path = "platform/riscv.rs"]
mod platform;

use ciphermeter_firmware::{SLACK, run_all, sizes::MAX_SIZE};

/// The benchmark proper; the buffers live in this frame, so the stack
/// reported per operation counts only what the algorithm itself uses.
fn bench(probe: &mut platform::Platform) -> ! {
    let mut data = [0u8; MAX_SIZE + SLACK];
    let mut out = [0u8; MAX_SIZE + SLACK];
    let ok = run_all(probe, &mut data, &mut out);
    platform::exit(if ok { 0 } else { 1 })
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    platform::panic()
}
