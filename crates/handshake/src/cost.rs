//! A handshake's messages on a link: each message's bytes, frames and time
//! on air, who sends it, and how long the duty cycle holds its sender back.
//!
//! The device's messages are costed with the link's own model
//! (`link::LinkSpec::cost`), the responder's (message_2, message_4) as the
//! link's downlink carries them (`link::downlink`): LoRaWAN in RX1 after the
//! device's uplink, within that data rate's limit; Sigfox in one 8-byte
//! downlink the device asks for; BLE, 802.15.4 and the others as the device
//! sends. A message no downlink carries refuses the handshake
//! ([`HandshakeError::Downlink`]).

use serde::Serialize;

use crate::edhoc::{Role, Transcript};
use crate::error::HandshakeError;

#[derive(Clone, Debug, Serialize)]
pub struct MessageCost {
    pub message: &'static str,
    /// `initiator` (the device) or `responder` (the gateway or server).
    pub sender: &'static str,
    pub bytes: u32,
    pub frames: u32,
    pub on_air_bytes: u32,
    pub airtime_ms: f64,
    /// The duty cycle's earliest next transmission by the same sender, after this one.
    pub min_interval_s: Option<f64>,
    /// Sent in application fragments, each in its own frame with this header
    /// (a message larger than one frame the protocol does not fragment itself).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment_header_bytes: Option<u32>,
    /// Sent in RFC 9011's SCHC fragments instead (`--fragmentation schc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schc: Option<SchcFragments>,
    /// Carried by CoAP and compressed with SCHC (`--compression schc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed: Option<Compressed>,
    /// The responder's message: how the link's downlink brings it to the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub downlink: Option<Downlink>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The device firmware's operations that write and read this message.
    #[serde(skip)]
    pub device_ops: DeviceOps,
    /// The duty cycle's wait between this message's first and last frame.
    #[serde(skip)]
    pub within_wait_s: f64,
    /// Exact transmitter-on time (`airtime_ms` is its rounding) and the
    /// device's receiver-on time: the receive windows after its own frames,
    /// or, for the responder's message, its downlink's listening.
    #[serde(skip)]
    pub airtime: link::Micros,
    #[serde(skip)]
    pub rx_time: link::Micros,
}

/// How a responder's message reaches the device (`link::downlink`).
#[derive(Clone, Debug, Serialize)]
pub struct Downlink {
    /// `symmetric`, `class-a` or `on-request`.
    pub mode: link::downlink::Mode,
    /// The window or way it comes, in words.
    pub how: String,
    /// The device's wait, radio off, from the end of its uplink to the window.
    pub wait_s: f64,
    /// The device's receiver-on time for it (the frames, or the whole window).
    pub listen_ms: f64,
    /// Each downlink answers an uplink of the device's that asks for it.
    pub answers_uplink: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// One measured firmware operation: the build that carries it and its name
/// in that build's rows of the device cost tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceOp {
    pub build: &'static str,
    pub op: &'static str,
}

/// What writing and reading one message costs on the device: one or more
/// operations each (a signed KEM ciphertext: encapsulate, then sign).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceOps {
    pub write: Vec<DeviceOp>,
    pub read: Vec<DeviceOp>,
}

impl DeviceOps {
    /// One operation of `build` on each side.
    pub fn one(build: &'static str, write: &'static str, read: &'static str) -> DeviceOps {
        DeviceOps {
            write: vec![DeviceOp { build, op: write }],
            read: vec![DeviceOp { build, op: read }],
        }
    }
}

