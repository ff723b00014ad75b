//! OSCORE on the gateway (RFC 8613): its contexts, picked by a request's kid, and its
//! answers once the store has judged a request. The client, `send --to coap://`, is
//! [`crate::coap`].
//!
//! The gateway opens each request with the context its kid names, but leaves
//! the replay rule to the store: the request's sequence number is its counter,
//! checked against the same 64-wide window as counter nonces ([`crate::replay`]),
//! in the transaction that stores the reading, so a reading is stored once and a
//! replay is refused across restarts. Only then is the request answered: an
//! OSCORE-protected 2.04 Changed once it is stored, or the unprotected error of
//! RFC 8613 §8.2 (4.00, 4.01, 4.02) with its diagnostic.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use schc::RuleSet;

use seal::host::oscore::{self as host, OpenedReading, OscoreKey};
use seal::oscore::{OscoreError, ReplayWindow};

use super::{Verified, reading_fields};
use crate::counters::Reason;
use crate::edhoc::{EdhocServer, Handled};
use crate::error::LiveError;
use crate::replay::Verdict;

/// The gateway's OSCORE contexts; a request's kid (and kid context) picks one.
pub struct OscoreRing {
    keys: Vec<OscoreKey>,
    /// Each key's name in the store's replay state (`kid:…`, or a session's).
    labels: Vec<String>,
    by_kid: HashMap<(Vec<u8>, Option<Vec<u8>>), usize>,
    /// With `--edhoc`: the handshakes that add contexts as devices connect.
    edhoc: Option<EdhocServer>,
    /// Message ids of non-confirmable answers (RFC 7252 §4.4: the sender picks them).
    next_id: u16,
    /// With `--compression schc`: the rules whose inner rules decompress a
    /// request's plaintext after it is decrypted (RFC 8824 §7.2).
    schc: Option<Arc<RuleSet>>,
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
            schc: None,
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
                "--edhoc takes one --key-file: the gateway's EDHOC credentials (keygen --scheme edhoc or edhoc-psk)"
                    .into(),
            ));
        };
        let credentials = handshake::credentials::EdhocKeys::load(path.as_ref())
            .map_err(|e| LiveError::Usage(e.to_string()))?;
        let mut ring = OscoreRing::from_keys(Vec::new())?;
        ring.edhoc = Some(EdhocServer::new(credentials));
        Ok(ring)
    }

    /// Requests come compressed with these rules (`--compression schc`):
    /// their plaintexts too, where the rules have inner rules.
    pub fn compressed_with(&mut self, rules: Arc<RuleSet>) {
        self.schc = Some(rules);
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
    pub fn handshake(&mut self, message: &[u8]) -> Option<Handled> {
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
        let mut request = match &self.schc {
            Some(rules) => schc::oscore::open_request(rules, &self.keys[key], &mut window, message),
            None => host::open_request(&self.keys[key], &mut window, message),
        }
        .map_err(refusal)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use seal::oscore::Alg;

    /// With `--compression schc`, the ring opens a reading whose plaintext the
    /// inner rules compressed (RFC 8824 §7.2), as `send` seals it; a request
    /// sealed without them decrypts to a plaintext no rule names, and is a
    /// bad request (4.00), not a reading.
    #[test]
    fn a_compressed_ring_opens_inner_compressed_readings_only() {
        let rules = Arc::new(schc::rules_file::default_rules().unwrap());
        let (device, gateway) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
        let mut ring = OscoreRing::from_keys(vec![gateway]).unwrap();
        ring.compressed_with(rules.clone());
        let reading = br#"{"t":21.5}"#;
        let sealed =
            schc::oscore::seal_reading(&rules, &device, 3, reading, "readings", 50).unwrap();
        let (verified, _) = ring.open(&sealed.bytes).unwrap();
        assert_eq!(
            (verified.reading.as_slice(), verified.counter),
            (&reading[..], Some(3))
        );
        let plain = host::seal_request(&device, 4, reading, "readings", 50).unwrap();
        let refused = ring.open(&plain.bytes).err().unwrap();
        assert_eq!((refused.reason, refused.code), (Reason::Garbage, 0x80));
    }
}
