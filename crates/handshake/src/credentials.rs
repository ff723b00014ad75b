//! EDHOC credential files: a party's static key, its own credential (CCS)
//! and the one credential it trusts, its peer's. `keygen --scheme edhoc`
//! writes a matching pair (device, gateway); like every key file they are
//! 0600 and checked on every read.
//!
//! ```text
//! {
//!   "format": "ciphermeter-edhoc-credentials/1",
//!   "method": 3,
//!   "suite": 2,
//!   "private_key": "<hex, P-256 scalar>",
//!   "credential": "<hex, this party's CCS>",
//!   "peer_credential": "<hex, the CCS it trusts>"
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
    peer_credential: String,
}

impl Drop for CredentialsJson {
    fn drop(&mut self) {
        self.private_key.zeroize();
    }
}

/// One party's side of EDHOC: its key and credential, and its peer's credential.
pub struct Credentials {
    pub method: Method,
    pub suite: Suite,
    pub party: Party,
    pub peer: Vec<u8>,
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
            peer,
        };
        Ok((make(device, gateway_ccs), make(gateway, device_ccs)))
    }

    pub fn peer_credential(&self) -> Result<lakers::Credential, HandshakeError> {
        lakers::Credential::parse_ccs(&self.peer).map_err(crate::edhoc::lakers_err)
    }

    pub fn save(&self, path: &Path, force: bool) -> Result<(), SealError> {
        let doc = CredentialsJson {
            format: FORMAT.into(),
            method: self.method.number(),
            suite: self.suite.number(),
            private_key: hex::encode(self.party.private()),
            credential: hex::encode(self.party.ccs()),
            peer_credential: hex::encode(&self.peer),
        };
        write_json_private(path, &doc, force)
    }

    /// Reads a credentials file; it must be the owner's alone.
    pub fn load(path: &Path) -> Result<Credentials, SealError> {
        let text = read_private(path)?;
        let bad = |detail: String| SealError::KeyFile {
            path: path.display().to_string(),
            detail,
        };
        let doc: CredentialsJson = serde_json::from_str(&text)
            .map_err(|e| bad(format!("not an EDHOC credentials file ({e})")))?;
        if doc.format != FORMAT {
            return Err(bad(format!("format '{}', expected '{FORMAT}'", doc.format)));
        }
        let method = Method::parse(doc.method).map_err(|e| bad(e.to_string()))?;
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
        let peer = field("peer_credential", &doc.peer_credential)?;
        lakers::Credential::parse_ccs(&peer).map_err(|e| bad(format!("peer_credential: {e:?}")))?;
        Ok(Credentials {
            method,
            suite,
            party,
            peer,
        })
    }
}
