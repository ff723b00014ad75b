//! OSCORE on the host: security context files, the sender's sequence number
//! and the recipient's replay window, both persisted beside the key file, and
//! a reading sealed as an OSCORE-protected CoAP POST (or opened from one).
//!
//! ```text
//! {
//!   "format": "ciphermeter-oscore-context/1",
//!   "scheme": "oscore:aes-ccm-16-64-128",
//!   "alg": 10,
//!   "master_secret": "<hex>",
//!   "master_salt": "<hex>",
//!   "sender_id": "<hex>",
//!   "recipient_id": "<hex>",
//!   "id_context": null
//! }
//! ```
//! The file is 0600 and checked on every read, like every key file.
//! `KEY.counter` holds the next sender sequence number (reserved and fsync'd
//! before use, as counter nonces are); `KEY.replay` the recipient's window.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use super::error::SealError;
use super::keyfile::{beside, fill_random, read_private, write_json_private, write_private};
use super::nonce::{self, CounterNonces};
use crate::counter::CounterStore;
use crate::oscore::coap::{Message, MessageType, Parsed, code, option};
use crate::oscore::{Alg, Context, Inputs, OscoreError, ReplayWindow, RequestId};

pub const FORMAT: &str = "ciphermeter-oscore-context/1";
/// The scheme prefix of an OSCORE context: `oscore:ALG`.
pub const PREFIX: &str = "oscore:";
pub use crate::oscore::reading::DEFAULT_URI_PATH;
/// Bytes of a generated master secret and salt (RFC 8613 §3.1 suggests 16 and 8).
const SECRET_LEN: usize = 16;
const SALT_LEN: usize = 8;

/// `seal --impl` with the oscore container: only RustCrypto's AES-CCM
/// protects OSCORE messages.
pub fn check_backend(chosen: Option<crate::Backend>) -> Result<(), SealError> {
    match chosen {
        Some(b) if b != crate::Backend::RustCrypto => Err(SealError::Usage(
            "--impl: the oscore container seals with RustCrypto's AES-CCM only".into(),
        )),
        _ => Ok(()),
    }
}

/// The algorithm an `oscore:ALG` scheme names.
pub fn parse_scheme(text: &str) -> Result<Alg, SealError> {
    let name = text
        .strip_prefix(PREFIX)
        .ok_or_else(|| scheme_error(text, "an OSCORE scheme is oscore:ALG"))?;
    Alg::from_name(name).ok_or_else(|| {
        let known: Vec<_> = Alg::every().map(|a| a.name()).collect();
        scheme_error(
            text,
            &format!("unknown algorithm; one of {}", known.join(", ")),
        )
    })
}

fn scheme_error(text: &str, why: &str) -> SealError {
    SealError::InvalidScheme {
        scheme: text.to_string(),
        why: why.to_string(),
    }
}

/// One party's security context, as stored, and derived once (its keys keyed).
pub struct OscoreKey {
    pub alg: Alg,
    master_secret: Zeroizing<Vec<u8>>,
    pub master_salt: Vec<u8>,
    pub sender_id: Vec<u8>,
    pub recipient_id: Vec<u8>,
    pub id_context: Option<Vec<u8>>,
    context: Context,
    pub path: Option<PathBuf>,
}

/// The master secret is `Zeroizing`; the derived context wipes itself.
impl zeroize::ZeroizeOnDrop for OscoreKey {}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextJson {
    format: String,
    scheme: String,
    alg: i64,
    master_secret: String,
    master_salt: String,
    sender_id: String,
    recipient_id: String,
    id_context: Option<String>,
}

impl Drop for ContextJson {
    fn drop(&mut self) {
        self.master_secret.zeroize();
    }
}

