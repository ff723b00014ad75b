//! Asymmetric schemes: RSA, X25519, Ed25519, ECDSA P-256.

use crate::registry::Builder;

pub(crate) fn register(_b: &mut Builder) {}
