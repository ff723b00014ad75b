//! What SCHC saves on the run's LoRaWAN link, for `run` and the report: an
//! OSCORE reading per message (OSCORE's mandatory algorithm, compressed
//! against not, on the device's own seal path) and an EDHOC session as CoAP
//! carries it (RFC 9528 A.2), compressed against not.

use energy::MessageLoad;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::device_times::DeviceTimes;
use crate::message::Wrap;
use crate::scheme_cost::{HostTiming, Setting, cost_scheme};

/// The OSCORE build the per-message saving is measured with.
pub const SCHEME: &str = "oscore:aes-ccm-16-64-128";

/// One way of sending: its bytes on air and its energy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sent {
    pub on_air_bytes: u32,
    pub frames: u32,
    pub uj: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SchcSavings {
    pub link: String,
    pub device: String,
    pub sample: String,
    pub scheme: String,
    /// One reading in the oscore container, and compressed.
    pub message: [Sent; 2],
    /// EDHOC's four messages as CoAP carries them, and compressed (the
    /// device's radio energy for both directions; its CPU is the same).
    pub session: [Sent; 2],
}

/// On a LoRaWAN link, what SCHC saves; none elsewhere (RFC 9011 is LoRaWAN's).
pub fn on_link(
    setting: &Setting,
    device: Option<&DeviceTimes>,
    sample: &str,
) -> Result<Option<SchcSavings>, Error> {
    if setting.link.lorawan.is_none() {
        return Ok(None);
    }
    let wrap = |compression: Option<&str>| Wrap {
        container: seal::host::container::MessageContainer::Oscore,
        compression: compression.map(str::to_string),
    };
    let mut message = Vec::new();
    for w in [wrap(None), wrap(Some("schc"))] {
        let c = cost_scheme(
            SCHEME,
            w,
            sample,
            None,
            true,
            setting,
            device,
            HostTiming::WhereDeviceHasNone,
        )?;
        let (Some(link), Some(e)) = (&c.link_cost, &c.energy) else {
            return Ok(None);
        };
        message.push(Sent {
            on_air_bytes: link.on_air_bytes,
            frames: link.frames,
            uj: e.message_j * 1e6,
        });
    }
    let rules = schc::rules_file::default_rules().map_err(Error::failed)?;
    let edhoc = handshake::edhoc_on_link(
        3,
        2,
        true,
        setting.link,
        handshake::Fragmentation::Schc,
        Some(&rules),
    )
    .map_err(Error::invalid)?;
    // The same messages as CoAP carries them, uncompressed: each its own frames.
    let mut coap = Sent {
        on_air_bytes: 0,
        frames: 0,
        uj: 0.0,
    };
    let mut packed = Sent {
        on_air_bytes: 0,
        frames: 0,
        uj: 0.0,
    };
    for m in &edhoc.messages {
        let Some(c) = &m.compressed else {
            continue;
        };
        let whole = setting
            .link
            .cost(c.coap_bytes, false)
            .map_err(Error::invalid)?;
        coap.on_air_bytes += whole.on_air_bytes;
        coap.frames += whole.frames;
        coap.uj += radio_uj(setting, m.sender, whole.airtime, whole.rx_time)?;
        packed.on_air_bytes += m.on_air_bytes;
        packed.frames += m.frames;
        packed.uj += radio_uj(setting, m.sender, m.airtime, m.rx_time)?;
    }
    Ok(Some(SchcSavings {
        link: setting.link.name.clone(),
        device: setting.device.name.clone(),
        sample: sample.to_string(),
        scheme: SCHEME.to_string(),
        message: [message[0].clone(), message[1].clone()],
        session: [coap, packed],
    }))
}

