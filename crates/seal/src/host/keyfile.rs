//! Sealing key files: one JSON object naming the scheme, the key id, the
//! nonce policy and the key material, readable by its owner only.
//!
//! ```text
//! {
//!   "format": "ciphermeter-seal-key/1",
//!   "scheme": "aead:aes-256-gcm",
//!   "key_id": "9f86d081884c7d65",
//!   "nonce": "random",
//!   "key": "<hex key material>"
//! }
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use zeroize::{Zeroize, Zeroizing};

use super::error::SealError;
use super::nonce;
use super::nonce_policy::NoncePolicy;
use super::scheme::Scheme;
use crate::error::limits;

pub const FORMAT: &str = "ciphermeter-seal-key/1";
/// Key ids we generate: 8 random bytes, 16 hex digits.
pub const KEY_ID_LEN: usize = 8;

/// A loaded sealing key. The material is wiped from memory when dropped.
pub struct SealKey {
    pub scheme: Scheme,
    pub key_id: Vec<u8>,
    pub nonce: NoncePolicy,
    material: Zeroizing<Vec<u8>>,
    /// Where it was read from; a counter policy keeps its counter beside it.
    pub path: Option<PathBuf>,
}

/// The material is `Zeroizing`.
impl zeroize::ZeroizeOnDrop for SealKey {}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyFileJson {
    format: String,
    scheme: String,
    key_id: String,
    nonce: String,
    key: String,
}

impl Drop for KeyFileJson {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl SealKey {
    /// A fresh key from the operating system's generator.
    pub fn generate(scheme: Scheme, nonce: NoncePolicy) -> Result<SealKey, SealError> {
        if nonce == NoncePolicy::Counter && !scheme.allows_counter_nonces() {
            return Err(SealError::InvalidScheme {
                scheme: scheme.name().to_string(),
                why: "counter nonces are for aead schemes and etm with a stream cipher (CBC IVs must be unpredictable; counter IVs overlap CTR keystreams); use --nonce random".into(),
            });
        }
        let mut material = Zeroizing::new(vec![0u8; scheme.key_len()]);
        let mut key_id = vec![0u8; KEY_ID_LEN];
        fill_random(&mut material)?;
        fill_random(&mut key_id)?;
        Ok(SealKey {
            scheme,
            key_id,
            nonce,
            material,
            path: None,
        })
    }

    /// `keygen --scheme S --nonce N`: a fresh key for the scheme and nonce
    /// policy named, refused where they are insecure together unless
    /// `allow_insecure`.
    pub fn create(scheme: &str, nonce: &str, allow_insecure: bool) -> Result<SealKey, SealError> {
        let scheme =
            Scheme::parse(scheme).map_err(|e| SealError::Usage(format!("--scheme: {e}")))?;
        let nonce: NoncePolicy = nonce
            .parse()
            .map_err(|e| SealError::Usage(format!("--nonce: {e}")))?;
        scheme.check_allowed_for(nonce, allow_insecure)?;
        SealKey::generate(scheme, nonce)
    }

    /// A key from given material (tests, benchmarks); the key id is fixed by the caller.
    pub fn from_parts(
        scheme: Scheme,
        key_id: Vec<u8>,
        material: &[u8],
    ) -> Result<SealKey, SealError> {
        check_material(&scheme, material, "<memory>")?;
        Ok(SealKey {
            scheme,
            key_id,
            nonce: NoncePolicy::Random,
            material: Zeroizing::new(material.to_vec()),
            path: None,
        })
    }

    /// `--scheme S` beside the key file: refused unless it names the key's scheme.
    pub fn check_scheme(&self, expected: Option<&str>) -> Result<(), SealError> {
        let Some(expected) = expected else {
            return Ok(());
        };
        let expected =
            Scheme::parse(expected).map_err(|e| SealError::Usage(format!("--scheme: {e}")))?;
        if expected != self.scheme {
            return Err(SealError::Usage(format!(
                "--scheme {expected} does not match the key file, which is for {}",
                self.scheme
            )));
        }
        Ok(())
    }

    pub fn material(&self) -> &[u8] {
        &self.material
    }

    pub fn key_id_hex(&self) -> String {
        hex::encode(&self.key_id)
    }

    /// Writes the key file with mode 0600 (and, for a counter policy, its
    /// counter file starting at 0). Refuses to replace a file unless `force`.
    pub fn save(&mut self, path: &Path, force: bool) -> Result<(), SealError> {
        let doc = KeyFileJson {
            format: FORMAT.to_string(),
            scheme: self.scheme.name().to_string(),
            key_id: self.key_id_hex(),
            nonce: self.nonce.as_str().to_string(),
            key: hex::encode(self.material.as_slice()),
        };
        write_json_private(path, &doc, force)?;
        if self.nonce == NoncePolicy::Counter {
            nonce::create_counter(&nonce::counter_path(path), force)?;
        }
        self.path = Some(path.to_path_buf());
        Ok(())
    }

    /// Reads and checks a key file. Refuses files others can read, as ssh does.
    pub fn load(path: &Path) -> Result<SealKey, SealError> {
        let shown = path.display().to_string();
        let text = read_private(path)?;
        let mut key = SealKey::parse(text.as_bytes(), &shown)?;
        key.path = Some(path.to_path_buf());
        Ok(key)
    }