/// What protects the key a handshake establishes, against which attacker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Elliptic-curve Diffie-Hellman only: broken by a quantum computer.
    Classical,
    /// A classical and a post-quantum KEM combined: safe while either holds.
    Hybrid,
    /// Post-quantum only (ML-KEM, ML-DSA).
    PostQuantum,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Classical => "classical",
            Class::Hybrid => "hybrid",
            Class::PostQuantum => "post-quantum",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct HandshakeCost {
    pub protocol: String,
    pub class: Class,
    /// Both parties authenticated (EDHOC method 3, a signed KEM ciphertext);
    /// false: only the gateway, implicitly (only it can decapsulate).
    pub mutual_authentication: bool,
    /// EDHOC's method and cipher suite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<u8>,
    pub link: String,
    pub messages: Vec<MessageCost>,
    pub total_bytes: u32,
    pub total_frames: u32,
    pub total_airtime_ms: f64,
    /// The device's (initiator's) own messages' time on air: its radio's share.
    pub initiator_airtime_ms: f64,
    /// What the device must wait under the duty cycle between its first and
    /// last message (message_1's frames must be paid off before message_3).
    pub initiator_duty_wait_s: f64,
    /// What the device waits for the responder's downlinks, radio off, from
    /// the end of its uplink to each receive window (LoRaWAN's RX1 delay,
    /// Sigfox's 20 s); its listening is in their `listen_ms`.
    pub initiator_downlink_wait_s: f64,
    /// The context the handshake exported, as OSCORE's (RFC 9528 A.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oscore_alg: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oscore_sender_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oscore_recipient_id: Option<String>,
    /// Where a handshake no library runs here takes its sizes from (a
    /// draft and its sections: [`crate::edhoc_drafts`]), or which draft a
    /// run one implements (EDHOC-PSK: [`crate::edhoc_psk`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Why the handshake cannot run on the link (a message no downlink
    /// carries); then nothing above is costed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// How a message longer than one frame is cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fragmentation {
    /// The sealing core's fragments (`seal::fragment`): a 2-byte header each.
    #[default]
    Ciphermeter,
    /// RFC 9011's SCHC ACK-on-Error uplink fragments (FPort 20, 10-byte
    /// tiles, the last in the All-1 with its 4-byte RCS), and the ACK the
    /// device receives after them.
    Schc,
}

impl Fragmentation {
    /// Refuses SCHC's fragmentation on a link that is not LoRaWAN: RFC 9011 is its profile.
    pub fn check(self, link: &link::LinkSpec) -> Result<(), HandshakeError> {
        if self == Fragmentation::Schc && link.lorawan.is_none() {
            return Err(HandshakeError::Usage(format!(
                "--fragmentation schc is RFC 9011's, for LoRaWAN links; {} is not one",
                link.name
            )));
        }
        Ok(())
    }

    pub fn parse(name: &str) -> Result<Fragmentation, HandshakeError> {
        match name {
            "ciphermeter" => Ok(Fragmentation::Ciphermeter),
            "schc" => Ok(Fragmentation::Schc),
            other => Err(HandshakeError::Usage(format!(
                "unknown fragmentation '{other}': ciphermeter (the sealing core's 2-byte \
                 fragment header) or schc (RFC 9011)"
            ))),
        }
    }
}

pub use link::schc_uplink::SchcFragments;

/// A message as CoAP carries it (RFC 9528 A.2), compressed with SCHC.
#[derive(Clone, Debug, Serialize)]
pub struct Compressed {
    /// The CoAP message: header, token, options and the EDHOC message.
    pub coap_bytes: u32,
    pub rule_id: u64,
    /// The SCHC packet, its rule id included.
    pub packet_bytes: u32,
}

/// The device firmware's operations for each EDHOC message: method 3's
/// build ([`crate::edhoc::DEVICE_BUILD`]) measures them; EDHOC-PSK's
/// (`edhoc-psk-s2`) is not built, so a device says so.
fn edhoc_ops(method: crate::edhoc::Method, message: &str) -> DeviceOps {
    let (write, read) = match message {
        "message_1" => ("m1-write", "m1-read"),
        "message_2" => ("m2-write", "m2-read"),
        "message_3" => ("m3-write", "m3-read"),
        _ => ("m4-write", "m4-read"),
    };
    let build = match method {
        crate::edhoc::Method::PSK => "edhoc-psk-s2",
        _ => crate::edhoc::DEVICE_BUILD,
    };
    DeviceOps::one(build, write, read)
}

