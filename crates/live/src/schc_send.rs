//! `send --container oscore --compression schc --link L --to pty:…|serial:…`:
//! each reading an OSCORE-protected POST, compressed with SCHC and sent as
//! RFC 9011 sends it over the radio ([`crate::schc_radio`]): whole in one
//! frame, or in ACK-on-Error fragments whose ACKs come back on the same port.
//! A fragment the radio loses (`--inject lost-fragment=P%`) is asked for by
//! the next ACK and sent again; a lost All-1 (no ACK within `--ack-wait`) is
//! sent again. Each retransmission is counted.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use schc::RuleSet;
use schc::fragment::{Ack, Frame};
use seal::host::oscore::{self as host, OscoreKey};
use serde::Serialize;

use crate::clock::now_us;
use crate::error::LiveError;
use crate::framing::{Deframer, Event, Framing, encode};
use crate::inject::{Injector, Mix};
use crate::schc_radio::{self, Outgoing};
use crate::sender::{Readings, with_timestamp};
use serial::wait_readable;

/// Rounds of ACK and retransmission before a packet is given up.
const MAX_ROUNDS: usize = 32;

pub struct SchcSendConfig {
    pub rules: RuleSet,
    /// The FRMPayload bytes one uplink carries (`--link`).
    pub frame: usize,
    pub uri_path: String,
    pub content_format: u16,
    pub timestamp: bool,
    /// Only `lost-fragment` applies.
    pub inject: Mix,
    pub seed: u64,
    /// How long the sender waits for an ACK before sending the All-1 again.
    pub ack_wait: Duration,
}

/// What went out, and what the ACKs made the sender do.
#[derive(Debug, Default, Serialize)]
pub struct SchcSendReport {
    pub sent: u64,
    /// Readings sent whole in one frame, and in fragments.
    pub whole: u64,
    pub fragmented: u64,
    /// Fragment frames handed to the radio, the lost ones included.
    pub fragments: u64,
    pub fragments_lost: u64,
    /// Fragments sent again: tiles an ACK asked for, and All-1s whose ACK did not come.
    pub retransmitted: u64,
    /// ACKs received: asking for tiles, and saying the packet is whole.
    pub acks_missing: u64,
    pub acks_complete: u64,
    /// Readings given up after every round.
    pub gave_up: u64,
    /// Bytes of the SCHC packets, and of the OSCORE requests they compress.
    pub packet_bytes: u64,
    pub request_bytes: u64,
    pub micros: u64,
}

/// Sends every reading on `port` until done or `stop`.
pub fn send(
    config: &SchcSendConfig,
    key: &OscoreKey,
    mut readings: Readings,
    port: File,
    stop: &AtomicBool,
) -> Result<SchcSendReport, LiveError> {
    let mut link = Radio::new(port, config.ack_wait);
    let mut injector = Injector::new(config.inject, config.seed);
    let mut report = SchcSendReport::default();
    let start = Instant::now();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let Some(mut reading) = readings.next(i)? else {
            break;
        };
        i += 1;
        if config.timestamp {
            reading = with_timestamp(reading, now_us());
        }
        let (path, format) = (&config.uri_path, config.content_format);
        // The plaintext compressed by the inner rules, as the gateway opens it.
        let sequence = host::next_sequence(key).map_err(|e| LiveError::Usage(e.to_string()))?;
        let sealed =
            schc::oscore::seal_reading(&config.rules, key, sequence, &reading, path, format)
                .map_err(|e| LiveError::Usage(format!("--compression schc: {e}")))?;
        report.request_bytes += sealed.bytes.len() as u64;
        let (out, packet_bytes) = schc_radio::compress(&config.rules, &sealed.bytes, config.frame)
            .map_err(|e| LiveError::Usage(format!("--compression schc: {e}")))?;
        report.packet_bytes += packet_bytes as u64;
        match out {
            Outgoing::Whole(frame) => {
                report.whole += 1;
                link.send(&frame)?;
            }
            Outgoing::Fragments(sender) => {
                report.fragmented += 1;
                // An ACK still on its way from an earlier packet is not this one's.
                link.forget()?;
                let first = sender.fragments();
                if !deliver(&sender, first, &mut link, &mut injector, &mut report)? {
                    report.gave_up += 1;
                }
            }
        }
        report.sent += 1;
    }
    report.micros = start.elapsed().as_micros() as u64;
    Ok(report)
}

