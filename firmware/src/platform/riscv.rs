//! riscv32imc (standing in for the ESP32-C3's core) under QEMU `virt` with
//! `-icount shift=0`: QEMU reads the `minstret` CSR from its instruction
//! counter (at shift 0 one instruction is one nanosecond of virtual time),
//! and a CSR read ends its translation block, so the count is exact at the
//! read. The firmware reports raw `minstret` differences (`C <count>
//! <stack>`), already in instructions; the host subtracts the empty region.
//!
//! Output goes through RISC-V semihosting (SYS_WRITE0), the exit through
//! QEMU's SiFive test device, so QEMU's exit status is the firmware's.
//! The memory map (memory/esp32c3.x) mimics the ESP32-C3: 4 MiB of flash for
//! code, 400 KiB of SRAM for data and stack.
//!
//! QEMU has no cycle model and Espressif publishes no per-instruction timing
//! for the ESP32-C3's core: these are instructions, not cycles
//! (crates/device-facts/src/target.rs).

use core::arch::{asm, global_asm};
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{Ordering, compiler_fence};

use ciphermeter_firmware::Probe;
use ciphermeter_firmware::probe::ProbeExt;

pub struct Platform;

// Reset: QEMU's reset vector jumps to the start of RAM, 0x8000_0000, where the
// link script puts `.text.start`. Set gp and sp, a trap vector, copy .data from
// its load address, zero .bss, then run the benchmark.
global_asm!(
    r#"
    .section .text.start, "ax"
    .global _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, _stack_top
    la t0, _trap
    csrw mtvec, t0
    la t0, _sidata
    la t1, _sdata
    la t2, _edata
1:
    bgeu t1, t2, 2f
    lw t3, 0(t0)
    sw t3, 0(t1)
    addi t0, t0, 4
    addi t1, t1, 4
    j 1b
2:
    la t1, _sbss
    la t2, _ebss
3:
    bgeu t1, t2, 4f
    sw zero, 0(t1)
    addi t1, t1, 4
    j 3b
4:
    call ciphermeter_main
5:
    j 5b

    .balign 4
_trap:
    j ciphermeter_trap
    "#
);

/// RISC-V semihosting call: the `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7`
/// sequence, uncompressed and within one page (aligned to 16 bytes), with the
/// operation in a0 and its argument in a1. RV32 follows ARM's 32-bit conventions.
fn semihost(op: u32, arg: usize) -> usize {
    let r: usize;
    // SAFETY: QEMU runs with -semihosting; the call reads `arg` as documented.
    unsafe {
        asm!(
            ".balign 16",
            ".option push",
            ".option norvc",
            "slli x0, x0, 0x1f",
            "ebreak",
            "srai x0, x0, 7",
            ".option pop",
            inout("a0") op as usize => r,
            in("a1") arg,
            options(nostack),
        )
    };
    r
}

/// The counter: `minstret`, read by one `csrr`. The instructions between two
/// reads that are not the measured code never vary (the calibration region
/// measures them and the host subtracts them). 32 bits wrap after 2^32
/// instructions, far beyond any region here (the run time limit comes first).
///
/// Each read's address is recorded in the non-allocated section
/// `.ciphermeter.marks` (no flash, no instruction), as on Cortex-M: the
/// constant-time check finds the regions in QEMU's execution log by them.
#[inline(always)]
fn now() -> u32 {
    let v: u32;
    // SAFETY: reads the machine instruction-retired counter (we run in M-mode).
    unsafe {
        asm!(
            "7:",
            "csrr {v}, minstret",
            ".pushsection .ciphermeter.marks,\"\",@progbits",
            ".word 7b",
            ".popsection",
            v = out(reg) v,
            options(nostack, preserves_flags),
        )
    };
    v
}

unsafe extern "C" {
    /// End of .bss (memory/esp32c3.x): the lowest address the stack can reach.
    static _ebss: u32;
}

const PAINT: u32 = 0xC0DE_5AA5;

