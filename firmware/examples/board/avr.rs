//! The ATmega1284P board (`sodaq-mbili`, 8 MHz): Timer1 with its overflows
//! counted, USART0 at 38,400 baud (8 MHz divides it within 0.2 %; 115,200
//! would be 3.5 % off), and the marker on PB0.

use core::arch::asm;
use core::ptr::{read_volatile, write_volatile};

use ciphermeter_firmware::Probe;

use super::{BOARD, is};

const _: () = assert!(
    is(BOARD, "sodaq-mbili"),
    "CIPHERMETER_BOARD: no such AVR board"
);

// Data-space addresses.
const UCSR0A: *mut u8 = 0xC0 as *mut u8;
const UCSR0B: *mut u8 = 0xC1 as *mut u8;
const UCSR0C: *mut u8 = 0xC2 as *mut u8;
const UBRR0L: *mut u8 = 0xC4 as *mut u8;
const UDR0: *mut u8 = 0xC6 as *mut u8;
const TCCR1A: *mut u8 = 0x80 as *mut u8;
const TCCR1B: *mut u8 = 0x81 as *mut u8;
const TIMSK1: *mut u8 = 0x6F as *mut u8;

/// Timer1's overflows: the high half of the cycle count. Written by the
/// interrupt only; read with interrupts off.
static mut WRAPS: u16 = 0;

/// TIMER1_OVF (vector 15 of the ATmega1284P, avr-libc's numbering).
#[unsafe(no_mangle)]
pub unsafe extern "avr-interrupt" fn __vector_15() {
    // SAFETY: the only writer, and readers mask interrupts.
    unsafe { WRAPS = WRAPS.wrapping_add(1) };
}

mod counter {
    use super::*;

    pub fn start() {
        // SAFETY: Timer1 normal mode, clk/1, its overflow interrupt; then
        // interrupts on.
        unsafe {
            write_volatile(TCCR1A, 0);
            write_volatile(TCCR1B, 1);
            write_volatile(TIMSK1, 1);
            asm!("sei", options(nomem, nostack));
        }
    }

    /// The two samples of a region, as [`sample`] stores them: TCNT1 low
    /// and high, TIFR1, the overflows counted (low, high).
    static mut SAMPLES: [u8; 10] = [0; 10];

    /// Takes sample `K` (0 start, 1 stop) in one fixed sequence with
    /// interrupts off, stored to SAMPLES: no value is live across the
    /// measured window, and nothing the compiler schedules enters it.
    /// TCNT1's low byte is read first, which latches the high byte.
    #[inline(always)]
    pub fn sample<const K: usize>() {
        // SAFETY: reads Timer1, TIFR1 and WRAPS with interrupts off, stores
        // them in SAMPLES[5K..5K+5], and restores SREG.
        unsafe {
            asm!(
                "in {s}, 0x3F",
                "cli",
                "lds {a}, 0x84",
                "sts {samples}+{at}, {a}",
                "lds {a}, 0x85",
                "sts {samples}+{at}+1, {a}",
                "in {a}, 0x16",
                "sts {samples}+{at}+2, {a}",
                "lds {a}, {wraps}",
                "sts {samples}+{at}+3, {a}",
                "lds {a}, {wraps}+1",
                "sts {samples}+{at}+4, {a}",
                "out 0x3F, {s}",
                samples = sym SAMPLES,
                wraps = sym WRAPS,
                at = const K * 5,
                s = out(reg) _,
                a = out(reg) _,
                options(nostack),
            )
        }
    }

    /// Sample `k`'s cycles since start, modulo 2^32. TOV1 set with a low
    /// TCNT1 is an overflow whose interrupt had not run yet.
    fn cycles(k: usize) -> u32 {
        // SAFETY: written only by `sample`, read after it.
        let [lo, hi, tifr, wl, wh] =
            unsafe { read_volatile((&raw const SAMPLES).cast::<[u8; 5]>().add(k)) };
        let mut wraps = (wh as u16) << 8 | wl as u16;
        if tifr & 1 != 0 && hi < 0x80 {
            wraps = wraps.wrapping_add(1);
        }
        (wraps as u32) << 16 | (hi as u32) << 8 | lo as u32
    }

