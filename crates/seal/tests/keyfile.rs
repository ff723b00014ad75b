//! Key files: mode 0600, no silent overwrite, strict parsing.

use std::os::unix::fs::PermissionsExt;

use ciphermeter_seal::{NoncePolicy, Scheme, SealKey};

#[test]
fn save_and_load_round_trip_with_private_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    let mut key = SealKey::generate(
        Scheme::parse("etm:aes-256-cbc+hmac-sha512").unwrap(),
        NoncePolicy::Random,
    )
    .unwrap();
    key.save(&path, false).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let loaded = SealKey::load(&path).unwrap();
    assert_eq!(loaded.scheme, key.scheme);
    assert_eq!(loaded.key_id, key.key_id);
    assert_eq!(loaded.material(), key.material());
    assert_eq!(loaded.material().len(), 32);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"format\": \"ciphermeter-seal-key/1\""));
}

#[test]
fn overwrite_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    let scheme = Scheme::parse("aead:aes-128-gcm").unwrap();
    SealKey::generate(scheme.clone(), NoncePolicy::Random)
        .unwrap()
        .save(&path, false)
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = SealKey::generate(scheme.clone(), NoncePolicy::Random)
        .unwrap()
        .save(&path, false)
        .err()
        .unwrap();
    assert!(err.to_string().contains("--force"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    SealKey::generate(scheme, NoncePolicy::Random)
        .unwrap()
        .save(&path, true)
        .unwrap();
    assert_ne!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn readable_by_others_or_malformed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    SealKey::generate(
        Scheme::parse("hmac:hmac-sha256").unwrap(),
        NoncePolicy::Random,
    )
    .unwrap()
    .save(&path, false)
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(
        SealKey::load(&path)
            .err()
            .unwrap()
            .to_string()
            .contains("chmod 600")
    );

    let write = |text: &str| {
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        SealKey::load(&path)
    };
    let good = r#"{"format":"ciphermeter-seal-key/1","scheme":"hmac:hmac-sha256","key_id":"00","nonce":"random","key":"KEY"}"#;
    assert!(write(&good.replace("KEY", &"ab".repeat(32))).is_ok());
    assert!(
        write(&good.replace("KEY", &"ab".repeat(31))).is_err(),
        "short key"
    );
    assert!(write(&good.replace("KEY", "zz")).is_err(), "not hex");
    assert!(
        write(
            &good
                .replace("hmac:hmac-sha256", "hmac:nope")
                .replace("KEY", &"ab".repeat(32))
        )
        .is_err()
    );
    assert!(write("not json").is_err());
}

#[test]
fn parse_reads_from_bytes_what_load_reads_from_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.key");
    let scheme = Scheme::parse("aead:aes-128-gcm").unwrap();
    let mut key = SealKey::generate(scheme, NoncePolicy::Random).unwrap();
    key.save(&path, false).unwrap();
    let parsed = SealKey::parse(&std::fs::read(&path).unwrap(), "k.key").unwrap();
    assert_eq!(parsed.key_id, key.key_id);
    assert_eq!(parsed.material(), key.material());
    assert_eq!(parsed.path, None);
    assert_eq!(SealKey::load(&path).unwrap().path, Some(path));
    let Err(err) = SealKey::parse(b"\xff\xfe not json", "junk.key") else {
        panic!("junk parsed as a key file");
    };
    assert!(err.to_string().contains("junk.key"), "{err}");
}
