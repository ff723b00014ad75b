//! The portable default backend: RustCrypto crates on one trait generation.

pub mod aead;
pub mod block_modes;
pub mod digests;
pub mod stream;
