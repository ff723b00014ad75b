//! What a host adds to the core: schemes with catalogue metadata and the
//! insecurity rules, key files (0600, checked on every read: sealing keys,
//! and asymmetric key pairs in `key_pair`), OS randomness, counter files, a
//! sealer over owned buffers, and the containers a user names (`container`:
//! the core's, or oscore). Feature `host` is the part without files or the OS
//! (schemes, candidates, containers); `std` adds the rest.

pub mod candidates;
pub mod container;
pub mod cose_names;
pub mod error;
pub mod nonce_policy;
pub mod scheme;

// What reads or writes files or asks the OS for randomness (`std`).
#[cfg(feature = "std")]
pub mod key_pair;
#[cfg(feature = "std")]
pub mod keyfile;
#[cfg(feature = "std")]
pub mod nonce;
#[cfg(all(feature = "std", feature = "oscore"))]
pub mod oscore;
#[cfg(all(feature = "std", feature = "oscore"))]
pub mod oscore_plaintext;
#[cfg(feature = "std")]
pub mod sealer;
