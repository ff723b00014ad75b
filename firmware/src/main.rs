//! Firmware entry: the platform's probe around the shared benchmark library,
//! or, in an `uplink` build, the sealing device of `ciphermeter device-send`.
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

#[cfg(not(feature = "uplink"))]
use ciphermeter_firmware::{SLACK, run_all, sizes::MAX_SIZE};

/// The benchmark proper; the buffers live in this frame, so the stack
/// reported per operation counts only what the algorithm itself uses.
#[cfg(not(feature = "uplink"))]
fn run(probe: &mut platform::Platform) -> ! {
    let mut data = [0u8; MAX_SIZE + SLACK];
    let mut out = [0u8; MAX_SIZE + SLACK];
    let ok = run_all(probe, &mut data, &mut out);
    platform::exit(if ok { 0 } else { 1 })
}

#[cfg(feature = "uplink")]
use ciphermeter_firmware::uplink::{self, PROVISION_LEN};

/// The provisioning block: the magic, then zeros until the host writes the
/// key and settings into its copy of the ELF (crates/mcu `uplink`).
#[cfg(feature = "uplink")]
#[unsafe(no_mangle)]
#[used]
static CIPHERMETER_PROVISION: [u8; PROVISION_LEN] = {
    let mut block = [0u8; PROVISION_LEN];
    let mut i = 0;
    while i < uplink::MAGIC.len() {
        block[i] = uplink::MAGIC[i];
        i += 1;
    }
    block
};

/// Seals readings to the UART until the provisioned count is sent.
#[cfg(feature = "uplink")]
fn run(probe: &mut platform::Platform) -> ! {
    use ciphermeter_firmware::Probe;
    // Read through a volatile load: the compiler must not fold the
    // placeholder's zeros into the code.
    let block = unsafe { core::ptr::read_volatile(&raw const CIPHERMETER_PROVISION) };
    let mut scratch = [0u8; 2048];
    let stop = uplink::run(
        &mut platform::uplink::Board::start(),
        probe,
        &block,
        &mut scratch,
    );
    if stop != uplink::Stop::Done {
        probe.write(stop.message().as_bytes());
    }
    platform::exit(stop as u8)
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    platform::panic()
}
