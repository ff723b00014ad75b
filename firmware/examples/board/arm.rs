//! Cortex-M boards: SysTick, the board's UART and marker pin.
//!
//! | board             | core | UART                         | marker | clock              |
//! |-------------------|------|------------------------------|--------|--------------------|
//! | `nrf52840-dk`     | M4   | UART0 (legacy), TX P0.06     | P0.03  | 64 MHz, cache on   |
//! | `mkr-wan-1300`    | M0+  | SERCOM5 (Serial1), TX PB22   | PA20   | OSC8M, 8 MHz, 0 WS |
//! | `qemu-mps2-an386` | M4   | CMSDK UART0                  | none   | QEMU `-icount`     |
//! | `qemu-microbit`   | M0   | nRF51 UART0 (as the DK's)    | P0.03  | QEMU `-icount`     |

use core::arch::asm;
use core::ptr::{read_volatile, write_volatile};
use core::sync::atomic::{AtomicU32, Ordering, compiler_fence};

use ciphermeter_firmware::Probe;

use super::{BOARD, is};

const NRF_UART: bool = is(BOARD, "nrf52840-dk") || is(BOARD, "qemu-microbit");
const SAMD21: bool = is(BOARD, "mkr-wan-1300");
const CMSDK: bool = is(BOARD, "qemu-mps2-an386");
const _: () = assert!(
    NRF_UART || SAMD21 || CMSDK,
    "CIPHERMETER_BOARD: no such Cortex-M board"
);

fn reg(addr: usize) -> *mut u32 {
    addr as *mut u32
}

mod counter {
    //! SysTick counting down from 2^24 - 1 at the core clock, its wraps
    //! counted by its exception: a 32-bit cycle count on any Cortex-M.
    use super::*;

    const CSR: usize = 0xE000_E010;
    const RVR: usize = 0xE000_E014;
    const CVR: usize = 0xE000_E018;
    /// ICSR.PENDSTSET: a wrap whose exception has not run yet.
    const PENDING: u32 = 1 << 26;

    static WRAPS: AtomicU32 = AtomicU32::new(0);

    /// The two samples of a region, as [`sample`] stores them: the wraps
    /// counted, SysTick's value, the ICSR.
    static mut SAMPLES: [u32; 6] = [0; 6];