/// What `transcript`'s messages cost on `link`: bare, or with `compression`
/// as CoAP carries them (RFC 9528 A.2, [`crate::coap_carried`]) compressed
/// with SCHC, uplink as RFC 9011 sends a SCHC packet.
pub fn cost(
    transcript: &Transcript,
    link: &link::LinkSpec,
    fragmentation: Fragmentation,
    compression: Option<&schc::RuleSet>,
) -> Result<HandshakeCost, HandshakeError> {
    fragmentation.check(link)?;
    if compression.is_some() && link.lorawan.is_none() {
        return Err(HandshakeError::Usage(format!(
            "--compression schc is costed as RFC 9011 sends it, on LoRaWAN links; {} is not one",
            link.name
        )));
    }
    let carried = compression.map(|_| crate::coap_carried::carried(transcript));
    let mut messages = Vec::new();
    for (i, (name, role, bytes)) in transcript.messages().into_iter().enumerate() {
        let (sender, way) = match role {
            Role::Initiator => ("initiator", schc::Direction::Up),
            Role::Responder => ("responder", schc::Direction::Down),
        };
        let packet = match (compression, &carried) {
            (Some(rules), Some(coap)) => Some(
                schc::compress(rules, &coap[i], way)
                    .map_err(|e| HandshakeError::Usage(format!("--compression schc: {e}")))?,
            ),
            _ => None,
        };
        let mut m = match role {
            Role::Initiator => message_cost(
                name,
                sender,
                bytes.len() as u32,
                (false, fragmentation),
                edhoc_ops(transcript.method, name),
                link,
                packet.as_ref(),
            )?,
            // Compressed, the SCHC packet goes down whole, its rule id in FPort.
            Role::Responder => downlink_cost(
                name,
                bytes.len() as u32,
                packet
                    .as_ref()
                    .map_or(bytes.len(), |p| p.after_rule_id().len()) as u32,
                edhoc_ops(transcript.method, name),
                link,
            )?,
        };
        if let (Some(p), Some(coap)) = (&packet, &carried) {
            m.compressed = Some(Compressed {
                coap_bytes: coap[i].len() as u32,
                rule_id: p.rule_id.to_uint().unwrap_or(0),
                packet_bytes: p.bits.as_padded_bytes().len() as u32,
            });
        }
        messages.push(m);
    }
    // Every downlink that answers an uplink counts against the link's day.
    let downlinks = messages
        .iter()
        .filter(|m| m.downlink.as_ref().is_some_and(|d| d.answers_uplink))
        .map(|m| m.frames)
        .sum();
    link::downlink::check_per_day(link, downlinks).map_err(|reason| HandshakeError::Downlink {
        message: "the responder's messages",
        reason,
    })?;
    let mut cost = totals("edhoc".into(), Class::Classical, messages, link);
    cost.method = Some(transcript.method.number());
    cost.suite = Some(transcript.suite.number());
    cost.oscore_alg = Some(transcript.suite.oscore_alg());
    cost.oscore_sender_id = Some(hex::encode(&transcript.initiator.sender_id));
    cost.oscore_recipient_id = Some(hex::encode(&transcript.initiator.recipient_id));
    if transcript.method == crate::edhoc::Method::PSK {
        cost.source = Some(crate::edhoc_psk::SOURCE.into());
    }
    Ok(cost)
}

