//! The OpenSSL backend: the system libssl (3.x) through the `openssl` crate.
//! Key schedules run once at key setup; each message only sets its IV, so
//! measuring the constructor measures the key setup apart from the rest.
//! Padding is done by ciphermeter itself (OpenSSL's is switched off) so that
//! the five paddings behave exactly as in the RustCrypto backend.
//!
//! DES, Blowfish, RC2, IDEA and RC4 live in OpenSSL 3's `legacy` provider. It
//! is loaded once, together with `default` (loading any provider explicitly
//! turns off the implicit `default`); when it cannot be loaded, those
//! implementations are simply not offered.

mod aead;
mod ciphers;
mod digests;

use std::sync::{Arc, OnceLock};

use openssl::provider::Provider;

use crate::entry::{Backend, Implementation, Ops};
use crate::error::Error;
use crate::registry::Builder;

/// Provider handles, kept alive for the life of the process.
struct Providers {
    _default: Option<Provider>,
    legacy: Option<Provider>,
}

fn providers() -> &'static Providers {
    static PROVIDERS: OnceLock<Providers> = OnceLock::new();
    PROVIDERS.get_or_init(|| Providers {
        _default: Provider::load(None, "default").ok(),
        legacy: Provider::load(None, "legacy").ok(),
    })
}

/// "OpenSSL 3.0.19", from the library actually linked.
fn provider_name() -> String {
    let version = openssl::version::version();
    version
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

fn implementation(ops: Ops) -> Implementation {
    Implementation {
        backend: Backend::OpenSsl,
        provider: provider_name(),
        ops,
    }
}

fn failure(algorithm: &str, e: openssl::error::ErrorStack) -> Error {
    Error::Backend {
        algorithm: algorithm.to_string(),
        detail: format!("OpenSSL: {e}"),
    }
}

/// Whether an algorithm needs the legacy provider, and so may be missing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Provenance {
    Default,
    Legacy,
}

/// Fetches an OpenSSL cipher by name; `None` when this libssl lacks it.
fn fetch_cipher(name: &str, provenance: Provenance) -> Option<Arc<openssl::cipher::Cipher>> {
    if provenance == Provenance::Legacy && providers().legacy.is_none() {
        return None;
    }
    openssl::cipher::Cipher::fetch(None, name, None)
        .ok()
        .map(Arc::new)
}

pub(crate) fn register(b: &mut Builder) {
    providers();
    ciphers::register(b);
    aead::register(b);
    digests::register(b);
}
