//! The schemes with an IANA COSE `alg` number, by name: what a message's
//! number means, for error messages (the core matches numbers by parts).

use crate::container::cose::iana;
use crate::spec::Spec;

/// The scheme an IANA `alg` number stands for, if we seal with it.
pub fn scheme_of(alg: i64) -> Option<&'static str> {
    const NAMED: [&str; 7] = [
        "aead:aes-128-gcm",
        "aead:aes-256-gcm",
        "aead:chacha20-poly1305",
        "aead:aes-128-ccm",
        "aead:aes-256-ccm",
        "hmac:hmac-sha256",
        "hmac:hmac-sha512",
    ];
    NAMED.into_iter().find(|name| {
        let spec = Spec::parse(name).expect("a known scheme");
        iana(spec.pattern, spec.cipher, spec.mac) == Some(alg)
    })
}
