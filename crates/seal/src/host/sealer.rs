//! The host's sealer: the core's [`crate::Sealer`] behind owned buffers,
//! with the insecurity check, and errors that name the keys and schemes.

use zeroize::Zeroizing;

use super::error::SealError;
use super::keyfile::SealKey;
use super::scheme::Scheme;
use crate::backend::Backend;
use crate::container::{self, Container, SchemeRef};
use crate::engine::Sealer;
use crate::error::{Error as CoreError, limits};

/// A key with its key schedules done, ready to seal and open many messages.
pub struct HostSealer {
    pub scheme: Scheme,
    pub key_id: Vec<u8>,
    backend: Backend,
    core: Sealer,
}

/// The keyed core wipes itself (`Sealer`).
impl zeroize::ZeroizeOnDrop for HostSealer {}

/// What `open` returns: the plaintext (wiped on drop) and the associated data sent with it.
pub struct Opened {
    pub plaintext: Zeroizing<Vec<u8>>,
    pub aad: Vec<u8>,
    /// The nonce (IV) the message was sealed under; empty for `hmac`, which has none.
    /// A receiver keys its replay check on it (crates/live's gateway does).
    pub nonce: Vec<u8>,
}

impl HostSealer {
    /// Runs the key schedules. Insecure schemes are refused unless `allow_insecure`
    /// (benchmarks measure them; `seal` refuses them by default).
    pub fn new(key: &SealKey, allow_insecure: bool) -> Result<HostSealer, SealError> {
        Self::with_backend(
            key,
            allow_insecure,
            Backend::host_default(&key.scheme.spec()),
        )
    }

    /// [`HostSealer::new`] with `backend`'s code for every primitive
    /// (`seal --impl`); a backend without one of them is refused, naming it.
    pub fn with_backend(
        key: &SealKey,
        allow_insecure: bool,
        backend: Backend,
    ) -> Result<HostSealer, SealError> {
        let scheme = key.scheme.clone();
        if scheme.is_oscore() {
            return Err(SealError::Usage(format!(
                "{} protects CoAP requests in the oscore container, under a security context (keygen --scheme {})",
                scheme.name(),
                scheme.name()
            )));
        }
        scheme.check_allowed_for(key.nonce, allow_insecure)?;
        if !backend.covers(&scheme.spec()) {
            return Err(SealError::InvalidScheme {
                scheme: scheme.name().to_string(),
                why: format!(
                    "implementation '{}' does not have every primitive of it (it has {}); use --impl rustcrypto",
                    backend.name(),
                    backend.summary()
                ),
            });
        }
        let core = Sealer::with_backend(scheme.spec(), &key.key_id, key.material(), backend)
            .map_err(|e| SealError::from_core(e, scheme.name()))?;
        Ok(HostSealer {
            scheme,
            key_id: key.key_id.clone(),
            backend,
            core,
        })
    }

    /// Whose code seals and opens with this key.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The core sealer, for callers that bring their own buffers.
    pub fn core(&self) -> &Sealer {
        &self.core
    }

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
        for (field, len, max) in [
            ("associated data", aad.len(), limits::AAD),
            ("plaintext", plaintext.len(), limits::BODY),
        ] {
            if len > max {
                return Err(SealError::Oversize { field, len, max });
            }
        }
        let mut out = vec![0u8; self.core.seal_buffer_len(container, plaintext, aad)];
        let len = self
            .core
            .seal(container, nonce, plaintext, aad, &mut out)
            .map_err(|e| SealError::from_core(e, self.scheme.name()))?;
        out.truncate(len);
        Ok(out)
    }

    /// Checks and opens one message. On any failure no plaintext is returned.
    pub fn open(&mut self, container: Container, message: &[u8]) -> Result<Opened, SealError> {
        let name = self.scheme.name().to_string();
        let parsed = container::parse(container, message).map_err(|e| {
            match (e, looks_like(message)) {
                // Malformed for this container, but plainly another one: say so.
                (CoreError::Malformed { .. } | CoreError::Truncated { .. }, Some(other))
                    if other != container =>
                {
                    SealError::malformed(
                        container.as_str(),
                        format!(
                            "this is not a {container} message; it looks like a {other} container (open it with --container {other})"
                        ),
                    )
                }
                _ => SealError::from_core(e, &name),
            }
        })?;
        self.check_identity(container, &parsed)?;
        let mut out = Zeroizing::new(vec![0u8; container::open_buffer_len(message.len())]);
        let opened = self
            .core
            .open_parsed(&parsed, &mut out)
            .map_err(|e| SealError::from_core(e, &name))?;
        Ok(Opened {
            plaintext: Zeroizing::new(opened.plaintext.to_vec()),
            aad: opened.aad.to_vec(),
            nonce: opened.nonce.to_vec(),
        })
    }

    /// The core's identity check, said with names: an unknown scheme first,
    /// then the key id (a keyring learns from it which key to try next),
    /// then the scheme.
    fn check_identity(
        &self,
        container: Container,
        parsed: &container::Parsed<'_>,
    ) -> Result<(), SealError> {
        let ours = self.scheme.name();
        let theirs = match parsed.scheme {
            SchemeRef::Name(name) => name.to_string(),
            SchemeRef::Id(id) => format!("id {}", hex::encode(id)),
            SchemeRef::Cose(alg) => match super::cose_names::scheme_of(alg) {
                Some(name) => name.to_string(),
                None => {
                    return Err(SealError::UnknownScheme(
                        format!("COSE alg {alg}"),
                        String::new(),
                    ));
                }
            },
        };
        let named = !matches!(parsed.scheme, SchemeRef::Id(_));
        if named && theirs != ours {
            Scheme::parse_canonical(&theirs)?;
        }
        match self.core.check_identity(parsed) {
            Ok(()) => Ok(()),
            Err(CoreError::WrongKey) => Err(SealError::WrongKey {
                message: hex::encode(parsed.key_id()),
                key: hex::encode(&self.key_id),
            }),
            Err(CoreError::WrongScheme) => Err(SealError::WrongScheme {
                message: theirs,
                key: match container {
                    Container::Binary => format!("{ours} (id {})", hex::encode(binary_id(ours))),
                    _ => ours.to_string(),
                },
            }),
            Err(e) => Err(SealError::from_core(e, ours)),
        }
    }
}

/// Which container a message's first bytes suggest, if any: a json object
/// starting with `{"v":`, a tagged COSE_Encrypt0/COSE_Mac0 (0xd0, 0xd1), or
/// a binary message (version 1 then a 4-byte scheme id and a key id length).
pub fn looks_like(message: &[u8]) -> Option<Container> {
    match message {
        [b'{', b'"', b'v', b'"', b':', ..] => Some(Container::Json),
        [0xd0 | 0xd1, 0x83 | 0x84, ..] => Some(Container::Cose),
        [1, _, _, _, _, k, ..] if (1..=32).contains(k) => Some(Container::Binary),
        _ => None,
    }
}

/// The binary container's 4-byte id of a scheme name.
pub fn binary_id(scheme: &str) -> [u8; 4] {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(scheme.as_bytes());
    [d[0], d[1], d[2], d[3]]
}
