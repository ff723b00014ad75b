//! Sealed messages: a serialized reading protected by one of three patterns
//! (`hmac`, `etm`, `aead`; `enc` for measurement only) and framed in one of
//! three containers (`json`, `binary`, `cose`).
//!
//! ```
//! use ciphermeter_seal::{Container, NoncePolicy, RandomNonces, NonceSource, Scheme, SealKey, Sealer};
//! let key = SealKey::generate(Scheme::parse("aead:aes-256-gcm").unwrap(), NoncePolicy::Random).unwrap();
//! let mut sealer = Sealer::new(&key, false).unwrap();
//! let nonce = RandomNonces.next_nonce(key.scheme.nonce_len()).unwrap();
//! let message = sealer.seal(Container::Json, &nonce, b"{\"t\":1}", b"").unwrap();
//! assert_eq!(&sealer.open(Container::Json, &message).unwrap().plaintext[..], b"{\"t\":1}");
//! ```

mod container;
mod engine;
mod error;
mod keyfile;
mod nonce;
mod scheme;

pub use container::{Container, Opened, header};
pub use engine::{ETM_ENC_INFO, ETM_MAC_INFO, Sealer, etm_mac_input};
pub use error::{SealError, limits};
pub use keyfile::{FORMAT as KEY_FILE_FORMAT, KEY_ID_LEN, SealKey, read_private, write_key_file};
pub use nonce::{
    CounterNonces, MIN_RANDOM_NONCE, NoncePolicy, NonceSource, RandomNonces, counter_path,
    source_for,
};
pub use scheme::{Pattern, Scheme};

/// Seals with a fresh nonce from the key's policy.
pub fn seal_with_key(
    key: &SealKey,
    allow_insecure: bool,
    container: Container,
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let mut sealer = Sealer::new(key, allow_insecure)?;
    let nonce = source_for(key)?.next_nonce(key.scheme.nonce_len())?;
    sealer.seal(container, &nonce, plaintext, aad)
}
