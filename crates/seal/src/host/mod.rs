//! What a host adds to the core: schemes with catalogue metadata and the
//! insecurity rules, key files (0600, checked on every read: sealing keys,
//! and asymmetric key pairs in `key_pair`), OS randomness, counter files, a
//! sealer over owned buffers, and the containers a user names (`container`:
//! the core's, or oscore).

pub mod candidates;
pub mod container;
pub mod cose_names;
pub mod error;
pub mod key_pair;
pub mod keyfile;
pub mod nonce;
#[cfg(feature = "oscore")]
pub mod oscore;
#[cfg(feature = "oscore")]
pub mod oscore_plaintext;
pub mod scheme;
pub mod sealer;
