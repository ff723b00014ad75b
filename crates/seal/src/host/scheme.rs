//! Schemes: a sealing pattern plus the catalogue entries it uses, named as
//! `hmac:MAC`, `etm:CIPHER+MAC`, `aead:AEAD` or `enc:CIPHER`.

use std::fmt;

use catalogue::{Entry, Kind, Mode, catalogue};

use super::error::SealError;
use super::nonce_policy::{MIN_RANDOM_NONCE, NoncePolicy};
use crate::spec::{Pattern, Spec};

/// A resolved scheme: the catalogue entries it uses (status, security level,
/// aliases) and the sealing core's view of it (`spec`). `name` is its one
/// canonical spelling, which messages carry.
#[derive(Clone)]
pub struct Scheme {
    pub pattern: Pattern,
    /// The cipher or AEAD (none for `hmac`).
    pub cipher: Option<&'static Entry>,
    /// The MAC (for `hmac` and `etm`).
    pub mac: Option<&'static Entry>,
    name: String,
}

impl Scheme {
    /// What the sealing core seals with: the parts of the canonical name.
    pub fn spec(&self) -> Spec<'_> {
        crate::oscore_build::spec(&self.name).expect("a built scheme has a core spec")
    }
}

impl fmt::Debug for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl PartialEq for Scheme {
    fn eq(&self, other: &Scheme) -> bool {
        self.name == other.name
    }
}

fn lookup(text: &str) -> Result<&'static Entry, SealError> {
    Ok(catalogue().resolve(text, None)?)
}

impl Scheme {
    /// Parses what a user typed: any case, catalogue aliases, and a bare AEAD
    /// or MAC id standing for `aead:` or `hmac:` with it.
    pub fn parse(text: &str) -> Result<Scheme, SealError> {
        let lower = text.trim().to_ascii_lowercase();
        let unknown = || SealError::unknown_scheme(text, &lower);
        let Some((pattern, rest)) = lower.split_once(':') else {
            let entry = lookup(&lower)?;
            return match entry.kind {
                Kind::Aead => Scheme::build(Pattern::Aead, Some(entry), None),
                Kind::Mac => Scheme::build(Pattern::Hmac, None, Some(entry)),
                _ => Err(unknown()),
            };
        };
        match pattern {
            "hmac" => Scheme::build(Pattern::Hmac, None, Some(lookup(rest)?)),
            "aead" => Scheme::build(Pattern::Aead, Some(lookup(rest)?), None),
            "enc" => Scheme::build(Pattern::Enc, Some(lookup(rest)?), None),
            "etm" => {
                let (cipher, mac) =
                    rest.split_once('+')
                        .ok_or_else(|| SealError::InvalidScheme {
                            scheme: text.to_string(),
                            why: "etm needs CIPHER+MAC, e.g. etm:aes-128-cbc+hmac-sha256".into(),
                        })?;
                Scheme::build(Pattern::Etm, Some(lookup(cipher)?), Some(lookup(mac)?))
            }
            _ => Err(unknown()),
        }
    }

    /// An OSCORE build's scheme (`oscore:ALG`, [`crate::oscore_build`]): what
    /// the oscore container protects a reading with, costed beside the
    /// core's schemes. No key file has it (`keygen --scheme oscore:ALG`
    /// writes a security context) and no `HostSealer` seals with it.
    pub fn oscore(text: &str) -> Result<Scheme, SealError> {
        let lower = text.trim().to_ascii_lowercase();
        let alg =
            crate::oscore_build::alg_name(&lower).ok_or_else(|| SealError::InvalidScheme {
                scheme: text.to_string(),
                why: format!(
                    "the oscore container is costed with {}",
                    crate::oscore_build::names().collect::<Vec<_>>().join(", ")
                ),
            })?;
        Ok(Scheme {
            pattern: Pattern::Aead,
            cipher: Some(lookup(alg)?),
            mac: None,
            name: lower,
        })
    }

    /// Whether this is an OSCORE build's scheme ([`Scheme::oscore`]).
    pub fn is_oscore(&self) -> bool {
        self.name.starts_with(crate::oscore_build::PREFIX)
    }