/// One message on `link`: whole when it fits one frame or the protocol does
/// not fragment it (`fragmented` false: the link model splits it into
/// frames as it splits any message), else in fragments of one frame each,
/// each carrying the header and as much of the message as fits.
pub(crate) fn message_cost(
    name: &'static str,
    sender: &'static str,
    bytes: u32,
    (fragmented, fragmentation): (bool, Fragmentation),
    device_ops: DeviceOps,
    link: &link::LinkSpec,
    packet: Option<&schc::Compressed>,
) -> Result<MessageCost, HandshakeError> {
    let whole = link.cost(bytes, false)?;
    let capacity = whole.frame_capacity;
    // A compressed message goes as RFC 9011 sends a SCHC packet.
    let schc = match packet {
        Some(p) => Some(schc_packet(name, p, link)?),
        None => (fragmentation == Fragmentation::Schc && bytes > capacity)
            .then(|| schc_parts(name, sender, bytes, link))
            .transpose()?
            .map(|(frames, ack, summary)| (frames, ack, Some(summary))),
    };
    let fragment_header =
        (fragmented && bytes > capacity && schc.is_none()).then_some(seal::fragment::HEADER as u32);
    let mut parts = Vec::new();
    let mut acks = None;
    match (fragment_header, schc) {
        (_, Some((frames, ack, summary))) => {
            parts = frames;
            acks = summary.map(|s| (ack, s));
        }
        (None, None) => parts.push(whole),
        // The sealing core's fragments, cut as link::fragments cuts every
        // message; each frame costed on its own.
        (Some(_), None) => {
            for n in link::fragments::sizes(bytes, capacity, &link.name)? {
                parts.push(link.cost(n, false)?);
            }
        }
    }
    let mut warnings = Vec::new();
    for w in parts.iter().flat_map(|c| c.warnings.iter()) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    // Each part's interval already covers all of its frames (a link cost's
    // `min_interval` is the whole message's), so the parts' add up.
    let interval = parts
        .iter()
        .map(|c| c.min_interval.map(|i| i.as_secs()))
        .sum::<Option<f64>>();
    // Every frame's interval but the last one's passes before it is all sent;
    // a part the link cut into frames is taken as frames of equal share.
    let last = parts
        .last()
        .and_then(|c| c.min_interval.map(|i| i.as_secs() / c.frames.max(1) as f64))
        .unwrap_or(0.0);
    let within_wait_s = interval.map_or(0.0, |i| i - last);
    Ok(MessageCost {
        message: name,
        sender,
        bytes,
        frames: parts.iter().map(|c| c.frames).sum(),
        on_air_bytes: parts.iter().map(|c| c.on_air_bytes).sum(),
        airtime_ms: parts.iter().map(|c| c.airtime.as_ms()).sum(),
        min_interval_s: interval,
        fragment_header_bytes: fragment_header,
        warnings,
        device_ops,
        within_wait_s,
        airtime: parts.iter().fold(link::Micros::ZERO, |t, c| t + c.airtime),
        // The ACK fills the receive window after the All-1.
        rx_time: parts.iter().fold(link::Micros::ZERO, |t, c| t + c.rx_time)
            + acks.as_ref().map_or(link::Micros::ZERO, |(ack, _)| *ack),
        schc: acks.map(|(_, summary)| summary),
        compressed: None,
        downlink: None,
    })
}

/// The device's message compressed with SCHC (CoAP-carried, `--compression
/// schc`), uplink as RFC 9011 sends it (one frame, the rule id in FPort, or
/// fragments and their ACK). The responder's go down whole ([`downlink_cost`]).
#[allow(clippy::type_complexity)]
fn schc_packet(
    name: &str,
    packet: &schc::Compressed,
    link: &link::LinkSpec,
) -> Result<(Vec<link::LinkCost>, link::Micros, Option<SchcFragments>), HandshakeError> {
    let up = link::schc_uplink::uplink(link, &packet.bits, packet.rule_id.len())
        .map_err(|e| HandshakeError::Usage(format!("{name} on {}: {e}", link.name)))?;
    Ok((up.frames, up.ack, up.fragments))
}

/// A responder's message as a refusal names it.
fn downlink_name(name: &str) -> &'static str {
    match name {
        "message_2" => "message_2 (the responder's)",
        "message_4" => "message_4 (the responder's)",
        _ => "the responder's message",
    }
}

/// The responder's message of `bytes`, `sent` of them on the link (fewer
/// when compressed), as the link's downlink brings it to the device: its
/// frames, the sender's time on air, the device's wait and listening. A
/// message no downlink carries refuses the handshake.
pub(crate) fn downlink_cost(
    name: &'static str,
    bytes: u32,
    sent: u32,
    device_ops: DeviceOps,
    link: &link::LinkSpec,
) -> Result<MessageCost, HandshakeError> {
    let d = link::downlink::cost(link, sent).map_err(|reason| match reason {
        link::LinkError::DownlinkRefused { .. } => HandshakeError::Downlink {
            message: downlink_name(name),
            reason,
        },
        other => HandshakeError::Link(other),
    })?;
    Ok(MessageCost {
        message: name,
        sender: "responder",
        bytes,
        frames: d.frames,
        on_air_bytes: d.on_air_bytes,
        airtime_ms: d.airtime.as_ms(),
        min_interval_s: d.min_interval.map(|i| i.as_secs()),
        fragment_header_bytes: None,
        schc: None,
        compressed: None,
        warnings: d.warnings,
        device_ops,
        within_wait_s: 0.0,
        airtime: d.airtime,
        rx_time: d.rx_time,
        downlink: Some(Downlink {
            mode: d.mode,
            how: d.how,
            wait_s: d.wait.as_secs(),
            listen_ms: d.rx_time.as_ms(),
            answers_uplink: d.answers_uplink,
            notes: d.notes,
        }),
    })
}