/// The device's radio energy for one message: sending its own, receiving
/// the gateway's (both through the receive windows the link model gives).
fn radio_uj(
    setting: &Setting,
    sender: &str,
    airtime: link::Micros,
    rx_time: link::Micros,
) -> Result<f64, Error> {
    let (tx, rx) = match sender {
        "initiator" => (airtime, rx_time),
        _ => (link::Micros::ZERO, airtime),
    };
    let load = MessageLoad {
        cpu_time_s: 0.0,
        airtime: tx,
        rx_time: rx,
        tx_power_dbm: setting.link.tx_power_dbm,
    };
    let e = energy::estimate(
        setting.device,
        setting.radio,
        None,
        &load,
        setting.interval_s,
    )
    .map_err(Error::invalid)?;
    Ok(e.message_j * 1e6)
}

impl SchcSavings {
    /// What `run` prints and the report says: what the reading and the
    /// session cost on air and in energy, compressed against not; a saving
    /// where it is one, a cost where the fragments and their ACK outweigh the
    /// bytes.
    pub fn sentence(&self) -> String {
        let [m0, m1] = &self.message;
        let [s0, s1] = &self.session;
        // "6.3 % less" or, where fragments and their ACK cost more, "0.7 % more".
        let change = |before: f64, after: f64| {
            let pct = (after - before) / before.max(1e-12) * 100.0;
            match pct <= 0.0 {
                true => format!("{:.1} % less", -pct),
                false => format!("{pct:.1} % more"),
            }
        };
        let bytes = match m1.on_air_bytes.cmp(&m0.on_air_bytes) {
            std::cmp::Ordering::Less => format!(" ({} B fewer)", m0.on_air_bytes - m1.on_air_bytes),
            std::cmp::Ordering::Greater => {
                format!(" ({} B more)", m1.on_air_bytes - m0.on_air_bytes)
            }
            std::cmp::Ordering::Equal => String::new(),
        };
        let frames = match m1.frames == m0.frames {
            true => String::new(),
            false => format!(" in {} frames instead of {}", m1.frames, m0.frames),
        };
        format!(
            "SCHC on {} (headers compressed outside and inside OSCORE, RFC 8824 §7.2): a {} reading in {} \
             sends {} B on air instead of {}{bytes}{frames}, {} energy a message on {}; \
             an EDHOC session as CoAP carries it, {} B instead of {}, {} radio energy.",
            self.link,
            self.sample,
            self.scheme,
            m1.on_air_bytes,
            m0.on_air_bytes,
            change(m0.uj, m1.uj),
            self.device,
            s1.on_air_bytes,
            s0.on_air_bytes,
            change(s0.uj, s1.uj),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(on_air_bytes: u32, frames: u32, uj: f64) -> Sent {
        Sent {
            on_air_bytes,
            frames,
            uj,
        }
    }

    fn savings(message: [Sent; 2]) -> SchcSavings {
        SchcSavings {
            link: "lorawan-eu868-dr3".into(),
            device: "sodaq-mbili".into(),
            sample: "chain:10".into(),
            scheme: SCHEME.into(),
            message,
            session: [sent(236, 4, 200.0), sent(188, 4, 160.0)],
        }
    }

    /// A saving reads as one; where an extra fragment and the ACK outweigh
    /// the bytes, the energy reads as a cost, with the frames that explain it.
    #[test]
    fn the_sentence_says_what_schc_saves_and_what_it_costs() {
        let saved = savings([sent(337, 6, 1000.0), sent(319, 6, 977.0)]).sentence();
        assert!(
            saved.contains("sends 319 B on air instead of 337 (18 B fewer), 2.3 % less energy"),
            "{saved}"
        );
        assert!(
            saved.contains("188 B instead of 236, 20.0 % less radio energy"),
            "{saved}"
        );
        let mixed = savings([sent(292, 3, 1000.0), sent(291, 4, 1106.0)]).sentence();
        assert!(
            mixed.contains(
                "291 B on air instead of 292 (1 B fewer) in 4 frames instead of 3, 10.6 % more energy"
            ),
            "{mixed}"
        );
        let worse = savings([sent(292, 3, 1000.0), sent(303, 4, 1128.0)]).sentence();
        assert!(
            worse.contains("303 B on air instead of 292 (11 B more)"),
            "{worse}"
        );
    }
}
