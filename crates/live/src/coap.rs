//! `send --to coap://`, the client of CoAP with OSCORE on the live link (RFC 7252,
//! RFC 8613): seals each reading as an OSCORE request, keyed by a context file or by
//! an EDHOC handshake with the gateway first ([`crate::edhoc`]), and reads the
//! gateway's answers. The gateway's side (its contexts, picked by kid, and its answers
//! after commit) is [`crate::verify::oscore`]; what both sides write of CoAP is
//! [`crate::coap_wire`].

use std::collections::HashMap;
use std::io::Write;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use seal::host::oscore::{self as host, Answer, OscoreKey};
use seal::oscore::coap::code;
use serde::Serialize;

use crate::clock::now_us;
use crate::coap_wire::code_name;
use crate::endpoint::{Endpoint, check_pairing, enlarge_receive_buffer};
use crate::error::LiveError;
use crate::inject::{Injector, Kind, Mix, truncate};
use crate::sender::{Readings, open_save, udp_to, with_timestamp};

/// The address of a `coap://` endpoint, or why OSCORE cannot go to `endpoint`.
pub fn coap_addr(endpoint: &Endpoint) -> Result<SocketAddr, LiveError> {
    check_pairing(endpoint, true, false, "send")?;
    match endpoint {
        Endpoint::Coap(addr) => Ok(*addr),
        other => Err(LiveError::Usage(format!("not a coap:// endpoint: {other}"))),
    }
}

/// `send --to coap://`: what to send and how.
pub struct CoapSendConfig {
    pub to: SocketAddr,
    pub uri_path: String,
    pub content_format: u16,
    pub rate: Option<f64>,
    pub inject: Mix,
    pub seed: u64,
    pub timestamp: bool,
    /// How long to wait at the end for the answers still missing.
    pub ack_wait: Duration,
    pub save: Option<std::path::PathBuf>,
}

/// What `send --to coap://` sent and what the gateway answered.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoapSendReport {
    pub sent: u64,
    pub good: u64,
    pub tampered: u64,
    pub replayed: u64,
    pub truncated: u64,
    pub bytes: u64,
    /// Protected 2.04 Changed answers that verified under the context.
    pub acked: u64,
    /// Unprotected error answers (4.00, 4.01, 4.02), by code as "4.01".
    pub refused: std::collections::BTreeMap<String, u64>,
    /// Answers that claimed protection but did not verify.
    pub forged: u64,
    /// `--edhoc`: the handshake's bytes, all four messages (before the readings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_bytes: Option<u64>,
    pub micros: u64,
}