impl OscoreKey {
    /// A fresh pair: this device's context and its peer's (same secret and
    /// salt, ids swapped). The device's id is 4 random bytes, the peer's empty.
    pub fn generate_pair(alg: Alg) -> Result<(OscoreKey, OscoreKey), SealError> {
        let mut secret = Zeroizing::new(vec![0u8; SECRET_LEN]);
        let mut salt = vec![0u8; SALT_LEN];
        let mut device_id = vec![0u8; 4.min(alg.max_id())];
        fill_random(&mut secret)?;
        fill_random(&mut salt)?;
        fill_random(&mut device_id)?;
        let make = |sender: &[u8], recipient: &[u8]| {
            OscoreKey::new(
                alg,
                secret.clone(),
                salt.clone(),
                sender.to_vec(),
                recipient.to_vec(),
                None,
            )
            .map_err(|e| SealError::InvalidScheme {
                scheme: format!("{PREFIX}{}", alg.name()),
                why: e.to_string(),
            })
        };
        Ok((make(&device_id, &[])?, make(&[], &device_id)?))
    }

    /// `keygen --scheme oscore:ALG`: a fresh pair written to `mine` and
    /// `peer` (each with its sequence number and replay window files).
    /// OSCORE's nonces come from its sequence numbers, so `nonce` must be
    /// the default, random.
    pub fn write_pair(
        scheme: &str,
        nonce: &str,
        mine: &Path,
        peer: Option<&Path>,
        force: bool,
    ) -> Result<(OscoreKey, OscoreKey), SealError> {
        let alg = parse_scheme(scheme).map_err(|e| SealError::Usage(format!("--scheme: {e}")))?;
        let peer = peer.ok_or_else(|| {
            SealError::Usage(
                "--scheme oscore:ALG writes two contexts: give --peer-output FILE too".into(),
            )
        })?;
        if nonce != "random" {
            return Err(SealError::Usage(
                "--nonce: OSCORE's nonces come from its sequence numbers, kept in FILE.counter"
                    .into(),
            ));
        }
        let (mut a, mut b) = OscoreKey::generate_pair(alg)?;
        a.save(mine, force)?;
        b.save(peer, force)?;
        Ok((a, b))
    }

    /// Derives the context of these inputs (RFC 8613 §3.2).
    fn new(
        alg: Alg,
        master_secret: Zeroizing<Vec<u8>>,
        master_salt: Vec<u8>,
        sender_id: Vec<u8>,
        recipient_id: Vec<u8>,
        id_context: Option<Vec<u8>>,
    ) -> Result<OscoreKey, OscoreError> {
        let context = Context::derive(&Inputs {
            alg,
            master_secret: &master_secret,
            master_salt: &master_salt,
            sender_id: &sender_id,
            recipient_id: &recipient_id,
            id_context: id_context.as_deref(),
        })?;
        Ok(OscoreKey {
            alg,
            master_secret,
            master_salt,
            sender_id,
            recipient_id,
            id_context,
            context,
            path: None,
        })
    }

    /// A context held in memory only, from secrets agreed elsewhere (an EDHOC
    /// handshake). It has no files: its sequence numbers are the caller's
    /// ([`seal_request`]), and a fresh handshake gives fresh keys.
    pub fn from_secrets(
        alg: Alg,
        master_secret: &[u8],
        master_salt: &[u8],
        sender_id: &[u8],
        recipient_id: &[u8],
    ) -> Result<OscoreKey, SealError> {
        OscoreKey::new(
            alg,
            Zeroizing::new(master_secret.to_vec()),
            master_salt.to_vec(),
            sender_id.to_vec(),
            recipient_id.to_vec(),
            None,
        )
        .map_err(oscore_err)
    }

    pub fn scheme(&self) -> String {
        format!("{PREFIX}{}", self.alg.name())
    }

    /// `--scheme S` beside the context file: refused unless it names its scheme.
    pub fn check_scheme(&self, expected: Option<&str>) -> Result<(), SealError> {
        match expected {
            Some(expected) if expected != self.scheme() => Err(SealError::Usage(format!(
                "--scheme {expected} does not match the context file, which is for {}",
                self.scheme()
            ))),
            _ => Ok(()),
        }
    }

