//! Message containers. `json` and `binary` authenticate the same header
//! (see [`header`]); `cose` authenticates COSE's own structures (RFC 9052).
//! The exact layouts are in docs/containers.md.

mod binary;
mod cose;
mod json;

use std::fmt;
use std::str::FromStr;

use zeroize::Zeroizing;

use crate::engine::Sealer;
use crate::error::{SealError, limits};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// Study 003's Appendix B object: base64 `iv`, `tag`, `data`, plus `v`, `scheme`, `kid`.
    Json,
    /// A compact byte layout: version, scheme id, key id, nonce, ciphertext, tag.
    Binary,
    /// COSE_Encrypt0 (etm, aead, enc) or COSE_Mac0 (hmac), tagged.
    Cose,
}

impl Container {
    pub const ALL: [Container; 3] = [Container::Json, Container::Binary, Container::Cose];

    pub fn as_str(self) -> &'static str {
        match self {
            Container::Json => "json",
            Container::Binary => "binary",
            Container::Cose => "cose",
        }
    }

    /// Whether the message is text (and so needs no transport encoding).
    pub fn is_text(self) -> bool {
        self == Container::Json
    }
}

impl FromStr for Container {
    type Err = SealError;

    fn from_str(text: &str) -> Result<Container, SealError> {
        match text {
            "json" => Ok(Container::Json),
            "binary" | "bin" => Ok(Container::Binary),
            "cose" => Ok(Container::Cose),
            _ => Err(SealError::InvalidScheme {
                scheme: text.to_string(),
                why: "unknown container; expected json, binary or cose".into(),
            }),
        }
    }
}

impl fmt::Display for Container {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `open` returns: the plaintext (wiped on drop) and the associated data sent with it.
pub struct Opened {
    pub plaintext: Zeroizing<Vec<u8>>,
    pub aad: Vec<u8>,
    /// The nonce (IV) the message was sealed under; empty for `hmac`, which has none.
    /// A receiver keys its replay check on it (crates/live's gateway does).
    pub nonce: Vec<u8>,
}

/// The associated data `json` and `binary` authenticate, whatever the pattern:
/// `0x01 || u8 len(scheme) || scheme || u8 len(kid) || kid || u16be len(aad) || aad`.
/// It binds the scheme name, the key id and the caller's associated data to the tag.
pub fn header(scheme: &str, key_id: &[u8], aad: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + scheme.len() + key_id.len() + aad.len());
    out.push(1);
    out.push(scheme.len() as u8);
    out.extend_from_slice(scheme.as_bytes());
    out.push(key_id.len() as u8);
    out.extend_from_slice(key_id);
    out.extend_from_slice(&(aad.len() as u16).to_be_bytes());
    out.extend_from_slice(aad);
    out
}

impl Sealer {
    /// Seals one message under `nonce` (which must be fresh: see `nonce`).
    pub fn seal(
        &mut self,
        container: Container,
        nonce: &[u8],
        plaintext: &[u8],
        aad: &[u8],
    ) -> Result<Vec<u8>, SealError> {
        if nonce.len() != self.scheme.nonce_len() {
            return Err(SealError::Nonce(format!(
                "{} needs {} nonce bytes, got {}",
                self.scheme,
                self.scheme.nonce_len(),
                nonce.len()
            )));
        }
        check_len("associated data", aad.len(), limits::AAD)?;
        check_len("plaintext", plaintext.len(), limits::BODY)?;
        match container {
            Container::Json => json::seal(self, nonce, plaintext, aad),
            Container::Binary => binary::seal(self, nonce, plaintext, aad),
            Container::Cose => cose::seal(self, nonce, plaintext, aad),
        }
    }

    /// Checks and opens one message. On any failure no plaintext is returned.
    pub fn open(&mut self, container: Container, message: &[u8]) -> Result<Opened, SealError> {
        check_len("message", message.len(), limits::MESSAGE)?;
        match container {
            Container::Json => json::open(self, message),
            Container::Binary => binary::open(self, message),
            Container::Cose => cose::open(self, message),
        }
    }

    /// Errors unless the message's key id and scheme are this key's. The key
    /// id first: a keyring holding keys of several schemes learns from it
    /// which key to try next.
    pub(crate) fn check_identity(&self, scheme: &str, key_id: &[u8]) -> Result<(), SealError> {
        if scheme != self.scheme.name() {
            // A scheme we do not know is said so, before any key question.
            crate::scheme::Scheme::parse_canonical(scheme)?;
        }
        if key_id != self.key_id.as_slice() {
            return Err(SealError::WrongKey {
                message: hex::encode(key_id),
                key: hex::encode(&self.key_id),
            });
        }
        if scheme != self.scheme.name() {
            return Err(SealError::WrongScheme {
                message: scheme.to_string(),
                key: self.scheme.name().to_string(),
            });
        }
        Ok(())
    }
}

pub(crate) fn check_len(field: &'static str, len: usize, max: usize) -> Result<(), SealError> {
    if len > max {
        Err(SealError::Oversize { field, len, max })
    } else {
        Ok(())
    }
}
