//! CoAP with OSCORE on the live link (RFC 7252, RFC 8613): the gateway's
//! contexts and its answers, and `send --to coap://`, the client.
//!
//! The gateway opens each request with the context its kid names, but leaves
//! the replay rule to the store: the request's sequence number is its counter,
//! checked against the same 64-wide window as counter nonces ([`crate::replay`]),
//! in the transaction that stores the reading, so a reading is stored once and a
//! replay is refused across restarts. Only then is the request answered: an
//! OSCORE-protected 2.04 Changed once it is stored, or the unprotected error of
//! RFC 8613 §8.2 (4.00, 4.01, 4.02) with its diagnostic.

use std::collections::HashMap;
use std::io::Write;
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use seal::host::oscore::{self as host, Answer, OpenedReading, OscoreKey};
use seal::oscore::coap::code;
use seal::oscore::{OscoreError, ReplayWindow};
use serde::Serialize;

use crate::counters::Reason;
use crate::endpoint::Endpoint;
use crate::error::LiveError;
use crate::gateway::now_us;
use crate::inject::{Injector, Kind, Mix, truncate};
use crate::replay::Verdict;
use crate::sender::{Readings, open_save, udp_to, with_timestamp};
use crate::verify::{Verified, reading_fields};

/// CoAP's registered UDP port (RFC 7252 §12.6).
pub const DEFAULT_PORT: u16 = 5683;

/// `--container oscore` and `coap://` go together: OSCORE requests are CoAP
/// messages, and a CoAP listener has nothing else to open.
pub fn check_pairing(endpoint: &Endpoint, oscore: bool, role: &str) -> Result<(), LiveError> {
    let coap = matches!(endpoint, Endpoint::Coap(_));
    match (coap, oscore) {
        (true, false) => Err(LiveError::Usage(format!(
            "{endpoint} carries OSCORE requests: {role} needs --container oscore and an OSCORE context (keygen --scheme oscore:ALG)"
        ))),
        (false, true) => Err(LiveError::Usage(format!(
            "--container oscore is carried by CoAP: use coap://HOST:PORT, not {endpoint}"
        ))),
        _ => Ok(()),
    }
}

/// The address of a `coap://` endpoint, or why OSCORE cannot go to `endpoint`.
pub fn coap_addr(endpoint: &Endpoint) -> Result<SocketAddr, LiveError> {
    check_pairing(endpoint, true, "send")?;
    match endpoint {
        Endpoint::Coap(addr) => Ok(*addr),
        other => Err(LiveError::Usage(format!("not a coap:// endpoint: {other}"))),
    }
}

/// The gateway's OSCORE contexts; a request's kid (and kid context) picks one.
pub struct OscoreRing {
    keys: Vec<OscoreKey>,
    /// Each key's name in the store's replay state (`kid:…`, or a session's).
    labels: Vec<String>,
    by_kid: HashMap<(Vec<u8>, Option<Vec<u8>>), usize>,
    /// With `--edhoc`: the handshakes that add contexts as devices connect.
    edhoc: Option<crate::edhoc::EdhocServer>,
    /// Message ids of non-confirmable answers (RFC 7252 §4.4: the sender picks them).
    next_id: u16,
}

/// Why a request was refused, and the CoAP error that answers it.
#[derive(Debug)]
pub struct Refusal {
    pub reason: Reason,
    pub detail: String,
    pub code: u8,
    pub diagnostic: &'static str,
}

/// What answering a verified request needs once its fate is known.
pub struct Pending {
    key: usize,
    request: OpenedReading,
}