/// `bytes` in RFC 9011's uplink fragments (`link::schc_uplink`): each
/// fragment's cost, the ACK's time on air, and the summary. The SCHC
/// packet is the message under the no-compression rule (22), whose id
/// travels inside it (RFC 9011 A.2). A responder's message would need the
/// downlink profile (ACK-Always), which is not costed here.
fn schc_parts(
    name: &str,
    sender: &str,
    bytes: u32,
    link: &link::LinkSpec,
) -> Result<(Vec<link::LinkCost>, link::Micros, SchcFragments), HandshakeError> {
    if sender != "initiator" {
        return Err(HandshakeError::Usage(format!(
            "{name} ({bytes} B) needs fragments downlink on {}: RFC 9011's downlink \
             fragmentation (ACK-Always) is not costed here; use --fragmentation ciphermeter",
            link.name
        )));
    }
    let mut packet = schc::Bits::from_uint(22, 8);
    packet.push(&schc::Bits::from_bytes(&vec![0; bytes as usize]));
    let uplink = link::schc_uplink::uplink(link, &packet, 8)
        .map_err(|e| HandshakeError::Usage(format!("{name} on {}: {e}", link.name)))?;
    let summary = uplink.fragments.ok_or_else(|| {
        HandshakeError::Protocol(format!("{name} ({bytes} B) fits one frame: no fragments"))
    })?;
    Ok((uplink.frames, uplink.ack, summary))
}

/// The handshake's totals over its messages.
pub(crate) fn totals(
    protocol: String,
    class: Class,
    messages: Vec<MessageCost>,
    link: &link::LinkSpec,
) -> HandshakeCost {
    let initiator: Vec<&MessageCost> = messages
        .iter()
        .filter(|m| m.sender == "initiator")
        .collect();
    // The device waits out the duty cycle between its own messages, and
    // between the frames of its last one: then the key can exist.
    let initiator_duty_wait_s = match initiator.split_last() {
        None => 0.0,
        Some((last, before)) => {
            before
                .iter()
                .map(|m| m.min_interval_s.unwrap_or(0.0))
                .sum::<f64>()
                + last.within_wait_s
        }
    };
    HandshakeCost {
        protocol,
        class,
        mutual_authentication: true,
        method: None,
        suite: None,
        link: link.name.clone(),
        total_bytes: messages.iter().map(|m| m.bytes).sum(),
        total_frames: messages.iter().map(|m| m.frames).sum(),
        total_airtime_ms: messages.iter().map(|m| m.airtime_ms).sum(),
        initiator_airtime_ms: initiator.iter().map(|m| m.airtime_ms).sum(),
        initiator_duty_wait_s,
        initiator_downlink_wait_s: messages
            .iter()
            .filter_map(|m| m.downlink.as_ref())
            .fold(0.0, |t, d| t + d.wait_s),
        messages,
        oscore_alg: None,
        oscore_sender_id: None,
        oscore_recipient_id: None,
        source: None,
        refused: None,
    }
}

impl HandshakeCost {
    /// `protocol` refused on `link` for `why`: no messages, nothing costed.
    pub fn refused(
        protocol: &str,
        class: Class,
        link: &link::LinkSpec,
        why: &HandshakeError,
    ) -> Self {
        HandshakeCost {
            refused: Some(why.to_string()),
            ..totals(protocol.into(), class, Vec::new(), link)
        }
    }
}

