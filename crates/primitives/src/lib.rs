//! In-project cryptographic primitives for ciphermeter: the algorithms that no
//! well-kept crate provides, written from their specifications and exposed
//! through the same RustCrypto traits as the crates (cipher 0.5, aead 0.6).
//!
//! `#![no_std]`, no allocation, no floating point; tables are `const`/`static`
//! so they live in flash on microcontrollers. Round keys and AEAD keys are
//! zeroized on drop (`ZeroizeOnDrop`).
//!
//! | Type | Kind | Key | Block | Nonce/IV | Tag | Known answers from |
//! |---|---|---|---|---|---|---|
//! | [`Clefia128`], [`Clefia192`], [`Clefia256`] | block cipher | 16/24/32 | 16 | - | - | RFC 6114 appendix A |

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use aead;
pub use cipher;

mod block_plumbing;

pub mod clefia;

pub use clefia::{Clefia128, Clefia192, Clefia256};
