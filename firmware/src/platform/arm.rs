//! Cortex-M under QEMU with `-icount shift=N`: every instruction advances the
//! virtual clock by 2^N ns, so a timer read tells how many instructions ran.
//! The firmware reports raw timer ticks (`C <ticks> <stack>`); the host turns
//! them into instructions with the board's tick period and the shift.

use core::arch::asm;
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{Ordering, compiler_fence};

use ciphermeter_firmware::Probe;
use ciphermeter_firmware::probe::ProbeExt;

pub struct Platform;

#[cfg(feature = "uplink")]
#[path = "arm_uplink.rs"]
pub mod uplink;

/// ARM semihosting call (BKPT 0xAB in Thumb state).
fn semihost(op: u32, arg: usize) -> usize {
    let r: usize;
    // SAFETY: QEMU runs with -semihosting; the call reads `arg` as documented.
    unsafe { asm!("bkpt 0xAB", inout("r0") op as usize => r, in("r1") arg, options(nostack)) };
    r
}

/// The cycle source: a 32-bit free-running timer of the QEMU board. Each
/// read is one fixed assembly sequence, so the instructions between two
/// samples that are not the measured code never vary (the calibration region
/// measures them and the host subtracts them).
///
/// Each sampling instruction is labelled and its address recorded in the
/// non-allocated ELF section `.ciphermeter.marks` (no flash, no extra
/// instruction): the host finds the measured regions in QEMU's execution
/// log by these addresses, alternately start and stop (crates/mcu/src/cycles).
#[cfg(not(board_microbit))]
mod timer {
    //! mps2-an385 / an386: CMSDK APB TIMER0 at 0x4000_0000, clocked at 25 MHz;
    //! mps2-an505: the SSE-200's TIMER0 at its Secure alias 0x5000_0000 (the
    //! core runs Secure), at 20 MHz. Both count down.
    use core::arch::asm;
    #[cfg(not(board_sse200))]
    const BASE: usize = 0x4000_0000;
    #[cfg(board_sse200)]
    const BASE: usize = 0x5000_0000;
    pub fn start() {
        // SAFETY: CMSDK timer registers (CTRL, VALUE, RELOAD) of the board.
        unsafe {
            core::ptr::write_volatile((BASE + 0x8) as *mut u32, u32::MAX);
            core::ptr::write_volatile((BASE + 0x4) as *mut u32, u32::MAX);
            core::ptr::write_volatile(BASE as *mut u32, 1);
        }
    }
    #[inline(always)]
    pub fn now() -> u32 {
        let v: u32;
        // SAFETY: reads TIMER0 VALUE (BASE + 4); the load is the sample.
        unsafe {
            asm!(
                "movw {a}, #{lo}",
                "movt {a}, #{hi}",
                "7:",
                "ldr {v}, [{a}]",
                ".pushsection .ciphermeter.marks,\"\",%progbits",
                ".word 7b",
                ".popsection",
                a = out(reg) _,
                v = out(reg) v,
                lo = const (BASE + 4) & 0xFFFF,
                hi = const BASE >> 16,
                options(nostack, preserves_flags),
            )
        };
        // Counting down: negate so ticks grow.
        0u32.wrapping_sub(v)
    }
}

#[cfg(board_microbit)]
mod timer {
    //! microbit (nRF51): TIMER0 at 0x4000_8000, 16 MHz, 32-bit, read by capture.
    use core::arch::asm;
    const BASE: usize = 0x4000_8000;
    pub fn start() {
        // SAFETY: nRF51 TIMER0 registers: MODE, BITMODE, PRESCALER, TASKS_START.
        unsafe {
            core::ptr::write_volatile((BASE + 0x504) as *mut u32, 0);
            core::ptr::write_volatile((BASE + 0x508) as *mut u32, 3);
            core::ptr::write_volatile((BASE + 0x510) as *mut u32, 0);
            core::ptr::write_volatile(BASE as *mut u32, 1);
        }
    }
    #[inline(always)]
    pub fn now() -> u32 {
        let v: u32;
        // SAFETY: TASKS_CAPTURE[0] (0x4000_8040) latches the counter (the
        // sample) into CC[0] (0x4000_8540). Thumb-1 has no movw, so the
        // addresses are built with shifts; low registers only.
        unsafe {
            asm!(
                "movs r1, #1",
                "lsls r1, r1, #15",
                "adds r1, #0x40",
                "movs r2, #0x40",
                "lsls r2, r2, #24",
                "adds r1, r1, r2",
                "movs r2, #1",
                "7:",
                "str r2, [r1]",
                ".pushsection .ciphermeter.marks,\"\",%progbits",
                ".word 7b",
                ".popsection",
                "movs r2, #5",
                "lsls r2, r2, #8",
                "ldr r0, [r1, r2]",
                out("r0") v,
                out("r1") _,
                out("r2") _,
                options(nostack),
            )
        };
        v
    }
}

