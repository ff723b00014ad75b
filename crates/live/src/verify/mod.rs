//! Opening what arrives: one or more key files, the reason a message is refused,
//! and what a verified reading carries (device, replay identity, sender's time).
//! Sealed containers here ([`SealedRing`]); OSCORE requests in [`oscore`] (the
//! gateway's contexts and answers, with EDHOC's sessions from [`crate::edhoc`]).

pub mod oscore;

use std::collections::HashMap;
use std::path::Path;

use seal::{Container, HostSealer, NoncePolicy, SealError, SealKey};
use sha2::{Digest, Sha256};

use crate::counters::Reason;
use crate::error::LiveError;

pub use oscore::OscoreRing;

/// A message that passed authentication, ready to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// `id` of the reading when it has one, else the key id.
    pub device: String,
    pub key_id: String,
    /// What makes this message unique for its device: the nonce, or (hmac, no nonce)
    /// SHA-256 of the message, which is canonical in every container.
    pub replay_id: Vec<u8>,
    /// The nonce as a counter, when the key's policy is `counter` (the last 8 bytes,
    /// big-endian, as `seal` writes it): checked against a high-water mark instead.
    pub counter: Option<u64>,
    pub reading: Vec<u8>,
    /// `sent_us` of the reading (Unix µs), which `send` adds to JSON readings.
    pub sent_us: Option<i64>,
}

/// The gateway's keys: sealing keys for its containers, or OSCORE contexts.
pub enum Keyring {
    Sealed(SealedRing),
    Oscore(OscoreRing),
}

impl Keyring {
    pub fn load(paths: &[impl AsRef<Path>], container: Container) -> Result<Keyring, LiveError> {
        SealedRing::load(paths, container).map(Keyring::Sealed)
    }

    /// OSCORE security contexts (`keygen --scheme oscore:ALG`), for `coap://`.
    pub fn load_oscore(paths: &[impl AsRef<Path>]) -> Result<Keyring, LiveError> {
        OscoreRing::load(paths).map(Keyring::Oscore)
    }

    /// The gateway's EDHOC credentials (`keygen --scheme edhoc`): its OSCORE
    /// contexts come from handshakes (`coap://` with `--edhoc`).
    pub fn load_edhoc(paths: &[impl AsRef<Path>]) -> Result<Keyring, LiveError> {
        OscoreRing::with_edhoc(paths).map(Keyring::Oscore)
    }

    pub fn from_keys(keys: &[SealKey], container: Container) -> Result<Keyring, LiveError> {
        SealedRing::from_keys(keys, container).map(Keyring::Sealed)
    }

    pub fn is_oscore(&self) -> bool {
        matches!(self, Keyring::Oscore(_))
    }

    /// Opens `message`, or says why it is refused (with the seal crate's detail).
    pub fn open(&mut self, message: &[u8]) -> Result<Verified, (Reason, String)> {
        match self {
            Keyring::Sealed(ring) => ring.open(message),
            Keyring::Oscore(ring) => ring
                .open(message)
                .map(|(verified, _)| verified)
                .map_err(|r| (r.reason, r.detail)),
        }
    }
}

/// Sealing keys: the message's key id picks the key.
pub struct SealedRing {
    container: Container,
    sealers: Vec<HostSealer>,
    /// Each key's nonce policy, in the order of `sealers`.
    nonces: Vec<NoncePolicy>,
    by_id: HashMap<Vec<u8>, usize>,
}

