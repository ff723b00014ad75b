//! Cycle estimates for Cortex-M from the instructions QEMU executed.
//!
//! QEMU counts instructions exactly but has no cycle model. Its execution log
//! (`-d in_asm,exec,nochain`) says which instructions ran in each measured
//! region ([`trace`]); each is put in a timing class ([`classify`]); the
//! classes are priced from the ARM manuals and the board's memory
//! (`data/cycle-timings/cortex-m.toml`, [`timing`]) into a low / estimate /
//! high triple ([`estimate`]; both live in `device_facts::cycle_model`, which
//! runs nothing). The model is described in firmware/README.md.
//!
//! Cortex-M only ([`crate::Target::has_cycle_estimate`]). riscv32imc stands
//! for the ESP32-C3, whose core Espressif documents (Technical Reference
//! Manual, "ESP-RISC-V CPU") without a per-instruction cycle table; no
//! model is made up for it, so its rows carry exact instruction counts and
//! its time at 160 MHz is a lower bound (one instruction per cycle).

pub mod classify;
pub mod trace;

pub use device_facts::cycle_model::{Class, CoreTiming, Estimate, Mix, estimate, timing};
pub use trace::RegionTracer;

/// Set to `off` to skip the execution log (then `time_us` falls back to one
/// instruction per cycle, a lower bound).
pub const ENV_SWITCH: &str = "CIPHERMETER_MCU_CYCLE_MODEL";

static COUNTS_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs in this process from now on count instructions without the execution
/// log: for a check of the tables' counts, which the log does not change
/// (it costs about 3 s a Cortex-M seal build).
pub fn counts_only() {
    COUNTS_ONLY.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether runs on Cortex-M log their execution for the cycle estimate
/// (never on targets without a model: see [`crate::Target::has_cycle_estimate`]).
pub fn enabled() -> bool {
    !COUNTS_ONLY.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var(ENV_SWITCH)
            .map(|v| v != "off")
            .unwrap_or(true)
}