    /// Checks a key file's contents; `shown` names it in errors. `load` reads
    /// files through this; the fuzz target `keyfile` feeds it directly.
    pub fn parse(bytes: &[u8], shown: &str) -> Result<SealKey, SealError> {
        let bad = |detail: String| SealError::KeyFile {
            path: shown.to_string(),
            detail,
        };
        let doc: KeyFileJson = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("not a ciphermeter key file: {e}")))?;
        if doc.format != FORMAT {
            return Err(bad(format!(
                "format is '{}', expected '{FORMAT}'",
                doc.format
            )));
        }
        let scheme = Scheme::parse_canonical(&doc.scheme)?;
        let key_id = hex::decode(&doc.key_id).map_err(|_| bad("key_id is not hex".into()))?;
        if key_id.is_empty() || key_id.len() > limits::KEY_ID {
            return Err(bad(format!("key_id must be 1 to {} bytes", limits::KEY_ID)));
        }
        let nonce: NoncePolicy = doc.nonce.parse().map_err(bad)?;
        if nonce == NoncePolicy::Counter && !scheme.allows_counter_nonces() {
            return Err(bad(format!("counter nonces are not allowed for {scheme}")));
        }
        let material =
            Zeroizing::new(hex::decode(&doc.key).map_err(|_| bad("key is not hex".into()))?);
        check_material(&scheme, &material, shown)?;
        Ok(SealKey {
            scheme,
            key_id,
            nonce,
            material,
            path: None,
        })
    }
}

fn check_material(scheme: &Scheme, material: &[u8], path: &str) -> Result<(), SealError> {
    if material.len() != scheme.key_len() {
        return Err(SealError::KeyFile {
            path: path.to_string(),
            detail: format!(
                "{scheme} needs {} key bytes, the file holds {}",
                scheme.key_len(),
                material.len()
            ),
        });
    }
    Ok(())
}

pub fn fill_random(buf: &mut [u8]) -> Result<(), SealError> {
    getrandom::fill(buf)
        .map_err(|e| SealError::Io(format!("operating system random generator: {e}")))
}

/// Creates `path` readable by its owner only, never following an existing file
/// unless `force`, and flushes it to disk.
pub(crate) fn write_private(path: &Path, bytes: &[u8], force: bool) -> Result<(), SealError> {
    write_key_file(path, bytes, 0o600, force)
}

/// Writes `doc` as pretty JSON and a newline with [`write_private`]; the text
/// holding key material is wiped once written.
pub fn write_json_private<T: Serialize>(
    path: &Path,
    doc: &T,
    force: bool,
) -> Result<(), SealError> {
    let mut text = Zeroizing::new(
        serde_json::to_string_pretty(doc).map_err(|e| SealError::Io(e.to_string()))?,
    );
    text.push('\n');
    write_private(path, text.as_bytes(), force)
}

/// A file kept beside a key file: its name with `suffix` appended.
pub(crate) fn beside(key_path: &Path, suffix: &str) -> PathBuf {
    let mut name = key_path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Reads a private key file (a sealing key or a signing key): refused when
/// group or others may read it, as ssh does, or when it is too large to be a
/// key. The checks and the read use one descriptor, so the file cannot be
/// swapped between them.
pub fn read_private(path: &Path) -> Result<Zeroizing<String>, SealError> {
    let shown = path.display().to_string();
    let bad = |detail: String| SealError::KeyFile {
        path: shown.clone(),
        detail,
    };
    let mut file = File::open(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| bad(format!("cannot read: {e}")))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(bad(format!(
            "permissions {:o} let others read the key; run: chmod 600 {shown}",
            meta.permissions().mode() & 0o777
        )));
    }
    if meta.len() > 64 * 1024 {
        return Err(bad("too large to be a key file".into()));
    }
    let mut text = Zeroizing::new(String::new());
    file.read_to_string(&mut text)
        .map_err(|e| bad(format!("cannot read: {e}")))?;
    Ok(text)
}

/// Creates a key file with `mode` (0o600 for private keys, 0o644 for public
/// ones), refusing to replace an existing file unless `force`, and flushes it.
/// It never writes through a symbolic link (O_NOFOLLOW; O_EXCL without
/// `force`), so a planted link cannot redirect a key elsewhere.
pub fn write_key_file(path: &Path, bytes: &[u8], mode: u32, force: bool) -> Result<(), SealError> {
    let shown = path.display().to_string();
    let mut options = OpenOptions::new();
    options
        .write(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let refused = |detail: &str| SealError::KeyFile {
        path: shown.clone(),
        detail: detail.into(),
    };
    let mut file: File = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => refused("already exists; pass --force to replace it"),
        _ if e.raw_os_error() == Some(libc::ELOOP) => {
            refused("is a symbolic link; refusing to write through it (remove the link first)")
        }
        _ => SealError::Io(format!("{shown}: {e}")),
    })?;
    // A replaced file keeps its old mode; set it.
    file.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(|e| SealError::Io(format!("{shown}: {e}")))?;
    file.write_all(bytes)
        .and_then(|_| file.sync_all())
        .map_err(|e| SealError::Io(format!("{shown}: {e}")))
}
