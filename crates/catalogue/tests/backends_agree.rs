//! Every backend agrees with every other on the same inputs: for each entry
//! with more than one backend, the same key, IV, associated data and message
//! (lengths 0..=300, every padding where the mode takes one) give the same
//! ciphertext, digest or tag. Randomized signatures (ECDSA, PSS) are
//! cross-verified instead. AEAD backends must refuse altered messages.

use ciphermeter_catalogue::{
    AsymOp, Backend, Direction, Entry, Error, Kind, Padding, Params, catalogue,
};

/// A small deterministic generator (SplitMix64): reproducible test inputs.
struct Inputs(u64);

impl Inputs {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    fn pick(&mut self, from: &[usize]) -> usize {
        from[(self.next() % from.len() as u64) as usize]
    }
}

fn shared_entries(kind: Kind) -> Vec<&'static Entry> {
    catalogue()
        .entries()
        .iter()
        .filter(|e| e.kind == kind && e.implementations.len() > 1)
        .collect()
}

fn has(id: &str, backend: Backend) -> bool {
    catalogue().get(id).unwrap().backends().contains(&backend)
}

#[test]
fn the_fast_backends_are_registered() {
    for id in [
        "aes-128-gcm",
        "aes-256-gcm",
        "chacha20-poly1305",
        "sha256",
        "hmac-sha512",
        "ed25519",
        "ecdsa-p256-sha256",
        "rsa-2048-pss-sha256",
    ] {
        assert!(has(id, Backend::Ring), "{id} lacks ring");
    }
    assert!(
        !has("rsa-1024-pkcs1v15-sha256", Backend::Ring),
        "ring has no RSA below 2048 bits"
    );
    assert!(!has("x25519", Backend::Ring));
    if cfg!(feature = "aws-lc") {
        for id in [
            "aes-128-gcm",
            "aes-256-gcm",
            "chacha20-poly1305",
            "hmac-sha256",
            "hmac-sha512",
        ] {
            assert!(has(id, Backend::AwsLc), "{id} lacks aws-lc");
        }
    }
    if cfg!(feature = "openssl") {
        for id in [
            "aes-128-cbc",
            "aes-192-cfb8",
            "aes-256-ctr",
            "camellia-128-ofb",
            "des-ede3-cbc",
            "chacha20",
            "aes-128-ccm",
            "aes-256-ocb",
            "chacha20-poly1305",
            "sha3-512",
            "blake2b512",
            "hmac-blake2s256",
            "cmac-aes-256",
            // From OpenSSL 3's legacy provider (Debian builds it without IDEA):
            "des-cfb8",
            "bf-cbc",
            "rc2-ofb",
            "rc4",
        ] {
            assert!(has(id, Backend::OpenSsl), "{id} lacks openssl");
        }
        assert!(
            !has("aes-128-ofb8", Backend::OpenSsl),
            "OpenSSL has no 8-bit OFB"
        );
    }
}

/// The key lengths worth trying: all of them, or a spread for Blowfish's 4..=56.
fn key_lengths(e: &Entry) -> Vec<usize> {
    let k = &e.key_sizes;
    if k.len() > 6 {
        vec![k[0], 16, k[k.len() - 1]]
    } else {
        k.clone()
    }
}

fn paddings(e: &Entry) -> Vec<Padding> {
    match e.mode {
        Some(m) if m.is_padded() => Padding::ALL.to_vec(),
        _ => vec![Padding::default()],
    }
}

/// One message through every backend: same ciphertext, and every backend
/// decrypts the reference ciphertext to the same plaintext.
fn agree_once(e: &'static Entry, key: &[u8], params: &Params<'_>, message: &[u8]) {
    let block = e.block_size.unwrap_or(1);
    if params.padding == Padding::None
        && e.mode.is_some_and(|m| m.is_padded())
        && !message.len().is_multiple_of(block)
    {
        return;
    }
    let what = format!(
        "{} key {} iv {} len {} {:?}",
        e.id,
        key.len(),
        params.iv.len(),
        message.len(),
        params.padding
    );
    let mut reference: Option<(Backend, Vec<u8>)> = None;
    for backend in e.backends() {
        let mut cipher = e
            .cipher(Some(backend), key)
            .unwrap_or_else(|err| panic!("{what}: {backend} key setup: {err}"));
        let mut ciphertext = Vec::new();
        cipher
            .encrypt(params, message, &mut ciphertext)
            .unwrap_or_else(|err| panic!("{what}: {backend}: {err}"));
        match &reference {
            None => reference = Some((backend, ciphertext)),
            Some((first, expected)) => assert_eq!(
                &ciphertext, expected,
                "{what}: {backend} differs from {first}"
            ),
        }
    }
    let (_, ciphertext) = reference.unwrap();
    for backend in e.backends() {
        let mut cipher = e.cipher(Some(backend), key).unwrap();
        let mut plaintext = vec![0xEE]; // output is appended after what is there
        cipher
            .decrypt(params, &ciphertext, &mut plaintext)
            .unwrap_or_else(|err| panic!("{what}: {backend} decrypt: {err}"));
        if params.padding == Padding::Zero && e.mode.is_some_and(|m| m.is_padded()) {
            // Zero padding cannot tell trailing zeros of the message from padding.
            let kept = message.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            assert_eq!(
                &plaintext[1..],
                &message[..kept],
                "{what}: {backend} decrypt"
            );
        } else {
            assert_eq!(&plaintext[1..], message, "{what}: {backend} decrypt");
        }
    }
}

