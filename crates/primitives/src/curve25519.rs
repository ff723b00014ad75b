//! Curve25519 written here: the field modulo 2^255 - 19 on 32-bit words
//! ([`field`]), X25519 (RFC 7748, [`x25519`]) and Ed25519 (RFC 8032,
//! [`ed25519`]).
//!
//! Written for the Cortex-M4, where the field's multiply and square are
//! `umaal` assembly (`field_umaal`, selected by this crate's build script
//! for `thumbv7em` targets); every other core runs the same curve code on
//! the portable field. Nothing branches on or indexes by a secret.

pub mod ed25519;
pub mod edwards;
pub mod field;
#[cfg(umaal)]
mod field_umaal;
pub mod scalar;
pub mod x25519;