/// Where `send`'s OSCORE context comes from.
pub enum Keying<'a> {
    /// A context file (`keygen --scheme oscore:ALG`), its sequence number persisted beside it.
    Context(&'a OscoreKey),
    /// An EDHOC handshake with the gateway first (`--edhoc`; method 3 or
    /// EDHOC-PSK, as the credentials file says): a fresh context in memory,
    /// its sequence numbers from 0.
    Edhoc(&'a handshake::credentials::EdhocKeys),
}

/// The answers awaited, by token: each request's id, to verify its response.
type Awaited = HashMap<Vec<u8>, seal::oscore::RequestId>;

/// Seals each reading as an OSCORE POST, sends it in one datagram, and
/// reads the gateway's answers as they come (a request is never resent:
/// its sequence number would repeat, which the gateway refuses).
pub fn send(
    config: &CoapSendConfig,
    keying: Keying<'_>,
    mut readings: Readings,
    stop: &AtomicBool,
) -> Result<CoapSendReport, LiveError> {
    if config.rate.is_some_and(|r| !r.is_finite() || r <= 0.0) {
        return Err(LiveError::Usage(
            "--rate must be a positive number of messages per second".into(),
        ));
    }
    let socket = udp_to(config.to, "coap")?;
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .map_err(|e| LiveError::io("udp", e))?;
    let mut save = open_save(config.save.as_deref())?;
    let mut report = CoapSendReport::default();
    let session;
    let mut sequence = None;
    let key = match keying {
        Keying::Context(k) => k,
        Keying::Edhoc(credentials) => {
            let (k, bytes) = crate::edhoc::establish(&socket, credentials)?;
            report.handshake_bytes = Some(bytes);
            sequence = Some(0u64);
            session = k;
            &session
        }
    };
    // From here on, reads never wait: the loop drains what has arrived.
    socket
        .set_nonblocking(true)
        .map_err(|e| LiveError::io("udp", e))?;
    enlarge_receive_buffer(&socket);
    let mut injector = Injector::new(config.inject, config.seed);
    let mut history: Vec<Vec<u8>> = Vec::new();
    let mut awaited = Awaited::new();
    let mut expected = 0u64;
    let start = Instant::now();
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let Some(mut reading) = readings.next(i)? else {
            break;
        };
        if config.timestamp {
            reading = with_timestamp(reading, now_us());
        }
        let (path, format) = (&config.uri_path, config.content_format);
        let sealed = match &mut sequence {
            Some(n) => {
                *n += 1;
                host::seal_request(key, *n - 1, &reading, path, format)
            }
            None => host::seal_reading(key, &reading, path, format),
        }
        .map_err(|e| LiveError::Usage(e.to_string()))?;
        let kind = injector.next_kind(!history.is_empty());
        let wire = match kind {
            Kind::Good => {
                awaited.insert(sealed.id.partial_iv.as_slice().to_vec(), sealed.id);
                if history.len() < 4096 {
                    history.push(sealed.bytes.clone());
                }
                sealed.bytes
            }
            // The tag ends the message: one flipped bit of it.
            Kind::Tampered => {
                let mut bytes = sealed.bytes;
                let last = bytes.len() - 1;
                bytes[last] ^= 1 << (i % 8);
                bytes
            }
            Kind::Replayed => history[injector.pick(history.len())].clone(),
            Kind::Truncated => {
                let keep = injector.pick(sealed.bytes.len());
                truncate(&sealed.bytes, keep)
            }
        };
        if kind == Kind::Good {
            expected += 1;
        }
        if let Some(rate) = config.rate {
            let due = start + Duration::from_secs_f64(i as f64 / rate);
            while Instant::now() < due {
                read_answers(&socket, key, &mut awaited, &mut report);
                std::thread::sleep(due.saturating_duration_since(Instant::now()).min(PAUSE));
            }
        }
        if let Some(file) = &mut save {
            let line = format!("{}\n", hex::encode(&wire));
            file.write_all(line.as_bytes())
                .map_err(|e| LiveError::io("--save", e))?;
        }
        socket
            .send(&wire)
            .map_err(|e| LiveError::io("coap send", e))?;
        // Answers are read as they come, or the socket's buffer drops them.
        read_answers(&socket, key, &mut awaited, &mut report);
        report.sent += 1;
        report.bytes += wire.len() as u64;
        match kind {
            Kind::Good => report.good += 1,
            Kind::Tampered => report.tampered += 1,
            Kind::Replayed => report.replayed += 1,
            Kind::Truncated => report.truncated += 1,
        }
        i += 1;
    }
    // Every good request is answered with a 2.04; the rest with an error, if
    // the gateway can read them at all. Wait for the 2.04s.
    let deadline = Instant::now() + config.ack_wait;
    while report.acked < expected && Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
        read_answers(&socket, key, &mut awaited, &mut report);
        std::thread::sleep(PAUSE);
    }
    // Errors for the bad ones may trail the last 2.04: take what is queued.
    read_answers(&socket, key, &mut awaited, &mut report);
    report.micros = start.elapsed().as_micros() as u64;
    Ok(report)
}

/// How long the client sleeps when no answer is waiting.
const PAUSE: Duration = Duration::from_millis(1);

/// Reads the answers waiting on the (non-blocking) socket.
fn read_answers(
    socket: &UdpSocket,
    key: &OscoreKey,
    awaited: &mut Awaited,
    report: &mut CoapSendReport,
) {
    let mut buf = [0u8; 2048];
    while let Ok(n) = socket.recv(&mut buf) {
        let answer = &buf[..n];
        let Some(token) = host::token_of(answer) else {
            continue;
        };
        let Some(request) = awaited.get(&token) else {
            // An error for a tampered or replayed request, whose token we did not await.
            if let Ok(p) = seal::oscore::coap::parse(answer) {
                *report.refused.entry(code_name(p.code)).or_default() += 1;
            }
            continue;
        };
        match host::read_answer(key, request, answer) {
            Ok(Answer::Protected(code::CHANGED)) => {
                awaited.remove(&token);
                report.acked += 1;
            }
            Ok(Answer::Protected(c)) => {
                awaited.remove(&token);
                *report.refused.entry(code_name(c)).or_default() += 1;
            }
            // Unprotected: the refusal of a replayed copy sharing this token can
            // overtake the original's 2.04, so keep waiting for that.
            Ok(Answer::Unprotected(c)) => {
                *report.refused.entry(code_name(c)).or_default() += 1;
            }
            Err(_) => report.forged += 1,
        }
    }
}