    pub fn context(&self) -> &Context {
        &self.context
    }

    /// For `oscore_plaintext`, which keys the context's AEADs itself.
    pub(crate) fn master_secret(&self) -> &[u8] {
        &self.master_secret
    }

    /// Writes the context file (0600) and a sequence number file starting at 0.
    pub fn save(&mut self, path: &Path, force: bool) -> Result<(), SealError> {
        let doc = ContextJson {
            format: FORMAT.into(),
            scheme: self.scheme(),
            alg: self.alg.cose(),
            master_secret: hex::encode(self.master_secret.as_slice()),
            master_salt: hex::encode(&self.master_salt),
            sender_id: hex::encode(&self.sender_id),
            recipient_id: hex::encode(&self.recipient_id),
            id_context: self.id_context.as_ref().map(hex::encode),
        };
        write_json_private(path, &doc, force)?;
        nonce::create_counter(&nonce::counter_path(path), force)?;
        create_window(&window_path(path), force)?;
        self.path = Some(path.to_path_buf());
        Ok(())
    }

    /// Reads a context file; it must be the owner's alone.
    pub fn load(path: &Path) -> Result<OscoreKey, SealError> {
        let text = read_private(path)?;
        let mut key = OscoreKey::parse(text.as_bytes(), &path.display().to_string())?;
        key.path = Some(path.to_path_buf());
        Ok(key)
    }

    pub fn parse(bytes: &[u8], shown: &str) -> Result<OscoreKey, SealError> {
        let bad = |detail: String| SealError::KeyFile {
            path: shown.to_string(),
            detail,
        };
        let doc: ContextJson = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("not an OSCORE context file ({e})")))?;
        if doc.format != FORMAT {
            return Err(bad(format!("format '{}', expected '{FORMAT}'", doc.format)));
        }
        let alg = parse_scheme(&doc.scheme)?;
        if alg.cose() != doc.alg {
            return Err(bad(format!(
                "alg {} does not match the scheme {} (COSE {})",
                doc.alg,
                doc.scheme,
                alg.cose()
            )));
        }
        let field = |name: &str, text: &str| {
            hex::decode(text).map_err(|_| bad(format!("{name} is not hex")))
        };
        // Derived here, so a bad length is the file's error, said once.
        OscoreKey::new(
            alg,
            Zeroizing::new(field("master_secret", &doc.master_secret)?),
            field("master_salt", &doc.master_salt)?,
            field("sender_id", &doc.sender_id)?,
            field("recipient_id", &doc.recipient_id)?,
            doc.id_context
                .as_deref()
                .map(|c| field("id_context", c))
                .transpose()?,
        )
        .map_err(|e| bad(e.to_string()))
    }

    fn path(&self) -> Result<&Path, SealError> {
        self.path
            .as_deref()
            .ok_or_else(|| SealError::Io("an OSCORE context needs its file for its state".into()))
    }
}

/// The host's words for an OSCORE failure.
pub fn oscore_err(e: OscoreError) -> SealError {
    match e {
        OscoreError::Core(core) => SealError::from_core(core, "oscore"),
        OscoreError::DecryptionFailed => SealError::Rejected,
        OscoreError::Replayed { sequence } => SealError::Replayed { sequence },
        OscoreError::UnknownContext => SealError::malformed(
            "oscore",
            "the kid (or kid context) names no context this key file holds",
        ),
        OscoreError::SequenceExhausted => {
            SealError::Nonce("sequence numbers exhausted; generate a new context".into())
        }
        other => SealError::malformed("oscore", other.to_string()),
    }
}

/// The CoAP Content-Format of a reading's serialization name (RFC 7252 §12.3,
/// the IANA registry): text/plain 0, octet-stream 42, json 50, cbor 60.
pub fn content_format(serialization: &str) -> u16 {
    match serialization {
        "json" | "json-pretty" => 50,
        "cbor" => 60,
        _ => 42,
    }
}

/// A sealed request and what its response is verified against.
pub struct SealedRequest {
    pub bytes: Vec<u8>,
    pub id: RequestId,
    pub sequence: u64,
}

