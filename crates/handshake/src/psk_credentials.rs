//! EDHOC-PSK credential files (draft-ietf-lake-edhoc-psk, method 4): each
//! PSK with its ID_CRED_PSK kid and the credentials CRED_I and CRED_R bound
//! to it. `keygen --scheme edhoc-psk` writes a device's file (one PSK) and
//! its gateway's (the same PSK), `--add-to GATEWAY` a further device under a
//! kid of its own. Like every key file they are written 0600 and refused on
//! every read when group or others may read them (`seal::host::keyfile`);
//! the keys are wiped on drop.
//!
//! ```text
//! {
//!   "format": "ciphermeter-edhoc-psk-credentials/1",
//!   "method": 4,
//!   "suite": 2,
//!   "psks": [
//!     { "id_cred_psk": "<hex kid>", "psk": "<hex>",
//!       "cred_i": "<hex CCS>", "cred_r": "<hex CCS>" }
//!   ]
//! }
//! ```
//!
//! A device (initiator) holds one PSK; a gateway (responder) one per device,
//! each under a different kid.

use std::path::Path;

use seal::host::error::SealError;
use seal::host::keyfile::{read_private, write_json_private};
use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use crate::credentials::KeygenError;
use crate::edhoc_psk::{METHOD, PskCredential, SUITE};
use crate::error::HandshakeError;

pub const FORMAT: &str = "ciphermeter-edhoc-psk-credentials/1";
/// What `keygen --scheme` names these with.
pub const SCHEME: &str = "edhoc-psk";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileJson {
    format: String,
    method: u8,
    suite: u8,
    psks: Vec<EntryJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryJson {
    id_cred_psk: String,
    psk: String,
    cred_i: String,
    cred_r: String,
}

impl Drop for EntryJson {
    fn drop(&mut self) {
        self.psk.zeroize();
        self.cred_i.zeroize();
        self.cred_r.zeroize();
    }
}

/// One party's PSKs (never empty; each under its own kid).
pub struct PskCredentials {
    pub psks: Vec<PskCredential>,
}

impl PskCredentials {
    /// The one PSK an initiator holds.
    pub fn initiator(&self) -> Result<&PskCredential, HandshakeError> {
        match self.psks.as_slice() {
            [one] => Ok(one),
            many => Err(HandshakeError::Usage(format!(
                "these PSK credentials hold {} keys (a gateway's): a device holds one",
                many.len()
            ))),
        }
    }

    /// A device's and a gateway's credentials: one fresh PSK under kid 0x10.
    pub fn generate_pair() -> Result<(PskCredentials, PskCredentials), HandshakeError> {
        let psk = PskCredential::generate(&[0x10])?;
        Ok((
            PskCredentials {
                psks: vec![psk.clone()],
            },
            PskCredentials { psks: vec![psk] },
        ))
    }

    /// A further device's PSK, under a one-byte kid no PSK here has; the
    /// gateway holds it from now on.
    pub fn add_device(&mut self) -> Result<PskCredentials, HandshakeError> {
        let kid = (0u8..=0x17)
            .chain(0x20..=0xff)
            .find(|k| !self.psks.iter().any(|p| p.kid() == [*k]))
            .ok_or_else(|| HandshakeError::Usage("no free one-byte kid is left".into()))?;
        let psk = PskCredential::generate(&[kid])?;
        self.psks.push(psk.clone());
        Ok(PskCredentials { psks: vec![psk] })
    }

    pub fn save(&self, path: &Path, force: bool) -> Result<(), SealError> {
        write_json_private(path, &self.json(), force)
    }

    fn json(&self) -> FileJson {
        FileJson {
            format: FORMAT.into(),
            method: METHOD,
            suite: SUITE,
            psks: self
                .psks
                .iter()
                .map(|p| EntryJson {
                    id_cred_psk: hex::encode(p.kid()),
                    psk: hex::encode(p.psk()),
                    cred_i: hex::encode(p.cred_i()),
                    cred_r: hex::encode(p.cred_r()),
                })
                .collect(),
        }
    }

    /// Reads a credentials file; it must be the owner's alone.
    pub fn load(path: &Path) -> Result<PskCredentials, SealError> {
        PskCredentials::parse(path, &read_private(path)?)
    }

    /// Parses a file's text `read_private` has read.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<PskCredentials, SealError> {
        let bad = |detail: String| SealError::KeyFile {
            path: path.display().to_string(),
            detail,
        };
        let doc: FileJson = serde_json::from_str(text)
            .map_err(|e| bad(format!("not an EDHOC-PSK credentials file ({e})")))?;
        if doc.format != FORMAT {
            return Err(bad(format!("format '{}', expected '{FORMAT}'", doc.format)));
        }
        if doc.method != METHOD || doc.suite != SUITE {
            return Err(bad(format!(
                "method {} suite {}: EDHOC-PSK runs here as method {METHOD}, suite {SUITE}",
                doc.method, doc.suite
            )));
        }
        if doc.psks.is_empty() {
            return Err(bad("no PSK in psks".into()));
        }
        let field = |name: &str, text: &str| {
            hex::decode(text)
                .map(Zeroizing::new)
                .map_err(|_| bad(format!("{name} is not hex")))
        };
        let mut psks: Vec<PskCredential> = Vec::new();
        for e in &doc.psks {
            let psk = PskCredential::new(
                &field("id_cred_psk", &e.id_cred_psk)?,
                &field("psk", &e.psk)?,
                &field("cred_i", &e.cred_i)?,
                &field("cred_r", &e.cred_r)?,
            )
            .map_err(|e| bad(e.to_string()))?;
            if psks.iter().any(|p| p.kid() == psk.kid()) {
                return Err(bad(format!(
                    "two PSKs share kid {}: ID_CRED_PSK could not tell them apart",
                    hex::encode(psk.kid())
                )));
            }
            psks.push(psk);
        }
        Ok(PskCredentials { psks })
    }
}

/// `keygen --scheme edhoc-psk`: a device's and a gateway's files holding
/// one fresh PSK, written 0600 (`force` replaces existing files).
pub fn write_pair(device: &Path, gateway: &Path, force: bool) -> Result<(), KeygenError> {
    let (mine, theirs) = PskCredentials::generate_pair()?;
    mine.save(device, force)?;
    theirs.save(gateway, force)?;
    Ok(())
}

/// `keygen --scheme edhoc-psk --add-to GATEWAY`: a further device's PSK. The
/// device's file is written first, so the gateway never holds a key that
/// was not kept; the gateway's is replaced whole (a temporary file renamed
/// over it). Returns how many PSKs the gateway holds now.
pub fn add_device_to(gateway: &Path, device: &Path, force: bool) -> Result<usize, KeygenError> {
    let mut holding = PskCredentials::load(gateway)?;
    let new = holding.add_device()?;
    new.save(device, force)?;
    crate::credentials::replace_with(gateway, |tmp| holding.save(tmp, false))?;
    Ok(holding.psks.len())
}
