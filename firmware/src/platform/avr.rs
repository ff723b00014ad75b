//! ATmega1284P under the simavr harness (firmware/simavr-harness/harness.c).
//!
//! Protocol: a command written to GPIOR0 (I/O 0x1E), arguments in GPIOR1 and
//! GPIOR2 (I/O 0x2A, 0x2B). 1 = start, 2 = stop, 3 = put the byte in GPIOR1,
//! 4 = stack floor address GPIOR2:GPIOR1, 5 = exit with status GPIOR1,
//! 6 = save the EEPROM (uplink builds).
//! The harness counts `avr->cycle` between start and stop and paints the
//! free SRAM at start to find the peak stack of the region.

use core::arch::asm;

use ciphermeter_firmware::Probe;

pub struct Platform;

#[cfg(feature = "uplink")]
#[path = "avr_uplink.rs"]
pub mod uplink;

/// Command 6: the harness writes the EEPROM to its `--eeprom` file.
#[cfg(feature = "uplink")]
fn sync_eeprom() {
    command(6);
}

#[inline(always)]
fn command(c: u8) {
    // SAFETY: GPIOR0 is a general-purpose register with no hardware effect.
    unsafe { asm!("out 0x1E, {c}", c = in(reg) c, options(nostack, preserves_flags)) }
}

#[inline(always)]
fn args(a: u8, b: u8) {
    // SAFETY: GPIOR1 and GPIOR2 are general-purpose registers.
    unsafe {
        asm!("out 0x2A, {a}", "out 0x2B, {b}", a = in(reg) a, b = in(reg) b, options(nostack, preserves_flags))
    }
}

fn put(byte: u8) {
    args(byte, 0);
    command(3);
}

impl Probe for Platform {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            put(b);
        }
    }

    #[inline(always)]
    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        // Start and stop are one `ldi` + one `out` each, fixed in assembly so
        // the marker cost (calibrated by the harness test) never changes. The
        // asm blocks are compiler barriers: memory work cannot cross them.
        // SAFETY: writes to GPIOR0 only.
        unsafe {
            asm!("ldi {t}, 1", "out 0x1E, {t}", t = out(reg_upper) _, options(nostack, preserves_flags))
        };
        let r = f();
        // SAFETY: as above.
        unsafe {
            asm!("ldi {t}, 2", "out 0x1E, {t}", t = out(reg_upper) _, options(nostack, preserves_flags))
        };
        r
    }

    #[inline(always)]
    fn nop100() {
        // SAFETY: no-ops.
        unsafe {
            asm!(
                ".rept 100",
                "nop",
                ".endr",
                options(nomem, nostack, preserves_flags)
            )
        }
    }
}

unsafe extern "C" {
    /// End of .data/.bss from avr-libc's linker script: the stack may grow down to here.
    static __heap_start: u8;
}

pub fn exit(code: u8) -> ! {
    args(code, 0);
    command(5);
    loop {
        // SAFETY: sleeping with interrupts off ends the simulation.
        unsafe { asm!("cli", "sleep") }
    }
}

pub fn panic() -> ! {
    Platform.write(b"PANIC\n");
    exit(101)
}

#[unsafe(no_mangle)]
pub extern "C" fn main() -> ! {
    let floor = (&raw const __heap_start) as usize as u16;
    args(floor as u8, (floor >> 8) as u8);
    command(4);
    crate::run(&mut Platform)
}
