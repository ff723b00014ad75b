//! keygen / seal / open / frame-bench as a user runs them, including bad input (exit 2).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn cm() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

fn keygen(dir: &Path, scheme: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(format!("{}.key", scheme.replace([':', '+'], "_")));
    cm().args(["keygen", "--scheme", scheme, "--output"])
        .arg(&path)
        .args(extra)
        .assert()
        .success();
    path
}

fn seal(key: &Path, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = cm()
        .arg("seal")
        .arg("--key-file")
        .arg(key)
        .args(args)
        .write_stdin(stdin)
        .assert()
        .success();
    out.get_output().stdout.clone()
}

const READING: &str =
    r#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},{"d":1,"t":12.3}]}"#;

#[test]
fn seal_then_open_every_container_and_encoding() {
    let dir = tempfile::tempdir().unwrap();
    for scheme in [
        "aead:aes-256-gcm",
        "etm:aes-128-cbc+hmac-sha256",
        "hmac:hmac-sha256",
    ] {
        let key = keygen(dir.path(), scheme, &[]);
        for container in ["json", "binary", "cose"] {
            for encoding in ["raw", "hex", "base64", "base64url"] {
                let message = seal(
                    &key,
                    &["--container", container, "--encoding", encoding],
                    READING.as_bytes(),
                );
                cm().arg("open")
                    .arg("--key-file")
                    .arg(&key)
                    .args(["--container", container, "--encoding", encoding])
                    .write_stdin(message)
                    .assert()
                    .success()
                    .stdout(READING);
            }
        }
    }
}

#[test]
fn keygen_writes_a_private_file_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-128-gcm", &[]);
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    cm().args(["keygen", "--scheme", "aead:aes-128-gcm", "--output"])
        .arg(&key)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    cm().args([
        "keygen",
        "--scheme",
        "aead:aes-128-gcm",
        "--force",
        "--output",
    ])
    .arg(&key)
    .assert()
    .success();
}

#[test]
fn samples_formats_and_aad() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:chacha20-poly1305", &[]);
    let message = seal(
        &key,
        &[
            "--sample",
            "chain:3",
            "--format",
            "cbor",
            "--aad",
            "Logger1",
            "--container",
            "cose",
        ],
        b"",
    );
    cm().arg("open")
        .arg("--key-file")
        .arg(&key)
        .args(["--container", "cose", "--serialization", "cbor"])
        .write_stdin(message)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("{\"t\":"))
        .stderr(predicate::str::contains("associated data: Logger1"));
    // YAML minified from a JSON reading on stdin.
    let message = seal(&key, &["--serialization", "yaml-min"], READING.as_bytes());
    cm().arg("open")
        .arg("--key-file")
        .arg(&key)
        .write_stdin(message)
        .assert()
        .success()
        .stdout(predicate::str::starts_with("{t: 1555666777,id: Logger1,"));
}

#[test]
fn counter_nonces_advance_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-256-gcm", &["--nonce", "counter"]);
    let counter = PathBuf::from(format!("{}.counter", key.display()));
    let a = seal(&key, &[], READING.as_bytes());
    let b = seal(&key, &[], READING.as_bytes());
    assert_eq!(std::fs::read_to_string(&counter).unwrap(), "2\n");
    let iv = |m: &[u8]| serde_json::from_slice::<serde_json::Value>(m).unwrap()["iv"].clone();
    assert_ne!(iv(&a), iv(&b));
    std::fs::remove_file(&counter).unwrap();
    cm().arg("seal")
        .arg("--key-file")
        .arg(&key)
        .write_stdin(READING)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("counter file"));
}

