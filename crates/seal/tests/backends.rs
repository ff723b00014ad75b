//! Every backend seals the same bytes: for one key, one counter nonce and
//! one reading, each scheme a backend covers seals byte for byte what
//! RustCrypto's code seals, in every container, and each opens the other's.
//! (The firmware's known answers extend this to the simulated targets:
//! crates/mcu `seal_check` compares a device's bytes with RustCrypto's on
//! the host for every implementation's build.)

mod common;

use ciphermeter_seal::{Backend, Container, HostSealer, Scheme, counter_nonce};
use common::key;

/// Every scheme of the core that a non-RustCrypto backend covers, from the
/// sealing candidates and a few EtM pairings of its own MACs.
fn covered(backend: Backend) -> Vec<String> {
    let mut names = ciphermeter_seal::sealing_candidates(true);
    names.extend(
        [
            "etm:aes-128-cbc+hmac-sha3-256",
            "etm:aes-256-ctr+hmac-sha3-512",
            "etm:aes-128-ctr+cmac-aes-128",
            "enc:aes-128-ecb",
            "etm:aes-128-cbc+hmac-sha256",
            "etm:aes-256-ctr+hmac-sha512",
            "hmac:hmac-sha512",
        ]
        .map(String::from),
    );
    names
        .into_iter()
        .filter(|n| Scheme::parse(n).is_ok_and(|s| backend.covers(&s.spec())))
        .collect()
}

#[test]
fn every_backend_seals_the_same_bytes_in_every_container() {
    let reading = br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;
    for backend in Backend::ALL.into_iter().skip(1) {
        assert!(
            backend.built(),
            "{} is not in this build: test the workspace, or with --features c-libraries",
            backend.name()
        );
        let schemes = covered(backend);
        // Ours: AES in its AEAD modes, CMAC and EtM, ChaCha20-Poly1305 and
        // HMAC-SHA-3. Mbed TLS: GCM, CCM, ChaCha20-Poly1305, EtM with
        // HMAC-SHA-2. Monocypher: ChaCha20-Poly1305 and HMAC-SHA-512.
        let least = match backend {
            Backend::Ciphermeter => 14,
            Backend::Mbedtls => 8,
            _ => 2,
        };
        assert!(
            schemes.len() >= least,
            "{backend:?} covers only {schemes:?}"
        );
        eprintln!("{}: {schemes:?}", backend.name());
        for name in &schemes {
            let key = key(name, 9);
            let mut reference = HostSealer::with_backend(&key, true, Backend::RustCrypto).unwrap();
            let mut ours = HostSealer::with_backend(&key, true, backend).unwrap();
            let mut nonce = vec![0u8; key.scheme.nonce_len()];
            // MAC-only schemes have no nonce (counter_nonce refuses an empty one).
            if !nonce.is_empty() {
                counter_nonce(41, &mut nonce).unwrap();
            }
            for container in Container::ALL {
                let want = reference.seal(container, &nonce, reading, b"d1").unwrap();
                let got = ours.seal(container, &nonce, reading, b"d1").unwrap();
                assert_eq!(
                    hex::encode(&got),
                    hex::encode(&want),
                    "{name} {container} by {}",
                    backend.name()
                );
                let opened = reference.open(container, &got).unwrap();
                assert_eq!(&opened.plaintext[..], reading);
                let mut tampered = want.clone();
                let last = tampered.len() - 2;
                tampered[last] ^= 0x40;
                assert!(
                    ours.open(container, &tampered).is_err(),
                    "{name} {container}"
                );
                assert_eq!(&ours.open(container, &want).unwrap().plaintext[..], reading);
            }
        }
    }
}

#[test]
fn a_backend_without_a_primitive_is_refused_not_substituted() {
    for name in [
        "aead:xchacha20-poly1305",
        "etm:aes-128-cbc+hmac-sha256",
        "hmac:hmac-sha256",
    ] {
        let err = HostSealer::with_backend(&key(name, 1), true, Backend::Ciphermeter)
            .err()
            .unwrap_or_else(|| panic!("{name} sealed with ciphermeter's code"));
        let text = err.to_string();
        assert!(
            text.contains("ciphermeter") && text.contains("rustcrypto"),
            "{name}: {text}"
        );
    }
}

/// Where AWS-LC has every primitive of a scheme, the host seals and opens
/// with it (`HostSealer::new`, so `seal` and the gateway); elsewhere RustCrypto.
#[test]
fn the_hosts_default_is_aws_lc_where_it_has_every_primitive() {
    assert!(
        Backend::AwsLc.built(),
        "aws-lc is not in this build: test the workspace, or with --features backend-aws-lc"
    );
    for (name, want) in [
        ("aead:aes-128-gcm", Backend::AwsLc),
        ("aead:chacha20-poly1305", Backend::AwsLc),
        ("hmac:hmac-sha256", Backend::AwsLc),
        ("aead:aes-128-ccm", Backend::RustCrypto),
        // AWS-LC's AES block is not reachable through aws-lc-rs.
        ("etm:aes-128-cbc+hmac-sha256", Backend::RustCrypto),
    ] {
        let sealer = HostSealer::new(&key(name, 3), false).unwrap();
        assert_eq!(sealer.backend(), want, "{name}");
    }
    assert!(Backend::AwsLc.host_only() && !Backend::Mbedtls.host_only());
}
