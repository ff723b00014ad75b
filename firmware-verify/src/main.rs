//! A firmware image signature's verify on a Cortex-M or RISC-V device, under
//! QEMU: one scheme a build (its feature), its standard's vector (vectors/,
//! written into flash by build.rs), verified from the bytes a bootloader holds
//! (key, message, signature) inside a region. On Cortex-M the host finds the
//! region in QEMU's execution log (crates/mcu `verify_probe`, its instruction
//! mix priced by crates/mcu `cycles`, as the SCHC probe's are); on RISC-V,
//! which has no cycle model, the probe counts the region's instructions
//! itself (riscv.rs).
//!
//! Output (semihosting): `V <scheme>`, `K verify pass|fail`, `H verify <heap bytes>` (the
//! peak the verify allocated), `S verify <stack bytes>` (the deepest the stack
//! went below its top during the verify), on RISC-V `C empty <n>` and `C verify
//! <n>` (each region's instructions), then exit 0; any failure says `F <why>`
//! and exits 1.

#![no_std]
#![no_main]

extern crate alloc;

mod heap;
#[cfg(target_arch = "riscv32")]
mod riscv;
#[cfg(target_arch = "arm")]
mod semihosting;
mod stack;
mod verify;

#[cfg(target_arch = "arm")]
use core::arch::asm;
use core::hint::black_box;

// Linked for its single-core critical section, which the heap takes.
#[cfg(target_arch = "arm")]
use cortex_m as _;

/// Text, exit and failure: ARM semihosting, or the RISC-V board's (riscv.rs).
#[cfg(target_arch = "riscv32")]
use riscv as semihosting;
#[cfg(target_arch = "riscv32")]
use riscv::mark;
use semihosting::{exit, number, write};

/// The scheme's vector: `SCHEME`, its byte constants (build.rs).
mod vector {
    include!(concat!(env!("OUT_DIR"), "/vector.rs"));
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    write(b"F panic");
    if let Some(at) = info.location() {
        write(b" at ");
        write(at.file().as_bytes());
        write(b":");
        number(at.line() as usize);
    }
    write(b"\n");
    exit(1)
}

/// A fault (a stack run past the bottom of RAM, an access nowhere) ends the
/// run with a reason instead of a hang until the host's time limit.
#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
unsafe fn HardFault(_frame: &cortex_m_rt::ExceptionFrame) -> ! {
    semihosting::fail("hard fault (the stack past the board's RAM?)")
}

/// A region's boundary: a `nop` whose address the non-allocated section
/// `.ciphermeter.marks` records, as the firmware's timer samples are; the host
/// counts what runs between a start and the next stop. Memory may not move
/// across it (no `nomem`).
#[cfg(target_arch = "arm")]
#[inline(always)]
fn mark() {
    // SAFETY: a nop, and a word in a section no code reads.
    unsafe {
        asm!(
            "7:",
            "nop",
            ".pushsection .ciphermeter.marks,\"\",%progbits",
            ".word 7b",
            ".popsection",
            options(nostack, preserves_flags),
        )
    };
}

/// Runs `f` between two marks, the stack painted below and the heap's peak
/// reset before it; the verdict, the heap's peak and the stack's depth.
#[inline(never)]
fn region(f: impl FnOnce() -> bool) -> (bool, usize, usize) {
    heap::reset_peak();
    stack::paint();
    mark();
    let ok = f();
    mark();
    (ok, heap::peak(), stack::deepest())
}

fn line(kind: &[u8], value: &[u8]) {
    write(kind);
    write(b" verify ");
    write(value);
    write(b"\n");
}

/// RISC-V's `_start` (riscv.rs) calls this.
#[cfg(target_arch = "riscv32")]
#[unsafe(no_mangle)]
extern "C" fn ciphermeter_verify_main() -> ! {
    main()
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
fn main() -> ! {
    heap::init();
    write(b"V ");
    write(vector::SCHEME.as_bytes());
    write(b"\n");
    // Calibration: a region with nothing in it (the marks' own instructions).
    region(|| black_box(true));
    let (ok, heap, stack) = region(|| black_box(verify::verify()));
    // The stack ate every painted word: it ran into the statics, so the
    // verdict and the heap are not to be trusted.
    if stack >= stack::room() {
        semihosting::fail("the stack ran past the free RAM into the statics");
    }
    line(b"K", if ok { b"pass" } else { b"fail" });
    write(b"H verify ");
    number(heap);
    write(b"\nS verify ");
    number(stack);
    write(b"\n");
    #[cfg(target_arch = "riscv32")]
    riscv::report_counts();
    // A verify that accepts anything is no verify: the vector's signature
    // with one bit flipped must fail (outside the measured region).
    if !verify::rejects_a_flipped_bit() {
        semihosting::fail("a signature with a flipped bit verifies");
    }
    exit(if ok { 0 } else { 1 })
}
