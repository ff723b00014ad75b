//! A firmware image signature's verify on the QEMU targets
//! (`data/firmware-update/verify-cycles.json`): the verify probe
//! (firmware-verify/) with each scheme's vector, its instruction mix priced by
//! the cycle model as the device cost tables' are where the target has one
//! (Cortex-M), its instructions counted where it has none (RISC-V: time at
//! the clock a lower bound). crates/mcu `verify_probe`
//! writes it (`scripts/verify-device-cpu`); `update-cost` reads it where a
//! device's own table has no verify.

use serde::{Deserialize, Serialize};

use crate::FactsError;
use crate::cycle_model::Estimate;

const SHIPPED: &str = include_str!("../../../data/firmware-update/verify-cycles.json");

/// `data/firmware-update/verify-cycles.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub source: String,
    /// Where the vectors come from (firmware-verify/vectors/).
    pub vectors: String,
    /// `revision::verify_probe_revision` of the sources measured.
    pub probe_revision: String,
    /// The Cortex-M timing model the Cortex-M rows' cycles were priced with.
    pub cycle_timings_revision: String,
    pub targets: Vec<TargetRow>,
}

/// One target's schemes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetRow {
    pub target: String,
    pub clock_hz: u64,
    /// The RAM of the QEMU board the probe ran on (firmware/memory).
    pub board_ram_bytes: u64,
    /// What the rows' figures count: "cycle estimate" (the target's cycle
    /// model) or the target's counter ("instructions": at one a cycle, `us`
    /// is a lower bound).
    pub counted: String,
    pub schemes: Vec<Row>,
}

/// Did the device verify the vector (and reject it over a changed message)?
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KnownAnswer {
    Passed,
    Failed,
    /// The probe did not build or did not finish: `reason` says why.
    NotRun,
}

/// One scheme on one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The scheme's name in data/firmware-update.toml.
    pub scheme: String,
    pub known_answer: KnownAnswer,
    /// Present when the verify ran to its verdict.
    pub measured: Option<Measured>,
    /// Why there is no passed measurement.
    pub reason: Option<String>,
}

/// What one verify took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Instructions QEMU ran in the verify, less the empty region's.
    pub instructions: i64,
    /// The cycle model's estimate; none where the target has no model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<Estimate>,
    /// [`Measured::count`] at the target's clock.
    pub us: f64,
    /// The heap's peak during the verify.
    pub heap_bytes: u64,
    /// The stack's deepest extent during the verify, from its top.
    pub stack_bytes: u64,
}

impl Measured {
    /// The figure the time is from: the estimated cycles, else the instructions.
    pub fn count(&self) -> u64 {
        self.cycles
            .map_or(self.instructions.max(0) as u64, |c| c.estimate)
    }
}

impl Table {
    /// The row of `scheme` on `target`, if the table has one.
    pub fn row(&self, target: &str, scheme: &str) -> Option<&Row> {
        self.target(target)?
            .schemes
            .iter()
            .find(|r| r.scheme == scheme)
    }

    /// `target`'s schemes, if the table has them.
    pub fn target(&self, target: &str) -> Option<&TargetRow> {
        self.targets.iter().find(|t| t.target == target)
    }
}

/// The table the repository ships.
pub fn shipped() -> Result<Table, FactsError> {
    serde_json::from_str(SHIPPED)
        .map_err(|e| FactsError::Failed(format!("data/firmware-update/verify-cycles.json: {e}")))
}