/// Seals `reading` as an OSCORE-protected, non-confirmable POST to
/// `uri_path`, with the next sequence number from the key's counter file.
pub fn seal_reading(
    key: &OscoreKey,
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
) -> Result<SealedRequest, SealError> {
    seal_request(key, next_sequence(key)?, reading, uri_path, content_format)
}

/// The key's next sequence number, reserved in its counter file (fsync'd)
/// before use, so a restart never uses one twice.
pub fn next_sequence(key: &OscoreKey) -> Result<u64, SealError> {
    CounterNonces::new(nonce::counter_path(key.path()?))
        .reserve()
        .map_err(|e| SealError::from_core(e, "oscore"))
}

/// [`seal_reading`] with a sequence number the caller reserved (never one
/// used before under this context). The message id is the sequence number's
/// low 16 bits and the token its Partial IV, so both are unique under the context.
pub fn seal_request(
    key: &OscoreKey,
    sequence: u64,
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
) -> Result<SealedRequest, SealError> {
    let (bytes, id) = protect_reading(key.context(), sequence, reading, uri_path, content_format)
        .map_err(oscore_err)?;
    Ok(SealedRequest {
        bytes,
        id,
        sequence,
    })
}

/// [`crate::oscore::reading::seal_reading`] into a buffer of its own: the
/// request's bytes and id, under any context (a file's, a cost's throw-away
/// one, the device's known answer).
pub fn protect_reading(
    ctx: &Context,
    sequence: u64,
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
) -> Result<(Vec<u8>, RequestId), OscoreError> {
    use crate::oscore::reading::{max_len, seal_reading};
    let mut out = vec![0u8; max_len(ctx, reading.len(), uri_path)];
    let (n, id) = seal_reading(ctx, sequence, reading, uri_path, content_format, &mut out)?;
    out.truncate(n);
    Ok((out, id))
}

/// An opened request: the reading, where it was posted, and what its
/// response needs (the request's id, type, message id and token).
pub struct OpenedReading {
    pub reading: Vec<u8>,
    pub sequence: u64,
    pub uri_path: String,
    pub id: RequestId,
    pub confirmable: bool,
    pub message_id: u16,
    pub token: Vec<u8>,
}

/// Verifies an OSCORE request against the key and `window`, which records
/// it; the caller persists the window (or keeps its own replay rule).
pub fn open_request(
    key: &OscoreKey,
    window: &mut ReplayWindow,
    message: &[u8],
) -> Result<OpenedReading, OscoreError> {
    let mut buf = vec![0u8; message.len()];
    let (inner, id, sequence) =
        crate::oscore::unprotect_request(key.context(), window, message, &mut buf)?;
    let plain = Parsed {
        code: inner.code,
        options_raw: inner.options_raw,
        payload: inner.payload,
        ..inner.outer
    };
    opened(&inner.outer, &plain, id, sequence)
}

/// The reading of a verified request: `outer` its header, `inner` its
/// plaintext's code, options and payload.
pub(crate) fn opened(
    outer: &Parsed<'_>,
    inner: &Parsed<'_>,
    id: RequestId,
    sequence: u64,
) -> Result<OpenedReading, OscoreError> {
    let mut segments = Vec::new();
    for o in inner.options() {
        let o = o?;
        if o.number == option::URI_PATH {
            segments.push(String::from_utf8_lossy(o.value).into_owned());
        }
    }
    Ok(OpenedReading {
        reading: inner.payload.to_vec(),
        sequence,
        uri_path: segments.join("/"),
        id,
        confirmable: outer.mtype == MessageType::Confirmable,
        message_id: outer.message_id,
        token: outer.token.to_vec(),
    })
}

