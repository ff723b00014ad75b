//! `open` rejects every single-bit change, truncation, wrong key, unknown
//! scheme and oversize field, and returns no plaintext when it does.

mod common;

use ciphermeter_seal::{Container, HostSealer, SealError, limits};
use common::{key, nonce};

const TAMPER_SCHEMES: [&str; 4] = [
    "hmac:hmac-sha256",
    "etm:aes-128-cbc+hmac-sha256",
    "aead:aes-256-gcm",
    "aead:ascon-aead128",
];

fn sample(container: Container, scheme: &str) -> (HostSealer, Vec<u8>) {
    let key = key(scheme, 7);
    let mut sealer = HostSealer::new(&key, false).unwrap();
    let reading = br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;
    let message = sealer
        .seal(container, &nonce(&key.scheme, 9), reading, b"hdr")
        .unwrap();
    (sealer, message)
}

#[test]
fn every_flipped_bit_is_rejected() {
    for container in Container::ALL {
        for scheme in TAMPER_SCHEMES {
            let (mut sealer, message) = sample(container, scheme);
            assert!(sealer.open(container, &message).is_ok());
            for bit in 0..message.len() * 8 {
                let mut bad = message.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                if let Ok(opened) = sealer.open(container, &bad) {
                    panic!(
                        "{container} {scheme}: flipping bit {bit} (byte {}) was accepted, plaintext {:?}",
                        bit / 8,
                        String::from_utf8_lossy(&opened.plaintext)
                    );
                }
            }
        }
    }
}

#[test]
fn every_truncation_and_extension_is_rejected() {
    for container in Container::ALL {
        for scheme in TAMPER_SCHEMES {
            let (mut sealer, message) = sample(container, scheme);
            for len in 0..message.len() {
                assert!(
                    sealer.open(container, &message[..len]).is_err(),
                    "{container} {scheme}: cut to {len}"
                );
            }
            let mut longer = message.clone();
            longer.push(0);
            assert!(
                sealer.open(container, &longer).is_err(),
                "{container} {scheme}: extra byte"
            );
        }
    }
}

#[test]
fn wrong_key_is_rejected() {
    for container in Container::ALL {
        for scheme in TAMPER_SCHEMES {
            let (_, message) = sample(container, scheme);
            // Another key id: named as a wrong key before any crypto runs.
            let mut other = HostSealer::new(&key(scheme, 8), false).unwrap();
            assert!(
                matches!(
                    other.open(container, &message),
                    Err(SealError::WrongKey { .. })
                ),
                "{container} {scheme}"
            );
            // Same key id, other material: the tag check fails.
            let same_id = key(scheme, 7);
            let material: Vec<u8> = same_id.material().iter().map(|b| b ^ 1).collect();
            let forged = ciphermeter_seal::SealKey::from_parts(
                same_id.scheme.clone(),
                same_id.key_id.clone(),
                &material,
            )
            .unwrap();
            let mut forged = HostSealer::new(&forged, false).unwrap();
            assert!(
                matches!(forged.open(container, &message), Err(SealError::Rejected)),
                "{container} {scheme}"
            );
        }
    }
}

#[test]
fn a_key_for_another_scheme_is_refused() {
    for container in Container::ALL {
        let (_, message) = sample(container, "aead:aes-256-gcm");
        let mut other = HostSealer::new(&key("aead:chacha20-poly1305", 7), false).unwrap();
        assert!(
            matches!(
                other.open(container, &message),
                Err(SealError::WrongScheme { .. })
            ),
            "{container}"
        );
    }
}

#[test]
fn unknown_scheme_is_named() {
    let (mut sealer, message) = sample(Container::Json, "aead:aes-256-gcm");
    let text = String::from_utf8(message)
        .unwrap()
        .replace("aead:aes-256-gcm", "aead:aes-999-gcm");
    let err = sealer.open(Container::Json, text.as_bytes()).err().unwrap();
    assert!(matches!(err, SealError::UnknownScheme(..)), "{err}");
}

#[test]
fn oversize_fields_are_refused_before_use() {
    // binary: a key id length byte beyond the limit
    let (mut sealer, mut message) = sample(Container::Binary, "aead:aes-256-gcm");
    message[5] = (limits::KEY_ID + 1) as u8;
    assert!(matches!(
        sealer.open(Container::Binary, &message),
        Err(SealError::Oversize {
            field: "key id",
            ..
        })
    ));
    // json: a tag longer than any tag
    let (mut sealer, message) = sample(Container::Json, "aead:aes-256-gcm");
    let mut value: serde_json::Value = serde_json::from_slice(&message).unwrap();
    value["tag"] = serde_json::Value::String("A".repeat(200));
    let text = serde_json::to_vec(&value).unwrap();
    let err = sealer.open(Container::Json, &text).err().unwrap();
    assert!(
        matches!(
            err,
            SealError::Oversize { .. } | SealError::Malformed { .. }
        ),
        "{err}"
    );
    // any container: a message over the limit
    let huge = vec![b'{'; limits::MESSAGE + 1];
    assert!(matches!(
        sealer.open(Container::Json, &huge),
        Err(SealError::Oversize { .. })
    ));
}

#[test]
fn non_canonical_json_is_refused() {
    let (mut sealer, message) = sample(Container::Json, "aead:aes-256-gcm");
    let text = String::from_utf8(message).unwrap();
    let spaced = text.replacen(",", ", ", 1);
    assert!(sealer.open(Container::Json, spaced.as_bytes()).is_err());
    let escaped = text.replacen("\"v\"", "\"\\u0076\"", 1);
    assert!(sealer.open(Container::Json, escaped.as_bytes()).is_err());
}

/// A message opened as the wrong container says what it looks like.
#[test]
fn the_wrong_container_is_named() {
    for (sealed_as, opened_as) in [
        (Container::Json, Container::Cose),
        (Container::Json, Container::Binary),
        (Container::Cose, Container::Json),
        (Container::Binary, Container::Cose),
    ] {
        let (mut sealer, message) = sample(sealed_as, "aead:aes-256-gcm");
        let err = sealer.open(opened_as, &message).err().unwrap();
        let text = err.to_string();
        assert!(
            text.contains(&format!("looks like a {sealed_as} container")),
            "{sealed_as} opened as {opened_as}: {text}"
        );
        assert!(err.is_user_error());
    }
}

/// A message cut anywhere says it was cut (the gateway counts truncations
/// apart from garbage), in every container.
#[test]
fn every_cut_is_said_to_be_a_truncation() {
    for container in Container::ALL {
        let (mut sealer, message) = sample(container, "aead:aes-256-gcm");
        for cut in 1..message.len() {
            let err = sealer.open(container, &message[..cut]).err().unwrap();
            let text = err.to_string();
            // binary cuts inside the ciphertext leave a shorter, well-formed message.
            assert!(
                text.contains("truncated") || matches!(err, SealError::Rejected),
                "{container} cut at {cut}: {text}"
            );
        }
    }
}
