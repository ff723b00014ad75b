//! Known answers for the asymmetric entries, run on every backend that has
//! them: RFC 8032 (Ed25519), RFC 7748 (X25519), RFC 6979 (ECDSA P-256) and
//! NIST CAVP SigGen15 (RSA PKCS#1 v1.5). Vectors and their sources are in
//! tests/vectors/asymmetric/.

use ciphermeter_catalogue::{Backend, Entry, Error, catalogue};
use p256::pkcs8::EncodePrivateKey;
use rsa::pkcs8::EncodePublicKey;

/// Blocks of `name = hex` lines separated by blank lines; `#` starts a comment.
fn blocks(text: &str) -> Vec<Vec<(String, String)>> {
    let mut out = vec![Vec::new()];
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !out.last().unwrap().is_empty() {
                out.push(Vec::new());
            }
            continue;
        }
        let (name, value) = line.split_once('=').expect("vector line without '='");
        out.last_mut()
            .unwrap()
            .push((name.trim().to_string(), value.trim().to_string()));
    }
    out.retain(|b| !b.is_empty());
    out
}

fn field<'a>(block: &'a [(String, String)], name: &str) -> &'a str {
    block
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no '{name}'"))
}

fn hex(text: &str) -> Vec<u8> {
    hex::decode(text).expect("bad hex in vector file")
}

fn entry(id: &str) -> &'static Entry {
    catalogue()
        .get(id)
        .unwrap_or_else(|| panic!("no entry {id}"))
}

fn backends(e: &Entry) -> Vec<Backend> {
    let list = e.backends();
    assert!(!list.is_empty(), "{} has no backend", e.id);
    list
}

/// PKCS#8 and SPKI for Ed25519 have fixed prefixes (RFC 8410 §7 and §4).
fn ed25519_pkcs8(seed: &[u8]) -> Vec<u8> {
    [hex("302e020100300506032b657004220420"), seed.to_vec()].concat()
}

fn ed25519_spki(public: &[u8]) -> Vec<u8> {
    [hex("302a300506032b6570032100"), public.to_vec()].concat()
}

/// SPKI for an uncompressed P-256 point (RFC 5480): id-ecPublicKey, prime256v1.
fn p256_spki(ux: &[u8], uy: &[u8]) -> Vec<u8> {
    [
        hex("3059301306072a8648ce3d020106082a8648ce3d030107034200"),
        vec![4],
        ux.to_vec(),
        uy.to_vec(),
    ]
    .concat()
}

fn flip_last(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    *v.last_mut().unwrap() ^= 1;
    v
}

#[test]
fn ed25519_rfc8032_signatures_on_every_backend() {
    let text = include_str!("vectors/asymmetric/ed25519_rfc8032.txt");
    let e = entry("ed25519");
    for backend in backends(e) {
        let scheme = e.asymmetric(Some(backend)).unwrap();
        for block in blocks(text) {
            let message = hex(field(&block, "message"));
            let expected = hex(field(&block, "signature"));
            let private = scheme
                .load_private(&ed25519_pkcs8(&hex(field(&block, "secret"))))
                .unwrap();
            assert_eq!(
                private.sign(&message).unwrap(),
                expected,
                "{backend}: RFC 8032 signature"
            );
            let public = scheme
                .load_public(&ed25519_spki(&hex(field(&block, "public"))))
                .unwrap();
            public.verify(&message, &expected).unwrap();
            let altered = [message.as_slice(), b"!"].concat();
            assert!(matches!(
                public.verify(&altered, &expected),
                Err(Error::AuthenticationFailed { .. })
            ));
            assert!(matches!(
                public.verify(&message, &flip_last(&expected)),
                Err(Error::AuthenticationFailed { .. })
            ));
        }
    }
}

#[test]
fn x25519_rfc7748_shared_secret_on_every_backend() {
    let text = include_str!("vectors/asymmetric/x25519_rfc7748.txt");
    let block = &blocks(text)[0];
    let e = entry("x25519");
    for backend in backends(e) {
        let scheme = e.asymmetric(Some(backend)).unwrap();
        let alice = scheme
            .load_private(&hex(field(block, "alice_private")))
            .unwrap();
        let bob = scheme
            .load_private(&hex(field(block, "bob_private")))
            .unwrap();
        let shared = hex(field(block, "shared"));
        assert_eq!(
            *alice.agree(&hex(field(block, "bob_public"))).unwrap(),
            shared,
            "{backend}: Alice's side"
        );
        assert_eq!(
            *bob.agree(&hex(field(block, "alice_public"))).unwrap(),
            shared,
            "{backend}: Bob's side"
        );
        // A low-order point (here 0) gives no shared secret.
        assert!(matches!(
            alice.agree(&[0u8; 32]),
            Err(Error::InvalidInput { .. })
        ));
        assert!(matches!(
            alice.agree(&[9u8; 31]),
            Err(Error::InvalidInput { .. })
        ));
    }
}

