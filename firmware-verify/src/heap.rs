//! The heap (for rsa's big integers and lms-signature's allocations): a
//! first-fit heap that frees, as a bootloader's would, with its peak kept so
//! the table can say whether a verify fits the board's RAM.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

use embedded_alloc::LlffHeap;

/// Room for RSA-3072's numbers; the schemes that allocate
/// nothing keep a token heap, so their RAM goes to the stack.
#[cfg(any(feature = "rsa-2048", feature = "rsa-3072"))]
const HEAP_BYTES: usize = 16 * 1024;
#[cfg(not(any(feature = "rsa-2048", feature = "rsa-3072")))]
const HEAP_BYTES: usize = 256;

struct Peak {
    heap: LlffHeap,
    peak: UnsafeCell<usize>,
}

// SAFETY: one core, no interrupts use the heap.
unsafe impl Sync for Peak {}

#[global_allocator]
static HEAP: Peak = Peak {
    heap: LlffHeap::empty(),
    peak: UnsafeCell::new(0),
};

struct Memory(UnsafeCell<[MaybeUninit<u8>; HEAP_BYTES]>);
// SAFETY: handed to the heap once, at start.
unsafe impl Sync for Memory {}
static MEMORY: Memory = Memory(UnsafeCell::new([MaybeUninit::uninit(); HEAP_BYTES]));

unsafe impl GlobalAlloc for Peak {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { self.heap.alloc(layout) };
        // SAFETY: single-threaded.
        let peak = unsafe { &mut *self.peak.get() };
        *peak = (*peak).max(self.heap.used());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.heap.dealloc(ptr, layout) }
    }
}

pub fn init() {
    // SAFETY: called once, before any allocation; MEMORY is used by nothing else.
    unsafe { HEAP.heap.init(MEMORY.0.get() as usize, HEAP_BYTES) }
}

/// Starts a new peak from what is in use now.
pub fn reset_peak() {
    // SAFETY: single-threaded.
    unsafe { *HEAP.peak.get() = HEAP.heap.used() }
}

/// The most the heap held since [`reset_peak`].
pub fn peak() -> usize {
    // SAFETY: single-threaded.
    unsafe { *HEAP.peak.get() }
}
