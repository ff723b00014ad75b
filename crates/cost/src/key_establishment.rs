//! Classical, hybrid and post-quantum key establishment side by side, per
//! device and link: what `run` stores for the report's "Key establishment"
//! section. Each protocol's handshake is costed on the device from its own
//! simulated cycles (or said not to fit), beside one message of the scheme
//! the session keys, so that the session length from which each stops
//! mattering can be read off and drawn.

use serde::{Deserialize, Serialize};
use store::Store;

use crate::Error;
use crate::data::{links, profiles};
use crate::scheme_cost::{HostTiming, Setting, cost_scheme};
use crate::session::{SessionAnswer, answer, establishments_on_device};

/// Every setting's key establishments, for one keyed scheme and reading.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Comparison {
    /// The pre-shared-key scheme each session keys (the run's recommendation).
    pub scheme: String,
    pub sample: String,
    pub settings: Vec<SettingComparison>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SettingComparison {
    pub device: String,
    pub link: String,
    /// One sealed message's energy on this device and link, µJ (none: the
    /// device has no time for the scheme), and where its CPU time comes from.
    pub message_uj: Option<f64>,
    pub cpu_time_source: String,
    /// One answer per protocol of `handshake::SESSION_PROTOCOLS`, at one
    /// message per session (the answer's N only scales its share).
    pub answers: Vec<SessionAnswer>,
}

/// Costs [`handshake::SESSION_PROTOCOLS`] on every device × link pair, each
/// beside one `scheme` message carrying `sample` (JSON container).
pub fn compare(
    store: &Store,
    scheme: &str,
    sample: &str,
    devices: &[&str],
    link_names: &[&str],
    interval_s: f64,
    data_dir: Option<&std::path::Path>,
) -> Result<Comparison, Error> {
    let prof = profiles(data_dir)?;
    let cat = links(data_dir)?;
    let mut settings = Vec::new();
    for name in devices {
        let device = prof.device(name).map_err(Error::invalid)?;
        let device_times = crate::device_times::for_device(store, device)?;
        for link_name in link_names {
            let link = cat.get(link_name).map_err(Error::invalid)?;
            let radio = prof.radio_for(device, link).map_err(Error::invalid)?.radio;
            let setting = Setting {
                device,
                radio,
                link,
                battery: None,
                interval_s,
                protocol: Default::default(),
            };
            let cost = cost_scheme(
                scheme,
                seal::Container::Json,
                sample,
                None,
                true,
                &setting,
                device_times.as_ref(),
                HostTiming::WhereDeviceHasNone,
            )?;
            let measured = cost.cpu_source.is_device();
            let message_uj = cost
                .energy
                .as_ref()
                .filter(|_| measured)
                .map(|e| e.message_j * 1e6);
            let answers = establishments_on_device(device, radio, link)?
                .iter()
                .map(|(c, on)| answer(c, on, scheme, message_uj.unwrap_or(0.0), 1))
                .collect();
            settings.push(SettingComparison {
                device: device.name.clone(),
                link: link.name.clone(),
                message_uj,
                cpu_time_source: cost.cpu_source.describe(),
                answers,
            });
        }
    }
    Ok(Comparison {
        scheme: scheme.to_string(),
        sample: sample.to_string(),
        settings,
    })
}