#[test]
fn symmetric_ciphers_agree_on_every_length_and_padding() {
    let mut rng = Inputs(0x00C1_F3E7);
    let mut checked = 0;
    for kind in [Kind::BlockMode, Kind::Stream, Kind::Aead] {
        for e in shared_entries(kind) {
            for key_len in key_lengths(e) {
                for padding in paddings(e) {
                    let mut key = rng.bytes(key_len);
                    for len in 0..=300usize {
                        if len % 37 == 0 {
                            key = rng.bytes(key_len); // a fresh key now and then
                        }
                        let iv_len = if e.nonce_sizes.is_empty() {
                            0
                        } else {
                            rng.pick(&e.nonce_sizes)
                        };
                        let iv = rng.bytes(iv_len);
                        let aad_len = if kind == Kind::Aead {
                            (rng.next() % 40) as usize
                        } else {
                            0
                        };
                        let aad = rng.bytes(aad_len);
                        let mut message = rng.bytes(len);
                        if let Some(last) = message.last_mut() {
                            *last |= (len % 2) as u8; // some messages end in a zero byte, some not
                        }
                        let params = Params {
                            iv: &iv,
                            aad: &aad,
                            padding,
                        };
                        agree_once(e, &key, &params, &message);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "only {checked} comparisons");
}

#[test]
fn streaming_agrees_with_one_shot_on_every_backend() {
    let mut rng = Inputs(0x5EED);
    for kind in [Kind::BlockMode, Kind::Stream] {
        for e in shared_entries(kind) {
            let key = rng.bytes(key_lengths(e)[0]);
            let iv = if e.nonce_sizes.is_empty() {
                vec![]
            } else {
                rng.bytes(e.nonce_sizes[0])
            };
            let params = Params {
                iv: &iv,
                ..Default::default()
            };
            let message = rng.bytes(1000);
            for backend in e.backends() {
                let mut cipher = e.cipher(Some(backend), &key).unwrap();
                let mut one_shot = Vec::new();
                cipher.encrypt(&params, &message, &mut one_shot).unwrap();
                for direction in [Direction::Encrypt, Direction::Decrypt] {
                    let (input, expected) = match direction {
                        Direction::Encrypt => (&message, &one_shot),
                        Direction::Decrypt => (&one_shot, &message),
                    };
                    let mut stream = cipher.streaming(&params, direction).unwrap();
                    let granule = stream.granule();
                    // Two chunks of whole granules, then a final piece that keeps the last block.
                    let cut = (input.len() / 3 / granule) * granule;
                    let keep = input.len() - granule.max(1);
                    let keep = (keep / granule) * granule;
                    let mut buf = input[..keep].to_vec();
                    stream.update(&mut buf[..cut]).unwrap();
                    stream.update(&mut buf[cut..]).unwrap();
                    stream.finish(&input[keep..], &mut buf).unwrap();
                    assert_eq!(&buf, expected, "{} {backend} streaming {direction:?}", e.id);
                }
            }
        }
    }
}

#[test]
fn hashes_agree() {
    let mut rng = Inputs(0xD16E57);
    for e in shared_entries(Kind::Hash) {
        for len in (0..=300).chain([1000, 65_537]) {
            let data = rng.bytes(len);
            let digests: Vec<(Backend, Vec<u8>)> = e
                .backends()
                .into_iter()
                .map(|b| {
                    let mut out = Vec::new();
                    e.hasher(Some(b)).unwrap().digest(&data, &mut out);
                    (b, out)
                })
                .collect();
            assert_eq!(Some(digests[0].1.len()), e.output_size, "{}", e.id);
            for (b, d) in &digests[1..] {
                assert_eq!(
                    d, &digests[0].1,
                    "{} len {len}: {b} differs from {}",
                    e.id, digests[0].0
                );
            }
        }
    }
}

#[test]
fn macs_agree_and_cross_verify() {
    let mut rng = Inputs(0x3AC);
    for e in shared_entries(Kind::Mac) {
        // HMAC takes any key; keys longer than the hash block are hashed first.
        let lengths = if e.key_sizes.is_empty() {
            vec![1, 16, 32, 64, 65, 137, 200]
        } else {
            e.key_sizes.clone()
        };
        for key_len in lengths {
            for len in [0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 300, 4096] {
                let key = rng.bytes(key_len);
                let data = rng.bytes(len);
                let what = format!("{} key {key_len} len {len}", e.id);
                let mut tags = Vec::new();
                for b in e.backends() {
                    let mut tag = Vec::new();
                    e.mac(Some(b), &key)
                        .unwrap()
                        .compute(&data, &mut tag)
                        .unwrap();
                    tags.push((b, tag));
                }
                let expected = &tags[0].1;
                for (b, tag) in &tags {
                    assert_eq!(tag, expected, "{what}: {b} differs from {}", tags[0].0);
                    let mut mac = e.mac(Some(*b), &key).unwrap();
                    mac.verify(&data, expected).unwrap();
                    let mut wrong = expected.clone();
                    let at = len % wrong.len();
                    wrong[at] ^= 0x01;
                    assert!(
                        matches!(
                            mac.verify(&data, &wrong),
                            Err(Error::AuthenticationFailed { .. })
                        ),
                        "{what}: {b}"
                    );
                    assert!(
                        mac.verify(&data, &expected[..expected.len() - 1]).is_err(),
                        "{what}: {b} short tag"
                    );
                }
            }
        }
    }
}

#[test]
fn every_aead_backend_refuses_altered_messages_and_releases_nothing() {
    let mut rng = Inputs(0x7A6);
    for e in catalogue()
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::Aead)
    {
        for backend in e.backends() {
            let key = rng.bytes(e.key_sizes[0]);
            let iv = rng.bytes(e.nonce_sizes[0]);
            let aad = rng.bytes(13);
            let params = Params {
                iv: &iv,
                aad: &aad,
                ..Default::default()
            };
            let message = rng.bytes(64);
            let mut cipher = e.cipher(Some(backend), &key).unwrap();
            let mut sealed = Vec::new();
            cipher.encrypt(&params, &message, &mut sealed).unwrap();
            let other_aad = [aad.as_slice(), b"x"].concat();
            let mut wrong_tag = sealed.clone();
            *wrong_tag.last_mut().unwrap() ^= 0x80;
            let mut wrong_ct = sealed.clone();
            wrong_ct[3] ^= 0x01;
            let cases: [(&str, &[u8], Params<'_>); 3] = [
                ("tag", &wrong_tag, params),
                ("ciphertext", &wrong_ct, params),
                (
                    "associated data",
                    &sealed,
                    Params {
                        aad: &other_aad,
                        ..params
                    },
                ),
            ];
            for (what, input, p) in cases {
                let mut out = b"before".to_vec();
                let result = cipher.decrypt(&p, input, &mut out);
                assert!(
                    matches!(result, Err(Error::AuthenticationFailed { .. })),
                    "{} {backend}: altered {what} gave {result:?}",
                    e.id
                );
                assert_eq!(
                    out, b"before",
                    "{} {backend}: plaintext released after a bad {what}",
                    e.id
                );
            }
            // And the untouched message still opens after those failures.
            let mut out = Vec::new();
            cipher.decrypt(&params, &sealed, &mut out).unwrap();
            assert_eq!(out, message, "{} {backend}", e.id);
        }
    }
}

#[test]
fn signatures_agree_or_cross_verify_and_keys_travel_between_backends() {
    for e in shared_entries(Kind::Asymmetric) {
        let default = e.asymmetric(None).unwrap();
        let mut pairs = vec![default.keygen().unwrap()];
        for b in e.backends() {
            if let Ok(pair) = e.asymmetric(Some(b)).unwrap().keygen() {
                pairs.push(pair); // keys from every backend that makes them
            }
        }
        assert!(default.operations().contains(&AsymOp::Sign), "{}", e.id);
        // Deterministic schemes must produce byte-identical signatures.
        let deterministic = e.id == "ed25519" || e.id.contains("pkcs1v15");
        for pair in &pairs {
            for message in [&b""[..], b"ciphermeter", &[7u8; 1000]] {
                let signatures: Vec<(Backend, Vec<u8>)> = e
                    .backends()
                    .into_iter()
                    .map(|b| {
                        (
                            b,
                            e.asymmetric(Some(b))
                                .unwrap()
                                .load_private(&pair.private)
                                .unwrap()
                                .sign(message)
                                .unwrap(),
                        )
                    })
                    .collect();
                for (signer, signature) in &signatures {
                    if deterministic {
                        assert_eq!(
                            signature, &signatures[0].1,
                            "{}: {signer} vs {}",
                            e.id, signatures[0].0
                        );
                    }
                    for verifier in e.backends() {
                        let public = e
                            .asymmetric(Some(verifier))
                            .unwrap()
                            .load_public(&pair.public)
                            .unwrap();
                        public.verify(message, signature).unwrap_or_else(|err| {
                            panic!("{}: {verifier} rejects {signer}'s signature: {err}", e.id)
                        });
                    }
                }
            }
        }
    }
}
