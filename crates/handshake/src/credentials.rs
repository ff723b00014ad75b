//! EDHOC credential files: a party's static key, its own credential (CCS)
//! and the credentials it trusts: a device its gateway's, a gateway each of
//! its devices'. `keygen --scheme edhoc` writes a matching pair (device,
//! gateway), and `--add-to GATEWAY` a further device the gateway then trusts;
//! like every key file they are 0600 and checked on every read.
//!
//! ```text
//! {
//!   "format": "ciphermeter-edhoc-credentials/1",
//!   "method": 3,
//!   "suite": 2,
//!   "private_key": "<hex, P-256 scalar>",
//!   "credential": "<hex, this party's CCS>",
//!   "peer_credential": "<hex, the CCS it trusts>"
//!   (or "peer_credentials": ["<hex>", ...] when it trusts several)
//! }
//! ```

use std::path::Path;

use seal::host::error::SealError;
use seal::host::keyfile::{read_private, write_json_private};
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::edhoc::{Method, Party, Suite};
use crate::error::HandshakeError;

pub const FORMAT: &str = "ciphermeter-edhoc-credentials/1";
/// What `keygen --scheme` names these with.
pub const SCHEME: &str = "edhoc";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CredentialsJson {
    format: String,
    method: u8,
    suite: u8,
    private_key: String,
    credential: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    peer_credential: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    peer_credentials: Vec<String>,
}

impl Drop for CredentialsJson {
    fn drop(&mut self) {
        self.private_key.zeroize();
    }
}

/// One party's side of EDHOC: its key and credential, and the credentials it
/// trusts (never empty; each with its own kid).
pub struct Credentials {
    pub method: Method,
    pub suite: Suite,
    pub party: Party,
    pub peers: Vec<Vec<u8>>,
}

impl Credentials {
    /// A device's and a gateway's credentials, each trusting the other.
    pub fn generate_pair() -> Result<(Credentials, Credentials), HandshakeError> {
        let device = Party::generate("device", 0x2b)?;
        let gateway = Party::generate("gateway", 0x32)?;
        let (device_ccs, gateway_ccs) = (device.ccs().to_vec(), gateway.ccs().to_vec());
        let make = |party, peer| Credentials {
            method: Method::STATIC_DH,
            suite: Suite::parse(2).expect("suite 2"),
            party,
            peers: vec![peer],
        };
        Ok((make(device, gateway_ccs), make(gateway, device_ccs)))
    }

    /// A further device this gateway trusts from now on: a fresh key pair
    /// under a kid no credential here has (the gateway's own included), its
    /// CCS added to the trusted ones; the device trusts the gateway.
    pub fn add_device(&mut self) -> Result<Credentials, HandshakeError> {
        let mut taken = vec![kid_of(self.party.ccs())?];
        for peer in &self.peers {
            taken.push(kid_of(peer)?);
        }
        let kid = (0u8..=23)
            .chain(0x2b..=0xff)
            .find(|k| !taken.iter().any(|t| t.as_slice() == [*k]))
            .ok_or_else(|| HandshakeError::Usage("no free one-byte kid is left".into()))?;
        let device = Party::generate("device", kid)?;
        self.peers.push(device.ccs().to_vec());
        Ok(Credentials {
            method: self.method,
            suite: self.suite,
            party: device,
            peers: vec![self.party.ccs().to_vec()],
        })
    }

    /// The one credential an initiator trusts: its responder's.
    pub fn peer_credential(&self) -> Result<lakers::Credential, HandshakeError> {
        match self.peers.as_slice() {
            [one] => lakers::Credential::parse_ccs(one).map_err(crate::edhoc::lakers_err),
            _ => Err(HandshakeError::Usage(format!(
                "these credentials trust {} parties (a gateway's): an initiator trusts one",
                self.peers.len()
            ))),
        }
    }

    /// Every credential a responder trusts.
    pub fn trusted(&self) -> Result<Vec<lakers::Credential>, HandshakeError> {
        self.peers
            .iter()
            .map(|p| lakers::Credential::parse_ccs(p).map_err(crate::edhoc::lakers_err))
            .collect()
    }

    /// Rewrites an existing credentials file whole ([`replace_with`]).
    pub fn replace(&self, path: &Path) -> Result<(), SealError> {
        replace_with(path, |tmp| self.save(tmp, false))
    }

    pub fn save(&self, path: &Path, force: bool) -> Result<(), SealError> {
        let doc = CredentialsJson {
            format: FORMAT.into(),
            method: self.method.number(),
            suite: self.suite.number(),
            private_key: hex::encode(self.party.private()),
            credential: hex::encode(self.party.ccs()),
            peer_credential: (self.peers.len() == 1).then(|| hex::encode(&self.peers[0])),
            peer_credentials: match self.peers.len() {
                1 => Vec::new(),
                _ => self.peers.iter().map(hex::encode).collect(),
            },
        };
        write_json_private(path, &doc, force)
    }

    /// Reads a credentials file; it must be the owner's alone.
    pub fn load(path: &Path) -> Result<Credentials, SealError> {
        Credentials::parse(path, &read_private(path)?)
    }

