//! OSCORE's algorithms as device builds (`oscore:ALG`): each seals a reading
//! as an OSCORE-protected CoAP POST (`oscore::reading`) with the code of a
//! core scheme, whose features, cfgs and backend the build takes. Not behind
//! the `oscore` feature: the firmware's build script and crates/mcu resolve
//! these names on the host.

use crate::backend::Backend;
use crate::spec::Spec;

/// The prefix of an OSCORE build or context scheme.
pub const PREFIX: &str = "oscore:";

/// (OSCORE scheme, the core scheme whose code it runs, whether any backend
/// covering that scheme may seal it). AES-CCM-16-64-128, OSCORE's mandatory
/// algorithm, has an 8-byte tag no backend's AES-CCM writes: RustCrypto's
/// `ccm` crate seals it.
const BUILDS: [(&str, &str, bool); 4] = [
    ("oscore:aes-ccm-16-64-128", "aead:aes-128-ccm", false),
    ("oscore:aes-128-gcm", "aead:aes-128-gcm", true),
    ("oscore:aes-256-gcm", "aead:aes-256-gcm", true),
    ("oscore:chacha20-poly1305", "aead:chacha20-poly1305", true),
];

/// Every OSCORE build, in the order the tables list them.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILDS.iter().map(|b| b.0)
}

fn row(id: &str) -> Option<&'static (&'static str, &'static str, bool)> {
    BUILDS.iter().find(|b| b.0 == id)
}

/// The core scheme an OSCORE build runs on; None for any other name.
pub fn core_scheme(id: &str) -> Option<&'static str> {
    row(id).map(|b| b.1)
}

/// The OSCORE algorithm's name (`aes-128-gcm`) of a build.
pub fn alg_name(id: &str) -> Option<&'static str> {
    row(id).and_then(|b| b.0.strip_prefix(PREFIX))
}

/// A sealing build's parts: a core scheme's, or an OSCORE build's core scheme's.
pub fn spec(id: &str) -> Option<Spec<'_>> {
    match core_scheme(id) {
        Some(core) => Spec::parse(core),
        None => Spec::parse(id),
    }
}

/// Whether `backend` seals the build `id` (a core scheme or an OSCORE build).
pub fn covers(backend: Backend, id: &str) -> bool {
    let Some(spec) = spec(id) else {
        return false;
    };
    match row(id) {
        Some(&(_, _, any)) => (any || backend == Backend::RustCrypto) && backend.covers(&spec),
        None => backend.covers(&spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oscore_builds_run_on_their_core_scheme() {
        assert_eq!(core_scheme("oscore:aes-128-gcm"), Some("aead:aes-128-gcm"));
        assert_eq!(
            alg_name("oscore:aes-ccm-16-64-128"),
            Some("aes-ccm-16-64-128")
        );
        assert!(spec("aead:aes-128-ccm").is_some());
        assert!(spec("oscore:aes-ccm-16-128-128").is_none());
        assert!(covers(Backend::RustCrypto, "oscore:aes-ccm-16-64-128"));
        assert!(!covers(Backend::Ciphermeter, "oscore:aes-ccm-16-64-128"));
        assert!(covers(Backend::Ciphermeter, "aead:aes-128-ccm"));
        assert!(covers(Backend::Ciphermeter, "oscore:aes-128-gcm"));
    }
}
