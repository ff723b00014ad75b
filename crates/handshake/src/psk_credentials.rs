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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::EdhocKeys;

    #[test]
    fn files_round_trip_0600_each_device_under_its_own_kid() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, gw) = (dir.path().join("dev.psk"), dir.path().join("gw.psk"));
        write_pair(&dev, &gw, false).unwrap();
        let dev2 = dir.path().join("dev2.psk");
        assert_eq!(add_device_to(&gw, &dev2, false).unwrap(), 2);
        let mode = |p: &Path| {
            std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).unwrap().permissions())
        };
        for p in [&dev, &gw, &dev2] {
            assert_eq!(mode(p) & 0o777, 0o600, "{}", p.display());
        }
        let gateway = PskCredentials::load(&gw).unwrap();
        let (one, two) = (
            PskCredentials::load(&dev).unwrap(),
            PskCredentials::load(&dev2).unwrap(),
        );
        assert_eq!(gateway.psks.len(), 2);
        assert_ne!(
            one.initiator().unwrap().kid(),
            two.initiator().unwrap().kid()
        );
        assert_ne!(
            one.initiator().unwrap().psk(),
            two.initiator().unwrap().psk()
        );
        for (device, held) in [(&one, &gateway.psks[0]), (&two, &gateway.psks[1])] {
            assert_eq!(device.initiator().unwrap().psk(), held.psk());
        }
        assert!(
            gateway
                .initiator()
                .unwrap_err()
                .to_string()
                .contains("a device holds one")
        );
        assert!(matches!(EdhocKeys::load(&gw).unwrap(), EdhocKeys::Psk(_)));
        // Existing files are kept unless forced.
        assert!(write_pair(&dev, &gw, false).is_err());
    }

    #[test]
    fn malformed_files_are_refused_with_the_reason() {
        let path = Path::new("x.psk");
        let (_, gw) = PskCredentials::generate_pair().unwrap();
        let good = serde_json::to_value(gw.json()).unwrap();
        let with = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut doc = good.clone();
            edit(&mut doc);
            PskCredentials::parse(path, &doc.to_string())
                .err()
                .unwrap()
                .to_string()
        };
        assert!(with(&|d| d["method"] = 3.into()).contains("method 3"));
        assert!(with(&|d| d["format"] = "other".into()).contains("format 'other'"));
        assert!(with(&|d| d["psks"] = serde_json::json!([])).contains("no PSK"));
        assert!(with(&|d| d["psks"][0]["psk"] = "0011".into()).contains("PSK of 2 bytes"));
        assert!(with(&|d| d["psks"][0]["psk"] = "zz".into()).contains("not hex"));
        assert!(
            with(&|d| {
                let entry = d["psks"][0].clone();
                d["psks"].as_array_mut().unwrap().push(entry);
            })
            .contains("share kid")
        );
    }
}
