//! The RISC-V targets (riscv32imc, riscv32imac) under QEMU `virt`: what
//! cortex-m-rt, semihosting.rs and the marks' nops give the Cortex-M build.
//! The start is the firmware's (firmware/src/platform/riscv.rs, whose file
//! brings the firmware's probe trait along, so it is repeated here): gp and
//! sp, a trap vector, .data copied and .bss zeroed by the target's whole
//! link script (firmware/memory, placed by build.rs). Text goes out through
//! RISC-V semihosting, the exit through QEMU's SiFive test device.
//!
//! No cycle model exists for these cores, so the host cannot price an
//! execution log: each mark reads `minstret` (exact under `-icount
//! shift=0`: a CSR read ends QEMU's translation block), and the probe prints
//! each region's count as `C <region> <instructions>`.

use core::arch::{asm, global_asm};
use core::ptr::write_volatile;
use core::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

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
    call ciphermeter_verify_main
5:
    j 5b

    .balign 4
_trap:
    j ciphermeter_verify_trap
    "#
);

unsafe extern "C" {
    /// The link script's end of .bss: where the free RAM (the stack's room) starts.
    pub static _ebss: u32;
    /// The link script's top of RAM, where `_start` puts the stack.
    pub static _stack_top: u32;
}

/// A semihosting call: `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7`,
/// uncompressed and within one 16-byte-aligned block, as QEMU requires.
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

pub fn write(bytes: &[u8]) {
    let mut line = [0u8; 97];
    for chunk in bytes.chunks(96) {
        line[..chunk.len()].copy_from_slice(chunk);
        line[chunk.len()] = 0;
        semihost(0x04, line.as_ptr() as usize); // SYS_WRITE0
    }
}

pub fn number(mut n: usize) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    write(&digits[i..]);
}

/// QEMU `virt`'s SiFive test device: 0x5555 ends the run with status 0,
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

pub fn fail(why: &str) -> ! {
    write(b"F ");
    write(why.as_bytes());
    write(b"\n");
    exit(1)
}

/// Any trap (an access fault, an illegal instruction) ends the run with a
/// reason instead of a hang until the host's time limit. A breakpoint may be
/// a semihosting call QEMU did not take (semihosting off): no text then.
#[unsafe(no_mangle)]
extern "C" fn ciphermeter_verify_trap() -> ! {
    let cause: usize;
    // SAFETY: reads mcause (the probe runs in machine mode).
    unsafe { asm!("csrr {}, mcause", out(reg) cause, options(nomem, nostack)) };
    if cause != 3 {
        write(b"F trap, mcause ");
        number(cause);
        write(b"\n");
    }
    exit(1)
}

/// The marks' `minstret` readings, in the order they ran (two a region:
/// the calibration's and the verify's).
static READINGS: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A region's boundary: `minstret` read and kept, the read's address in
/// `.ciphermeter.marks` as on Cortex-M (the constant-time check's way of
/// finding regions). The same instructions bound every region, so the
/// calibration region's count is theirs and the host subtracts it. Memory
/// may not move across it (no `nomem`).
#[inline(always)]
pub fn mark() {
    let v: u32;
    // SAFETY: reads the machine instruction-retired counter (machine mode).
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
    // Loads and stores only: riscv32imc has no atomic read-modify-write.
    let i = NEXT.load(Ordering::Relaxed);
    if let Some(r) = READINGS.get(i) {
        r.store(v, Ordering::Relaxed);
    }
    NEXT.store(i + 1, Ordering::Relaxed);
}

/// `C empty <n>` and `C verify <n>`: each region's instructions, marks
/// included (32 bits wrap after 2^32 instructions, past the host's time limit).
pub fn report_counts() {
    for (name, pair) in [b"empty ".as_slice(), b"verify "].iter().zip([0, 2]) {
        let count = READINGS[pair + 1]
            .load(Ordering::Relaxed)
            .wrapping_sub(READINGS[pair].load(Ordering::Relaxed));
        write(b"C ");
        write(name);
        number(count as usize);
        write(b"\n");
    }
}

/// The heap's critical section (embedded-alloc's): one hart, no interrupt
/// enabled, yet machine interrupts masked for its length as cortex-m's
/// single-core one masks them.
struct SingleHart;
critical_section::set_impl!(SingleHart);

// SAFETY: one hart; MIE cleared for the section and restored after it.
unsafe impl critical_section::Impl for SingleHart {
    unsafe fn acquire() -> critical_section::RawRestoreState {
        let mstatus: usize;
        // SAFETY: clears mstatus.MIE (bit 3), returning the old mstatus.
        unsafe { asm!("csrrci {}, mstatus, 8", out(reg) mstatus, options(nostack)) };
        mstatus & 8 != 0
    }

    unsafe fn release(was_enabled: critical_section::RawRestoreState) {
        if was_enabled {
            // SAFETY: sets MIE back as acquire found it.
            unsafe { asm!("csrsi mstatus, 8", options(nostack)) };
        }
    }
}
