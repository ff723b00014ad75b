//! Every asymmetric entry on every backend: key generation, then
//! sign → verify, encrypt → decrypt or agree, and the refusals around them.
//! Key generation is done once per entry and backend (RSA-3072 is slow).

use ciphermeter_catalogue::{AsymOp, Backend, Entry, Error, KeyPair, Kind, catalogue};

fn asymmetric_entries() -> Vec<&'static Entry> {
    let list: Vec<_> = catalogue()
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::Asymmetric)
        .collect();
    assert_eq!(
        list.len(),
        17,
        "9 RSA entries + x25519 + ed25519 + ecdsa-p256-sha256 + ML-KEM-512/768, ML-DSA-44/65, X-Wing"
    );
    list
}

/// A key pair for `e`, from `backend` when it generates keys, else from the
/// default backend (ring cannot generate RSA keys).
fn key_pair(e: &Entry, backend: Backend) -> KeyPair {
    match e.asymmetric(Some(backend)).unwrap().keygen() {
        Ok(pair) => pair,
        Err(Error::Unsupported { .. }) => e.asymmetric(None).unwrap().keygen().unwrap(),
        Err(other) => panic!("{} keygen on {backend}: {other}", e.id),
    }
}

fn is_unsupported<T>(r: Result<T, Error>) -> bool {
    matches!(r, Err(Error::Unsupported { .. }))
}

#[test]
fn catalogue_lists_the_asymmetric_entries_with_their_strength() {
    let entries = asymmetric_entries();
    let get = |id: &str| {
        *entries
            .iter()
            .find(|e| e.id == id)
            .unwrap_or_else(|| panic!("no {id}"))
    };
    for pad in ["oaep-sha256", "pkcs1v15-sha256", "pss-sha256"] {
        let rsa1024 = get(&format!("rsa-1024-{pad}"));
        assert_eq!(rsa1024.security_bits, 80);
        assert!(rsa1024.status.is_insecure());
        assert!(
            rsa1024
                .status_reason
                .as_deref()
                .unwrap()
                .contains("SP 800-131A")
        );
        assert_eq!(get(&format!("rsa-2048-{pad}")).security_bits, 112);
        assert_eq!(get(&format!("rsa-3072-{pad}")).security_bits, 128);
        assert_eq!(get(&format!("rsa-3072-{pad}")).output_size, Some(384));
    }
    for id in ["x25519", "ed25519", "ecdsa-p256-sha256"] {
        assert_eq!(get(id).security_bits, 128);
        assert!(!get(id).status.is_insecure());
    }
    assert_eq!(
        get("rsa-2048-oaep-sha256")
            .asymmetric(None)
            .unwrap()
            .operations(),
        [AsymOp::Encrypt, AsymOp::Decrypt]
    );
    assert_eq!(
        get("x25519").asymmetric(None).unwrap().operations(),
        [AsymOp::Agree]
    );
}