    #[cortex_m_rt::exception]
    fn SysTick() {
        // Only this handler writes: a load and a store (the M0 has no
        // atomic read-modify-write).
        WRAPS.store(WRAPS.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    pub fn start() {
        // SAFETY: SysTick's registers: reload 2^24 - 1, clear, then enable
        // with its exception, clocked by the core (CLKSOURCE = 1).
        unsafe {
            write_volatile(reg(RVR), 0x00FF_FFFF);
            write_volatile(reg(CVR), 0);
            write_volatile(reg(CSR), 0b111);
        }
    }

    /// Takes sample `K` (0 start, 1 stop) in one fixed sequence of Thumb-1
    /// instructions, its addresses in its own literal words: nothing the
    /// compiler schedules differently around different code enters the
    /// measured window, and no value is kept live across it. Interrupts are
    /// off for the three reads, so a wrap among them shows in the pending
    /// bit, which [`cycles`] resolves.
    #[inline(always)]
    pub fn sample<const K: usize>() {
        // SAFETY: reads WRAPS, SysTick's value and the ICSR with interrupts
        // masked, and stores them in SAMPLES[3K..3K+3].
        unsafe {
            asm!(
                "cpsid i",
                "ldr r0, 1f",
                "ldr r0, [r0]",
                "ldr r1, 2f",
                "ldr r1, [r1]",
                "ldr r2, 3f",
                "ldr r2, [r2]",
                "cpsie i",
                "ldr r3, 4f",
                "str r0, [r3]",
                "str r1, [r3, #4]",
                "str r2, [r3, #8]",
                "b 5f",
                ".balign 4",
                "1: .word {wraps}",
                "2: .word 0xE000E018",
                "3: .word 0xE000ED04",
                "4: .word {samples} + {at}",
                "5:",
                wraps = sym WRAPS,
                samples = sym SAMPLES,
                at = const K * 12,
                out("r0") _,
                out("r1") _,
                out("r2") _,
                out("r3") _,
                options(nostack),
            )
        }
    }

    /// Sample `k`'s count of cycles since start, modulo 2^32. A wrap pending
    /// at the reads came before the value read if the value is high (just
    /// reloaded), after it if low.
    fn cycles(k: usize) -> u32 {
        // SAFETY: written only by `sample`, read after it.
        let [wraps, value, icsr] =
            unsafe { read_volatile((&raw const SAMPLES).cast::<[u32; 3]>().add(k)) };
        let late = icsr & PENDING != 0 && value >= 0x0080_0000;
        let wraps = wraps.wrapping_add(late as u32);
        (wraps << 24).wrapping_add(0x00FF_FFFF - value)
    }

    /// The region's count: stop less start. Out of line, so that nothing it
    /// needs (the samples' address) is computed inside the measured window.
    #[inline(never)]
    pub fn elapsed() -> u32 {
        cycles(1).wrapping_sub(cycles(0))
    }
}

mod uart {
    //! The board's UART, transmit only, polled.
    use super::*;

    /// nRF51/nRF52 legacy UART0 (the nRF52840-DK's interface MCU bridges it to USB).
    const NRF: usize = 0x4000_2000;
    /// CMSDK APB UART0 (QEMU mps2).
    const CM: usize = 0x4000_4000;
    /// SAMD21 SERCOM5, Serial1 of the MKR boards.
    const SERCOM5: usize = 0x4200_1C00;

    pub fn start() {
        // SAFETY: each branch writes its own board's UART registers.
        unsafe {
            if NRF_UART {
                write_volatile(reg(NRF + 0x50C), 6); // PSELTXD: P0.06
                write_volatile(reg(NRF + 0x524), 0x01D7_E000); // 115,200 baud
                write_volatile(reg(NRF + 0x500), 4); // ENABLE
                write_volatile(reg(NRF + 0x008), 1); // TASKS_STARTTX
            } else if CMSDK {
                write_volatile(reg(CM + 0x10), 16); // BAUDDIV
                write_volatile(reg(CM + 0x8), 1); // CTRL: TX on
            } else if SAMD21 {
                samd21_serial1();
            }
        }
    }

    /// SERCOM5 as a 115,200-baud 8N1 USART on PB22 (TX, PAD[2]) and PB23
    /// (RX, PAD[3]), both peripheral function D, clocked by GCLK0 at 8 MHz.
    ///
    /// # Safety
    /// Writes the SAMD21's PM, GCLK, PORT and SERCOM5 registers.
    unsafe fn samd21_serial1() {
        unsafe {
            // PM APBCMASK: SERCOM5's bus clock.
            let apbc = reg(0x4000_0420);
            write_volatile(apbc, read_volatile(apbc) | 1 << 7);
            // GCLK CLKCTRL: SERCOM5_CORE (0x19) from generator 0, enabled.
            write_volatile(0x4000_0C02 as *mut u16, 0x19 | 1 << 14);
            // PORT group B: PINCFG22/23 PMUXEN, PMUX11 = D for both pins.
            let group_b = 0x4100_4480;
            write_volatile((group_b + 0x40 + 22) as *mut u8, 1);
            write_volatile((group_b + 0x40 + 23) as *mut u8, 1);
            write_volatile((group_b + 0x30 + 11) as *mut u8, 0x33);
            // CTRLA: internal clock, TX on PAD[2], RX on PAD[3], LSB first.
            write_volatile(reg(SERCOM5), 1 << 2 | 1 << 16 | 3 << 20 | 1 << 30);
            // CTRLB: TX and RX on; 8 bits.
            write_volatile(reg(SERCOM5 + 0x04), 1 << 16 | 1 << 17);
            while read_volatile((SERCOM5 + 0x1C) as *const u32) & 0b100 != 0 {}
            // BAUD = 65536 (1 - 16 × 115200 / 8 MHz).
            write_volatile((SERCOM5 + 0x0C) as *mut u16, 50_436);
            write_volatile(reg(SERCOM5), read_volatile(reg(SERCOM5)) | 1 << 1);
            while read_volatile((SERCOM5 + 0x1C) as *const u32) & 0b10 != 0 {}
        }
    }

    pub fn put(byte: u8) {
        // SAFETY: as in `start`, each board's data register once it is free.
        unsafe {
            if NRF_UART {
                write_volatile(reg(NRF + 0x51C), byte as u32);
                while read_volatile(reg(NRF + 0x11C)) == 0 {}
                write_volatile(reg(NRF + 0x11C), 0);
            } else if CMSDK {
                while read_volatile(reg(CM + 0x4)) & 1 != 0 {}
                write_volatile(reg(CM), byte as u32);
            } else if SAMD21 {
                while read_volatile((SERCOM5 + 0x18) as *const u8) & 1 == 0 {}
                write_volatile((SERCOM5 + 0x28) as *mut u16, byte as u16);
            }
        }
    }
}

mod marker {
    //! The pin a power meter's logic channel watches.
    use super::*;

    /// nRF GPIO P0 (nRF51 and nRF52 alike): OUTSET, OUTCLR, DIRSET; pin 3.
    const NRF_P0: usize = 0x5000_0000;
    /// SAMD21 PORT group A: DIRSET, OUTCLR, OUTSET; PA20 (the MKR's LED_BUILTIN).
    const SAMD_A: usize = 0x4100_4400;

    /// (OUTSET, OUTCLR, mask); none on the CMSDK board.
    const PIN: Option<(usize, usize, u32)> = if NRF_UART {
        Some((NRF_P0 + 0x508, NRF_P0 + 0x50C, 1 << 3))
    } else if SAMD21 {
        Some((SAMD_A + 0x18, SAMD_A + 0x14, 1 << 20))
    } else {
        None
    };

    pub fn start() {
        // SAFETY: the pin's direction register (DIRSET at these offsets).
        unsafe {
            if NRF_UART {
                write_volatile(reg(NRF_P0 + 0x518), 1 << 3);
            } else if SAMD21 {
                write_volatile(reg(SAMD_A + 0x08), 1 << 20);
            }
        }
    }

    #[inline(always)]
    pub fn set(high: bool) {
        if let Some((set, clear, mask)) = PIN {
            // SAFETY: the pin's set or clear register.
            unsafe { write_volatile(reg(if high { set } else { clear }), mask) };
        }
    }
}

/// The board's clock as its facts say (device-facts `board`).
fn clock() {
    // SAFETY: each branch writes its own board's clock registers.
    unsafe {
        if is(BOARD, "nrf52840-dk") {
            // NVMC ICACHECNF: the flash cache on, as shipped code runs; the
            // 64 MHz clock is the reset default.
            write_volatile(reg(0x4001_E540), 1);
        } else if SAMD21 {
            // SYSCTRL OSC8M: prescaler 1 (reset: 8), so 8 MHz with no flash
            // wait state (pqm4's choice: the core's own cycles).
            let osc8m = reg(0x4000_0820);
            write_volatile(osc8m, read_volatile(osc8m) & !(0b11 << 8));
        }
    }
}

unsafe extern "C" {
    /// End of .bss (cortex-m-rt): the lowest address the stack can reach.
    static __sheap: u32;
}

const PAINT: u32 = 0xC0DE_5AA5;

#[inline(always)]
fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads SP.
    unsafe { asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

// The stack measure of firmware/src/platform/arm.rs, which the cost builds
// compile; shared through the library at the next full regeneration.
#[inline(always)]
fn paint(sp: usize) {
    let mut p = (&raw const __sheap) as usize;
    while p + 8 < sp {
        // SAFETY: between the end of .bss and below the live stack: unused memory.
        unsafe { write_volatile(p as *mut u32, PAINT) };
        p += 4;
    }
}

#[inline(always)]
fn deepest(sp: usize) -> usize {
    let mut p = (&raw const __sheap) as usize;
    // SAFETY: as in `paint`.
    while p + 8 < sp && unsafe { read_volatile(p as *const u32) } == PAINT {
        p += 4;
    }
    if p + 8 >= sp { 0 } else { sp - p }
}

pub struct Platform;

impl Platform {
    /// Out of line, so nothing it computes is live across the measured region.
    #[inline(never)]
    fn report(&mut self, count: u32, sp: usize) {
        let room = sp.saturating_sub((&raw const __sheap) as usize);
        super::report(self, count, deepest(sp), room);
    }
}

impl Probe for Platform {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            uart::put(b);
        }
    }

    #[inline(always)]
    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let sp = stack_pointer();
        paint(sp);
        marker::set(true);
        compiler_fence(Ordering::SeqCst);
        counter::sample::<0>();
        let r = f();
        counter::sample::<1>();
        compiler_fence(Ordering::SeqCst);
        marker::set(false);
        self.report(counter::elapsed(), sp);
        r
    }

    fn ran_into_data(&self) -> bool {
        // SAFETY: the first word past .bss, painted before the region.
        unsafe { read_volatile(&raw const __sheap) != PAINT }
    }

    fn abandon(&mut self) {
        idle(false)
    }

    #[inline(always)]
    fn nop100() {
        // Spelled out, not `.rept`: the compiler sizes inline assembly by its
        // lines, and on Thumb-1 a literal pool placed past 100 unseen `nop`s
        // is out of a load's reach.
        // SAFETY: no-ops.
        unsafe {
            asm!(
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nnop",
                options(nomem, nostack, preserves_flags)
            )
        }
    }
}

/// After the run: a board has nowhere to return to. The host reads up to
/// the `E` line (or `PANIC`) and stops the simulator itself.
pub fn idle(_ok: bool) -> ! {
    loop {
        // SAFETY: waits for an interrupt; SysTick's wakes it, harmlessly.
        unsafe { asm!("wfi", options(nomem, nostack, preserves_flags)) }
    }
}

#[cortex_m_rt::entry]
fn main() -> ! {
    clock();
    uart::start();
    marker::start();
    counter::start();
    super::run(&mut Platform)
}
