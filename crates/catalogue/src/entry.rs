//! What the catalogue knows about one algorithm, and the implementations behind it.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::error::Error;
use crate::ops::{AsymmetricScheme, Cipher, Hasher, Mac};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    BlockMode,
    Stream,
    Aead,
    Hash,
    Mac,
    Asymmetric,
    Baseline,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::BlockMode,
        Kind::Stream,
        Kind::Aead,
        Kind::Hash,
        Kind::Mac,
        Kind::Asymmetric,
        Kind::Baseline,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::BlockMode => "block-mode",
            Kind::Stream => "stream",
            Kind::Aead => "aead",
            Kind::Hash => "hash",
            Kind::Mac => "mac",
            Kind::Asymmetric => "asymmetric",
            Kind::Baseline => "baseline",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// A kind as `--kind` names it; the error lists every kind.
    pub fn from_name(text: &str) -> Result<Kind, Error> {
        Kind::parse(text).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
            Error::Usage(format!(
                "unknown kind '{text}' (known: {})",
                known.join(", ")
            ))
        })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Recommended,
    /// Still secure enough for some uses but superseded; measured, not sealed with.
    Legacy,
    /// Practically attacked; never for real data.
    Broken,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Recommended => "recommended",
            Status::Legacy => "legacy",
            Status::Broken => "broken",
        }
    }

    /// True when sealing with it needs `--allow-insecure`.
    pub fn is_insecure(self) -> bool {
        !matches!(self, Status::Recommended)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// The RustCrypto crates: portable pure Rust.
    RustCrypto,
    /// Written in this project where no well-kept crate exists.
    Ciphermeter,
    /// ring: BoringSSL-derived assembly.
    Ring,
    /// The system's OpenSSL through the `openssl` crate.
    OpenSsl,
    /// AWS-LC through aws-lc-rs (crates/aws-lc): the fastest AES-GCM here.
    AwsLc,
}

impl Backend {
    pub const ALL: [Backend; 5] = [
        Backend::RustCrypto,
        Backend::Ciphermeter,
        Backend::Ring,
        Backend::OpenSsl,
        Backend::AwsLc,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Backend::RustCrypto => "rustcrypto",
            Backend::Ciphermeter => "ciphermeter",
            Backend::Ring => "ring",
            Backend::OpenSsl => "openssl",
            Backend::AwsLc => "aws-lc",
        }
    }

    pub fn parse(text: &str) -> Result<Backend, Error> {
        Backend::ALL
            .into_iter()
            .find(|b| b.as_str() == text)
            .ok_or_else(|| Error::UnknownBackend(text.to_string()))
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Block cipher modes, named as OpenSSL names them: `cfb`/`ofb` feed back a
/// full block, `cfb8`/`ofb8` feed back 8 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Cfb,
    Cfb8,
    Ofb,
    Ofb8,
}

impl Mode {
    pub const ALL: [Mode; 7] = [
        Mode::Ecb,
        Mode::Cbc,
        Mode::Ctr,
        Mode::Cfb,
        Mode::Cfb8,
        Mode::Ofb,
        Mode::Ofb8,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Ecb => "ecb",
            Mode::Cbc => "cbc",
            Mode::Ctr => "ctr",
            Mode::Cfb => "cfb",
            Mode::Cfb8 => "cfb8",
            Mode::Ofb => "ofb",
            Mode::Ofb8 => "ofb8",
        }
    }

    /// ECB and CBC work on whole blocks and so take a padding.
    pub fn is_padded(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }

    pub fn needs_iv(self) -> bool {
        !matches!(self, Mode::Ecb)
    }
}

/// The operations an implementation offers, by kind.
#[derive(Clone)]
pub enum Ops {
    /// Block modes, stream ciphers, AEADs and the identity baseline.
    Cipher(CipherCtor),
    Hash(HashCtor),
    Mac(MacCtor),
    Asymmetric(Arc<dyn AsymmetricScheme>),
}

