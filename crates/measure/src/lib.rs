//! ciphermeter-measure: timers, the sampling loop, statistics, environment
//! capture and the bench result contract; `bench`, a request planned and
//! measured into a report.
//!
//! ```no_run
//! use ciphermeter_measure::{Config, Sampler};
//! let mut sampler = Sampler::new(Config::standard(), true);
//! let m = sampler.measure(|| std::hint::black_box(2u64).pow(10)).unwrap();
//! println!("{:.1} ns (95% CI {:.1}..{:.1})", m.ns.median, m.ns.ci95_low, m.ns.ci95_high);
//! ```

pub mod alloc;
pub mod bench;
pub mod cpu_time;
pub mod environment;
pub mod export;
pub mod interrupt;
#[cfg(perf_event)]
mod perf;
pub mod placement;
pub mod result;
pub mod sampler;
pub mod sizes;
pub mod stats;
pub mod timer;
pub mod workload;

pub use alloc::CountingAllocator;
pub use environment::Environment;
pub use interrupt::Interrupted;
pub use result::{BenchReport, BenchResult, SCHEMA};
pub use sampler::{Config, Measurement, Sampler};
pub use stats::Summary;
pub use timer::CycleSource;
pub use workload::{Case, CaseError, CaseOutput, Operation};
