//! Every scheme × container × transport encoding round-trips; sizes are what
//! the layouts say.

mod common;

use ciphermeter_seal::{Container, HostSealer, Pattern, Scheme};
use common::{SCHEMES, key, nonce};
use payload::{Encoding, Format, Sample};

#[test]
fn every_scheme_container_and_encoding_round_trips() {
    let reading = Sample::Chain(10).bytes(Format::JsonMin, 1).unwrap();
    let aads: [&[u8]; 2] = [b"", br#"{"t":1555666777,"id":"Logger1"}"#];
    for name in SCHEMES {
        let key = key(name, 1);
        let mut sealer = HostSealer::new(&key, false).unwrap();
        for container in Container::ALL {
            for aad in aads {
                let message = sealer
                    .seal(container, &nonce(&key.scheme, 3), &reading, aad)
                    .unwrap();
                for encoding in Encoding::ALL {
                    let wire = encoding.encode(&message);
                    let back = encoding.decode(&wire).unwrap();
                    let opened = sealer
                        .open(container, &back)
                        .unwrap_or_else(|e| panic!("{name} {container} {encoding}: {e}"));
                    assert_eq!(
                        &opened.plaintext[..],
                        &reading[..],
                        "{name} {container} {encoding}"
                    );
                    assert_eq!(opened.aad, aad, "{name} {container}");
                }
            }
        }
    }
}

#[test]
fn every_catalogue_aead_and_mac_seals() {
    // Every compatible catalogue algorithm works with its pattern, not just the list above.
    let cat = catalogue::catalogue();
    let mut tried = 0;
    for entry in cat.entries() {
        let name = match entry.kind {
            // COSE's short-tag CCM seals in the oscore container only; as an
            // `aead:` scheme it is refused, saying where it seals.
            catalogue::Kind::Aead if entry.tag_size == Some(8) => {
                let e = ciphermeter_seal::Scheme::parse(&format!("aead:{}", entry.id))
                    .map(|s| s.name().to_string())
                    .expect_err("refused");
                assert!(e.to_string().contains("oscore container"), "{e}");
                continue;
            }
            catalogue::Kind::Aead => format!("aead:{}", entry.id),
            catalogue::Kind::Mac if entry.id != "poly1305" => format!("hmac:{}", entry.id),
            catalogue::Kind::BlockMode
                if entry.id.starts_with("aes-128-") || entry.id.starts_with("serpent-256") =>
            {
                format!("etm:{}+hmac-sha256", entry.id)
            }
            _ => continue,
        };
        let key = key(&name, 9);
        let mut sealer = HostSealer::new(&key, true).unwrap();
        for container in Container::ALL {
            let message = sealer
                .seal(container, &nonce(&key.scheme, 1), b"reading", b"hdr")
                .unwrap();
            let opened = sealer
                .open(container, &message)
                .unwrap_or_else(|e| panic!("{name} {container}: {e}"));
            assert_eq!(&opened.plaintext[..], b"reading", "{name} {container}");
        }
        tried += 1;
    }
    assert!(tried >= 20, "only {tried} schemes found in the catalogue");
}

#[test]
fn unauthenticated_enc_round_trips_only_when_allowed() {
    let key = key("enc:aes-256-cbc", 4);
    assert!(HostSealer::new(&key, false).is_err());
    let mut sealer = HostSealer::new(&key, true).unwrap();
    for container in Container::ALL {
        let message = sealer
            .seal(container, &nonce(&key.scheme, 1), b"plain", b"")
            .unwrap();
        assert_eq!(
            &sealer.open(container, &message).unwrap().plaintext[..],
            b"plain"
        );
    }
}

#[test]
fn binary_size_is_the_documented_sum() {
    let reading = vec![0x42u8; 100];
    for name in SCHEMES {
        let key = key(name, 2);
        let s = &key.scheme;
        let mut sealer = HostSealer::new(&key, false).unwrap();
        let message = sealer
            .seal(Container::Binary, &nonce(s, 1), &reading, b"ab")
            .unwrap();
        let expected =
            1 + 4 + 1 + 8 + 1 + s.nonce_len() + 2 + 2 + 1 + s.body_len(100) + s.tag_len();
        assert_eq!(message.len(), expected, "{name}");
    }
}

#[test]
fn json_follows_appendix_b_and_hmac_keeps_the_reading_readable() {
    let k = key("aead:aes-256-gcm", 5);
    let mut sealer = HostSealer::new(&k, false).unwrap();
    let message = sealer
        .seal(Container::Json, &nonce(&k.scheme, 1), b"{\"t\":1}", b"")
        .unwrap();
    let text = String::from_utf8(message).unwrap();
    assert!(
        text.starts_with(r#"{"v":1,"scheme":"aead:aes-256-gcm","kid":"a005020304050607","iv":""#),
        "{text}"
    );
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["iv"].as_str().unwrap().len(),
        16,
        "12-byte nonce in padded base64"
    );
    assert_eq!(
        value["tag"].as_str().unwrap().len(),
        24,
        "16-byte tag in padded base64"
    );

    let k = key("hmac:hmac-sha256", 5);
    let mut sealer = HostSealer::new(&k, false).unwrap();
    let message = sealer
        .seal(Container::Json, &[], b"{\"t\":1}", b"")
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&message).unwrap();
    assert_eq!(value["text"], "{\"t\":1}");
    assert!(value.get("iv").is_none() && value.get("data").is_none());
}

