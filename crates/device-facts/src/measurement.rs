//! The measurement row `mcu` writes: one per algorithm, operation and
//! message size, a plain serde type the store, report and cost tables read.
//!
//! It lives here rather than in `mcu` because it is data: the cost tables
//! are built from these rows ([`crate::cost_table::CostTable::from_results`])
//! and `cost` stores them (`record`), neither of which runs a simulator, so
//! neither needs to link the runner. How rows are made from a run (parsing,
//! calibration, cycle estimates) stays in `mcu::results`.

use serde::{Deserialize, Serialize};

use crate::Target;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McuResult {
    pub target: Target,
    pub algorithm: String,
    /// Whose code ran: rustcrypto (the default, what the sealing core runs),
    /// ciphermeter, mbedtls, monocypher ([`crate::Implementation`]).
    #[serde(default = "crate::implementation::rustcrypto_name")]
    pub implementation: String,
    /// keysetup, encrypt, decrypt, hash, mac, seal; "build" or "run" for a failure.
    pub operation: String,
    pub size_bytes: usize,
    /// "cycles" (simavr, exact) or "instructions" (QEMU -icount, exact).
    pub counter: String,
    /// The count, whichever the counter; marker cost removed.
    pub cycles: u64,
    /// None for key setup (no message bytes).
    pub cycles_per_byte: Option<f64>,
    /// The operation's time at `clock_hz`, from the best cycle figure there
    /// is, named by `time_basis`: exact cycles (AVR), the cycle estimate
    /// (Cortex-M), or one instruction per cycle (Cortex-M with the execution
    /// log off: a lower bound).
    pub time_us: f64,
    /// "cycles", "cycles_estimate" or "instructions": what `time_us` is from.
    #[serde(default)]
    pub time_basis: String,
    /// Cortex-M: cycles estimated from the executed instruction mix with the
    /// ARM timing tables and the board's flash wait states
    /// (data/cycle-timings/cortex-m.toml, firmware/README.md). None on AVR,
    /// where `cycles` is exact, and when the execution log was off.
    #[serde(default)]
    pub cycles_estimate: Option<u64>,
    /// The low end: every range at its minimum, no wait state.
    #[serde(default)]
    pub cycles_low: Option<u64>,
    /// The high end: every range at its maximum, wait states on every fetch.
    #[serde(default)]
    pub cycles_high: Option<u64>,
    /// Cortex-M: the region's instruction mix the estimate priced, so that a
    /// table can price it again for another device or model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<crate::cycle_model::Mix>,
    pub clock_hz: u64,
    /// Flash bytes over the `identity` firmware (study 003 Fig. 12, FELICS).
    pub code_size_bytes: Option<i64>,
    /// The whole firmware's flash bytes.
    pub flash_bytes: Option<u64>,
    /// Peak stack of the operation itself, bytes.
    pub stack_bytes: Option<u32>,
    /// RAM the build had used at the operation's deepest point: static data
    /// and the whole stack (the board's RAM less what was never touched).
    /// A device with less RAM than the board is judged by it.
    #[serde(default)]
    pub ram_bytes: Option<u32>,
    pub kat_passed: bool,
    /// The known answers this build passed on the device (its `K … pass`
    /// lines; a sealing build's includes the host's bytes in every
    /// container): a count without one is no measurement.
    #[serde(default)]
    pub known_answers: u32,
    /// Why there is no measurement (a build failure carries the compiler's reason).
    pub error: Option<String>,
    /// "measured on board B, serial S" for a board's row (`mcu --board`);
    /// none for a simulated one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured_on: Option<String>,
}

impl McuResult {
    pub fn failure(
        target: Target,
        algorithm: &str,
        operation: &str,
        why: impl Into<String>,
    ) -> McuResult {
        McuResult {
            target,
            algorithm: algorithm.to_string(),
            implementation: crate::implementation::rustcrypto_name(),
            operation: operation.to_string(),
            size_bytes: 0,
            counter: target.counter().to_string(),
            cycles: 0,
            cycles_per_byte: None,
            time_us: 0.0,
            time_basis: time_basis(target).to_string(),
            cycles_estimate: None,
            cycles_low: None,
            cycles_high: None,
            mix: None,
            clock_hz: target.clock_hz(),
            code_size_bytes: None,
            flash_bytes: None,
            stack_bytes: None,
            ram_bytes: None,
            kat_passed: false,
            known_answers: 0,
            error: Some(why.into()),
            measured_on: None,
        }
    }

    /// The algorithm with `@implementation` unless RustCrypto's, as `mcu` takes it.
    pub fn build_id(&self) -> String {
        if crate::implementation::is_rustcrypto(&self.implementation) {
            self.algorithm.clone()
        } else {
            format!("{}@{}", self.algorithm, self.implementation)
        }
    }

    pub fn is_measurement(&self) -> bool {
        self.error.is_none()
    }
}

/// What `time_us` is computed from before any estimate: exact cycles on
/// AVR, instructions on Cortex-M (one per cycle, a lower bound).
pub fn time_basis(target: Target) -> &'static str {
    target.counter()
}