#[test]
fn every_entry_round_trips_on_every_backend() {
    for e in asymmetric_entries() {
        for backend in e.backends() {
            let scheme = e.asymmetric(Some(backend)).unwrap();
            let pair = key_pair(e, backend);
            let private = scheme.load_private(&pair.private).unwrap();
            let public = scheme.load_public(&pair.public).unwrap();
            let ops = scheme.operations();
            let what = format!("{} on {backend}", e.id);
            if ops.contains(&AsymOp::Sign) {
                for message in [&b""[..], b"a", &[0x5A; 300]] {
                    let signature = private.sign(message).unwrap();
                    assert_eq!(
                        Some(signature.len()),
                        e.output_size,
                        "{what}: signature size"
                    );
                    public.verify(message, &signature).unwrap();
                    let mut altered = signature.clone();
                    altered[0] ^= 0x80;
                    assert!(
                        matches!(
                            public.verify(message, &altered),
                            Err(Error::AuthenticationFailed { .. })
                        ),
                        "{what}"
                    );
                    assert!(
                        public.verify(b"another message", &signature).is_err(),
                        "{what}"
                    );
                }
                assert!(is_unsupported(public.encrypt(b"x")), "{what}");
                assert!(is_unsupported(private.decrypt(&[0; 8])), "{what}");
                assert!(is_unsupported(private.agree(&[9; 32])), "{what}");
            }
            if ops.contains(&AsymOp::Encrypt) {
                let max = e.output_size.unwrap() - 66; // OAEP-SHA256: k - 2·32 - 2
                for message in [&b""[..], b"key material", &vec![0xA5; max]] {
                    let ciphertext = public.encrypt(message).unwrap();
                    assert_eq!(Some(ciphertext.len()), e.output_size, "{what}");
                    // OAEP is randomized: the same message encrypts differently.
                    assert_ne!(public.encrypt(message).unwrap(), ciphertext, "{what}");
                    assert_eq!(*private.decrypt(&ciphertext).unwrap(), message, "{what}");
                    let mut altered = ciphertext.clone();
                    altered[10] ^= 1;
                    assert!(
                        matches!(private.decrypt(&altered), Err(Error::InvalidInput { .. })),
                        "{what}"
                    );
                }
                assert!(
                    matches!(
                        public.encrypt(&vec![0; max + 1]),
                        Err(Error::InvalidInput { .. })
                    ),
                    "{what}"
                );
                assert!(is_unsupported(private.sign(b"x")), "{what}");
                assert!(is_unsupported(public.verify(b"x", &[0; 8])), "{what}");
            }
            if ops.contains(&AsymOp::Encapsulate) {
                let sent = public.encapsulate().unwrap();
                assert_eq!(Some(sent.ciphertext.len()), e.output_size, "{what}");
                assert_eq!(sent.shared_secret.len(), 32, "{what}");
                assert_eq!(
                    private.decapsulate(&sent.ciphertext).unwrap(),
                    sent.shared_secret,
                    "{what}: both sides share the secret"
                );
                let again = public.encapsulate().unwrap();
                assert_ne!(again.ciphertext, sent.ciphertext, "{what}: randomized");
                assert_ne!(again.shared_secret, sent.shared_secret, "{what}");
                // A changed ciphertext is no error: it yields another secret.
                let mut altered = sent.ciphertext.clone();
                altered[10] ^= 1;
                assert_ne!(
                    private.decapsulate(&altered).unwrap(),
                    sent.shared_secret,
                    "{what}: implicit rejection"
                );
                assert!(
                    matches!(
                        private.decapsulate(&sent.ciphertext[1..]),
                        Err(Error::InvalidInput { .. })
                    ),
                    "{what}"
                );
                assert!(is_unsupported(private.sign(b"x")), "{what}");
                assert!(is_unsupported(public.verify(b"x", &[0; 64])), "{what}");
                assert!(is_unsupported(private.agree(&[9; 32])), "{what}");
            }
            if ops.contains(&AsymOp::Agree) {
                let peer = key_pair(e, backend);
                let peer_private = scheme.load_private(&peer.private).unwrap();
                let ours = private.agree(&peer.public).unwrap();
                assert_eq!(ours.len(), 32);
                assert_eq!(
                    ours,
                    peer_private.agree(&pair.public).unwrap(),
                    "{what}: both sides agree"
                );
                assert!(is_unsupported(private.sign(b"x")), "{what}");
                assert!(is_unsupported(public.verify(b"x", &[0; 64])), "{what}");
            }
        }
    }
}

#[test]
fn malformed_keys_are_refused_with_a_clear_error() {
    for e in asymmetric_entries() {
        for backend in e.backends() {
            let scheme = e.asymmetric(Some(backend)).unwrap();
            for junk in [&b""[..], &[0x30, 0x03, 0x02, 0x01, 0x00], &[0xFF; 40]] {
                assert!(
                    matches!(scheme.load_private(junk), Err(Error::InvalidInput { .. })),
                    "{} {backend}",
                    e.id
                );
                assert!(
                    matches!(scheme.load_public(junk), Err(Error::InvalidInput { .. })),
                    "{} {backend}",
                    e.id
                );
            }
        }
    }
}

#[test]
fn keys_of_another_scheme_are_refused() {
    let ed = catalogue()
        .get("ed25519")
        .unwrap()
        .asymmetric(None)
        .unwrap()
        .keygen()
        .unwrap();
    let ecdsa = catalogue().get("ecdsa-p256-sha256").unwrap();
    for backend in ecdsa.backends() {
        let scheme = ecdsa.asymmetric(Some(backend)).unwrap();
        assert!(
            matches!(
                scheme.load_private(&ed.private),
                Err(Error::InvalidInput { .. })
            ),
            "{backend}"
        );
        assert!(
            matches!(
                scheme.load_public(&ed.public),
                Err(Error::InvalidInput { .. })
            ),
            "{backend}"
        );
    }
}
