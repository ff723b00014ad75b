//! Where a row's CPU time came from, and its build's constant-time verdict:
//! what a ranked row says of its device.

use serde::{Deserialize, Serialize};

/// How a build that leaks is said (an exclusion, a row's mark).
pub const LEAKS: &str = "its timing leaks the key";

/// A ranked build's constant-time verdict on its device, as a row shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstantTime {
    /// constant-time, leaks, or not checked.
    pub verdict: String,
    /// Where it leaks: the operation, what, the function.
    pub leak: Option<String>,
    /// What differs without costing time under the core's model (a secret
    /// data address on a core without a cache): their number.
    pub warning_count: usize,
    /// Why it was not checked.
    pub not_checked_because: Option<String>,
}

/// Where a CPU time came from.
#[derive(Clone, Debug)]
pub enum CpuSource {
    /// The device's own instruction stream (`cost::device_times::DeviceTimes::describe`).
    Device(String),
    /// This host, for a device no simulator runs.
    Host,
    /// The device was simulated but has no seal time for this scheme (its
    /// firmware failed a known answer or was not built): never ranked
    /// (`choices` lists it apart with why), and not timed on this host.
    HostInsteadOfDevice {
        target: device_facts::Target,
        /// The device's reason when its build failed or did not fit (with sizes).
        why: Option<String>,
    },
}

impl CpuSource {
    pub fn describe(&self) -> String {
        match self {
            CpuSource::Device(what) => what.clone(),
            CpuSource::Host => "this host, not the device: the device has no simulated target (give its time with --cpu-us)".into(),
            CpuSource::HostInsteadOfDevice { target, why: Some(why) } => format!(
                "this host, because on {} this scheme failed: {why}",
                target.name()
            ),
            CpuSource::HostInsteadOfDevice { target, why: None } => format!(
                "this host, because {} has no seal time for this scheme (not measured: run `ciphermeter mcu --target {}` or scripts/device-costs)",
                target.name(),
                target.name()
            ),
        }
    }

    pub fn is_device(&self) -> bool {
        matches!(self, CpuSource::Device(_))
    }

    /// The device tried and the scheme does not fit (or failed): the reason.
    pub fn device_failure(&self) -> Option<&str> {
        match self {
            CpuSource::HostInsteadOfDevice { why, .. } => why.as_deref(),
            _ => None,
        }
    }
}
