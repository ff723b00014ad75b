//! Device-level seal times (µs by reading size) and code sizes, from the
//! newest stored simulation of a microcontroller target, and which target
//! simulates a device profile's CPU.

use std::collections::BTreeMap;

use energy::Device;
use seal::Scheme;
use serde_json::Value;
use store::Store;
use store::conventions::MCU;

use crate::Error;

/// The microcontroller target that runs a device profile's instruction
/// stream, as the profile names it (`simulated_target`); none for a board
/// without one. A name no simulator knows is an error in the profile.
pub fn device_target(device: &Device) -> Result<Option<mcu::Target>, Error> {
    device
        .simulated_target
        .as_ref()
        .map(|t| {
            t.value.parse::<mcu::Target>().map_err(|e| {
                Error::invalid(format!(
                    "device '{}': simulated_target {}: {e}",
                    device.name, t.value
                ))
            })
        })
        .transpose()
}

/// Device-level seal times (µs by reading size) and code size per firmware id,
/// from the newest stored simulation of `target`.
pub struct DeviceTimes {
    pub run: i64,
    pub target: mcu::Target,
    seal: BTreeMap<String, Vec<(f64, f64)>>,
    code: BTreeMap<String, i64>,
}

impl DeviceTimes {
    pub fn load(store: &Store, target: mcu::Target) -> Result<Option<DeviceTimes>, Error> {
        let Some((run, rows)) = store.latest_section(MCU, target.name())? else {
            return Ok(None);
        };
        let mut seal: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut code = BTreeMap::new();
        for r in &rows {
            if let Some(c) = r.data.get("code_size_bytes").and_then(Value::as_i64) {
                code.insert(r.subject.clone(), c);
            }
            let us = r.data.get("time_us").and_then(Value::as_f64);
            if r.operation == "seal"
                && let (Some(us), Some(n)) = (us, r.size_bytes)
            {
                seal.entry(r.subject.clone())
                    .or_default()
                    .push((n as f64, us));
            }
        }
        Ok(Some(DeviceTimes {
            run,
            target,
            seal,
            code,
        }))
    }

    /// The firmware id of a scheme's sealed-message build (study 003's set):
    /// `aead:aes-128-gcm` → `message-aes-128-gcm`, and for EtM, whose firmware
    /// is ECB as the study's was, `etm:aes-128-ecb+hmac-sha256` →
    /// `message-etm-aes-128-hmac-sha256`.
    pub fn firmware_id(scheme: &Scheme) -> String {
        match scheme.name().split_once(':') {
            Some(("etm", parts)) => {
                let (cipher, mac) = parts.split_once('+').unwrap_or((parts, ""));
                let cipher = cipher.strip_suffix("-ecb").unwrap_or(cipher);
                format!("message-etm-{cipher}-{mac}")
            }
            Some((_, rest)) => format!("message-{rest}"),
            None => format!("message-{}", scheme.name()),
        }
    }

    /// Seal time for a reading of `bytes`, by the straight line through the
    /// smallest and largest measured readings (the cost is linear in length).
    pub fn seal_us(&self, scheme: &Scheme, bytes: usize) -> Option<f64> {
        let mut pts = self.seal.get(&Self::firmware_id(scheme))?.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (first, last) = (*pts.first()?, *pts.last()?);
        if pts.len() == 1 || last.0 == first.0 {
            return Some(first.1 / first.0 * bytes as f64);
        }
        let slope = (last.1 - first.1) / (last.0 - first.0);
        Some((first.1 + slope * (bytes as f64 - first.0)).max(0.0))
    }

    pub fn code_size(&self, scheme: &Scheme) -> Option<i64> {
        self.code.get(&Self::firmware_id(scheme)).copied()
    }
}

/// Where a CPU time came from.
#[derive(Clone, Debug)]
pub enum CpuSource {
    Device {
        target: mcu::Target,
        run: i64,
    },
    Host,
    /// The device was simulated but has no seal time for this scheme (its
    /// firmware failed a known answer or was not built): the host's stands in.
    HostInsteadOfDevice {
        target: mcu::Target,
        run: i64,
    },
}

impl CpuSource {
    pub fn describe(&self) -> String {
        match self {
            CpuSource::Device { target, run } => {
                format!("device-level: {} simulated (run {run})", target.name())
            }
            CpuSource::Host => {
                "this host (not the device: run `ciphermeter run --mcu` to simulate it)".into()
            }
            CpuSource::HostInsteadOfDevice { target, run } => format!(
                "this host, because {} (run {run}) has no seal time for this scheme: see the device section for why",
                target.name()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each study device and modern MCU names its simulated target, with its
    /// clock and a source; a Linux board has none.
    #[test]
    fn device_profiles_name_their_simulated_target() {
        let p = crate::data::profiles(None).unwrap();
        for (device, target, mhz) in [
            ("sodaq-mbili", Some(mcu::Target::Atmega1284p), 8.0),
            ("mkr-wan-1300", Some(mcu::Target::CortexM0plus), 48.0),
            ("stm32l0", Some(mcu::Target::CortexM0plus), 32.0),
            ("nrf52840", Some(mcu::Target::CortexM4), 64.0),
            ("rpi-3b", None, 1200.0),
        ] {
            let d = p.device(device).unwrap();
            assert_eq!(device_target(d).unwrap(), target, "{device}");
            assert_eq!(d.clock_mhz.value, mhz, "{device}");
            if let Some(t) = &d.simulated_target {
                assert!(t.source.is_some(), "{device}: target without a source");
            }
        }
        let mkr = p.device("mkr-wan-1300").unwrap();
        assert_eq!(mkr.flash_wait_states.as_ref().map(|w| w.value), Some(1));
    }

    #[test]
    fn an_unknown_target_in_a_profile_is_an_error() {
        let mut d = crate::data::profiles(None)
            .unwrap()
            .device("sodaq-mbili")
            .unwrap()
            .clone();
        d.simulated_target = Some(link::figure::Figure::sourced("pdp-11".to_string(), "x"));
        let err = device_target(&d).unwrap_err();
        assert!(
            err.is_invalid() && err.to_string().contains("pdp-11"),
            "{err}"
        );
    }
}
