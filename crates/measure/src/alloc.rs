//! A counting global allocator: how many allocations an operation makes, how
//! many bytes, and the peak of live heap bytes while it runs.
//!
//! The binary installs it (`#[global_allocator] static A: CountingAllocator =
//! CountingAllocator;` in its main.rs); a library cannot. Without it every
//! counter stays at zero and `is_installed` says so, and the heap columns of a
//! result are null rather than a false zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// The system allocator with counters. Relaxed atomics: a few nanoseconds per
/// allocation, paid only by code that allocates.
pub struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static PEAK_BYTES: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    ALLOCATED_BYTES.fetch_add(size as u64, Relaxed);
    let live = LIVE_BYTES.fetch_add(size, Relaxed) + size;
    PEAK_BYTES.fetch_max(live, Relaxed);
}

fn shrank(size: usize) {
    LIVE_BYTES.fetch_sub(size, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; the counters never affect what is returned.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            // A reallocation counts as one allocation of the new size.
            shrank(layout.size());
            grew(new_size);
        }
        new
    }
}

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapSnapshot {
    pub allocations: u64,
    pub allocated_bytes: u64,
    pub live_bytes: usize,
}

/// What happened on the heap between `HeapProbe::start` and `finish`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeapUsage {
    pub allocations: u64,
    pub allocated_bytes: u64,
    /// Peak of live bytes above the level at the start.
    pub peak_bytes: u64,
}

pub fn snapshot() -> HeapSnapshot {
    HeapSnapshot {
        allocations: ALLOCATIONS.load(Relaxed),
        allocated_bytes: ALLOCATED_BYTES.load(Relaxed),
        live_bytes: LIVE_BYTES.load(Relaxed),
    }
}

/// True when the binary installed `CountingAllocator` as its global allocator.
pub fn is_installed() -> bool {
    let before = ALLOCATIONS.load(Relaxed);
    let probe = std::hint::black_box(Box::new(0u64));
    drop(probe);
    ALLOCATIONS.load(Relaxed) != before
}

/// Watches the heap over a stretch of code. The peak is process-wide, so the
/// probe is only exact while one thread allocates, as in the sampling loop.
pub struct HeapProbe {
    start: HeapSnapshot,
}

impl HeapProbe {
    pub fn start() -> HeapProbe {
        let start = snapshot();
        PEAK_BYTES.store(start.live_bytes, Relaxed);
        HeapProbe { start }
    }

    pub fn finish(self) -> HeapUsage {
        let end = snapshot();
        let peak = PEAK_BYTES.load(Relaxed);
        HeapUsage {
            allocations: end.allocations - self.start.allocations,
            allocated_bytes: end.allocated_bytes - self.start.allocated_bytes,
            peak_bytes: peak.saturating_sub(self.start.live_bytes) as u64,
        }
    }
}
