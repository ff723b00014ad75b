//! Clocks: the monotonic clock always, and a cycle counter where the machine
//! offers one. Which one was used travels with every result, because a TSC
//! "cycle" (a constant reference rate) is not a core cycle (perf_event).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Resolution of `Instant`: the smallest non-zero step seen between two reads.
pub fn monotonic_resolution() -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..2000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min(b - a);
    }
    best
}

/// What a cycle count means. Serialised as the `cycles_source` of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CycleSource {
    /// Core clock cycles in user space, from perf_event (PERF_COUNT_HW_CPU_CYCLES).
    PerfCycles,
    /// x86-64 time-stamp counter: reference cycles at a constant rate, not
    /// the core clock when turbo or power saving changes it.
    TscReference,
    /// aarch64 generic timer (cntvct_el0) ticks, at the rate in cntfrq_el0.
    CntvctTicks,
}

/// Cycle and instruction counts of one sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub cycles: Option<u64>,
    pub instructions: Option<u64>,
}

/// Reads whichever counter is available; `read` is called right outside the
/// timed loop of each sample.
pub enum CycleCounter {
    #[cfg(perf_event)]
    Perf(crate::perf::PerfCounters),
    #[cfg(target_arch = "x86_64")]
    Tsc,
    #[cfg(target_arch = "aarch64")]
    Cntvct,
    None,
}

impl CycleCounter {
    /// The best counter this process may use: perf_event when the kernel
    /// allows it, else the TSC or cntvct, else none.
    pub fn best() -> CycleCounter {
        #[cfg(perf_event)]
        if let Ok(perf) = crate::perf::PerfCounters::open() {
            return CycleCounter::Perf(perf);
        }
        CycleCounter::raw()
    }

    /// The TSC or cntvct without trying perf_event.
    pub fn raw() -> CycleCounter {
        #[cfg(target_arch = "x86_64")]
        return CycleCounter::Tsc;
        #[cfg(target_arch = "aarch64")]
        return CycleCounter::Cntvct;
        #[allow(unreachable_code)]
        CycleCounter::None
    }

    pub fn source(&self) -> Option<CycleSource> {
        match self {
            #[cfg(perf_event)]
            CycleCounter::Perf(_) => Some(CycleSource::PerfCycles),
            #[cfg(target_arch = "x86_64")]
            CycleCounter::Tsc => Some(CycleSource::TscReference),
            #[cfg(target_arch = "aarch64")]
            CycleCounter::Cntvct => Some(CycleSource::CntvctTicks),
            CycleCounter::None => None,
        }
    }

    #[inline(always)]
    pub fn read(&mut self) -> Counts {
        match self {
            #[cfg(perf_event)]
            CycleCounter::Perf(p) => p.read(),
            #[cfg(target_arch = "x86_64")]
            CycleCounter::Tsc => Counts {
                cycles: Some(rdtsc()),
                instructions: None,
            },
            #[cfg(target_arch = "aarch64")]
            CycleCounter::Cntvct => Counts {
                cycles: Some(cntvct()),
                instructions: None,
            },
            CycleCounter::None => Counts::default(),
        }
    }
}

/// The time-stamp counter, fenced so earlier instructions finish first.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn rdtsc() -> u64 {
    // SAFETY: lfence and rdtsc exist on every x86-64 CPU and touch no memory.
    unsafe {
        core::arch::x86_64::_mm_lfence();
        core::arch::x86_64::_rdtsc()
    }
}

/// The aarch64 virtual counter, after an isb so it is not read early.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub fn cntvct() -> u64 {
    let ticks: u64;
    // SAFETY: cntvct_el0 is readable from EL0 on Linux; no memory is touched.
    unsafe {
        core::arch::asm!("isb", "mrs {t}, cntvct_el0", t = out(reg) ticks, options(nomem, nostack))
    };
    ticks
}

/// The generic timer's frequency as the firmware programmed it.
#[cfg(target_arch = "aarch64")]
pub fn cntfrq() -> u64 {
    let hz: u64;
    // SAFETY: cntfrq_el0 is readable from EL0; no memory is touched.
    unsafe { core::arch::asm!("mrs {h}, cntfrq_el0", h = out(reg) hz, options(nomem, nostack)) };
    hz
}

/// Rate of the raw counter (TSC or cntvct) in Hz, measured against the
/// monotonic clock over `window`. None where there is no raw counter.
pub fn measure_counter_hz(window: Duration) -> Option<f64> {
    let mut counter = CycleCounter::raw();
    let c0 = counter.read().cycles?;
    let t0 = Instant::now();
    while t0.elapsed() < window {
        std::hint::spin_loop();
    }
    let c1 = counter.read().cycles?;
    let elapsed = t0.elapsed().as_secs_f64();
    Some((c1 - c0) as f64 / elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_resolution_is_positive_and_sane() {
        let r = monotonic_resolution();
        assert!(r > Duration::ZERO && r < Duration::from_millis(1), "{r:?}");
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn raw_counter_advances() {
        let mut c = CycleCounter::raw();
        let a = c.read().cycles.unwrap();
        std::thread::sleep(Duration::from_millis(2));
        let b = c.read().cycles.unwrap();
        assert!(b > a);
        let hz = measure_counter_hz(Duration::from_millis(20)).unwrap();
        // Any real counter ticks between 1 MHz and 10 GHz.
        assert!((1e6..1e10).contains(&hz), "{hz}");
    }
}