#[test]
fn cose_uses_iana_algorithms_where_they_exist() {
    use coset::{CoseEncrypt0, CoseMac0, TaggedCborSerializable, iana};
    let k = key("aead:aes-256-gcm", 6);
    let mut sealer = HostSealer::new(&k, false).unwrap();
    let message = sealer
        .seal(Container::Cose, &nonce(&k.scheme, 1), b"x", b"")
        .unwrap();
    assert_eq!(message[0], 0xD0, "CBOR tag 16, COSE_Encrypt0");
    let parsed = CoseEncrypt0::from_tagged_slice(&message).unwrap();
    assert_eq!(
        parsed.protected.header.alg,
        Some(coset::Algorithm::Assigned(iana::Algorithm::A256GCM))
    );
    assert_eq!(parsed.unprotected.key_id, k.key_id);

    let k = key("hmac:hmac-sha256", 6);
    let mut sealer = HostSealer::new(&k, false).unwrap();
    let message = sealer.seal(Container::Cose, &[], b"x", b"").unwrap();
    assert_eq!(message[0], 0xD1, "CBOR tag 17, COSE_Mac0");
    let parsed = CoseMac0::from_tagged_slice(&message).unwrap();
    assert_eq!(
        parsed.protected.header.alg,
        Some(coset::Algorithm::Assigned(iana::Algorithm::HMAC_256_256))
    );

    let k = key("etm:aes-128-cbc+hmac-sha256", 6);
    let mut sealer = HostSealer::new(&k, false).unwrap();
    let message = sealer
        .seal(Container::Cose, &nonce(&k.scheme, 1), b"x", b"")
        .unwrap();
    let parsed = CoseEncrypt0::from_tagged_slice(&message).unwrap();
    assert_eq!(
        parsed.protected.header.alg,
        Some(coset::Algorithm::Text("etm:aes-128-cbc+hmac-sha256".into()))
    );
}

#[test]
fn rfc_vector_for_cose_hmac_structure() {
    // The MAC covers RFC 9052's MAC_structure ["MAC0", protected, external_aad, payload];
    // recompute it by hand and check the tag with the catalogue's HMAC.
    use coset::{CoseMac0, TaggedCborSerializable};
    let key = key("hmac:hmac-sha256", 8);
    let mut sealer = HostSealer::new(&key, false).unwrap();
    let message = sealer.seal(Container::Cose, &[], b"payload", b"").unwrap();
    let parsed = CoseMac0::from_tagged_slice(&message).unwrap();
    let protected = parsed.protected.original_data.clone().unwrap();
    let mut tbm = vec![0x84, 0x64, b'M', b'A', b'C', b'0'];
    tbm.push(0x40 | protected.len() as u8);
    tbm.extend_from_slice(&protected);
    tbm.push(0x40); // empty external_aad
    tbm.push(0x47);
    tbm.extend_from_slice(b"payload");
    let mut mac = catalogue::catalogue()
        .get("hmac-sha256")
        .unwrap()
        .mac(None, key.material())
        .unwrap();
    let mut tag = Vec::new();
    mac.compute(&tbm, &mut tag).unwrap();
    assert_eq!(parsed.tag, tag);
}

#[test]
fn scheme_names_parse_and_refuse() {
    assert_eq!(
        Scheme::parse("AES-256-GCM").unwrap().name(),
        "aead:aes-256-gcm"
    );
    assert_eq!(Scheme::parse("hmac-sha256").unwrap().pattern, Pattern::Hmac);
    assert_eq!(
        Scheme::parse("etm:aes128-cbc+hmac-sha256").unwrap().name(),
        "etm:aes-128-cbc+hmac-sha256"
    );
    assert!(
        Scheme::parse_canonical("AEAD:aes-256-gcm").is_err(),
        "messages carry one spelling"
    );
    for bad in [
        "aead:aes-128-cbc",
        "etm:aes-256-gcm+hmac-sha256",
        "hmac:sha256",
        "etm:aes-128-cbc",
        "xyz:aes",
        "aes-128-cbc",
    ] {
        assert!(Scheme::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn insecure_choices_are_named() {
    for (name, needle) in [
        ("etm:aes-128-ecb+hmac-sha256", "ECB"),
        ("etm:des-cbc+hmac-sha256", "DES"),
        ("etm:rc4+hmac-sha256", "RC4"),
        ("hmac:hmac-md5", "MD5"),
        ("enc:aes-128-cbc", "unauthenticated"),
    ] {
        let reasons = Scheme::parse(name).unwrap().insecurity().join("; ");
        assert!(reasons.contains(needle), "{name}: {reasons}");
        let key = key(name, 1);
        let err = HostSealer::new(&key, false)
            .err()
            .expect("refused")
            .to_string();
        assert!(
            err.contains("--allow-insecure") && err.contains(needle),
            "{err}"
        );
    }
    assert!(
        Scheme::parse("aead:aes-256-gcm")
            .unwrap()
            .insecurity()
            .is_empty()
    );
}

#[test]
fn study_003_security_scoring() {
    let bits = |s: &str| Scheme::parse(s).unwrap().study003_bits();
    assert_eq!(bits("hmac:hmac-sha256"), 256);
    assert_eq!(bits("hmac:hmac-sha3-512"), 512);
    assert_eq!(bits("etm:aes-128-ecb+hmac-sha512"), 512);
    assert_eq!(bits("aead:aes-128-gcm"), 128);
    assert_eq!(bits("aead:aes-256-eax"), 256);
}
