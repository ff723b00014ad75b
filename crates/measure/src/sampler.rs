//! The sampling loop: warm up, choose how many calls make one sample so that
//! a sample lasts far longer than the clock's resolution, take many samples,
//! and summarise the per-call times.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::alloc::{self, HeapProbe, HeapUsage};
use crate::cpu_time;
use crate::interrupt::{self, Interrupted};
use crate::stats::Summary;
use crate::timer::{self, CycleCounter, CycleSource};

/// Warm-up of a process's first measurement.
const FIRST_WARMUP: Duration = Duration::from_millis(300);

/// Whether this process has had its first, longer warm-up: once per
/// process, not once per sampler (a study that makes a sampler per
/// measurement paid 300 ms each time, 33 s of `run --quick`).
static PROCESS_WARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How long and how often to sample one operation.
#[derive(Clone, Debug)]
pub struct Config {
    /// Time spent taking samples, after the warm-up.
    pub time: Duration,
    pub warmup: Duration,
    pub min_samples: usize,
    pub max_samples: usize,
    /// No sample is shorter than this (raised to 1000 clock ticks if needed).
    pub min_sample_time: Duration,
}

impl Config {
    /// The default of `bench`: 0.25 s of samples after 50 ms of warm-up.
    pub fn standard() -> Config {
        Config::with_time(Duration::from_millis(250))
    }

    /// `bench --quick`: enough for a smoke run, not for a report.
    pub fn quick() -> Config {
        Config {
            max_samples: 200,
            ..Config::with_time(Duration::from_millis(30))
        }
    }

    /// `--quick` or the standard configuration, with `time_s` seconds of
    /// sampling per result when given (above 0, at most 60).
    pub fn chosen(time_s: Option<f64>, quick: bool) -> Result<Config, String> {
        let base = if quick {
            Config::quick()
        } else {
            Config::standard()
        };
        match time_s {
            None => Ok(base),
            Some(t) if t > 0.0 && t <= 60.0 => Ok(Config {
                time: Duration::from_secs_f64(t),
                ..base
            }),
            Some(t) => Err(format!(
                "--time {t}: give seconds per result, above 0 and at most 60"
            )),
        }
    }

    /// Samples for `time`, warm-up a fifth of it (5 ms to 0.5 s). Up to
    /// 1000 samples: many short samples rather than few long ones, so that
    /// when other processes take the CPU only some samples are hit and the
    /// median stays clean (0.25 s gives samples of 250 µs).
    pub fn with_time(time: Duration) -> Config {
        Config {
            time,
            warmup: (time / 5).clamp(Duration::from_millis(5), Duration::from_millis(500)),
            min_samples: 10,
            max_samples: 1000,
            min_sample_time: Duration::from_micros(20),
        }
    }
}

/// One operation's measurement: per-call time statistics and what else was
/// counted. Identification (algorithm, size...) is added by the caller.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Per-call time in nanoseconds.
    pub ns: Summary,
    pub iterations_per_sample: u64,
    /// Median over samples of cycles per call, when a counter was read.
    pub cycles_per_op: Option<f64>,
    pub cycles_source: Option<CycleSource>,
    pub instructions_per_op: Option<f64>,
    /// Heap use of one call; None without the counting allocator.
    pub heap: Option<HeapUsage>,
    /// Process CPU time and wall time over the sampling phase.
    pub cpu_time_ns: u64,
    pub wall_time_ns: u64,
}

impl Measurement {
    /// CPU time over wall time, in percent (100 = one core busy).
    pub fn cpu_percent(&self) -> f64 {
        if self.wall_time_ns == 0 {
            0.0
        } else {
            100.0 * self.cpu_time_ns as f64 / self.wall_time_ns as f64
        }
    }
}

/// Measures operations one after another with the same clocks.
pub struct Sampler {
    config: Config,
    counter: CycleCounter,
    min_sample: Duration,
    heap_counted: bool,
}

