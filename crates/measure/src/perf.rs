//! Core cycles and retired instructions from Linux perf_event, user space
//! only. Opening fails in most containers and VMs (no PMU, or
//! kernel.perf_event_paranoid too high); the reason is kept for the
//! environment record and the numbers are simply absent.

use perf_event::events::Hardware;
use perf_event::{Builder, Counter, Group};

use crate::timer::Counts;

pub struct PerfCounters {
    group: Group,
    cycles: Counter,
    instructions: Counter,
}

impl PerfCounters {
    pub fn open() -> Result<PerfCounters, String> {
        let explain = |e: std::io::Error| {
            let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "unreadable".into());
            format!("perf_event_open refused: {e} (kernel.perf_event_paranoid = {paranoid})")
        };
        let mut group = Group::new().map_err(explain)?;
        let cycles = group
            .add(&Builder::new(Hardware::CPU_CYCLES))
            .map_err(explain)?;
        let instructions = group
            .add(&Builder::new(Hardware::INSTRUCTIONS))
            .map_err(explain)?;
        group.enable().map_err(explain)?;
        let mut counters = PerfCounters {
            group,
            cycles,
            instructions,
        };
        // Some hypervisors accept the event but never count: treat as absent.
        let a = counters.read();
        let mut x = 0u64;
        for i in 0..10_000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let b = counters.read();
        match (a.cycles, b.cycles) {
            (Some(a), Some(b)) if b > a => Ok(counters),
            _ => Err(
                "perf_event opened but the cycle counter does not advance (no PMU exposed)".into(),
            ),
        }
    }

    pub fn read(&mut self) -> Counts {
        match self.group.read() {
            Ok(data) => Counts {
                cycles: data.get(&self.cycles).map(|e| e.value()),
                instructions: data.get(&self.instructions).map(|e| e.value()),
            },
            Err(_) => Counts::default(),
        }
    }
}
