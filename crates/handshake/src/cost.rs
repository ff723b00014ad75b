//! A handshake's messages on a link: each message's bytes, frames and time
//! on air, who sends it, and how long the duty cycle holds its sender back.
//!
//! Every message is costed with the link's own model (`link::LinkSpec::cost`),
//! the downlinks (message_2, message_4) at the same data rate as the
//! uplinks: LoRaWAN EU868's RX1 window answers at the uplink's data rate
//! unless the network sets an offset.

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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HandshakeCost {
    pub protocol: &'static str,
    pub method: u8,
    pub suite: u8,
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
    /// The context the handshake exported, as OSCORE's (RFC 9528 A.1).
    pub oscore_alg: &'static str,
    pub oscore_sender_id: String,
    pub oscore_recipient_id: String,
}

/// What `transcript`'s messages cost on `link`.
pub fn cost(
    transcript: &Transcript,
    link: &link::LinkSpec,
) -> Result<HandshakeCost, HandshakeError> {
    let mut messages = Vec::new();
    for (name, role, bytes) in transcript.messages() {
        let c = link.cost(bytes.len() as u32, false)?;
        // A message split into frames pays the duty cycle once per frame.
        let interval = c.min_interval.map(|i| i.as_secs() * c.frames as f64);
        messages.push(MessageCost {
            message: name,
            sender: match role {
                Role::Initiator => "initiator",
                Role::Responder => "responder",
            },
            bytes: c.message_bytes,
            frames: c.frames,
            on_air_bytes: c.on_air_bytes,
            airtime_ms: c.airtime.as_ms(),
            min_interval_s: interval,
            warnings: c.warnings,
        });
    }
    let initiator: Vec<&MessageCost> = messages
        .iter()
        .filter(|m| m.sender == "initiator")
        .collect();
    let initiator_duty_wait_s = initiator[..initiator.len() - 1]
        .iter()
        .map(|m| m.min_interval_s.unwrap_or(0.0))
        .sum();
    Ok(HandshakeCost {
        protocol: "edhoc",
        method: transcript.method.number(),
        suite: transcript.suite.number(),
        link: link.name.clone(),
        total_bytes: messages.iter().map(|m| m.bytes).sum(),
        total_frames: messages.iter().map(|m| m.frames).sum(),
        total_airtime_ms: messages.iter().map(|m| m.airtime_ms).sum(),
        initiator_airtime_ms: initiator.iter().map(|m| m.airtime_ms).sum(),
        initiator_duty_wait_s,
        messages,
        oscore_alg: transcript.suite.oscore_alg(),
        oscore_sender_id: hex::encode(&transcript.initiator.sender_id),
        oscore_recipient_id: hex::encode(&transcript.initiator.recipient_id),
    })
}

impl HandshakeCost {
    /// The table `handshake` prints.
    pub fn text(&self) -> String {
        let mut out = format!(
            "EDHOC method {} suite {} on {}\n{:<10} {:<9} {:>5} {:>6} {:>12} {:>14}\n",
            self.method,
            self.suite,
            self.link,
            "message",
            "sender",
            "bytes",
            "frames",
            "airtime ms",
            "duty wait s"
        );
        for m in &self.messages {
            let wait = m
                .min_interval_s
                .map_or_else(|| "-".to_string(), |w| format!("{w:.1}"));
            out.push_str(&format!(
                "{:<10} {:<9} {:>5} {:>6} {:>12.1} {:>14}\n",
                m.message, m.sender, m.bytes, m.frames, m.airtime_ms, wait
            ));
        }
        out.push_str(&format!(
            "{:<10} {:<9} {:>5} {:>6} {:>12.1}\n",
            "total", "", self.total_bytes, self.total_frames, self.total_airtime_ms
        ));
        out.push_str(&format!(
            "the device waits {:.1} s under the duty cycle between its messages; \
             OSCORE context: {}, sender id {}, recipient id {}\n",
            self.initiator_duty_wait_s,
            self.oscore_alg,
            self.oscore_sender_id,
            self.oscore_recipient_id
        ));
        out
    }
}
