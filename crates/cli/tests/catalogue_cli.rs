//! The catalogue commands run as a user runs them: known answers and bad input.

use assert_cmd::Command;
use predicates::prelude::*;

fn cm() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

const AES128_KEY: &str = "2b7e151628aed2a6abf7158809cf4f3c";
const SP800_38A_IV: &str = "000102030405060708090a0b0c0d0e0f";
const SP800_38A_P1: &str = "6bc1bee22e409f96e93d7e117393172a";

#[test]
fn encrypt_matches_sp800_38a_cbc_and_decrypt_inverts_it() {
    // NIST SP 800-38A F.2.1 CBC-AES128.Encrypt, block 1.
    cm().args([
        "encrypt",
        "aes-128-cbc",
        "--key",
        AES128_KEY,
        "--iv",
        SP800_38A_IV,
        "--padding",
        "none",
    ])
    .args(["--input", SP800_38A_P1])
    .assert()
    .success()
    .stdout("7649abac8119b246cee98e9b12e9197d\n");
    cm().args([
        "decrypt",
        "aes-128-cbc",
        "--key",
        AES128_KEY,
        "--iv",
        SP800_38A_IV,
        "--padding",
        "none",
    ])
    .args(["--input", "7649abac8119b246cee98e9b12e9197d"])
    .assert()
    .success()
    .stdout(format!("{SP800_38A_P1}\n"));
}

#[test]
fn plaintext_can_come_raw_on_stdin() {
    // FIPS-197 C.1 via ECB with no padding.
    cm().args([
        "encrypt",
        "aes-128-ecb",
        "--key",
        "000102030405060708090a0b0c0d0e0f",
        "--padding",
        "none",
    ])
    .write_stdin(hex::decode("00112233445566778899aabbccddeeff").unwrap())
    .assert()
    .success()
    .stdout("69c4e0d86a7b0430d8cdb78070b4c55a\n");
}

#[test]
fn pkcs7_is_the_default_padding_for_cbc() {
    let out = cm()
        .args([
            "encrypt",
            "aes-128-cbc",
            "--key",
            AES128_KEY,
            "--iv",
            SP800_38A_IV,
            "--input",
            "00",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim().len(), 32);
}

#[test]
fn aead_output_is_ciphertext_then_tag_and_a_bad_tag_prints_nothing() {
    // RFC 8439 §2.8.2.
    let key = "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f";
    let nonce = "070000004041424344454647";
    let aad = "50515253c0c1c2c3c4c5c6c7";
    let pt = hex::encode(
        "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
    );
    let out = cm()
        .args([
            "encrypt",
            "chacha20-poly1305",
            "--key",
            key,
            "--iv",
            nonce,
            "--aad",
            aad,
            "--input",
            &pt,
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let sealed = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(sealed.starts_with("d31a8d34648e60db7b86afbc53ef7ec2"));
    assert!(sealed.ends_with("1ae10b594f09e26a7e902ecbd0600691"));
    cm().args([
        "decrypt",
        "chacha20-poly1305",
        "--key",
        key,
        "--iv",
        nonce,
        "--aad",
        aad,
        "--input",
        &sealed,
    ])
    .assert()
    .success()
    .stdout(format!("{pt}\n"));
    let mut tampered = sealed.clone().into_bytes();
    let last = tampered.len() - 1;
    tampered[last] = if tampered[last] == b'0' { b'1' } else { b'0' };
    cm().args([
        "decrypt",
        "chacha20-poly1305",
        "--key",
        key,
        "--iv",
        nonce,
        "--aad",
        aad,
    ])
    .args(["--input", std::str::from_utf8(&tampered).unwrap()])
    .assert()
    .code(2)
    .stdout("")
    .stderr(predicate::str::contains("authentication failed"));
}

#[test]
fn digest_and_mac_known_answers() {
    // FIPS 180-2 "abc"; RFC 4231 test case 1.
    cm().args(["digest", "sha256", "--input", "616263"])
        .assert()
        .success()
        .stdout("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n");
    cm().args([
        "digest",
        "hmac-sha256",
        "--key",
        &"0b".repeat(20),
        "--input",
        "4869205468657265",
    ])
    .assert()
    .success()
    .stdout("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7\n");
}

#[test]
fn libmcrypt_names_map_to_full_block_feedback_for_ncfb() {
    let run = |alg: &str| {
        let out = cm()
            .args([
                "encrypt",
                alg,
                "--key",
                AES128_KEY,
                "--iv",
                SP800_38A_IV,
                "--input",
                SP800_38A_P1,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{alg}");
        String::from_utf8(out.stdout).unwrap()
    };
    // SP 800-38A F.3.13 CFB128-AES128 block 1.
    assert_eq!(
        run("mcrypt:rijndael-128:ncfb"),
        "3b3fd92eb72dad20333449f8e83cfb4a\n"
    );
    assert_eq!(run("mcrypt:rijndael-128:ncfb"), run("aes-128-cfb"));
    assert_eq!(run("mcrypt:rijndael-128:cfb"), run("aes-128-cfb8"));
}

fn fails_with(args: &[&str], message: &str) {
    cm().args(args)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(message))
        .stderr(predicate::str::contains("panicked").not());
}

#[test]
fn bad_input_is_a_clear_error_with_status_2() {
    let k = AES128_KEY;
    fails_with(
        &["encrypt", "aes-128-gcn", "--key", k, "--input", "00"],
        "did you mean: aes-128-gcm",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-cbc",
            "--key",
            "0011",
            "--iv",
            SP800_38A_IV,
            "--input",
            "00",
        ],
        "key must be 16 bytes, got 2",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-cbc",
            "--key",
            k,
            "--iv",
            "0011",
            "--input",
            "00",
        ],
        "IV/nonce must be 16 bytes, got 2",
    );
    fails_with(
        &["encrypt", "aes-128-cbc", "--key", "zz", "--input", "00"],
        "--key: not valid hex",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-ctr",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--padding",
            "pkcs7",
            "--input",
            "00",
        ],
        "does not apply",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-ecb",
            "--key",
            k,
            "--padding",
            "none",
            "--input",
            "00",
        ],
        "not a whole number of 16-byte blocks",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-ecb",
            "--key",
            k,
            "--padding",
            "fancy",
            "--input",
            "00",
        ],
        "unknown padding",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-ofb8",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--backend",
            "ring",
            "--input",
            "00",
        ],
        "does not implement",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-cbc",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--backend",
            "nope",
            "--input",
            "00",
        ],
        "unknown backend",
    );
    fails_with(
        &[
            "decrypt",
            "aes-128-cbc",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--input",
            "00",
        ],
        "not a whole number",
    );
    fails_with(
        &[
            "decrypt",
            "aes-128-cbc",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--input",
            SP800_38A_P1,
        ],
        "bad padding",
    );
    fails_with(
        &[
            "encrypt",
            "aes-128-cbc",
            "--key",
            k,
            "--iv",
            SP800_38A_IV,
            "--aad",
            "00",
            "--input",
            "00",
        ],
        "AEADs only",
    );
    fails_with(
        &["encrypt", "sha256", "--key", k, "--input", "00"],
        "not a cipher",
    );
    fails_with(
        &["digest", "sha256", "--key", "00", "--input", "00"],
        "takes no --key",
    );
    fails_with(&["digest", "hmac-sha256", "--input", "00"], "needs --key");
    fails_with(
        &["encrypt", "mcrypt:serpent:xts", "--key", k, "--input", "00"],
        "unknown libmcrypt mode",
    );
    fails_with(&["list", "--kind", "cipherish"], "unknown kind");
}