    /// Parses a scheme name read from a message: only the canonical spelling
    /// is accepted, so one scheme has one encoding and no bit of it is free.
    pub fn parse_canonical(text: &str) -> Result<Scheme, SealError> {
        let unknown = || SealError::UnknownScheme(text.to_string(), String::new());
        let scheme = Scheme::parse(text).map_err(|_| unknown())?;
        if scheme.name != text {
            return Err(unknown());
        }
        Ok(scheme)
    }

    fn build(
        pattern: Pattern,
        cipher: Option<&'static Entry>,
        mac: Option<&'static Entry>,
    ) -> Result<Scheme, SealError> {
        let name = match (cipher, mac) {
            (Some(c), Some(m)) => format!("{}:{}+{}", pattern.as_str(), c.id, m.id),
            (Some(c), None) => format!("{}:{}", pattern.as_str(), c.id),
            (None, Some(m)) => format!("{}:{}", pattern.as_str(), m.id),
            (None, None) => unreachable!("every pattern names an algorithm"),
        };
        let invalid = |why: String| {
            Err(SealError::InvalidScheme {
                scheme: name.clone(),
                why,
            })
        };
        if let Some(c) = cipher {
            let ok = match pattern {
                Pattern::Aead => c.kind == Kind::Aead,
                Pattern::Etm => matches!(c.kind, Kind::BlockMode | Kind::Stream),
                Pattern::Enc => matches!(c.kind, Kind::BlockMode | Kind::Stream | Kind::Baseline),
                Pattern::Hmac => false,
            };
            if !ok {
                let hint = match (pattern, c.kind) {
                    (Pattern::Aead, Kind::BlockMode | Kind::Stream) => {
                        format!("; it is not authenticated: use etm:{}+hmac-sha256", c.id)
                    }
                    (Pattern::Etm, Kind::Aead) => {
                        format!("; it authenticates by itself: use aead:{}", c.id)
                    }
                    _ => String::new(),
                };
                return invalid(format!(
                    "{} is a {} and cannot serve as the {} cipher{hint}",
                    c.id,
                    c.kind,
                    pattern.as_str()
                ));
            }
        }
        if let Some(m) = mac
            && m.kind != Kind::Mac
        {
            return invalid(format!(
                "{} is a {}, not a MAC (try hmac-{})",
                m.id, m.kind, m.id
            ));
        }
        if Spec::parse(&name).is_none() {
            // COSE's short-tag CCM seals as OSCORE does, in the oscore container.
            if let Some(c) = cipher.filter(|c| crate::oscore::Alg::from_name(&c.id).is_some()) {
                return invalid(format!(
                    "{} (an 8-byte tag) seals in the oscore container: keygen --scheme oscore:{}, then seal --container oscore",
                    c.id, c.id
                ));
            }
            return invalid("the sealing core has no implementation of it".into());
        }
        Ok(Scheme {
            pattern,
            cipher,
            mac,
            name,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Bytes of key material the key file holds: the AEAD's or cipher's key,
    /// the MAC key (at least the MAC's output, as RFC 2104 advises), or a
    /// 32-byte master key from which `etm` derives both.
    pub fn key_len(&self) -> usize {
        self.spec().key_len()
    }

    /// Nonce or IV bytes per message (0 for `hmac`, ECB and nonce-less streams).
    pub fn nonce_len(&self) -> usize {
        self.spec().nonce_len()
    }

    /// Tag bytes per message.
    pub fn tag_len(&self) -> usize {
        match crate::oscore_build::alg_name(&self.name).and_then(crate::oscore::Alg::from_name) {
            Some(alg) => alg.tag_len(),
            None => self.spec().tag_len(),
        }
    }

    /// Ciphertext (or, for `hmac`, body) bytes for a plaintext of `len` bytes.
    pub fn body_len(&self, len: usize) -> usize {
        self.spec().body_len(len)
    }

    /// Why sealing with this scheme and random nonces is unsafe; empty when it is fine.
    pub fn insecurity(&self) -> Vec<String> {
        self.insecurity_for(NoncePolicy::Random)
    }

    /// Why sealing with this scheme and these nonces is unsafe; empty when it is fine.
    pub fn insecurity_for(&self, nonces: NoncePolicy) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.pattern == Pattern::Enc {
            reasons.push(
                "'enc' is unauthenticated: a flipped ciphertext bit goes undetected".to_string(),
            );
        }
        for entry in [self.cipher, self.mac].into_iter().flatten() {
            if entry.status.is_insecure() {
                let why = entry
                    .status_reason
                    .clone()
                    .unwrap_or_else(|| "not recommended".into());
                reasons.push(format!("{} is {}: {why}", entry.id, entry.status.as_str()));
            }
        }
        if let Some(c) = self.cipher
            && self.pattern != Pattern::Aead
            && c.kind == Kind::Stream
            && c.nonce_sizes.is_empty()
        {
            reasons.push(format!(
                "{} takes no nonce: every message under one key reuses its keystream",
                c.id
            ));
        }
        if let Some(why) = self.short_random_nonce(nonces) {
            reasons.push(why);
        }
        if let Some(m) = self.mac
            && m.id == "poly1305"
        {
            reasons.push(
                "poly1305 is a one-time authenticator: a long-term key lets tags be forged".into(),
            );
        }
        reasons
    }

    /// A random nonce under 96 bits repeats after about 2^(bits/2) messages
    /// under one key (Salsa20's 64 bits: 2^32), and a repeat leaks plaintext.
    fn short_random_nonce(&self, nonces: NoncePolicy) -> Option<String> {
        let len = self.nonce_len();
        if nonces != NoncePolicy::Random || len == 0 || len >= MIN_RANDOM_NONCE {
            return None;
        }
        let cipher = self.cipher.map_or("the cipher", |c| c.id.as_str());
        let counter = if self.allows_counter_nonces() {
            "use --nonce counter (safe for it), or "
        } else {
            "use "
        };
        Some(format!(
            "{cipher} has a {}-bit nonce: random nonces that short repeat after about 2^{} messages \
             under one key, and a repeat leaks plaintext (for a stream, the XOR of two readings); \
             {counter}a cipher with a nonce of 96 bits or more (e.g. xsalsa20, xchacha20, aes-128-ctr)",
            8 * len,
            4 * len
        ))
    }

    /// Fails with the reasons unless the scheme is safe or `allow_insecure` is set.
    pub fn check_allowed(&self, allow_insecure: bool) -> Result<(), SealError> {
        self.check_allowed_for(NoncePolicy::Random, allow_insecure)
    }

    /// [`Scheme::check_allowed`] for a key with these nonces.
    pub fn check_allowed_for(
        &self,
        nonces: NoncePolicy,
        allow_insecure: bool,
    ) -> Result<(), SealError> {
        let reasons = self.insecurity_for(nonces);
        if reasons.is_empty() || allow_insecure {
            Ok(())
        } else {
            Err(SealError::Insecure {
                scheme: self.name.clone(),
                reasons,
            })
        }
    }

    /// Whether a persistent counter may supply nonces (see `Spec::allows_counter_nonces`).
    pub fn allows_counter_nonces(&self) -> bool {
        self.spec().allows_counter_nonces()
    }

    /// Bits of security as study 003 scores them (section 3.5): key length for
    /// ciphers, digest length for MACs, the larger of the two for EtM.
    pub fn study003_bits(&self) -> u32 {
        let cipher_bits = self
            .spec()
            .cipher
            .map(|c| 8 * c.key_len() as u32)
            .unwrap_or(0);
        let mac_bits = self
            .mac
            .and_then(|m| m.output_size)
            .map(|o| 8 * o as u32)
            .unwrap_or(0);
        cipher_bits.max(mac_bits)
    }

    /// The weakest catalogue security level among the parts: what an attacker faces.
    pub fn security_bits(&self) -> u32 {
        [self.cipher, self.mac]
            .into_iter()
            .flatten()
            .map(|e| e.security_bits)
            .min()
            .unwrap_or(0)
    }

    /// True for ECB-mode ciphers, which the study-003 reproduction flags.
    pub fn uses_ecb(&self) -> bool {
        self.cipher.and_then(|c| c.mode) == Some(Mode::Ecb)
    }
}
