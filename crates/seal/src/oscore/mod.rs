//! OSCORE (RFC 8613): CoAP requests and responses protected end to end with
//! a COSE AEAD, in the sealing core (no_std, no allocator), so a device and
//! the gateway run the same code.
//!
//! - [`context`]: the security context derived from a master secret (§3.2)
//!   and the nonces (§5.2); AES-CCM-16-64-128 is the default algorithm.
//! - [`coap`]: the CoAP messages OSCORE protects (RFC 7252).
//! - [`protect`]: protecting and verifying requests and responses (§5, §8).
//! - [`replay`]: the recipient's replay window (§7.4).
//!
//! Sequence numbers are the caller's to reserve and persist before use (the
//! host's counter file, the device's [`crate::SlotCounter`]), so a restart
//! never reuses one.

pub mod coap;
pub mod context;
pub mod protect;
pub mod reading;
pub mod replay;

pub use context::{Alg, Context, Inputs};
pub use protect::{
    RequestId, Unprotected, protect_request, protect_response, unprotect_request,
    unprotect_response,
};
pub use replay::ReplayWindow;

use crate::error::Error;

/// Why a message could not be protected or verified. The recipient answers
/// each with the CoAP error of RFC 8613 §8.2 ([`OscoreError::response_code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OscoreError {
    /// From the sealing core: key or buffer lengths, oversize fields.
    Core(Error),
    /// Not a well-formed CoAP message.
    Malformed(&'static str),
    /// The OSCORE option cannot be read.
    BadOption(&'static str),
    /// The message has no OSCORE option.
    NotOscore,
    /// The kid (or kid context) names no context this recipient holds.
    UnknownContext,
    /// The sequence number was seen, or is below the replay window.
    Replayed { sequence: u64 },
    /// The tag does not verify: altered, truncated, or another key.
    DecryptionFailed,
    /// The sender's sequence numbers are used up (2^40): derive a new context.
    SequenceExhausted,
}

impl OscoreError {
    /// The CoAP response code a server answers with (§8.2).
    pub fn response_code(&self) -> u8 {
        match self {
            OscoreError::BadOption(_) => coap::code::BAD_OPTION,
            OscoreError::UnknownContext | OscoreError::Replayed { .. } => coap::code::UNAUTHORIZED,
            _ => coap::code::BAD_REQUEST,
        }
    }

    /// The diagnostic payload RFC 8613 suggests, where it names one.
    pub fn diagnostic(&self) -> &'static str {
        match self {
            OscoreError::UnknownContext => "Security context not found",
            OscoreError::Replayed { .. } => "Replay detected",
            OscoreError::DecryptionFailed => "Decryption failed",
            OscoreError::BadOption(d) | OscoreError::Malformed(d) => d,
            OscoreError::NotOscore => "no OSCORE option",
            OscoreError::SequenceExhausted => "sequence numbers exhausted",
            OscoreError::Core(_) => "message cannot be processed",
        }
    }
}

impl core::fmt::Display for OscoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            OscoreError::Core(e) => write!(f, "{e:?}"),
            OscoreError::Replayed { sequence } => {
                write!(
                    f,
                    "replayed: sequence number {sequence} was already accepted or is below the window"
                )
            }
            other => f.write_str(other.diagnostic()),
        }
    }
}