#[test]
fn tampered_messages_exit_2_without_plaintext() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-256-gcm", &[]);
    let message = seal(
        &key,
        &["--container", "binary", "--encoding", "hex"],
        READING.as_bytes(),
    );
    let text = String::from_utf8(message).unwrap();
    let body = text.trim_end();
    // A flipped bit in every byte position (one hex digit changed per run).
    for i in (0..body.len()).step_by(7) {
        let mut bad: Vec<u8> = body.bytes().collect();
        bad[i] = if bad[i] == b'0' { b'1' } else { b'0' };
        cm().arg("open")
            .arg("--key-file")
            .arg(&key)
            .args(["--container", "binary", "--encoding", "hex"])
            .write_stdin(bad)
            .assert()
            .code(2)
            .stdout("");
    }
    // Truncated.
    cm().arg("open")
        .arg("--key-file")
        .arg(&key)
        .args(["--container", "binary", "--encoding", "hex"])
        .write_stdin(&body[..body.len() - 2])
        .assert()
        .code(2)
        .stdout("");
    // Wrong key.
    let other = dir.path().join("other.key");
    cm().args(["keygen", "--scheme", "aead:aes-256-gcm", "--output"])
        .arg(&other)
        .assert()
        .success();
    cm().arg("open")
        .arg("--key-file")
        .arg(&other)
        .args(["--container", "binary", "--encoding", "hex"])
        .write_stdin(text.clone())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("wrong key"));
}

#[test]
fn insecure_schemes_are_refused_with_reasons() {
    let dir = tempfile::tempdir().unwrap();
    for (scheme, why) in [
        ("etm:aes-128-ecb+hmac-sha256", "ECB"),
        ("etm:des-cbc+hmac-sha256", "DES"),
        ("etm:rc4+hmac-sha256", "RC4"),
        ("hmac:hmac-md5", "MD5"),
        ("enc:aes-128-cbc", "unauthenticated"),
    ] {
        cm().args(["keygen", "--scheme", scheme, "--output"])
            .arg(dir.path().join("k"))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(why).and(predicate::str::contains("--allow-insecure")),
            );
    }
    let key = keygen(
        dir.path(),
        "etm:aes-128-ecb+hmac-sha256",
        &["--allow-insecure"],
    );
    cm().arg("seal")
        .arg("--key-file")
        .arg(&key)
        .write_stdin(READING)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ECB"));
    let message = seal(&key, &["--allow-insecure"], READING.as_bytes());
    cm().arg("open")
        .arg("--key-file")
        .arg(&key)
        .arg("--allow-insecure")
        .write_stdin(message)
        .assert()
        .success()
        .stdout(READING);
}

/// Every scheme the catalogue can name, in each pattern (etm with one MAC: the
/// nonce is the cipher's alone).
fn every_scheme() -> Vec<String> {
    let mut out = Vec::new();
    for e in catalogue::catalogue().entries() {
        match e.kind {
            catalogue::Kind::Aead => out.push(format!("aead:{}", e.id)),
            catalogue::Kind::Mac => out.push(format!("hmac:{}", e.id)),
            catalogue::Kind::BlockMode | catalogue::Kind::Stream => {
                out.push(format!("etm:{}+hmac-sha256", e.id));
                out.push(format!("enc:{}", e.id));
            }
            catalogue::Kind::Baseline => out.push(format!("enc:{}", e.id)),
            _ => {}
        }
    }
    out
}

