//! What a link's protocol costs around and between messages, as its data file
//! says (`[link.protocol]`): a BLE connection's empty events or advertising, an 802.15.4 MAC's
//! CSMA-CA, radio start-up and a sleepy end device's polls, a cellular modem's
//! connection, RRC inactivity, paging and PSM. The figures only; the energy
//! they cost at a message interval is `energy::protocol`.

use serde::{Deserialize, Serialize};

use crate::error::LinkError;
use crate::figure::Figure;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ProtocolSpec {
    /// A BLE peripheral in a connection: one connection event every
    /// interval × (1 + peripheral latency), empty when there is nothing to send.
    BleConnection(BleConnection),
    /// A BLE broadcaster: connectionless advertising events, each the
    /// latest reading on the three primary channels, every advertising
    /// interval plus its random delay.
    BleAdvertising(BleAdvertising),
    /// An IEEE 802.15.4 MAC: unslotted CSMA-CA before each frame and, for a
    /// sleepy end device, a data request to its parent every poll period.
    Ieee802154(Mac802154),
    /// LTE-M or NB-IoT from power saving mode: a connection per message, the
    /// network's RRC inactivity timer, paging during the active time, PSM.
    Cellular(Cellular),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BleConnection {
    /// Connection interval, ms (multiple of 1.25 ms, 7.5 ms to 4 s).
    pub conn_interval_ms: Figure<f64>,
    /// Connection events the peripheral may skip when it has nothing to send.
    pub peripheral_latency: Figure<u32>,
    /// An empty data PDU on air, µs (sent and received in every event).
    pub empty_pdu_us: Figure<f64>,
    /// Sleep clock accuracy of both sides together, ppm: the receive window
    /// widens by this share of the time since the last anchor.
    pub sleep_clock_ppm: Figure<f64>,
    /// Receive-window margin for the central's clock jitter, µs.
    pub window_margin_us: Figure<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BleAdvertising {
    /// advInterval, ms (legacy advertising: 20 ms to 10.24 s in 0.625 ms steps).
    pub adv_interval_ms: Figure<f64>,
    /// Mean of advDelay, the random 0-10 ms added to each interval, ms.
    pub adv_delay_ms: Figure<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mac802154 {
    /// aUnitBackoffPeriod, µs.
    pub unit_backoff_us: Figure<f64>,
    /// macMinBE: the first back-off is uniform in 0..2^BE-1 unit periods.
    pub min_be: Figure<u32>,
    /// macMaxBE: the exponent's cap on retries (a busy channel; not modelled).
    pub max_be: Figure<u32>,
    /// Clear channel assessment, µs of listening.
    pub cca_us: Figure<f64>,
    /// Whether the receiver is counted on during the back-off.
    pub backoff_listens: Figure<bool>,
    /// A sleepy end device's data poll period, s (none: the device does not poll).
    #[serde(default)]
    pub poll_period_s: Option<Figure<f64>>,
    /// A data request (MAC command) frame on air, bytes.
    #[serde(default)]
    pub poll_frame_bytes: Option<Figure<u32>>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cellular {
    /// Energy of one connection from PSM (random access, RRC set-up, a small
    /// uplink, release), J at the radio's voltage.
    pub connect_j: Figure<f64>,
    /// Its duration, s.
    pub connect_s: Figure<f64>,
    /// The network's RRC inactivity timer: connected after the data, s.
    pub rrc_inactivity_s: Figure<f64>,
    /// Mean current while connected waiting out the inactivity timer, mA.
    pub connected_ma: Figure<f64>,
    /// Charge of one paging occasion in idle mode, µC above the PSM floor.
    pub paging_uc: Figure<f64>,
    /// Idle-mode paging (DRX) cycle without eDRX, s.
    pub drx_cycle_s: Figure<f64>,
    /// eDRX cycle, s (none: eDRX off, paging every DRX cycle).
    #[serde(default)]
    pub edrx_s: Option<Figure<f64>>,
    /// T3324, the active time: idle with paging after release before PSM, s.
    pub active_time_s: Figure<f64>,
    /// T3412 extended, the periodic tracking area update timer, s.
    pub tau_s: Figure<f64>,
    /// Energy of one periodic TAU from PSM, J at the radio's voltage.
    pub tau_j: Figure<f64>,
}

impl ProtocolSpec {
    /// "ble-connection", "ble-advertising", "ieee802154" or "cellular".
    pub fn kind(&self) -> &'static str {
        match self {
            ProtocolSpec::BleConnection(_) => "ble-connection",
            ProtocolSpec::BleAdvertising(_) => "ble-advertising",
            ProtocolSpec::Ieee802154(_) => "ieee802154",
            ProtocolSpec::Cellular(_) => "cellular",
        }
    }

    /// Every figure says where it comes from, and none is negative.
    pub fn validate(&self, who: &str) -> Result<(), LinkError> {
        let mut floats: Vec<(&str, &Figure<f64>)> = Vec::new();
        match self {
            ProtocolSpec::BleConnection(b) => {
                floats.extend([
                    ("conn_interval_ms", &b.conn_interval_ms),
                    ("empty_pdu_us", &b.empty_pdu_us),
                    ("sleep_clock_ppm", &b.sleep_clock_ppm),
                    ("window_margin_us", &b.window_margin_us),
                ]);
                b.peripheral_latency.check(who, "peripheral_latency")?;
            }
            ProtocolSpec::BleAdvertising(a) => {
                floats.extend([
                    ("adv_interval_ms", &a.adv_interval_ms),
                    ("adv_delay_ms", &a.adv_delay_ms),
                ]);
            }
            ProtocolSpec::Ieee802154(m) => {
                floats.extend([
                    ("unit_backoff_us", &m.unit_backoff_us),
                    ("cca_us", &m.cca_us),
                ]);
                m.min_be.check(who, "min_be")?;
                m.max_be.check(who, "max_be")?;
                m.backoff_listens.check(who, "backoff_listens")?;
                if let Some(p) = &m.poll_period_s {
                    floats.push(("poll_period_s", p));
                }
                if let Some(f) = &m.poll_frame_bytes {
                    f.check(who, "poll_frame_bytes")?;
                }
                if m.poll_period_s.is_some() != m.poll_frame_bytes.is_some() {
                    return Err(LinkError::Data(format!(
                        "{who}: poll_period_s and poll_frame_bytes go together"
                    )));
                }
                if m.min_be.value > m.max_be.value {
                    return Err(LinkError::Data(format!("{who}: min_be above max_be")));
                }
            }
            ProtocolSpec::Cellular(c) => {
                floats.extend([
                    ("connect_j", &c.connect_j),
                    ("connect_s", &c.connect_s),
                    ("rrc_inactivity_s", &c.rrc_inactivity_s),
                    ("connected_ma", &c.connected_ma),
                    ("paging_uc", &c.paging_uc),
                    ("drx_cycle_s", &c.drx_cycle_s),
                    ("active_time_s", &c.active_time_s),
                    ("tau_s", &c.tau_s),
                    ("tau_j", &c.tau_j),
                ]);
                if let Some(e) = &c.edrx_s {
                    floats.push(("edrx_s", e));
                }
            }
        }
        for (name, f) in floats {
            f.check(who, name)?;
            if !(f.value.is_finite() && f.value >= 0.0) {
                return Err(LinkError::Data(format!(
                    "{who}: protocol figure '{name}' must be zero or positive"
                )));
            }
        }
        Ok(())
    }
}
