//! A scheme as the core sees it: a pattern, its algorithms and the one
//! canonical name messages carry (`aead:aes-128-gcm`, `etm:aes-128-cbc+hmac-sha256`).

use crate::algorithm::{AEAD_TAG, CipherAlg, MacAlg};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    /// Plaintext plus a MAC tag: integrity and authenticity, no confidentiality.
    Hmac,
    /// Encrypt, then MAC the IV and ciphertext, with keys derived by HKDF.
    Etm,
    /// An AEAD: nonce, ciphertext and tag in one primitive.
    Aead,
    /// Encryption alone: unauthenticated, for measurement (needs --allow-insecure).
    Enc,
}

impl Pattern {
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Hmac => "hmac",
            Pattern::Etm => "etm",
            Pattern::Aead => "aead",
            Pattern::Enc => "enc",
        }
    }
}

/// A scheme's parts and name. `name` borrows: the firmware's is a constant
/// made by its build script, the host's lives in its `Scheme`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec<'n> {
    pub pattern: Pattern,
    pub cipher: Option<CipherAlg>,
    pub mac: Option<MacAlg>,
    pub name: &'n str,
}

/// EtM's master key: 32 bytes, from which HKDF derives both keys.
pub const ETM_MASTER_KEY: usize = 32;

impl<'n> Spec<'n> {
    /// Bytes of key material: the AEAD's or cipher's key, the MAC key, or
    /// EtM's master key.
    pub const fn key_len(&self) -> usize {
        match (self.pattern, self.cipher, self.mac) {
            (Pattern::Etm, _, _) => ETM_MASTER_KEY,
            (Pattern::Hmac, _, Some(m)) => m.key_len(),
            (_, Some(c), _) => c.key_len(),
            _ => 0,
        }
    }

    /// Nonce or IV bytes per message (0 for `hmac`, ECB and nonce-less streams).
    pub const fn nonce_len(&self) -> usize {
        match (self.pattern, self.cipher) {
            (Pattern::Hmac, _) | (_, None) => 0,
            (_, Some(c)) => c.nonce_len(),
        }
    }

    /// Tag bytes per message.
    pub const fn tag_len(&self) -> usize {
        match (self.pattern, self.mac) {
            (Pattern::Aead, _) => AEAD_TAG,
            (Pattern::Enc, _) | (_, None) => 0,
            (_, Some(m)) => m.tag_len(),
        }
    }

    /// Ciphertext (or, for `hmac`, body) bytes for a plaintext of `len` bytes.
    pub const fn body_len(&self, len: usize) -> usize {
        match (self.pattern, self.cipher) {
            (Pattern::Etm | Pattern::Enc, Some(c)) => c.body_len(len),
            _ => len,
        }
    }

    /// Whether a persistent counter may supply nonces: AEADs and stream
    /// ciphers with a nonce, whose nonces need only be unique. Not block
    /// modes: CBC/CFB IVs must be unpredictable, and CTR IVs from a counter
    /// would overlap keystreams.
    pub const fn allows_counter_nonces(&self) -> bool {
        matches!(
            (self.pattern, self.cipher),
            (Pattern::Aead, _)
                | (
                    Pattern::Etm,
                    Some(CipherAlg::Stream(
                        crate::algorithm::StreamAlg::ChaCha20
                            | crate::algorithm::StreamAlg::XChaCha20
                            | crate::algorithm::StreamAlg::Salsa20
                            | crate::algorithm::StreamAlg::XSalsa20
                    ))
                )
        )
    }

    /// The crate features a build needs to seal with this scheme (empty
    /// entries are always built).
    pub fn features(&self) -> [&'static str; 2] {
        [
            self.cipher.map_or("", CipherAlg::feature),
            self.mac.map_or("", MacAlg::feature),
        ]
    }

    /// Parses a canonical name (`pattern:cipher`, `etm:cipher+mac`,
    /// `hmac:mac`) into its parts; None for anything else.
    pub fn parse(name: &'n str) -> Option<Spec<'n>> {
        let (pattern, rest) = name.split_once(':')?;
        let (pattern, cipher, mac) = match pattern {
            "hmac" => (Pattern::Hmac, None, Some(MacAlg::from_id(rest)?)),
            "aead" => match CipherAlg::from_id(rest)? {
                c @ CipherAlg::Aead(_) => (Pattern::Aead, Some(c), None),
                _ => return None,
            },
            "enc" => match CipherAlg::from_id(rest)? {
                CipherAlg::Aead(_) => return None,
                c => (Pattern::Enc, Some(c), None),
            },
            "etm" => {
                let (c, m) = rest.split_once('+')?;
                match CipherAlg::from_id(c)? {
                    CipherAlg::Aead(_)
                    | CipherAlg::Stream(crate::algorithm::StreamAlg::Identity) => {
                        return None;
                    }
                    c => (Pattern::Etm, Some(c), Some(MacAlg::from_id(m)?)),
                }
            }
            _ => return None,
        };
        Some(Spec {
            pattern,
            cipher,
            mac,
            name,
        })
    }
}