impl HandshakeCost {
    /// The table `handshake` prints.
    pub fn text(&self) -> String {
        let title = match (self.method, self.suite) {
            (Some(m), Some(s)) => format!("EDHOC method {m} suite {s}"),
            _ => format!("{} ({})", self.protocol, self.class.as_str()),
        };
        let title = match &self.source {
            Some(s) => format!("{title}, {s},"),
            None => title,
        };
        let mut out = format!(
            "{title} on {}\n{:<10} {:<9} {:>5} {:>6} {:>12} {:>14}\n",
            self.link, "message", "sender", "bytes", "frames", "airtime ms", "duty cycle s"
        );
        for m in &self.messages {
            let wait = m
                .min_interval_s
                .map_or_else(|| "-".to_string(), |w| format!("{w:.1}"));
            out.push_str(&format!(
                "{:<10} {:<9} {:>5} {:>6} {:>12.1} {:>14}\n",
                m.message, m.sender, m.bytes, m.frames, m.airtime_ms, wait
            ));
            if let Some(h) = m.fragment_header_bytes {
                out.push_str(&format!(
                    "           in {} fragments, each in its own frame with a {h}-byte fragment header\n",
                    m.frames
                ));
            }
            if let Some(c) = &m.compressed {
                out.push_str(&format!(
                    "           in CoAP (RFC 9528 A.2): {} B, SCHC rule {}: {} B, the rule id in FPort\n",
                    c.coap_bytes, c.rule_id, c.packet_bytes
                ));
            }
            if let Some(d) = &m.downlink {
                out.push_str(&format!(
                    "           down {}; the device listens {:.1} ms\n",
                    d.how, d.listen_ms
                ));
            }
            if let Some(s) = &m.schc {
                out.push_str(&format!(
                    "           in {} RFC 9011 SCHC fragments ({} tiles, the last in the All-1 with its \
                     4-byte RCS), then {} ACK the device receives ({:.1} ms on air)\n",
                    s.fragments, s.tiles, s.acks, s.ack_airtime_ms
                ));
            }
        }
        out.push_str(&format!(
            "{:<10} {:<9} {:>5} {:>6} {:>12.1}\n",
            "total", "", self.total_bytes, self.total_frames, self.total_airtime_ms
        ));
        // A note of the link's downlink (a sleepy 802.15.4 device's polls), once.
        if let Some(n) = self
            .messages
            .iter()
            .find_map(|m| m.downlink.as_ref().and_then(|d| d.notes.as_ref()))
        {
            out.push_str(&format!("down: {n}\n"));
        }
        out.push_str(&format!(
            "the device waits {:.1} s under the duty cycle before the key exists",
            self.initiator_duty_wait_s
        ));
        // The table's duty-cycle column runs to when the device may send again,
        // so it counts the last frame's interval too: say how the two relate.
        let claimed: f64 = self
            .messages
            .iter()
            .filter(|m| m.sender == "initiator")
            .filter_map(|m| m.min_interval_s)
            .sum();
        let after = claimed - self.initiator_duty_wait_s;
        if after > 0.05 {
            out.push_str(&format!(
                " (its {claimed:.1} s of duty cycle above, less the {after:.1} s after its last frame, before it may send again)"
            ));
        }
        let down: Vec<&Downlink> = self
            .messages
            .iter()
            .filter_map(|m| m.downlink.as_ref())
            .collect();
        if !down.is_empty() {
            out.push_str(&format!(
                "; for the responder's messages it waits {:.1} s more, radio off, and listens {:.1} ms",
                self.initiator_downlink_wait_s,
                down.iter().map(|d| d.listen_ms).sum::<f64>()
            ));
        }
        if let (Some(alg), Some(s), Some(r)) = (
            self.oscore_alg,
            &self.oscore_sender_id,
            &self.oscore_recipient_id,
        ) {
            out.push_str(&format!(
                "; OSCORE context: {alg}, sender id {s}, recipient id {r}"
            ));
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message the protocol sends whole but the link cuts into frames
    /// waits out the link's interval once, not once per frame.
    #[test]
    fn a_whole_message_in_several_frames_pays_its_interval_once() {
        let cat = link::Catalogue::builtin().unwrap();
        let dr0 = cat.get("lorawan-eu868-dr0").unwrap();
        let bytes = 100;
        let link_cost = dr0.cost(bytes, false).unwrap();
        assert!(link_cost.frames > 1, "{link_cost:?}");
        let ops = DeviceOps::one("edhoc-m3-s2", "message_3_write", "message_3_read");
        let m = message_cost(
            "message_3",
            "initiator",
            bytes,
            (false, Fragmentation::Ciphermeter),
            ops,
            dr0,
            None,
        )
        .unwrap();
        let whole = link_cost.min_interval.unwrap().as_secs();
        assert!((m.min_interval_s.unwrap() - whole).abs() < 1e-9, "{m:?}");
        let frames = f64::from(link_cost.frames);
        assert!((m.within_wait_s - whole * (frames - 1.0) / frames).abs() < 1e-9);
    }
}
