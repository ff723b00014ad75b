//! SCHC, Static Context Header Compression (RFC 8724), for the CoAP and OSCORE
//! messages ciphermeter sends (RFC 8824), with rules from files in RFC 9363's
//! data model (`rules_file`, with `std`).
//!
//! - [`rule`]: rules and rule sets, checked when made.
//! - [`coap`]: a CoAP message as SCHC's fields, the OSCORE option in four.
//! - [`compress()`] and [`decompress()`]: RFC 8724 §7's bit format.
//! - [`inner`]: RFC 8824 §7.2, the OSCORE plaintext compressed before
//!   encryption; [`oscore`] (with `std`): a reading sealed and opened so.
//!
//! Without `std` it needs only an allocator: a device compresses with it.

#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod bits;
pub mod coap;
mod compress;
mod decompress;
pub mod error;
pub mod fragment;
pub mod inner;
#[cfg(feature = "std")]
pub mod oscore;
pub mod rule;
#[cfg(feature = "rules")]
pub mod rules_file;

pub use bits::Bits;
pub use compress::{Compressed, compress};
pub use decompress::decompress;
pub use error::SchcError;
pub use rule::{Direction, RuleSet};
