//! The section and metric names producers write and the report, `compare` and
//! `recommend` read. One place, so a rename cannot split them.

/// Host measurements of catalogue entries (`bench`, `run`): one row per
/// algorithm, operation and size; `data` is the bench result record.
pub const BENCH: &str = "bench";
/// The sealed-message path on this host: µs per message for a scheme and sample.
pub const FRAME: &str = "frame";
/// Energy per message for a device and link (a model estimate).
pub const ENERGY: &str = "energy";
/// Device-level (simulated microcontroller) counts; `target` names the device.
pub const MCU: &str = "mcu";

/// This host's own noise, measured by `run`: a few probe cases timed at the
/// start of the sweep and again at points inside it and at its end; `value`
/// is each later time's drift from the start in percent. `compare` derives
/// its noise threshold from it.
pub const NOISE: &str = "noise";
pub const DRIFT_PCT: &str = "drift_pct";
/// A few of the sweep's cases timed again, each group in a fresh process of
/// the binary: `value` is the fresh process's difference from the run's own
/// result, in percent. What one process cannot see: placement, code layout,
/// per-process machine state.
pub const PROCESS_DRIFT_PCT: &str = "process_drift_pct";
/// A reference probe measured inside each sweep group, interleaved with it:
/// `operation` and `size_bytes` are the group's, `value` the reference's drift
/// from the run's start in percent: how far the machine's speed had moved
/// while that group was measured.
pub const GROUP_DRIFT_PCT: &str = "group_drift_pct";

pub const HOST: &str = "host";

pub const NS_PER_OP: &str = "ns_per_op";
pub const US_PER_MESSAGE: &str = "us_per_message";
pub const MESSAGE_UJ: &str = "message_uj";
/// A device-level algorithm that could not be measured (build, run or
/// known-answer failure); `data.error` says why, `value` is 0.
pub const FAILURE: &str = "failure";

/// A study's typed report (`data.report`), or why it failed (`data.failed`).
pub const REPRODUCTION: &str = "reproduction";
/// The ranking of sealing schemes for the run's device and link.
pub const RECOMMENDATION: &str = "recommendation";
/// What SCHC saves on the run's LoRaWAN link (`cost::schc_savings::SchcSavings`).
pub const SCHC: &str = "schc";
/// Classical, hybrid and post-quantum key establishment per device and link
/// (`cost::key_establishment::Comparison`).
pub const KEY_ESTABLISHMENT: &str = "key-establishment";

/// The `context` of an energy row.
pub fn energy_context(device: &str, link: &str) -> String {
    format!("device={device} link={link}")
}
