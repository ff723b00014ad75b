//! ciphermeter-energy: what a message costs the battery, as a model estimate.
//!
//! - [`profiles`]: devices, radios and batteries from the data files, each figure sourced.
//! - [`model`]: CPU energy = V × I_active × t_cpu; radio energy = V × I_tx × time on air
//!   plus receive windows; sleep until the next message; battery life at an interval.
//!
//! Nothing here is a measurement: every output is labelled a model estimate.

pub mod error;
pub mod model;
pub mod profiles;

pub use error::EnergyError;
pub use model::{EnergyEstimate, MessageLoad, estimate};
pub use profiles::{Battery, Device, Profiles, Radio};

/// The label every energy figure carries in reports.
pub const MODEL_LABEL: &str = "model estimate (not a measurement)";