impl Sampler {
    /// A sampler using perf_event when `use_perf` and the kernel allow it,
    /// else the raw cycle counter.
    pub fn new(config: Config, use_perf: bool) -> Sampler {
        let counter = if use_perf {
            CycleCounter::best()
        } else {
            CycleCounter::raw()
        };
        let min_sample = config
            .min_sample_time
            .max(timer::monotonic_resolution() * 1000);
        Sampler {
            config,
            counter,
            min_sample,
            heap_counted: alloc::is_installed(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn cycles_source(&self) -> Option<CycleSource> {
        self.counter.source()
    }

    /// Measures `op`. Its result goes through `black_box` so the optimiser
    /// cannot drop the work. Returns `Interrupted` if a stop was requested.
    pub fn measure<R>(&mut self, mut op: impl FnMut() -> R) -> Result<Measurement, Interrupted> {
        let mut op = || {
            black_box(op());
        };
        let mut all = self.measure_interleaved(&mut [&mut op])?;
        Ok(all.remove(0))
    }

    /// Measures several operations in rounds, one sample of each per round
    /// (starting with a different one each round), instead of each to
    /// completion: a slow drift of the machine (frequency, a neighbour's
    /// load) then hits all of them alike, and their ratios stay true. Each
    /// operation gets the time budget it would get alone, and its statistics
    /// are computed from its own samples exactly as for one operation.
    pub fn measure_interleaved(
        &mut self,
        ops: &mut [&mut dyn FnMut()],
    ) -> Result<Vec<Measurement>, Interrupted> {
        let target = self
            .min_sample
            .max(self.config.time / self.config.max_samples as u32);
        let mut runs = Vec::with_capacity(ops.len());
        for op in ops.iter_mut() {
            let per_call = self.warm_up(op)?;
            let iters = ((target.as_secs_f64() / per_call.max(1e-10)).ceil() as u64).max(1);
            // An operation slower than the whole budget gets 3 samples, not 10.
            let min_samples = if per_call > self.config.time.as_secs_f64() {
                3
            } else {
                self.config.min_samples
            };
            runs.push(Samples::new(iters, min_samples, self.config.max_samples));
        }

        let budget = self.config.time * ops.len() as u32;
        let started = Instant::now();
        for round in 0.. {
            let in_budget = started.elapsed() < budget;
            let wanted: Vec<usize> = (0..ops.len())
                .map(|k| (round + k) % ops.len())
                .filter(|&i| runs[i].wants_more(in_budget))
                .collect();
            if wanted.is_empty() {
                break;
            }
            for i in wanted {
                if interrupt::stop_requested() {
                    return Err(Interrupted);
                }
                runs[i].take(&mut *ops[i], &mut self.counter);
            }
        }

        let mut out = Vec::with_capacity(ops.len());
        for (op, run) in ops.iter_mut().zip(runs) {
            let heap = self.heap_counted.then(|| {
                let probe = HeapProbe::start();
                op();
                probe.finish()
            });
            out.push(run.summarise(heap, self.counter.source()));
        }
        Ok(out)
    }

    /// Runs `op` in growing batches for the warm-up time; returns the
    /// fastest seconds per call seen in a batch long enough to time. The
    /// fastest, because a preempted batch only ever looks slower, and an
    /// inflated estimate would make every sample too short.
    fn warm_up(&mut self, op: &mut dyn FnMut()) -> Result<f64, Interrupted> {
        let started = Instant::now();
        // The first measurement of a process warms up longer: in back-to-back
        // runs it alone differed by 5-40% until it did (cold caches, page
        // faults, the CPU leaving an idle state).
        let first = !PROCESS_WARMED.swap(true, std::sync::atomic::Ordering::Relaxed);
        let warmup = if first {
            self.config.warmup.max(FIRST_WARMUP)
        } else {
            self.config.warmup
        };
        let mut batch = 1u64;
        let mut best = f64::INFINITY;
        loop {
            if interrupt::stop_requested() {
                return Err(Interrupted);
            }
            let t0 = Instant::now();
            for _ in 0..batch {
                op();
            }
            let took = t0.elapsed();
            let per_call = took.as_secs_f64() / batch as f64;
            if took >= self.min_sample {
                best = best.min(per_call);
            } else {
                // Grow batches until one lasts a measurable while.
                batch = batch.saturating_mul(2);
            }
            if started.elapsed() >= warmup {
                return Ok(if best.is_finite() { best } else { per_call });
            }
        }
    }
}

/// One operation's samples as they are taken.
struct Samples {
    iters: u64,
    min_samples: usize,
    max_samples: usize,
    ns: Vec<f64>,
    cycles: Vec<f64>,
    instructions: Vec<f64>,
    /// Process CPU time and wall time over this operation's samples only.
    cpu: Duration,
    wall: Duration,
}

impl Samples {
    fn new(iters: u64, min_samples: usize, max_samples: usize) -> Samples {
        Samples {
            iters,
            min_samples,
            max_samples,
            ns: Vec::with_capacity(max_samples),
            cycles: Vec::with_capacity(max_samples),
            instructions: Vec::with_capacity(max_samples),
            cpu: Duration::ZERO,
            wall: Duration::ZERO,
        }
    }

    /// Up to the maximum, at least the minimum, and more while time is left.
    fn wants_more(&self, in_budget: bool) -> bool {
        self.ns.len() < self.max_samples && (self.ns.len() < self.min_samples || in_budget)
    }

    fn take(&mut self, op: &mut dyn FnMut(), counter: &mut CycleCounter) {
        let usage_before = cpu_time::process_usage();
        let w0 = Instant::now();
        let c0 = counter.read();
        let t0 = Instant::now();
        for _ in 0..self.iters {
            op();
        }
        let elapsed = t0.elapsed();
        let c1 = counter.read();
        self.wall += w0.elapsed();
        if let (Some(a), Some(b)) = (usage_before, cpu_time::process_usage()) {
            self.cpu += b.cpu().saturating_sub(a.cpu());
        }
        let per = self.iters as f64;
        self.ns.push(elapsed.as_nanos() as f64 / per);
        if let (Some(a), Some(b)) = (c0.cycles, c1.cycles) {
            self.cycles.push(b.wrapping_sub(a) as f64 / per);
        }
        if let (Some(a), Some(b)) = (c0.instructions, c1.instructions) {
            self.instructions.push(b.wrapping_sub(a) as f64 / per);
        }
    }

    fn summarise(self, heap: Option<HeapUsage>, source: Option<CycleSource>) -> Measurement {
        let median = |v: &[f64]| Summary::of(v).map(|s| s.median);
        Measurement {
            ns: Summary::of(&self.ns).expect("at least one sample, none NaN"),
            iterations_per_sample: self.iters,
            cycles_per_op: median(&self.cycles),
            cycles_source: if self.cycles.is_empty() { None } else { source },
            instructions_per_op: median(&self.instructions),
            heap,
            cpu_time_ns: self.cpu.as_nanos() as u64,
            wall_time_ns: self.wall.as_nanos() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_known_busy_wait() {
        // Each call spins for 50 µs; the median must be at least that and the
        // CI must hold the median. (Upper bounds would be timed assertions.)
        let mut s = Sampler::new(Config::quick(), false);
        let m = s
            .measure(|| {
                let t = Instant::now();
                while t.elapsed() < Duration::from_micros(50) {}
            })
            .unwrap();
        assert!(m.ns.median >= 50_000.0, "{:?}", m.ns);
        assert!(m.ns.ci95_low <= m.ns.median && m.ns.median <= m.ns.ci95_high);
        assert!(m.ns.samples >= 10);
        assert!(m.wall_time_ns > 0);
        // No counting allocator in this test binary: heap is unknown, not 0.
        assert!(m.heap.is_none());
    }

    #[test]
    fn fast_ops_get_many_iterations_per_sample() {
        let mut s = Sampler::new(Config::quick(), false);
        let mut x = 0u64;
        let m = s
            .measure(|| {
                x = x.wrapping_add(1);
                x
            })
            .unwrap();
        // A sample lasts >= 20 µs, so a sub-microsecond op repeats >= 20 times.
        assert!(m.iterations_per_sample >= 20, "{}", m.iterations_per_sample);
    }

    #[test]
    fn interleaved_operations_take_their_samples_in_rounds() {
        // Each call logs which operation ran. Measured one after the other,
        // the log would switch operation a handful of times (warm-ups, then
        // A's samples, then B's); in rounds it switches at every sample.
        let log = std::cell::RefCell::new(Vec::new());
        let spin = |id: u8| {
            log.borrow_mut().push(id);
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(5) {}
        };
        let (mut a, mut b) = (|| spin(0), || spin(1));
        let mut s = Sampler::new(Config::quick(), false);
        let m = s.measure_interleaved(&mut [&mut a, &mut b]).unwrap();
        assert_eq!(m.len(), 2);
        assert!(
            m.iter()
                .all(|m| m.ns.samples >= 10 && m.ns.median >= 5_000.0)
        );
        let log = log.into_inner();
        let switches = log.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(switches >= 2 * 10, "{switches} switches between operations");
    }
}