    /// Parses a file's text `read_private` has read.
    fn parse(path: &Path, text: &str) -> Result<Credentials, SealError> {
        let bad = |detail: String| SealError::KeyFile {
            path: path.display().to_string(),
            detail,
        };
        let doc: CredentialsJson = serde_json::from_str(text)
            .map_err(|e| bad(format!("not an EDHOC credentials file ({e})")))?;
        if doc.format != FORMAT {
            return Err(bad(format!("format '{}', expected '{FORMAT}'", doc.format)));
        }
        let method = Method::parse(doc.method).map_err(|e| bad(e.to_string()))?;
        if method != Method::STATIC_DH {
            return Err(bad(format!(
                "method {} in a method-3 credentials file: PSK credentials are \
                 '{}' files (keygen --scheme {})",
                doc.method,
                crate::psk_credentials::FORMAT,
                crate::psk_credentials::SCHEME
            )));
        }
        let suite = Suite::parse(doc.suite).map_err(|e| bad(e.to_string()))?;
        let field = |name: &str, text: &str| {
            hex::decode(text).map_err(|_| bad(format!("{name} is not hex")))
        };
        let private = Zeroizing::new(field("private_key", &doc.private_key)?);
        let private: [u8; 32] = private
            .as_slice()
            .try_into()
            .map_err(|_| bad("private_key is not 32 bytes".into()))?;
        let party = Party::from_parts(private, &field("credential", &doc.credential)?)
            .map_err(|e| bad(format!("credential: {e}")))?;
        let texts: Vec<&String> = match (&doc.peer_credential, doc.peer_credentials.as_slice()) {
            (Some(one), []) => vec![one],
            (None, many) if !many.is_empty() => many.iter().collect(),
            _ => {
                return Err(bad(
                    "give peer_credential (one) or peer_credentials (a list), not both or neither"
                        .into(),
                ));
            }
        };
        let mut peers = Vec::new();
        let mut kids = Vec::new();
        for text in texts {
            let peer = field("peer_credential", text)?;
            lakers::Credential::parse_ccs(&peer)
                .map_err(|e| bad(format!("peer_credential: {e:?}")))?;
            let kid = kid_of(&peer).map_err(|e| bad(e.to_string()))?;
            if kids.contains(&kid) {
                return Err(bad(format!(
                    "two trusted credentials share kid {}: ID_CRED_I could not tell them apart",
                    hex::encode(&kid)
                )));
            }
            kids.push(kid);
            peers.push(peer);
        }
        Ok(Credentials {
            method,
            suite,
            party,
            peers,
        })
    }
}

/// Rewrites an existing key file whole with `write`: a temporary file beside
/// it, synced, then renamed over it, so a crash leaves the old or the new.
pub(crate) fn replace_with(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), SealError>,
) -> Result<(), SealError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    write(&tmp)?;
    let io = |e: std::io::Error| SealError::Io(format!("{}: {e}", path.display()));
    std::fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io)?;
    }
    Ok(())
}

/// A party's EDHOC credentials of either kind, as `--edhoc` takes them: the
/// file's `format` says which method runs (3 with lakers, 4 with
/// [`crate::edhoc_psk`]).
pub enum EdhocKeys {
    StaticDh(Credentials),
    Psk(crate::psk_credentials::PskCredentials),
}

impl EdhocKeys {
    /// Reads a credentials file of either format; it must be the owner's alone.
    pub fn load(path: &Path) -> Result<EdhocKeys, SealError> {
        /// Only the format is read here; the rest is each format's.
        #[derive(Deserialize)]
        struct Format {
            format: String,
        }
        let text = read_private(path)?;
        let format = serde_json::from_str::<Format>(&text).map(|f| f.format);
        match format.as_deref() {
            Ok(crate::psk_credentials::FORMAT) => Ok(EdhocKeys::Psk(
                crate::psk_credentials::PskCredentials::parse(path, &text)?,
            )),
            _ => Credentials::parse(path, &text).map(EdhocKeys::StaticDh),
        }
    }

    pub fn method(&self) -> Method {
        match self {
            EdhocKeys::StaticDh(c) => c.method,
            EdhocKeys::Psk(_) => Method::PSK,
        }
    }
}

/// `keygen --scheme edhoc`: a device's and a gateway's credentials, each
/// trusting the other, written 0600 (`force` replaces existing files).
pub fn write_pair(device: &Path, gateway: &Path, force: bool) -> Result<(), KeygenError> {
    let (mine, theirs) = Credentials::generate_pair()?;
    mine.save(device, force)?;
    theirs.save(gateway, force)?;
    Ok(())
}

/// `keygen --scheme edhoc --add-to GATEWAY`: a further device the gateway
/// trusts. The device's file is written first, so the gateway never trusts a
/// key that was not kept; the gateway's is replaced whole. Returns how many
/// devices the gateway trusts now.
pub fn add_device_to(gateway: &Path, device: &Path, force: bool) -> Result<usize, KeygenError> {
    let mut trusting = Credentials::load(gateway)?;
    let new = trusting.add_device()?;
    new.save(device, force)?;
    trusting.replace(gateway)?;
    Ok(trusting.peers.len())
}

/// Why `keygen --scheme edhoc` failed: the files, or the handshake's rules.
#[derive(Debug, thiserror::Error)]
pub enum KeygenError {
    #[error(transparent)]
    File(#[from] SealError),
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
}

/// A CCS's kid (what ID_CRED_x names it by).
fn kid_of(ccs: &[u8]) -> Result<Vec<u8>, HandshakeError> {
    let cred = lakers::Credential::parse_ccs(ccs).map_err(crate::edhoc::lakers_err)?;
    cred.kid
        .map(|k| k.as_slice().to_vec())
        .ok_or_else(|| HandshakeError::Usage("a credential without a kid".into()))
}