/// One packet's fragments, and what its ACKs ask, until it is whole. RFC
/// 9011 tags no packet: an ACK still owed for an All-1 or ACK REQ sent
/// twice is waited for (up to `--ack-wait`) before the next packet, so it
/// is never taken for that packet's.
fn deliver(
    sender: &schc::fragment::Sender,
    mut queue: Vec<Frame>,
    link: &mut Radio,
    injector: &mut Injector,
    report: &mut SchcSendReport,
) -> Result<bool, LiveError> {
    let all_one = queue.last().cloned();
    // All-1s and ACK REQs on air (each asks for an ACK), and ACKs back.
    let (mut asked, mut answered) = (0u64, 0u64);
    for round in 0..MAX_ROUNDS {
        for frame in &queue {
            report.fragments += 1;
            if round > 0 {
                report.retransmitted += 1;
            }
            if injector.loses_fragment() {
                report.fragments_lost += 1;
                continue;
            }
            link.send(frame)?;
            asked += u64::from(schc_radio::asks_for_ack(frame));
        }
        let ack = link.ack()?;
        answered += u64::from(ack.is_some());
        queue = match ack {
            Some(Ack::Complete { .. }) => {
                report.acks_complete += 1;
                for _ in answered..asked {
                    if link.ack()?.is_none() {
                        break;
                    }
                }
                return Ok(true);
            }
            // An ACK that names no missing tile of ours though the packet is
            // not whole (a tile altered on the way): this packet is given up.
            Some(ack) => match sender.resend(&ack) {
                Ok(frames) => {
                    report.acks_missing += 1;
                    frames
                }
                Err(_) => return Ok(false),
            },
            // The All-1 (or its ACK) was lost: the sender's timer sends it again.
            None => all_one.iter().cloned().collect(),
        };
    }
    Ok(false)
}

/// The sender's end of the radio: frames out, ACKs back.
struct Radio {
    port: File,
    deframer: Deframer,
    events: VecDeque<Event>,
    ack_wait: Duration,
}

impl Radio {
    fn new(port: File, ack_wait: Duration) -> Radio {
        Radio {
            port,
            deframer: Deframer::new(Framing::Len, 4096, Duration::from_millis(500)),
            events: VecDeque::new(),
            ack_wait,
        }
    }

    fn send(&mut self, frame: &Frame) -> Result<(), LiveError> {
        let framed = encode(&schc_radio::frame_bytes(frame), Framing::Len, None)
            .map_err(|e| LiveError::Usage(e.to_string()))?;
        self.port
            .write_all(&framed)
            .and_then(|_| self.port.flush())
            .map_err(|e| LiveError::io("the radio", e))
    }

    /// The next ACK, or none within the wait. Anything else that comes down
    /// is not for this sender and is skipped.
    fn ack(&mut self) -> Result<Option<Ack>, LiveError> {
        let end = Instant::now() + self.ack_wait;
        loop {
            while let Some(e) = self.events.pop_front() {
                if let Event::Message(bytes) = e
                    && let Some(frame) = schc_radio::parse_frame(&bytes)
                    && let Ok(ack) = schc_radio::parse_ack(&frame)
                {
                    return Ok(Some(ack));
                }
            }
            let now = Instant::now();
            if now >= end {
                return Ok(None);
            }
            self.read(end - now)?;
        }
    }

    /// Drops what came down and was not read.
    fn forget(&mut self) -> Result<(), LiveError> {
        let mut buf = [0u8; 512];
        while wait_readable(&self.port, Duration::ZERO)? {
            let n = self
                .port
                .read(&mut buf)
                .map_err(|e| LiveError::io("the radio", e))?;
            if n == 0 {
                break;
            }
            self.deframer
                .push(&buf[..n], Instant::now(), &mut Vec::new());
        }
        self.events.clear();
        Ok(())
    }

    /// Reads what comes down until a whole frame is in, or `wait` is over.
    fn read(&mut self, wait: Duration) -> Result<(), LiveError> {
        let end = Instant::now() + wait;
        let mut buf = [0u8; 512];
        loop {
            let now = Instant::now();
            let mut out = Vec::new();
            // A frame cut short on the radio must not swallow the next ACK.
            self.deframer.expire(now, &mut out);
            if wait_readable(&self.port, end.saturating_duration_since(now))? {
                let n = self
                    .port
                    .read(&mut buf)
                    .map_err(|e| LiveError::io("the radio", e))?;
                self.deframer.push(&buf[..n], Instant::now(), &mut out);
            }
            let whole = out.iter().any(|e| matches!(e, Event::Message(_)));
            self.events.extend(out);
            if whole || Instant::now() >= end {
                return Ok(());
            }
        }
    }
}
