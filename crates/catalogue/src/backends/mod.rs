//! Backends beyond RustCrypto, added to the entries they cover.

use crate::registry::Builder;

pub(crate) fn register(_b: &mut Builder) {}