#[test]
fn every_scheme_keygen_accepts_seals_with_a_long_random_or_a_counter_nonce() {
    let dir = tempfile::tempdir().unwrap();
    let iv = |m: &[u8]| -> Vec<u8> {
        let v: serde_json::Value = serde_json::from_slice(m).unwrap();
        v["iv"].as_str().map_or(Vec::new(), |b| {
            payload::Encoding::Base64.decode(b.as_bytes()).unwrap()
        })
    };
    let mut accepted = 0;
    for (i, scheme) in every_scheme().iter().enumerate() {
        for policy in ["random", "counter"] {
            let key = dir.path().join(format!("{i}-{policy}.key"));
            let out = cm()
                .args(["keygen", "--scheme", scheme, "--nonce", policy, "--output"])
                .arg(&key)
                .output()
                .unwrap();
            if !out.status.success() {
                assert_eq!(out.status.code(), Some(2), "{scheme} {policy}: {out:?}");
                continue;
            }
            accepted += 1;
            let (a, b) = (iv(&seal(&key, &[], b"{}")), iv(&seal(&key, &[], b"{}")));
            if a.is_empty() {
                assert!(
                    scheme.starts_with("hmac:"),
                    "{scheme} encrypts without a nonce"
                );
            } else if policy == "random" {
                assert!(a.len() >= 12, "{scheme}: a {}-byte random nonce", a.len());
                assert_ne!(a, b, "{scheme}");
            } else {
                let counter = |n: &[u8]| u64::from_be_bytes(n[n.len() - 8..].try_into().unwrap());
                assert!(a[..a.len() - 8].iter().all(|&x| x == 0), "{scheme}: {a:?}");
                assert_eq!((counter(&a), counter(&b)), (0, 1), "{scheme}");
            }
        }
    }
    eprintln!("{accepted} scheme and nonce choices accepted");
    assert!(accepted > 100, "only {accepted} schemes accepted");
    // The issue's example: refused with the reason, fine with a counter.
    cm().args(["keygen", "--scheme", "etm:salsa20+hmac-sha256", "--output"])
        .arg(dir.path().join("s"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("64-bit nonce")
                .and(predicate::str::contains("--nonce counter")),
        );
    keygen(
        dir.path(),
        "etm:salsa20+hmac-sha256",
        &["--nonce", "counter"],
    );
}

#[test]
fn private_key_files_are_checked_and_never_written_through_links() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("ed.key");
    cm().args(["keygen", "ed25519", "--output"])
        .arg(&key)
        .assert()
        .success();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o640)).unwrap();
    cm().args(["sign", "ed25519", "--input", "6869", "--key-file"])
        .arg(&key)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("chmod 600"));
    let target = dir.path().join("target");
    std::fs::write(&target, "keep me").unwrap();
    let link = dir.path().join("link.key");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for args in [&["ed25519"][..], &["--scheme", "aead:aes-128-gcm"]] {
        cm().arg("keygen")
            .args(args)
            .args(["--force", "--output"])
            .arg(&link)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("symbolic link"));
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
}

#[test]
fn bad_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-128-gcm", &[]);
    let open = |stdin: &str, extra: &[&str]| {
        cm().arg("open")
            .arg("--key-file")
            .arg(&key)
            .args(extra)
            .write_stdin(stdin.to_string())
            .assert()
            .code(2)
            .stdout("")
    };
    open("", &[]);
    open("not a message", &[]);
    open(
        r#"{"v":1,"scheme":"aead:nope","kid":"00","tag":"","data":""}"#,
        &[],
    )
    .stderr(predicate::str::contains("unknown scheme"));
    open("zz", &["--encoding", "hex"]);
    open("{}", &["--container", "pdf"]);
    cm().args(["seal", "--key-file"])
        .arg(&key)
        .write_stdin("not json")
        .assert()
        .code(2);
    cm().args(["seal", "--format", "toml", "--key-file"])
        .arg(&key)
        .write_stdin(READING)
        .assert()
        .code(2);
    cm().args(["seal", "--sample", "chain:0", "--key-file"])
        .arg(&key)
        .assert()
        .code(2);
    cm().args(["seal", "--scheme", "aead:aes-256-gcm", "--key-file"])
        .arg(&key)
        .write_stdin(READING)
        .assert()
        .code(2);
    cm().args(["seal", "--key-file"])
        .arg(dir.path().join("missing"))
        .write_stdin(READING)
        .assert()
        .code(2);
    cm().args(["keygen", "--scheme", "aead:aes-128-cbc", "--output"])
        .arg(dir.path().join("x"))
        .assert()
        .code(2);
    cm().args([
        "keygen",
        "--scheme",
        "etm:aes-128-cbc+hmac-sha256",
        "--nonce",
        "counter",
        "--output",
    ])
    .arg(dir.path().join("y"))
    .assert()
    .code(2);
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    cm().args(["seal", "--key-file"])
        .arg(&key)
        .write_stdin(READING)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("chmod 600"));
}