/// Verifies an OSCORE request against the key and its persisted replay
/// window, which records the request (fsync'd) before the reading is returned.
pub fn open_reading(key: &OscoreKey, message: &[u8]) -> Result<OpenedReading, SealError> {
    let mut state = WindowFile::open(&window_path(key.path()?))?;
    let mut window = state.load()?;
    let opened = open_request(key, &mut window, message).map_err(oscore_err)?;
    state.store(&window)?;
    Ok(opened)
}

/// The header of a server's answer to a request: piggybacked on the ACK of a
/// confirmable request (same message id), else non-confirmable with
/// `fresh_id`; the token is always the request's (RFC 7252 §5.2).
fn answer_head(confirmable: bool, message_id: u16, fresh_id: u16) -> (MessageType, u16) {
    if confirmable {
        (MessageType::Acknowledgement, message_id)
    } else {
        (MessageType::NonConfirmable, fresh_id)
    }
}

/// The OSCORE-protected 2.04 Changed a server sends for a request it stored.
/// It reuses the request's nonce (§8.3), so it is sent once per request:
/// a replayed request gets [`error_reply`], never a second protected answer.
pub fn changed_reply(
    key: &OscoreKey,
    request: &OpenedReading,
    fresh_id: u16,
) -> Result<Vec<u8>, OscoreError> {
    let (mtype, message_id) = answer_head(request.confirmable, request.message_id, fresh_id);
    let msg = Message {
        mtype,
        code: code::CHANGED,
        message_id,
        token: &request.token,
        options: &[],
        payload: &[],
    };
    let mut out = vec![0u8; request.token.len() + 64];
    let n = crate::oscore::protect_response(key.context(), &request.id, None, &msg, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// The unprotected error a server answers a request it refused with (§8.2):
/// `code` (4.00, 4.01 or 4.02) and a diagnostic payload. `None` when the
/// request is not CoAP enough to answer (RFC 7252 §4.2: silently ignored).
pub fn error_reply(request: &[u8], code: u8, diagnostic: &str, fresh_id: u16) -> Option<Vec<u8>> {
    let parsed = crate::oscore::coap::parse(request).ok()?;
    let confirmable = match parsed.mtype {
        MessageType::Confirmable => true,
        MessageType::NonConfirmable => false,
        _ => return None,
    };
    let head = (confirmable, parsed.message_id, parsed.token);
    encode_error(head, code, diagnostic, fresh_id)
}

/// [`error_reply`] for a request that verified but is refused all the same
/// (the gateway's store found it replayed).
pub fn error_reply_to(
    request: &OpenedReading,
    code: u8,
    diagnostic: &str,
    fresh_id: u16,
) -> Option<Vec<u8>> {
    let head = (request.confirmable, request.message_id, &request.token[..]);
    encode_error(head, code, diagnostic, fresh_id)
}

fn encode_error(
    (confirmable, request_id, token): (bool, u16, &[u8]),
    code: u8,
    diagnostic: &str,
    fresh_id: u16,
) -> Option<Vec<u8>> {
    let (mtype, message_id) = answer_head(confirmable, request_id, fresh_id);
    let msg = Message {
        mtype,
        code,
        message_id,
        token,
        options: &[],
        payload: diagnostic.as_bytes(),
    };
    let mut out = vec![0u8; token.len() + diagnostic.len() + 16];
    let n = crate::oscore::coap::encode(&msg, &mut out).ok()?;
    out.truncate(n);
    Some(out)
}

/// The kid and kid context of a request's OSCORE option, which name the
/// context that opens it.
pub fn kid_of(request: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), OscoreError> {
    let outer = crate::oscore::coap::parse(request)?;
    let value = crate::oscore::protect::oscore_option(&outer)?;
    let kid = value.kid.ok_or(OscoreError::BadOption(
        "a request needs a kid and a Partial IV",
    ))?;
    Ok((kid.to_vec(), value.kid_context.map(<[u8]>::to_vec)))
}

/// What a server answered: the inner code of a verified OSCORE response, or
/// the outer code of an unprotected error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Protected(u8),
    Unprotected(u8),
}

/// Reads a server's answer to `request`: a protected response must verify
/// (else an error), an unprotected one is an error message as it is.
pub fn read_answer(
    key: &OscoreKey,
    request: &RequestId,
    response: &[u8],
) -> Result<Answer, OscoreError> {
    let outer = crate::oscore::coap::parse(response)?;
    let protected = outer
        .options()
        .any(|o| o.is_ok_and(|o| o.number == option::OSCORE));
    if !protected {
        return Ok(Answer::Unprotected(outer.code));
    }
    let mut buf = vec![0u8; response.len()];
    let inner = crate::oscore::unprotect_response(key.context(), request, response, &mut buf)?;
    Ok(Answer::Protected(inner.code))
}

/// The token of a CoAP message, to match a response to its request.
pub fn token_of(message: &[u8]) -> Option<Vec<u8>> {
    crate::oscore::coap::parse(message)
        .ok()
        .map(|p| p.token.to_vec())
}

/// The replay window file of a key file: `KEYFILE.replay`.
pub fn window_path(key_path: &Path) -> PathBuf {
    beside(key_path, ".replay")
}

/// The record a window file holds: the highest accepted sequence number
/// (or `none`) and the bitmap below it, always the same length, rewritten in
/// place and fsync'd: a torn write leaves a record that does not parse, which
/// refuses every message (loudly) rather than forgetting what was seen.
fn window_record(window: &ReplayWindow) -> String {
    match window.parts() {
        Some((highest, seen)) => format!("{highest:>20} {seen:016x}\n"),
        None => format!("{:>20} {:016x}\n", "none", 0),
    }
}

/// Writes a fresh window file beside a context file.
fn create_window(path: &Path, force: bool) -> Result<(), SealError> {
    write_private(path, window_record(&ReplayWindow::new()).as_bytes(), force)
}

/// The window's file, locked for the whole open.
struct WindowFile {
    file: File,
    path: PathBuf,
}

impl WindowFile {
    fn open(path: &Path) -> Result<WindowFile, SealError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| {
                SealError::Nonce(format!(
                    "replay window file {}: {e} (keygen writes it beside the context file)",
                    path.display()
                ))
            })?;
        file.lock()
            .map_err(|e| SealError::Io(format!("{}: {e}", path.display())))?;
        Ok(WindowFile {
            file,
            path: path.to_path_buf(),
        })
    }

    fn load(&mut self) -> Result<ReplayWindow, SealError> {
        let mut text = String::new();
        self.file
            .read_to_string(&mut text)
            .map_err(|e| SealError::Io(format!("{}: {e}", self.path.display())))?;
        let corrupt = || {
            SealError::Nonce(format!(
                "replay window file {} is corrupt; refusing to accept messages without it",
                self.path.display()
            ))
        };
        let mut parts = text.split_whitespace();
        let (Some(highest), Some(seen), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(corrupt());
        };
        let seen = u64::from_str_radix(seen, 16).map_err(|_| corrupt())?;
        if highest == "none" {
            return Ok(ReplayWindow::new());
        }
        let highest = highest.parse().map_err(|_| corrupt())?;
        Ok(ReplayWindow::from_parts(highest, seen))
    }

    fn store(&mut self, window: &ReplayWindow) -> Result<(), SealError> {
        let io = |e: std::io::Error| SealError::Io(format!("{}: {e}", self.path.display()));
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.file
            .write_all(window_record(window).as_bytes())
            .map_err(io)?;
        self.file.sync_all().map_err(io)
    }
}

#[cfg(test)]
mod backend_tests {
    use crate::Backend;

    #[test]
    fn only_rustcrypto_protects_oscore() {
        assert!(super::check_backend(None).is_ok());
        assert!(super::check_backend(Some(Backend::RustCrypto)).is_ok());
        let other = Backend::ALL.into_iter().find(|b| *b != Backend::RustCrypto);
        if let Some(other) = other {
            let err = super::check_backend(Some(other)).unwrap_err();
            assert!(err.to_string().starts_with("--impl: the oscore container"));
        }
    }
}