#[test]
fn ecdsa_p256_rfc6979_verifies_everywhere_and_rustcrypto_reproduces_it() {
    let text = include_str!("vectors/asymmetric/ecdsa_p256_rfc6979.txt");
    let all = blocks(text);
    let key = &all[0];
    let x = hex(field(key, "x"));
    let pkcs8 = p256::SecretKey::from_slice(&x)
        .unwrap()
        .to_pkcs8_der()
        .unwrap();
    let spki = p256_spki(&hex(field(key, "ux")), &hex(field(key, "uy")));
    let e = entry("ecdsa-p256-sha256");
    for backend in backends(e) {
        let scheme = e.asymmetric(Some(backend)).unwrap();
        let public = scheme.load_public(&spki).unwrap();
        let private = scheme.load_private(pkcs8.as_bytes()).unwrap();
        for block in &all[1..] {
            let message = field(block, "message_ascii").as_bytes();
            let expected = hex(field(block, "signature"));
            public.verify(message, &expected).unwrap();
            assert!(matches!(
                public.verify(message, &flip_last(&expected)),
                Err(Error::AuthenticationFailed { .. })
            ));
            assert!(matches!(
                public.verify(b"other", &expected),
                Err(Error::AuthenticationFailed { .. })
            ));
            let signature = private.sign(message).unwrap();
            if backend == Backend::RustCrypto {
                // RFC 6979 nonces are deterministic: the exact published signature.
                assert_eq!(
                    signature,
                    expected,
                    "RFC 6979 signature of {:?}",
                    field(block, "message_ascii")
                );
            } else {
                public.verify(message, &signature).unwrap();
            }
        }
    }
}

#[test]
fn rsa_pkcs1v15_cavp_signature_on_every_backend() {
    use rsa::{BoxedUint, RsaPrivateKey};
    let text = include_str!("vectors/asymmetric/rsa2048_pkcs1v15_sha256_cavp.txt");
    let block = &blocks(text)[0];
    let int = |name| {
        let bytes = hex(field(block, name));
        BoxedUint::from_be_slice(&bytes, (bytes.len() * 8) as u32).unwrap()
    };
    let key =
        RsaPrivateKey::from_components(int("n"), int("e"), int("d"), vec![int("p"), int("q")])
            .unwrap();
    key.validate().expect("CAVP key components are consistent");
    let pkcs8 = key.to_pkcs8_der().unwrap();
    let spki = key.to_public_key().to_public_key_der().unwrap();
    let msg = hex(field(block, "msg"));
    let expected = hex(field(block, "s"));
    let e = entry("rsa-2048-pkcs1v15-sha256");
    for backend in backends(e) {
        let scheme = e.asymmetric(Some(backend)).unwrap();
        let public = scheme.load_public(spki.as_bytes()).unwrap();
        public.verify(&msg, &expected).unwrap();
        assert!(matches!(
            public.verify(&msg, &flip_last(&expected)),
            Err(Error::AuthenticationFailed { .. })
        ));
        assert!(matches!(
            public.verify(&msg[1..], &expected),
            Err(Error::AuthenticationFailed { .. })
        ));
        let private = scheme.load_private(pkcs8.as_bytes()).unwrap();
        assert_eq!(
            private.sign(&msg).unwrap(),
            expected,
            "{backend}: CAVP SigGen15 signature"
        );
    }
    // The same key is refused by an entry of another size, not measured under a wrong name.
    let other = entry("rsa-3072-pkcs1v15-sha256").asymmetric(None).unwrap();
    assert!(matches!(
        other.load_public(spki.as_bytes()),
        Err(Error::InvalidInput { .. })
    ));
    assert!(matches!(
        other.load_private(pkcs8.as_bytes()),
        Err(Error::InvalidInput { .. })
    ));
}
