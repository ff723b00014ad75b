//! The stack's depth: the free stack painted with a pattern before a region,
//! and afterwards the lowest word no longer holding it.

use core::arch::asm;

/// A word unlikely to be a value the verify leaves on the stack.
const PAINT: u32 = 0xC5A3_5AC5;
/// Left unpainted below the painter's own frame.
const MARGIN: usize = 64;

#[cfg(target_arch = "arm")]
unsafe extern "C" {
    /// cortex-m-rt: the end of .bss/.uninit, where the free RAM starts.
    static __sheap: u32;
    /// cortex-m-rt: the stack's top (the end of RAM).
    static _stack_start: u32;
}

/// The RISC-V link script's names for the same two places.
#[cfg(target_arch = "riscv32")]
use crate::riscv::{_ebss as __sheap, _stack_top as _stack_start};

fn sp() -> usize {
    let sp: usize;
    // SAFETY: reads the stack pointer.
    #[cfg(target_arch = "arm")]
    unsafe {
        asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags))
    };
    // SAFETY: reads the stack pointer.
    #[cfg(target_arch = "riscv32")]
    unsafe {
        asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags))
    };
    sp
}

fn bottom() -> usize {
    (&raw const __sheap as usize).next_multiple_of(4)
}

/// Paints the free stack below the caller's frame.
#[inline(never)]
pub fn paint() {
    let end = sp() - MARGIN;
    let mut at = bottom();
    while at < end {
        // SAFETY: between the end of the statics and below the live stack: no one's memory.
        unsafe { core::ptr::write_volatile(at as *mut u32, PAINT) };
        at += 4;
    }
}

/// The stack's deepest extent since [`paint`], from its top, in bytes.
pub fn deepest() -> usize {
    let top = &raw const _stack_start as usize;
    let mut at = bottom();
    // SAFETY: reads RAM between the statics and the top of the stack.
    while at < top && unsafe { core::ptr::read_volatile(at as *const u32) } == PAINT {
        at += 4;
    }
    top - at
}

/// The free RAM the stack may take: from its top down to the statics.
pub fn room() -> usize {
    &raw const _stack_start as usize - bottom()
}