unsafe extern "C" {
    /// End of .bss (cortex-m-rt): the lowest address the stack can reach.
    static __sheap: u32;
    /// The initial stack pointer: the top of RAM (cortex-m-rt).
    static _stack_start: u32;
}

/// Stack a bench function must leave below its frame for the calls it makes
/// outside measured regions (printing, painting).
const FRAME_MARGIN: usize = 256;

/// Reports a frame that reached `short` bytes too far, then ends the run.
/// Entered with the stack reset to the top of RAM: the old one is unusable.
extern "C" fn frame_too_big(short: usize) -> ! {
    Platform.text("N ");
    Platform.number(short as u32);
    Platform.text("\n");
    exit(1)
}

const PAINT: u32 = 0xC0DE_5AA5;

#[inline(always)]
fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads SP.
    unsafe { asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

/// Paints the free stack below the current frame (minus a margin for this
/// function's own calls) so the deepest overwritten word shows the peak.
#[inline(always)]
fn paint(sp: usize) {
    let mut p = (&raw const __sheap) as usize;
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
    let mut p = (&raw const __sheap) as usize;
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
            self.number(sp.saturating_sub((&raw const __sheap) as usize) as u32);
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
        let t0 = timer::now();
        compiler_fence(Ordering::SeqCst);
        let r = f();
        compiler_fence(Ordering::SeqCst);
        let t1 = timer::now();
        compiler_fence(Ordering::SeqCst);
        self.report(t1.wrapping_sub(t0), sp);
        r
    }

    /// `paint` starts at the end of .bss: a region that overwrote that word
    /// used all the stack there was.
    fn ran_into_data(&self) -> bool {
        // SAFETY: the first word past .bss, painted before the region.
        unsafe { read_volatile(&raw const __sheap) != PAINT }
    }

    fn abandon(&mut self) {
        exit(1)
    }

    #[inline(always)]
    fn check_frame(&mut self) {
        let sp = stack_pointer();
        let floor = (&raw const __sheap) as usize + FRAME_MARGIN;
        if sp < floor {
            let top = (&raw const _stack_start) as usize;
            let report = frame_too_big as extern "C" fn(usize) -> ! as usize;
            // SAFETY: never returns; the new stack is the whole RAM above the
            // static data, which nothing of the abandoned run uses any more.
            unsafe {
                asm!(
                    "mov sp, {top}",
                    "bx {report}",
                    top = in(reg) top,
                    report = in(reg) report,
                    in("r0") floor - sp,
                    options(noreturn)
                )
            }
        }
    }

    const HAS_CALIBRATION_LOOP: bool = true;

    /// Ten turns of a 7-instruction loop, in 16-bit Thumb-1 encodings that
    /// ARMv6-M, ARMv7-M and ARMv8-M share, so one mix serves every core:
    ///
    /// ```text
    ///     push {r0-r3}        1 + N, N = 4
    ///     sub  sp, #8         ALU
    ///     movs r0, #10        ALU
    /// 2:  ldr  r1, [sp]       load (after a branch or movs: not pipelined)
    ///     ldr  r3, [sp, #4]   load right after a load (M3/M4: pipelined)
    ///     adds r1, #1         ALU
    ///     str  r1, [sp]       store
    ///     eors r2, r1         ALU
    ///     subs r0, #1         ALU
    ///     bne  2b             taken 9 times, not taken once
    ///     add  sp, #8         ALU
    ///     pop  {r0-r3}        1 + N, N = 4
    /// ```
    ///
    /// 75 instructions, 150 bytes run from 32 bytes of code (2 flash lines),
    /// 9 pipeline refills (the taken branches), no read from flash. With
    /// data/cycle-timings/cortex-m.toml:
    ///
    /// - M0+ (TRM Table 3-1): push 5, sub 1, movs 1, ten turns of
    ///   (2 + 2 + 1 + 2 + 1 + 1) = 90, nine taken branches × 2 = 18, one
    ///   not taken 1, add 1, pop 5: 122, no range. SAMD21 at 48 MHz with
    ///   1 wait state and a 64-byte cache the code fits: estimate 122; high
    ///   (no cache, no prefetch: 19 8-byte lines and 2 × 9 refills wait 1
    ///   each) 122 + 37 = 159.
    /// - M3 and M4 (the same rows for these classes): low is push 5, sub 1,
    ///   movs 1, ten turns of (2 + 1 + 1 + 1 + 1 + 1) = 70 (second load
    ///   pipelined, store 1), nine taken × (1 + P=1) = 18, not taken 1,
    ///   add 1, pop 5: 102. Core high: ten turns of (2 + 2 + 1 + 2 + 1 + 1)
    ///   = 90 and nine taken × (1 + P=3) = 36, so 140. STM32F103 at 72 MHz,
    ///   2 wait states, no cache: estimate 102 + 9 × 2 = 120 (its 8-byte
    ///   lines stream 150 bytes in 19 × 3 = 57 cycles, inside the core's
    ///   102), high 140 + 2 × 37 = 214. STM32L4 at 80 MHz, 4 wait states,
    ///   a 1 KiB instruction cache the code fits: estimate 102; high
    ///   140 + 4 × 37 = 288.
    /// - M33 (jnk0le's measurements): low is push 4 (N, not 1 + N), sub 1,
    ///   movs 1, ten turns of (1 + 1 + 1 + 1 + 1 + 1) = 60, nine taken
    ///   branches 9, the not-taken one dual-issued 0, add 1, pop 4: 80. Core
    ///   high: ten turns of (2 + 2 + 1 + 1 + 1 + 1) = 80 (load-use), branches
    ///   18 + 1, sub, movs, add 1 each, push and pop 4 each: 110. STM32U585 at
    ///   160 MHz, 4 wait states, an 8 KiB cache the code fits: estimate 80;
    ///   high (10 16-byte lines and 2 × 9 refills) 110 + 4 × 28 = 222.
    #[inline(always)]
    fn calibration_loop() {
        // The loop saves the registers it uses itself, so the compiler spills
        // nothing into the region. The unused clobbers keep it from
        // scheduling its own constant loads (into high registers) between
        // the loop and the stop sample, which would add instructions that
        // are not in the hand count.
        // SAFETY: works on 8 bytes it reserves below SP and gives them back.
        unsafe {
            asm!(
                "push {{r0, r1, r2, r3}}",
                "sub sp, #8",
                "movs r0, #10",
                "2:",
                "ldr r1, [sp]",
                "ldr r3, [sp, #4]",
                "adds r1, #1",
                "str r1, [sp]",
                "eors r2, r1",
                "subs r0, #1",
                "bne 2b",
                "add sp, #8",
                "pop {{r0, r1, r2, r3}}",
                out("r8") _,
                out("r10") _,
                out("r12") _,
            )
        }
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

pub fn exit(code: u8) -> ! {
    // SYS_EXIT with ADP_Stopped_ApplicationExit (status 0) or RunTimeErrorUnknown (status 1).
    let reason = if code == 0 { 0x20026 } else { 0x20023 };
    semihost(0x18, reason);
    loop {}
}

pub fn panic() -> ! {
    Platform.write(b"PANIC\n");
    exit(101)
}

#[cortex_m_rt::entry]
fn main() -> ! {
    timer::start();
    crate::run(&mut Platform)
}
