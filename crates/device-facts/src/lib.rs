//! Device facts: data that runs nothing. The simulated targets and what
//! each is ([`Target`]), the firmware's algorithms ([`algorithms`]) and who
//! implements each ([`Implementation`]), the measurement row ([`McuResult`]),
//! the device cost tables shipped in `data/device-costs/` ([`cost_table`])
//! and the published figures in `data/anchors/` ([`anchors`]); the firmware
//! revision a table records ([`revision`]); the constant-time verdicts in
//! `data/constant-time/` ([`constant_time`]).
//!
//! `mcu` writes these facts (it builds, simulates and parses); cost, report,
//! studies, live and campaign read them here without linking the runner.
//! Nothing in this crate invokes cargo, QEMU or simavr.

pub mod algorithms;
pub mod anchors;
pub mod board;
pub mod constant_time;
pub mod cost_table;
pub mod cycle_model;
pub mod engine;
pub mod error;
pub mod implementation;
pub mod measurement;
pub mod revision;
pub mod target;
pub mod verify_cycles;

pub use board::Board;
pub use error::FactsError;
pub use implementation::Implementation;
pub use measurement::McuResult;
pub use target::Target;

use std::path::PathBuf;

/// Where the firmware crate lives (override with CIPHERMETER_FIRMWARE_DIR).
pub fn firmware_dir() -> PathBuf {
    std::env::var_os("CIPHERMETER_FIRMWARE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../firmware"))
}
