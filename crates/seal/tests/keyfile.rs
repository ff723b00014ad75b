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

/// `keygen --scheme S --nonce N`: the flags' words in every refusal.
#[test]
fn create_names_the_flag_it_refuses() {
    let key = SealKey::create("aead:aes-128-gcm", "counter", false).unwrap();
    assert_eq!(key.nonce, NoncePolicy::Counter);
    let err = SealKey::create("aead:nope", "random", false).err().unwrap();
    assert!(
        err.to_string().starts_with("--scheme: unknown algorithm"),
        "{err}"
    );
    let err = SealKey::create("aead:aes-128-gcm", "sometimes", false)
        .err()
        .unwrap();
    assert!(
        err.to_string().starts_with("--nonce: unknown nonce policy"),
        "{err}"
    );
    assert!(SealKey::create("enc:des-cbc", "random", false).is_err());
    assert!(SealKey::create("enc:des-cbc", "random", true).is_ok());
}

/// `keygen --scheme oscore:ALG`: two matching contexts, or a refusal that says why.
#[test]
fn oscore_pairs_need_a_peer_file_and_random_nonces() {
    use ciphermeter_seal::host::oscore::OscoreKey;
    let dir = tempfile::tempdir().unwrap();
    let (mine, peer) = (dir.path().join("device"), dir.path().join("gateway"));
    let scheme = "oscore:aes-ccm-16-64-128";
    let err = OscoreKey::write_pair(scheme, "random", &mine, None, false)
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("give --peer-output FILE too"),
        "{err}"
    );
    let err = OscoreKey::write_pair(scheme, "counter", &mine, Some(&peer), false)
        .err()
        .unwrap();
    assert!(
        err.to_string().starts_with("--nonce: OSCORE's nonces"),
        "{err}"
    );
    assert!(!mine.exists());
    let (a, b) = OscoreKey::write_pair(scheme, "random", &mine, Some(&peer), false).unwrap();
    assert_eq!(
        (a.sender_id.clone(), a.recipient_id.clone()),
        (b.recipient_id, b.sender_id)
    );
    let loaded = OscoreKey::load(&peer).unwrap();
    assert_eq!(loaded.scheme(), scheme);
}

/// `seal --scheme S`: checked against the key or context file, never required.
#[test]
fn an_expected_scheme_must_be_the_files() {
    let key = SealKey::create("aead:aes-128-gcm", "random", false).unwrap();
    key.check_scheme(None).unwrap();
    key.check_scheme(Some("aead:aes-128-gcm")).unwrap();
    let err = key.check_scheme(Some("aead:aes-256-gcm")).err().unwrap();
    assert_eq!(
        err.to_string(),
        "--scheme aead:aes-256-gcm does not match the key file, which is for aead:aes-128-gcm"
    );
    assert!(
        key.check_scheme(Some("aead:nope"))
            .err()
            .unwrap()
            .to_string()
            .starts_with("--scheme: ")
    );
    let dir = tempfile::tempdir().unwrap();
    let (mine, peer) = (dir.path().join("a"), dir.path().join("b"));
    let scheme = "oscore:aes-ccm-16-64-128";
    let (context, _) = ciphermeter_seal::host::oscore::OscoreKey::write_pair(
        scheme,
        "random",
        &mine,
        Some(&peer),
        false,
    )
    .unwrap();
    context.check_scheme(Some(scheme)).unwrap();
    let err = context
        .check_scheme(Some("oscore:other"))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.ends_with("does not match the context file, which is for oscore:aes-ccm-16-64-128"),
        "{err}"
    );
}
