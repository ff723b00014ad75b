//! Sealed messages: a serialized reading protected by one of three patterns
//! (`hmac`, `etm`, `aead`; `enc` for measurement only) and framed in one of
//! three containers (`json`, `binary`, `cose`).
//!
//! The crate is in two parts:
//! - **the core** (`#![no_std]`, no allocator): schemes ([`Spec`]), the
//!   algorithms ([`algorithm`], each behind its feature), the patterns
//!   ([`Sealer`]), the containers ([`Container`]), counter nonces
//!   ([`CounterStore`]) and study 003's reading ([`ChainReading`]). The
//!   firmware seals with exactly this code, into caller-provided buffers.
//! - **the host** (feature `std`, on by default): schemes with catalogue
//!   metadata and the insecurity rules ([`Scheme`]), key files, OS
//!   randomness, counter files, and [`HostSealer`] over owned buffers.
//!
//! For the same key, nonce and reading, both seal the same bytes.
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use ciphermeter_seal::{Container, NoncePolicy, RandomNonces, NonceSource, Scheme, SealKey, HostSealer};
//! let key = SealKey::generate(Scheme::parse("aead:aes-256-gcm").unwrap(), NoncePolicy::Random).unwrap();
//! let mut sealer = HostSealer::new(&key, false).unwrap();
//! let nonce = RandomNonces.next_nonce(key.scheme.nonce_len()).unwrap();
//! let message = sealer.seal(Container::Json, &nonce, b"{\"t\":1}", b"").unwrap();
//! assert_eq!(&sealer.open(Container::Json, &message).unwrap().plaintext[..], b"{\"t\":1}");
//! # }
//! ```

#![cfg_attr(not(feature = "host"), no_std)]

pub mod algorithm;
pub mod backend;
pub mod container;
pub mod counter;
mod engine;
pub mod error;
pub mod fragment;
mod keyed;
#[cfg(feature = "oscore")]
pub mod oscore;
pub mod oscore_build;
pub mod reading;
pub mod spec;
pub mod stream;
// Only the AEADs that keep secrets they never wipe use it.
#[cfg(any(feature = "ocb", feature = "ascon"))]
mod wipe;

pub use backend::Backend;
pub use container::{Container, Opened as OpenedRef, Parsed, SchemeRef, open_buffer_len, parse};
pub use counter::{CounterStore, RamCounter, SLOT_LEN, SlotCounter, Slots, counter_nonce};
pub use engine::{ETM_ENC_INFO, ETM_MAC_INFO, Sealer};
pub use error::{Error, limits};
pub use reading::ChainReading;
pub use spec::{Pattern, Spec};

#[cfg(feature = "host")]
pub mod host;

#[cfg(feature = "host")]
pub use host::{
    candidates::{safe_candidates, sealing_candidates},
    error::SealError,
    nonce_policy::{MIN_RANDOM_NONCE, NoncePolicy},
    scheme::Scheme,
};

#[cfg(feature = "std")]
pub use host::{
    keyfile::{FORMAT as KEY_FILE_FORMAT, KEY_ID_LEN, SealKey, read_private, write_key_file},
    nonce::{CounterNonces, NonceSource, RandomNonces, counter_path, source_for},
    sealer::{HostSealer, Opened},
};

/// Seals with a fresh nonce from the key's policy, with RustCrypto's code.
#[cfg(feature = "std")]
pub fn seal_with_key(
    key: &SealKey,
    allow_insecure: bool,
    container: Container,
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    seal_with_backend(
        key,
        Backend::host_default(&key.scheme.spec()),
        allow_insecure,
        container,
        plaintext,
        aad,
    )
}

/// [`seal_with_key`] with `backend`'s code (`seal --impl`): the same bytes.
#[cfg(feature = "std")]
pub fn seal_with_backend(
    key: &SealKey,
    backend: Backend,
    allow_insecure: bool,
    container: Container,
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let mut sealer = HostSealer::with_backend(key, allow_insecure, backend)?;
    let nonce = source_for(key)?.next_nonce(key.scheme.nonce_len())?;
    sealer.seal(container, &nonce, plaintext, aad)
}

/// The host's view of a container name: an error that lists the valid ones.
#[cfg(feature = "host")]
impl std::str::FromStr for Container {
    type Err = SealError;

    fn from_str(text: &str) -> Result<Container, SealError> {
        Container::from_name(text).ok_or_else(|| SealError::InvalidScheme {
            scheme: text.to_string(),
            why: format!(
                "unknown container{}; expected json, binary or cose",
                names::did_you_mean(text, Container::ALL.iter().map(|c| c.as_str()))
            ),
        })
    }
}

/// `--framing line|len`.
#[cfg(feature = "host")]
impl std::str::FromStr for stream::Framing {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        stream::Framing::from_name(s)
            .ok_or_else(|| format!("unknown framing '{s}': use line or len"))
    }
}
