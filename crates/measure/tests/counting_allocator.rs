//! The counting allocator installed as a test binary's global allocator, as
//! the CLI installs it. One test only: the counters are process-wide.

use ciphermeter_measure::alloc::{self, HeapProbe};
use ciphermeter_measure::{Config, CountingAllocator, Sampler};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn counts_allocations_bytes_and_peak() {
    assert!(alloc::is_installed());

    // Two live buffers of 1000 and 3000 bytes, then one freed: peak 4000.
    let probe = HeapProbe::start();
    let a = std::hint::black_box(vec![1u8; 1000]);
    let b = std::hint::black_box(vec![2u8; 3000]);
    drop(a);
    let c = std::hint::black_box(vec![3u8; 500]);
    let usage = probe.finish();
    assert_eq!(usage.allocations, 3);
    assert_eq!(usage.allocated_bytes, 4500);
    assert_eq!(usage.peak_bytes, 4000);
    drop((b, c));

    // Nothing allocated: all zero.
    let probe = HeapProbe::start();
    let x = std::hint::black_box(7u64) * 3;
    let usage = probe.finish();
    assert_eq!(
        (usage.allocations, usage.allocated_bytes, usage.peak_bytes),
        (0, 0, 0)
    );
    assert_eq!(x, 21);

    // The sampler reports one call's heap use.
    let mut sampler = Sampler::new(Config::quick(), false);
    let m = sampler.measure(|| vec![0u8; 256]).unwrap();
    let heap = m.heap.expect("allocator installed");
    assert_eq!(heap.allocations, 1);
    assert_eq!(heap.peak_bytes, 256);
    let m = sampler
        .measure(|| std::hint::black_box(5u32).pow(3))
        .unwrap();
    assert_eq!(m.heap.unwrap().allocations, 0);
}