impl SealedRing {
    /// Whose code opens the messages (`seal::Backend::host_default` per key's
    /// scheme): the gateway says so when it starts.
    pub fn implementations(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.sealers.iter().map(|s| s.backend().name()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    pub fn load(paths: &[impl AsRef<Path>], container: Container) -> Result<SealedRing, LiveError> {
        if paths.is_empty() {
            return Err(LiveError::Usage("give at least one --key-file".into()));
        }
        let keys = paths
            .iter()
            .map(|p| SealKey::load(p.as_ref()).map_err(|e| LiveError::Usage(e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        SealedRing::from_keys(&keys, container)
    }

    pub fn from_keys(keys: &[SealKey], container: Container) -> Result<SealedRing, LiveError> {
        let mut ring = SealedRing {
            container,
            sealers: Vec::new(),
            nonces: Vec::new(),
            by_id: HashMap::new(),
        };
        for key in keys {
            // A gateway only accepts what `seal` would produce: insecure schemes stay refused.
            let sealer =
                HostSealer::new(key, false).map_err(|e| LiveError::Usage(e.to_string()))?;
            if ring
                .by_id
                .insert(key.key_id.clone(), ring.sealers.len())
                .is_some()
            {
                return Err(LiveError::Usage(format!(
                    "two key files share key id {}",
                    key.key_id_hex()
                )));
            }
            ring.sealers.push(sealer);
            ring.nonces.push(key.nonce);
        }
        Ok(ring)
    }

    /// Opens `message`, or says why it is refused (with the seal crate's detail).
    pub fn open(&mut self, message: &[u8]) -> Result<Verified, (Reason, String)> {
        let mut index = 0;
        let opened = loop {
            match self.sealers[index].open(self.container, message) {
                Ok(o) => break o,
                Err(SealError::WrongKey { message: kid, .. }) => {
                    let other = hex::decode(&kid)
                        .ok()
                        .and_then(|id| self.by_id.get(&id).copied());
                    match other {
                        Some(i) if i != index => index = i,
                        _ => return Err((Reason::WrongKey, format!("unknown key id {kid}"))),
                    }
                }
                Err(e) => return Err((classify(&e), e.to_string())),
            }
        };
        let key_id = hex::encode(&self.sealers[index].key_id);
        let replay_id = if opened.nonce.is_empty() {
            Sha256::digest(message).to_vec()
        } else {
            opened.nonce.clone()
        };
        let counter = match self.nonces[index] {
            NoncePolicy::Counter if opened.nonce.len() >= 8 => {
                let tail = &opened.nonce[opened.nonce.len() - 8..];
                Some(u64::from_be_bytes(tail.try_into().expect("8 bytes")))
            }
            _ => None,
        };
        let (device, sent_us) = reading_fields(&opened.plaintext);
        Ok(Verified {
            device: device.unwrap_or_else(|| key_id.clone()),
            key_id,
            replay_id,
            counter,
            reading: opened.plaintext.to_vec(),
            sent_us,
        })
    }
}

/// The reason counted for a refused message.
pub fn classify(err: &SealError) -> Reason {
    match err {
        SealError::Rejected => Reason::Tampered,
        SealError::WrongKey { .. } | SealError::WrongScheme { .. } => Reason::WrongKey,
        SealError::Malformed { detail, .. } => {
            // serde_json says "EOF while parsing", the binary reader "truncated in …",
            // CBOR decoders "EOF"/"end of input".
            let d = detail.to_ascii_lowercase();
            if d.contains("eof") || d.contains("truncated") || d.contains("end of") {
                Reason::Truncated
            } else {
                Reason::Garbage
            }
        }
        _ => Reason::Garbage,
    }
}

/// `id` and `sent_us` of a JSON object reading, when present.
pub(crate) fn reading_fields(plaintext: &[u8]) -> (Option<String>, Option<i64>) {
    #[derive(serde::Deserialize)]
    struct Fields {
        id: Option<serde_json::Value>,
        sent_us: Option<i64>,
    }
    if plaintext.first() != Some(&b'{') {
        return (None, None);
    }
    match serde_json::from_slice::<Fields>(plaintext) {
        Ok(f) => {
            let id = match f.id {
                Some(serde_json::Value::String(s)) if !s.is_empty() && s.len() <= 128 => Some(s),
                Some(serde_json::Value::Number(n)) => Some(n.to_string()),
                _ => None,
            };
            (id, f.sent_us)
        }
        Err(_) => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seal::{NoncePolicy, Scheme};

    fn key() -> SealKey {
        SealKey::from_parts(
            Scheme::parse("aead:aes-128-gcm").unwrap(),
            vec![1; 8],
            &[7u8; 16],
        )
        .unwrap()
    }

    fn sealed(k: &SealKey, container: Container, reading: &[u8]) -> Vec<u8> {
        seal::seal_with_key(k, false, container, reading, b"").unwrap()
    }

    #[test]
    fn a_keyring_of_several_schemes_finds_each_messages_key() {
        let hmac = || {
            SealKey::from_parts(
                Scheme::parse("hmac:hmac-sha256").unwrap(),
                vec![2; 8],
                &[9u8; 32],
            )
            .unwrap()
        };
        for container in [Container::Json, Container::Binary, Container::Cose] {
            let keys = [key(), hmac()];
            let mut ring = Keyring::from_keys(&keys, container).unwrap();
            for (k, id) in [
                (&keys[1], "0202020202020202"),
                (&keys[0], "0101010101010101"),
            ] {
                let m = sealed(k, container, br#"{"t":1}"#);
                assert_eq!(ring.open(&m).unwrap().key_id, id, "{container:?}");
            }
        }
    }

    #[test]
    fn opens_and_extracts_device_and_timestamp() {
        let k = key();
        let mut ring = Keyring::from_keys(std::slice::from_ref(&k), Container::Json).unwrap();
        let m = sealed(
            &k,
            Container::Json,
            br#"{"t":1,"id":"Logger3","sent_us":1700000000000000}"#,
        );
        let v = ring.open(&m).unwrap();
        assert_eq!(v.device, "Logger3");
        assert_eq!(v.sent_us, Some(1_700_000_000_000_000));
        assert_eq!(v.key_id, "0101010101010101");
        assert_eq!(v.replay_id.len(), 12);
        let m = sealed(&k, Container::Json, b"not json");
        assert_eq!(ring.open(&m).unwrap().device, "0101010101010101");
    }

    #[test]
    fn reasons_for_refusal() {
        let k = key();
        for container in [Container::Json, Container::Binary] {
            let mut ring = Keyring::from_keys(std::slice::from_ref(&k), container).unwrap();
            let m = sealed(&k, container, br#"{"id":"a"}"#);
            // Flip a bit of the tag (the last bytes before a closing quote/brace in json).
            let mut tampered = m.clone();
            let at = match container {
                Container::Json => tampered.len() - 10,
                _ => tampered.len() - 1,
            };
            let bit = if container == Container::Json {
                0x01
            } else {
                0x80
            };
            tampered[at] ^= bit;
            let (reason, _) = ring.open(&tampered).unwrap_err();
            assert!(
                reason == Reason::Tampered || reason == Reason::Garbage,
                "{container}: {reason:?}"
            );
            let (reason, why) = ring.open(&m[..m.len() / 2]).unwrap_err();
            assert_eq!(reason, Reason::Truncated, "{container}: {why}");
            let (reason, _) = ring.open(b"garbage garbage").unwrap_err();
            assert_eq!(reason, Reason::Garbage);
            let other = SealKey::generate(k.scheme.clone(), NoncePolicy::Random).unwrap();
            let (reason, _) = ring.open(&sealed(&other, container, b"x")).unwrap_err();
            assert_eq!(reason, Reason::WrongKey);
        }
    }

    #[test]
    fn tag_bit_flip_in_json_is_tampering() {
        let k = key();
        let mut ring = Keyring::from_keys(std::slice::from_ref(&k), Container::Json).unwrap();
        let m = sealed(&k, Container::Json, br#"{"id":"a"}"#);
        let tampered = crate::inject::tamper(&m, Container::Json, 3).unwrap();
        assert_eq!(ring.open(&tampered).unwrap_err().0, Reason::Tampered);
        let m = sealed(&k, Container::Binary, br#"{"id":"a"}"#);
        let mut ring = Keyring::from_keys(std::slice::from_ref(&k), Container::Binary).unwrap();
        let tampered = crate::inject::tamper(&m, Container::Binary, 3).unwrap();
        assert_eq!(ring.open(&tampered).unwrap_err().0, Reason::Tampered);
    }

    #[test]
    fn picks_the_key_by_key_id() {
        let a = key();
        let b = SealKey::generate(a.scheme.clone(), NoncePolicy::Random).unwrap();
        let from_b = sealed(&b, Container::Json, br#"{"id":"dev-b"}"#);
        // Right key id, wrong material: the tag fails, so this is tampering, not a wrong key.
        let fake_b = SealKey::from_parts(a.scheme.clone(), b.key_id.clone(), &[0u8; 16]).unwrap();
        let forged = sealed(&fake_b, Container::Json, b"x");
        let mut ring = Keyring::from_keys(&[a, b], Container::Json).unwrap();
        assert_eq!(ring.open(&from_b).unwrap().device, "dev-b");
        assert_eq!(ring.open(&forged).unwrap_err().0, Reason::Tampered);
    }
}