/// Runs the key schedule and returns a keyed cipher.
pub type CipherCtor = Arc<dyn Fn(&[u8]) -> Result<Box<dyn Cipher>, Error> + Send + Sync>;
pub type HashCtor = Arc<dyn Fn() -> Box<dyn Hasher> + Send + Sync>;
/// Runs the MAC's key setup and returns a keyed MAC.
pub type MacCtor = Arc<dyn Fn(&[u8]) -> Result<Box<dyn Mac>, Error> + Send + Sync>;

#[derive(Clone)]
pub struct Implementation {
    pub backend: Backend,
    /// The crate or library that does the work, e.g. "aes 0.9" or "OpenSSL 3.0".
    pub provider: String,
    pub ops: Ops,
}

/// One catalogue entry. Sizes are in bytes.
#[derive(Clone, Serialize)]
pub struct Entry {
    pub id: String,
    pub aliases: Vec<String>,
    pub kind: Kind,
    /// The primitive without its mode, e.g. "aes-128" for "aes-128-cbc".
    pub primitive: String,
    pub mode: Option<Mode>,
    pub key_sizes: Vec<usize>,
    pub block_size: Option<usize>,
    /// Valid IV or nonce lengths; empty when none is taken.
    pub nonce_sizes: Vec<usize>,
    pub tag_size: Option<usize>,
    /// Digest or MAC length for hashes and MACs.
    pub output_size: Option<usize>,
    pub security_bits: u32,
    pub status: Status,
    /// Why an entry is legacy or broken, in one line.
    pub status_reason: Option<String>,
    #[serde(skip)]
    pub implementations: Vec<Implementation>,
}

impl Entry {
    pub fn backends(&self) -> Vec<Backend> {
        self.implementations.iter().map(|i| i.backend).collect()
    }

    /// The implementation for `backend`, or the first (the portable default).
    pub fn implementation(&self, backend: Option<Backend>) -> Result<&Implementation, Error> {
        match backend {
            None => self
                .implementations
                .first()
                .ok_or_else(|| Error::Unsupported {
                    algorithm: self.id.clone(),
                    operation: "any (no backend)".into(),
                }),
            Some(b) => self
                .implementations
                .iter()
                .find(|i| i.backend == b)
                .ok_or_else(|| Error::BackendLacks {
                    backend: b.to_string(),
                    algorithm: self.id.clone(),
                    available: self
                        .backends()
                        .iter()
                        .map(|b| b.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
        }
    }

    /// Checks a key length against the entry's valid sizes.
    pub fn check_key(&self, key: &[u8]) -> Result<(), Error> {
        if self.key_sizes.is_empty() || self.key_sizes.contains(&key.len()) {
            Ok(())
        } else {
            Err(Error::KeyLength {
                algorithm: self.id.clone(),
                valid: crate::error::lengths(&self.key_sizes),
                got: key.len(),
            })
        }
    }

    /// Checks an IV or nonce length against the entry's valid sizes.
    pub fn check_nonce(&self, nonce: &[u8]) -> Result<(), Error> {
        if self.nonce_sizes.contains(&nonce.len())
            || (self.nonce_sizes.is_empty() && nonce.is_empty())
        {
            Ok(())
        } else {
            Err(Error::IvLength {
                algorithm: self.id.clone(),
                valid: crate::error::lengths(&self.nonce_sizes),
                got: nonce.len(),
            })
        }
    }

    /// Bytes a sealed or encrypted message grows by for a plaintext of `len` bytes
    /// (padding and tag; the IV/nonce is counted by whoever transmits it).
    pub fn ciphertext_len(&self, len: usize, padding: crate::ops::Padding) -> usize {
        match (self.mode, self.block_size) {
            (Some(mode), Some(block)) if mode.is_padded() => padding.padded_len(len, block),
            _ => len + self.tag_size.unwrap_or(0),
        }
    }
}