#[test]
fn keygen_writes_key_pairs_for_sign_and_verify() {
    if catalogue::catalogue().get("ed25519").is_none() {
        eprintln!("ed25519 is not in the catalogue yet");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("ed.key");
    cm().args(["keygen", "ed25519", "--output"])
        .arg(&key)
        .assert()
        .success();
    let private = std::fs::read_to_string(&key).unwrap();
    let public = std::fs::read_to_string(dir.path().join("ed.key.pub")).unwrap();
    assert!(private.ends_with('\n') && hex::decode(private.trim()).is_ok());
    assert_eq!(
        hex::decode(public.trim()).unwrap().len(),
        44,
        "Ed25519 SPKI DER is 44 bytes"
    );
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let out = cm()
        .args(["sign", "ed25519", "--input", "6869", "--key-file"])
        .arg(&key)
        .assert()
        .success();
    let signature = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    cm().args([
        "verify",
        "ed25519",
        "--input",
        "6869",
        "--signature",
        signature.trim(),
        "--key-file",
    ])
    .arg(dir.path().join("ed.key.pub"))
    .assert()
    .success();
    let x = dir.path().join("x.key");
    cm().args(["keygen", "x25519", "--output"])
        .arg(&x)
        .assert()
        .success();
    assert_eq!(
        hex::decode(
            std::fs::read_to_string(dir.path().join("x.key.pub"))
                .unwrap()
                .trim()
        )
        .unwrap()
        .len(),
        32
    );
    cm().args(["keygen", "aes-128-gcm", "--output"])
        .arg(dir.path().join("z"))
        .assert()
        .code(2);
}

#[test]
fn frame_bench_reports_every_column() {
    let out = cm()
        .args([
            "frame-bench",
            "--quick",
            "--scheme",
            "aead:aes-128-gcm,hmac:hmac-sha256",
            "--sample",
            "chain:5",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cases = doc["frame_bench"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        for field in [
            "us_per_message",
            "us_per_byte",
            "overhead_ratio",
            "expansion_factor",
            "cost_per_bit",
        ] {
            assert!(case[field].as_f64().unwrap() > 0.0, "{field}");
        }
    }
    // base64 of a 12-byte nonce, 16-byte tag and the ciphertext inside JSON: well over 1×.
    assert!(cases[0]["overhead_ratio"].as_f64().unwrap() > 1.3);
    cm().args(["frame-bench", "--quick", "--scheme", "aead:nope"])
        .assert()
        .code(2);
}

/// `reproduce STUDY --quick --format json`, which must succeed.
fn quick_reproduction(study: &str) -> serde_json::Value {
    let out = cm()
        .args(["reproduce", study, "--quick", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Study 001 measures every row of Table IV, each scheme's minified input is
/// smaller than the pretty one, and every claim gets a verdict from our numbers.
#[test]
fn the_serialization_reproduction_measures_every_row() {
    let doc = quick_reproduction("serialization");
    assert_eq!(doc["study"], "serialization");
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        doc["paper"]["encrypt"].as_array().unwrap().len()
    );
    assert_eq!(rows[0]["catalogue_id"], "aes-256-cbc");
    for r in rows {
        for key in ["encrypt_total_ns", "decrypt_total_ns"] {
            let t: Vec<f64> = serde_json::from_value(r[key].clone()).unwrap();
            assert!(t.iter().all(|v| *v > 0.0), "{key} of {r}");
        }
    }
    // Scheme 1 (JSON pretty) is the largest input, scheme 4 (YAML minified) smaller.
    let sizes: Vec<Vec<u64>> = serde_json::from_value(doc["scheme_sample_bytes"].clone()).unwrap();
    assert!(sizes[3].iter().sum::<u64>() < sizes[0].iter().sum::<u64>());
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 3);
    for f in findings {
        assert!(
            ["agrees", "differs"].contains(&f["verdict"].as_str().unwrap()),
            "{f}"
        );
        assert!(f["ours"].as_str().unwrap().contains('%'), "{f}");
    }
}

/// Study 003 on the host: all eighteen schemes over six chain lengths, the
/// paper's values and a verdict for each of its six statements.
#[test]
fn the_tiny_security_reproduction_carries_paper_values_and_verdicts() {
    let doc = quick_reproduction("tiny-security");
    assert!(doc["ran_on"].as_str().unwrap().starts_with("this host"));
    assert_eq!(doc["paper"]["input_bytes_approx"][0], 66.0);
    let series = doc["series"].as_array().unwrap();
    assert_eq!(series.len(), 18);
    for s in series {
        assert_eq!(s["us_per_byte"].as_array().unwrap().len(), 6, "{s}");
    }
    let etm = series.iter().find(|s| s["group"] == "EtM").unwrap();
    assert!(
        !etm["insecure"].as_array().unwrap().is_empty(),
        "ECB is flagged"
    );
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 6);
    let ecb = findings.iter().find(|f| f["id"] == "etm_uses_ecb").unwrap();
    assert_eq!(ecb["verdict"], "agrees", "{ecb}");
    assert!(ecb["ours"].as_str().unwrap().starts_with("8 of 8"), "{ecb}");
}

/// `seal` with no `--impl` seals a GCM key with AWS-LC (the host's default where
/// it has the scheme, `seal::Backend::host_default`): from the same counter, the
/// same bytes as `--impl aws-lc` and as RustCrypto's, in every container.
#[test]
fn seal_by_default_is_aws_lc_and_the_same_bytes_as_rustcrypto() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-256-gcm", &["--nonce", "counter"]);
    let counter = PathBuf::from(format!("{}.counter", key.display()));
    for container in ["json", "binary", "cose"] {
        let args = ["--container", container, "--encoding", "hex"];
        let before = std::fs::read(&counter).unwrap();
        let mut sealed = Vec::new();
        for imp in [&["--impl", "rustcrypto"][..], &["--impl", "aws-lc"], &[]] {
            std::fs::write(&counter, &before).unwrap();
            let out = seal(&key, &[&args[..], imp].concat(), READING.as_bytes());
            sealed.push(String::from_utf8(out).unwrap());
        }
        assert_eq!(sealed[0], sealed[1], "{container}: aws-lc");
        assert_eq!(sealed[0], sealed[2], "{container}: the default");
    }
}

/// `seal --impl ciphermeter|mbedtls` runs our AES or Mbed TLS's through the
/// same sealing core: from the same key and counter, the same bytes as
/// RustCrypto's, in every container; an implementation that is unknown, or
/// lacks a primitive of the key's scheme (Monocypher has no AES), exits 2.
#[test]
fn seal_with_another_backend_seals_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "aead:aes-128-ccm", &["--nonce", "counter"]);
    let twin_dir = tempfile::tempdir().unwrap();
    let twin = twin_dir.path().join(key.file_name().unwrap());
    // The key and its counter file (KEY.counter), copied: the same nonces.
    std::fs::copy(&key, &twin).unwrap();
    let counter = |p: &Path| PathBuf::from(format!("{}.counter", p.display()));
    std::fs::copy(counter(&key), counter(&twin)).unwrap();
    for container in ["json", "binary", "cose"] {
        let args = ["--container", container, "--encoding", "hex"];
        // Each backend's twin starts from the counter the reference starts from.
        let before = std::fs::read(counter(&key)).unwrap();
        let reference = seal(&key, &args, READING.as_bytes());
        for imp in ["ciphermeter", "mbedtls"] {
            std::fs::write(counter(&twin), &before).unwrap();
            let theirs = seal(
                &twin,
                &[&args[..], &["--impl", imp]].concat(),
                READING.as_bytes(),
            );
            assert_eq!(
                String::from_utf8_lossy(&theirs),
                String::from_utf8_lossy(&reference),
                "{container} by {imp}"
            );
        }
    }
    for (bad, why) in [
        ("monocypher", "does not have every primitive"),
        ("openssl", "no such backend of the sealing core"),
    ] {
        cm().arg("seal")
            .arg("--key-file")
            .arg(&key)
            .args(["--impl", bad])
            .write_stdin(READING)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(why));
    }
    let xchacha = keygen(dir.path(), "aead:xchacha20-poly1305", &[]);
    cm().arg("seal")
        .arg("--key-file")
        .arg(&xchacha)
        .args(["--impl", "ciphermeter"])
        .write_stdin(READING)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not have every primitive"));
}
