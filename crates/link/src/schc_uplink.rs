//! A SCHC packet on a LoRaWAN link, as RFC 9011's profile sends it uplink:
//! in one frame when it fits, its rule id in FPort (so not in the
//! FRMPayload); otherwise in ACK-on-Error fragments (FPort 20, 10-byte
//! tiles, the All-1 with its 4-byte RCS) of the whole packet, rule id
//! included, and the ACK the device receives after them. What `handshake
//! --fragmentation schc` and `--compression schc` cost.

use serde::Serialize;

use crate::{LinkCost, LinkError, LinkSpec, Micros};

/// A message in RFC 9011's fragments: how many, and the ACK after them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SchcFragments {
    /// Fragment frames, the All-1 included.
    pub fragments: u32,
    /// 10-byte tiles (the last one shorter).
    pub tiles: u32,
    /// ACKs the device receives (one, after the All-1: RFC 9011 §5.6.2 lets
    /// the receiver answer once at the end).
    pub acks: u32,
    /// The ACKs' time on air, which the device spends receiving.
    pub ack_airtime_ms: f64,
}

/// What a SCHC packet costs uplink: each frame's cost, the ACK's time on
/// air (the device's receiver is on for it), and, when fragmented, the summary.
pub struct Uplink {
    pub frames: Vec<LinkCost>,
    pub ack: Micros,
    pub fragments: Option<SchcFragments>,
}

impl Uplink {
    /// The frames as one cost: bytes, frames, time on air and duty cycle
    /// summed (each frame pays its own), the ACK's time on the receiver.
    pub fn total(&self) -> LinkCost {
        let mut total = self.frames[0].clone();
        for f in &self.frames[1..] {
            total.message_bytes += f.message_bytes;
            total.on_air_bytes += f.on_air_bytes;
            total.frames += f.frames;
            total.airtime = total.airtime + f.airtime;
            total.rx_time = total.rx_time + f.rx_time;
            total.delivery = total.delivery + f.delivery;
            total.min_interval = match (total.min_interval, f.min_interval) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            // Each limit's wait adds up frame by frame, as the duty cycle's does.
            for (limit, iv) in &mut total.limits {
                match f.limits.iter().find(|l| l.0 == *limit) {
                    Some(l) => *iv = *iv + l.1,
                    None => *iv = Micros::ZERO,
                }
            }
            total.network_mic_bytes = match (total.network_mic_bytes, f.network_mic_bytes) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
            for w in &f.warnings {
                if !total.warnings.contains(w) {
                    total.warnings.push(w.clone());
                }
            }
        }
        total.rx_time = total.rx_time + self.ack;
        total.max_per_hour = total
            .min_interval
            .filter(|i| i.as_secs() > 0.0)
            .map(|i| (3600.0 / i.as_secs()).floor() as u64);
        if let Some(f) = &self.fragments {
            // The link's own fragment warning does not apply: these are SCHC's.
            total.warnings.retain(|w| !w.contains("fragment header"));
            total.warnings.push(format!(
                "{} B in {} RFC 9011 fragments ({} tiles, ACK-on-Error) and an ACK of {:.3} ms",
                total.message_bytes, f.fragments, f.tiles, f.ack_airtime_ms
            ));
        }
        total
    }
}

/// How a SCHC packet goes uplink: whole, or in fragments.
pub enum Outgoing {
    /// One frame: its rule id as the FPort, the rest of the packet the payload.
    /// RFC 9011 acknowledges no unfragmented uplink.
    Whole(schc::fragment::Frame),
    /// ACK-on-Error fragments (FPort 20), whose sender answers the ACKs.
    Fragments(schc::fragment::Sender),
}

/// The one decision, for the cost and the live sender (crates/live
/// `schc_radio`): `packet` (its `rule_id_bits`-bit rule id first) goes whole
/// when its rule id is FPort's 8 bits and the rest fits a frame of `mtu`
/// bytes, else in fragments for such frames.
pub fn outgoing(
    packet: &schc::Bits,
    rule_id_bits: usize,
    mtu: usize,
) -> Result<Outgoing, schc::SchcError> {
    let rest = packet.slice(rule_id_bits.min(packet.len()), packet.len());
    let payload = rest.as_padded_bytes().to_vec();
    if rule_id_bits == 8 && payload.len() <= mtu {
        let fport = packet.slice(0, 8).to_uint().unwrap_or(0) as u8;
        return Ok(Outgoing::Whole(schc::fragment::Frame { fport, payload }));
    }
    let profile = schc::fragment::Profile::RFC9011_UPLINK;
    schc::fragment::Sender::new(profile, packet, mtu).map(Outgoing::Fragments)
}

/// `packet` (the whole SCHC packet, its `rule_id_bits`-bit rule id first)
/// uplink on `link`, which must be LoRaWAN.
pub fn uplink(
    link: &LinkSpec,
    packet: &schc::Bits,
    rule_id_bits: usize,
) -> Result<Uplink, LinkError> {
    if link.lorawan.is_none() {
        return Err(LinkError::invalid(format!(
            "SCHC's LoRaWAN profile (RFC 9011) needs a LoRaWAN link; {} is a {} link",
            link.name,
            link.kind()
        )));
    }
    let capacity = link.frame_capacity()?;
    let refused =
        |e: schc::SchcError| LinkError::invalid(format!("SCHC fragments on {}: {e}", link.name));
    let sender = match outgoing(packet, rule_id_bits, capacity as usize).map_err(refused)? {
        Outgoing::Whole(frame) => {
            return Ok(Uplink {
                frames: vec![link.cost(frame.payload.len() as u32, false)?],
                ack: Micros::ZERO,
                fragments: None,
            });
        }
        Outgoing::Fragments(sender) => sender,
    };
    let profile = schc::fragment::Profile::RFC9011_UPLINK;
    let frames = sender
        .fragments()
        .iter()
        .map(|f| link.cost(f.payload.len() as u32, false))
        .collect::<Result<Vec<_>, _>>()?;
    let ack_bytes = schc::fragment::Ack::Complete { window: 0 }
        .frame(&profile)
        .payload
        .len();
    // The ACK comes down in the receive window after the All-1 (`downlink`).
    let ack = crate::downlink::cost(link, ack_bytes as u32)?.rx_time;
    Ok(Uplink {
        fragments: Some(SchcFragments {
            fragments: frames.len() as u32,
            tiles: sender.tiles() as u32,
            acks: 1,
            ack_airtime_ms: ack.as_ms(),
        }),
        frames,
        ack,
    })
}