#[test]
fn list_json_names_every_entry_the_studies_need() {
    let out = cm().args(["list", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let listing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    let mut wanted = vec![
        "rc4",
        "chacha20",
        "xchacha20",
        "salsa20",
        "xsalsa20",
        "aes-128-gcm",
        "aes-256-gcm",
        "aes-128-ccm",
        "aes-256-ccm",
        "aes-128-eax",
        "aes-256-eax",
        "aes-128-ocb",
        "aes-256-ocb",
        "aes-256-gcm-siv",
        "chacha20-poly1305",
        "xchacha20-poly1305",
        "ascon-aead128",
        "ascon-128-v1.2",
        "acorn-128",
        "sha1",
        "sha256",
        "sha512",
        "sha3-256",
        "sha3-512",
        "md5",
        "blake2s256",
        "blake2b512",
        "ascon-hash256",
        "hmac-sha1",
        "hmac-sha256",
        "hmac-sha512",
        "hmac-sha3-256",
        "hmac-sha3-512",
        "hmac-md5",
        "hmac-blake2s256",
        "hmac-blake2b512",
        "hmac-ascon-hash256",
        "cmac-aes-128",
        "poly1305",
        "identity",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    for cipher in [
        "aes-128",
        "aes-192",
        "aes-256",
        "rijndael-256",
        "serpent-128",
        "serpent-192",
        "serpent-256",
        "twofish-128",
        "twofish-192",
        "twofish-256",
        "bf",
        "des",
        "des-ede3",
        "rc2",
        "idea",
        "clefia-128",
        "present-80",
        "present-128",
        "piccolo-80",
        "piccolo-128",
        "speck64-128",
        "speck128-128",
        "xtea",
        "camellia-128",
    ] {
        for mode in ["ecb", "cbc", "ctr", "cfb", "cfb8", "ofb", "ofb8"] {
            wanted.push(format!("{cipher}-{mode}"));
        }
    }
    let missing: Vec<&String> = wanted
        .iter()
        .filter(|w| !ids.contains(&w.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "missing from `list --format json`: {missing:?}"
    );
    let des = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "des-cbc")
        .unwrap();
    assert_eq!(des["status"], "broken");
    assert!(des["status_reason"].as_str().unwrap().contains("1998"));
    assert!(listing["mcrypt"]["modes"].to_string().contains("ncfb"));
}
