//! ciphermeter-energy: what a message costs the battery, as a model estimate.
//!
//! - [`profiles`]: devices, radios and batteries from the data files, each figure sourced.
//! - [`model`]: CPU energy = V × I_active × t_cpu; radio energy = V × I_tx × time on air
//!   plus receive windows; sleep until the next message; battery life at an interval.
//!
//! - [`protocol`]: a link's protocol costs around and between messages (connection
//!   events, CSMA-CA, polls, PSM and paging) at a message interval.
//!
//! - `trace` (feature `files`, a default, as `files`: the data directory read): a power profiler's trace read into each marked operation's
//!   measured charge and energy (`energy import`).
//!
//! The model is no measurement: its every output is labelled a model estimate;
//! what a trace gives is labelled measured.

pub mod chip_family;
pub mod error;
#[cfg(feature = "files")]
pub mod files;
pub mod model;
pub mod profiles;
pub mod protocol;
#[cfg(feature = "files")]
pub mod trace;

pub use error::EnergyError;
pub use model::{EnergyEstimate, MessageLoad, estimate, estimate_with};
pub use profiles::{Battery, Device, Profiles, Radio, RadioUse};

/// The label every energy figure carries in reports.
pub const MODEL_LABEL: &str = "model estimate (not a measurement)";