    /// The region's count: stop less start. Out of line, so that nothing it
    /// needs (the samples' address) is computed inside the measured window.
    #[inline(never)]
    pub fn elapsed() -> u32 {
        cycles(1).wrapping_sub(cycles(0))
    }
}

fn uart_start() {
    // SAFETY: USART0: double speed, UBRR 25 (38,461 baud at 8 MHz), 8N1, TX on.
    unsafe {
        write_volatile(UCSR0A, 1 << 1);
        write_volatile(UBRR0L, 25);
        write_volatile(UCSR0C, 0b110);
        write_volatile(UCSR0B, 1 << 3);
    }
}

fn uart_put(b: u8) {
    // SAFETY: UDRE0 (UCSR0A bit 5) says the data register is free.
    unsafe {
        while read_volatile(UCSR0A) & (1 << 5) == 0 {}
        write_volatile(UDR0, b);
    }
}

fn marker_start() {
    // SAFETY: DDRB bit 0: PB0 an output.
    unsafe { asm!("sbi 0x04, 0", options(nostack, preserves_flags)) }
}

unsafe extern "C" {
    /// End of .data/.bss from avr-libc's linker script: the stack may grow down to here.
    static __heap_start: u8;
}

const PAINT: u8 = 0xA5;

#[inline(always)]
fn stack_pointer() -> usize {
    let (lo, hi): (u8, u8);
    // SAFETY: reads SPL and SPH.
    unsafe {
        asm!("in {lo}, 0x3D", "in {hi}, 0x3E", lo = out(reg) lo, hi = out(reg) hi,
             options(nomem, nostack, preserves_flags))
    };
    (hi as usize) << 8 | lo as usize
}

/// Paints the free stack below the current frame, less a margin for the
/// calls made outside the region, as the harness paints it in simavr.
#[inline(always)]
fn paint(sp: usize) {
    let mut p = (&raw const __heap_start) as usize;
    while p + 16 < sp {
        // SAFETY: between the static data and below the live stack: unused memory.
        unsafe { write_volatile(p as *mut u8, PAINT) };
        p += 1;
    }
}

#[inline(always)]
fn deepest(sp: usize) -> usize {
    let mut p = (&raw const __heap_start) as usize;
    // SAFETY: as in `paint`.
    while p + 16 < sp && unsafe { read_volatile(p as *const u8) } == PAINT {
        p += 1;
    }
    if p + 16 >= sp { 0 } else { sp - p }
}

pub struct Platform;

impl Platform {
    /// Out of line, so nothing it computes is live across the measured region.
    #[inline(never)]
    fn report(&mut self, count: u32, sp: usize) {
        let room = sp.saturating_sub((&raw const __heap_start) as usize);
        super::report(self, count, deepest(sp), room);
    }
}

impl Probe for Platform {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            uart_put(b);
        }
    }

    #[inline(always)]
    fn region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        let sp = stack_pointer();
        paint(sp);
        // SAFETY: PORTB bit 0, the marker, high.
        unsafe { asm!("sbi 0x05, 0", options(nostack, preserves_flags)) };
        counter::sample::<0>();
        let r = f();
        counter::sample::<1>();
        // SAFETY: the marker low.
        unsafe { asm!("cbi 0x05, 0", options(nostack, preserves_flags)) };
        self.report(counter::elapsed(), sp);
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

/// After the run: GPIOR0 command 5 (exit with GPIOR1's status) ends a
/// simavr run (firmware/simavr-harness); on the board the two registers
/// have no effect. Then sleep with interrupts off.
pub fn idle(ok: bool) -> ! {
    let status: u8 = if ok { 0 } else { 1 };
    // SAFETY: GPIOR1 and GPIOR0 are general-purpose registers.
    unsafe {
        asm!("out 0x2A, {s}", "ldi {c}, 5", "out 0x1E, {c}", s = in(reg) status,
             c = out(reg_upper) _, options(nostack, preserves_flags))
    };
    loop {
        // SAFETY: sleeping with interrupts off stops the core.
        unsafe { asm!("cli", "sleep") }
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn main() -> ! {
    uart_start();
    marker_start();
    counter::start();
    super::run(&mut Platform)
}