impl OscoreRing {
    pub fn load(paths: &[impl AsRef<Path>]) -> Result<OscoreRing, LiveError> {
        if paths.is_empty() {
            return Err(LiveError::Usage("give at least one --key-file".into()));
        }
        let keys = paths
            .iter()
            .map(|p| OscoreKey::load(p.as_ref()).map_err(|e| LiveError::Usage(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        OscoreRing::from_keys(keys)
    }

    pub fn from_keys(keys: Vec<OscoreKey>) -> Result<OscoreRing, LiveError> {
        let mut ring = OscoreRing {
            keys: Vec::new(),
            labels: Vec::new(),
            by_kid: HashMap::new(),
            edhoc: None,
            next_id: rand::random(),
        };
        for k in keys {
            let label = match &k.id_context {
                Some(c) => format!("kid:{}/{}", hex::encode(&k.recipient_id), hex::encode(c)),
                None => format!("kid:{}", hex::encode(&k.recipient_id)),
            };
            if ring
                .by_kid
                .contains_key(&(k.recipient_id.clone(), k.id_context.clone()))
            {
                return Err(LiveError::Usage(format!(
                    "two OSCORE contexts share recipient id {}",
                    hex::encode(&k.recipient_id)
                )));
            }
            ring.insert(k, label);
        }
        Ok(ring)
    }

    /// A ring that starts empty and gains a context per EDHOC handshake.
    pub fn with_edhoc(paths: &[impl AsRef<Path>]) -> Result<OscoreRing, LiveError> {
        let [path] = paths else {
            return Err(LiveError::Usage(
                "--edhoc takes one --key-file: the gateway's EDHOC credentials (keygen --scheme edhoc)"
                    .into(),
            ));
        };
        let credentials = handshake::credentials::Credentials::load(path.as_ref())
            .map_err(|e| LiveError::Usage(e.to_string()))?;
        let mut ring = OscoreRing::from_keys(Vec::new())?;
        ring.edhoc = Some(crate::edhoc::EdhocServer::new(credentials));
        Ok(ring)
    }

    /// Adds a context, replacing one with the same recipient id.
    fn insert(&mut self, key: OscoreKey, label: String) {
        let id = (key.recipient_id.clone(), key.id_context.clone());
        match self.by_kid.get(&id) {
            Some(&i) => {
                self.keys[i] = key;
                self.labels[i] = label;
            }
            None => {
                self.by_kid.insert(id, self.keys.len());
                self.keys.push(key);
                self.labels.push(label);
            }
        }
    }

    /// Answers an EDHOC request (`--edhoc`); `None` for any other message.
    pub fn handshake(&mut self, message: &[u8]) -> Option<crate::edhoc::Handled> {
        let id = self.fresh_id();
        let mut handled = self.edhoc.as_mut()?.handle(message, id)?;
        if let Some((key, label)) = handled.established.take() {
            self.insert(key, label.clone());
            handled.session = Some(label);
        }
        Some(handled)
    }

    /// Verifies a request. The window is a fresh one: the store keeps the
    /// replay rule (see the module's note), so nothing here is persisted twice.
    pub fn open(&mut self, message: &[u8]) -> Result<(Verified, Pending), Refusal> {
        let key = self.pick(message).map_err(refusal)?;
        let mut window = ReplayWindow::new();
        let mut request =
            host::open_request(&self.keys[key], &mut window, message).map_err(refusal)?;
        let key_id = self.labels[key].clone();
        let reading = std::mem::take(&mut request.reading);
        let (device, sent_us) = reading_fields(&reading);
        let verified = Verified {
            device: device.unwrap_or_else(|| key_id.clone()),
            key_id,
            replay_id: request.id.partial_iv.as_slice().to_vec(),
            counter: Some(request.sequence),
            reading,
            sent_us,
        };
        Ok((verified, Pending { key, request }))
    }

    /// The context whose recipient id is the request's kid.
    fn pick(&self, message: &[u8]) -> Result<usize, OscoreError> {
        let (kid, kid_context) = host::kid_of(message)?;
        self.by_kid
            .get(&(kid, kid_context))
            .copied()
            .ok_or(OscoreError::UnknownContext)
    }

    fn fresh_id(&mut self) -> u16 {
        self.next_id = self.next_id.wrapping_add(1);
        self.next_id
    }

    /// The answer to a verified request once the store has judged it.
    pub fn answer(&mut self, pending: &Pending, verdict: &Verdict) -> Option<Vec<u8>> {
        let id = self.fresh_id();
        match verdict {
            Verdict::Fresh => {
                host::changed_reply(&self.keys[pending.key], &pending.request, id).ok()
            }
            Verdict::Replay(_) | Verdict::Stale(_) => {
                let replayed = OscoreError::Replayed {
                    sequence: pending.request.sequence,
                };
                host::error_reply_to(
                    &pending.request,
                    replayed.response_code(),
                    replayed.diagnostic(),
                    id,
                )
            }
        }
    }

    /// The error that answers a request refused before the store saw it.
    pub fn refuse(&mut self, message: &[u8], refusal: &Refusal) -> Option<Vec<u8>> {
        let id = self.fresh_id();
        host::error_reply(message, refusal.code, refusal.diagnostic, id)
    }
}

fn refusal(e: OscoreError) -> Refusal {
    let reason = match e {
        OscoreError::DecryptionFailed => Reason::Tampered,
        OscoreError::UnknownContext => Reason::WrongKey,
        OscoreError::Replayed { .. } => Reason::Replay,
        _ => Reason::Garbage,
    };
    Refusal {
        reason,
        detail: format!("oscore: {e}"),
        code: e.response_code(),
        diagnostic: e.diagnostic(),
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
    /// An EDHOC handshake with the gateway first (`--edhoc`): a fresh context
    /// in memory, its sequence numbers from 0.
    Edhoc(&'a handshake::credentials::Credentials),
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
    crate::input::udp::enlarge_receive_buffer(&socket);
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

/// A CoAP code as RFC 7252 writes it: class.detail, e.g. "4.01".
pub fn code_name(code: u8) -> String {
    format!("{}.{:02}", code >> 5, code & 0x1f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_read_as_the_rfc_writes_them() {
        assert_eq!(code_name(code::CHANGED), "2.04");
        assert_eq!(code_name(code::UNAUTHORIZED), "4.01");
        assert_eq!(code_name(code::BAD_OPTION), "4.02");
    }

    #[test]
    fn oscore_goes_over_coap_only() {
        let coap: Endpoint = "coap://127.0.0.1:5683".parse().unwrap();
        let udp: Endpoint = "udp://127.0.0.1:5683".parse().unwrap();
        assert!(check_pairing(&coap, true, "gateway").is_ok());
        assert!(check_pairing(&udp, false, "gateway").is_ok());
        assert!(check_pairing(&coap, false, "gateway").is_err());
        assert!(check_pairing(&udp, true, "gateway").is_err());
    }
}