#[inline(always)]
fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads SP.
    unsafe { asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

/// Paints the free stack below the current frame (minus a margin for this
/// function's own calls) so the deepest overwritten word shows the peak.
#[inline(always)]
fn paint(sp: usize) {
    let mut p = (&raw const _ebss) as usize;
    // The constant-time check reads no stack depth: it paints only the word
    // `ran_into_data` reads (all the free RAM per region was most of its log).
    let sp = if cfg!(feature = "ct") {
        sp.min(p + 12)
    } else {
        sp
    };
    while p + 8 < sp {
        // SAFETY: between the end of .bss and below the live stack: unused memory.
        unsafe { write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

#[inline(always)]
fn deepest(sp: usize) -> usize {
    if cfg!(feature = "ct") {
        return 0;
    }
    let mut p = (&raw const _ebss) as usize;
    // SAFETY: as in `paint`.
    while p + 8 < sp && unsafe { read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    // Nothing overwritten down to the margin: the region used no stack of its own.
    if p + 8 >= sp { 0 } else { sp - p }
}

impl Platform {
    /// What the host reads of a region: `C <count> <stack> <room>`, the room
    /// being the stack that was free below the region's frame (as the AVR
    /// harness reports it; the host turns it into the build's whole RAM
    /// need). Out of line, so that nothing it computes is kept live across
    /// the measured region.
    #[inline(never)]
    fn report(&mut self, count: u32, sp: usize) {
        let stack = deepest(sp);
        self.text("C ");
        self.number(count);
        self.text(" ");
        self.number(stack as u32);
        if !cfg!(feature = "ct") {
            self.text(" ");
            self.number(sp.saturating_sub((&raw const _ebss) as usize) as u32);
        }
        self.text("\n");
    }
}

impl Probe for Platform {
    fn write(&mut self, bytes: &[u8]) {
        let mut line = [0u8; 97];
        for chunk in bytes.chunks(96) {
            line[..chunk.len()].copy_from_slice(chunk);
            line[chunk.len()] = 0;
            semihost(0x04, line.as_ptr() as usize); // SYS_WRITE0
        }
    }

    #[inline(always)]
    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let sp = stack_pointer();
        paint(sp);
        compiler_fence(Ordering::SeqCst);
        let t0 = now();
        compiler_fence(Ordering::SeqCst);
        let r = f();
        compiler_fence(Ordering::SeqCst);
        let t1 = now();
        compiler_fence(Ordering::SeqCst);
        self.report(t1.wrapping_sub(t0), sp);
        r
    }

    /// `paint` starts at the end of .bss: a region that overwrote that word
    /// used all the stack there was.
    fn ran_into_data(&self) -> bool {
        // SAFETY: the first word past .bss, painted before the region.
        unsafe { read_volatile(&raw const _ebss) != PAINT }
    }

    fn abandon(&mut self) {
        exit(1)
    }

    #[inline(always)]
    fn nop100() {
        // SAFETY: no-ops (each may assemble to the 16-bit c.nop: still one instruction).
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

/// QEMU `virt`'s SiFive test device: 0x5555 ends the simulation with status 0,
/// `(code << 16) | 0x3333` with status `code`.
const TEST_FINISHER: usize = 0x0010_0000;

pub fn exit(code: u8) -> ! {
    let word = if code == 0 {
        0x5555
    } else {
        (u32::from(code) << 16) | 0x3333
    };
    // SAFETY: the test device's only register; QEMU exits on the write.
    unsafe { write_volatile(TEST_FINISHER as *mut u32, word) };
    loop {
        core::hint::spin_loop();
    }
}

pub fn panic() -> ! {
    Platform.write(b"PANIC\n");
    exit(101)
}

#[unsafe(no_mangle)]
extern "C" fn ciphermeter_main() -> ! {
    crate::run(&mut Platform)
}

/// Any trap (an illegal instruction, an access fault, a breakpoint) ends the
/// run as a failure. A breakpoint may be a semihosting call QEMU did not
/// take (semihosting off), so it exits without printing.
#[unsafe(no_mangle)]
extern "C" fn ciphermeter_trap() -> ! {
    let cause: usize;
    // SAFETY: reads mcause.
    unsafe { asm!("csrr {}, mcause", out(reg) cause, options(nomem, nostack)) };
    if cause != 3 {
        Platform.write(b"PANIC\n");
    }
    exit(102)
}
