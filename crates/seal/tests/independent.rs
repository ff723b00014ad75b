//! Another implementation opens our `json` messages: Python's standard
//! library (hmac) and the `cryptography` package (AES-GCM, HKDF, AES-CBC),
//! following docs/containers.md. Needs python3 (scripts/setup installs it).

use std::io::Write;
use std::process::{Command, Stdio};

use ciphermeter_seal::{
    Container, HostSealer, NoncePolicy, NonceSource, RandomNonces, Scheme, SealKey,
};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/open_json.py");

fn python_open(key: &SealKey, message: &[u8]) -> Result<Vec<u8>, String> {
    let mut child = Command::new("python3")
        .arg(SCRIPT)
        .arg(hex::encode(key.material()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 is needed for this test (run scripts/setup): {e}"));
    child.stdin.take().unwrap().write_all(message).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !stderr.contains("No module named 'cryptography'"),
        "pip install cryptography (scripts/setup does): {stderr}"
    );
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(stderr)
    }
}

#[test]
fn python_opens_our_json_messages() {
    let reading = br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;
    for name in [
        "hmac:hmac-sha256",
        "hmac:hmac-sha3-512",
        "aead:aes-128-gcm",
        "aead:aes-256-gcm",
        "etm:aes-128-cbc+hmac-sha256",
        "etm:aes-256-cbc+hmac-sha512",
    ] {
        let key = SealKey::generate(Scheme::parse(name).unwrap(), NoncePolicy::Random).unwrap();
        let mut sealer = HostSealer::new(&key, false).unwrap();
        for aad in [&b""[..], b"Logger1"] {
            let nonce = RandomNonces.next_nonce(key.scheme.nonce_len()).unwrap();
            let message = sealer.seal(Container::Json, &nonce, reading, aad).unwrap();
            assert_eq!(
                python_open(&key, &message).unwrap_or_else(|e| panic!("{name}: {e}")),
                reading,
                "{name}"
            );

            // And Python rejects what we reject: one flipped ciphertext/text bit.
            let mut value: serde_json::Value = serde_json::from_slice(&message).unwrap();
            let field = if value.get("text").is_some() {
                "text"
            } else {
                "tag"
            };
            let s = value[field].as_str().unwrap().to_string();
            let flipped = if s.starts_with('A') {
                s.replacen('A', "B", 1)
            } else {
                format!("A{}", &s[1..])
            };
            value[field] = serde_json::Value::String(flipped);
            assert!(
                python_open(&key, &serde_json::to_vec(&value).unwrap()).is_err(),
                "{name}: tampered message accepted"
            );
        }
    }
}

const BINARY_SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/open_binary.py");

/// What `open_binary.py` made of one message: `Ok((aad, plaintext))` or its
/// reason for refusing it.
type Verdict = Result<(Vec<u8>, Vec<u8>), String>;

/// Opens `messages` (binary container) with `tests/python/open_binary.py`, a
/// decoder written from docs/containers.md alone, one Python process for all.
fn python_open_binary(key: &SealKey, messages: &[Vec<u8>]) -> Vec<Verdict> {
    let mut child = Command::new("python3")
        .arg(BINARY_SCRIPT)
        .arg(key.scheme.name())
        .arg(key.key_id_hex())
        .arg(hex::encode(key.material()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 is needed for this test (run scripts/setup): {e}"));
    let input: String = messages.iter().map(|m| hex::encode(m) + "\n").collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "open_binary.py failed (pip install cryptography; scripts/setup does): {stderr}"
    );
    let verdicts: Vec<Verdict> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["ok"] == true {
                let field = |f: &str| hex::decode(v[f].as_str().unwrap()).unwrap();
                Ok((field("aad"), field("plaintext")))
            } else {
                Err(v["error"].as_str().unwrap().to_string())
            }
        })
        .collect();
    assert_eq!(verdicts.len(), messages.len(), "one answer per message");
    verdicts
}

/// The binary container, opened by a decoder that knows only
/// docs/containers.md: the AEADs through `cryptography`'s AES-GCM, AES-CCM
/// and ChaCha20-Poly1305, EtM with the documented HKDF keys (CBC, and CTR
/// with a counter that carries out of its low 64 bits), and HMAC. It must
/// return our plaintext and associated data, and refuse a message with any
/// one of its fields' bits flipped.
#[test]
fn python_opens_our_binary_messages_from_the_doc_alone() {
    let reading =
        br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},{"d":1,"t":13.25}]}"#;
    for name in [
        "aead:aes-128-gcm",
        "aead:aes-256-gcm",
        "aead:aes-128-ccm",
        "aead:aes-256-ccm",
        "aead:chacha20-poly1305",
        "etm:aes-128-cbc+hmac-sha256",
        "etm:aes-256-ctr+hmac-sha512",
        "hmac:hmac-sha256",
        "hmac:hmac-sha512",
    ] {
        let key = SealKey::generate(Scheme::parse(name).unwrap(), NoncePolicy::Random).unwrap();
        let mut sealer = HostSealer::new(&key, false).unwrap();
        let mut messages = Vec::new();
        let mut expected = Vec::new();
        for (plaintext, aad) in [
            (&reading[..], &b""[..]),
            (&reading[..], &b"Logger1"[..]),
            (&b""[..], &b"x"[..]),
        ] {
            let mut nonce = RandomNonces.next_nonce(key.scheme.nonce_len()).unwrap();
            if name.contains("-ctr") {
                // The counter's low 64 bits overflow after the first block: a
                // decoder that counts in 64 bits would get other plaintext.
                nonce[8..].fill(0xff);
            }
            let message = sealer
                .seal(Container::Binary, &nonce, plaintext, aad)
                .unwrap();
            // Each field of the layout, one bit flipped: version, scheme id,
            // key id, nonce (when there is one), aad, body, tag.
            let kid = key.key_id.len();
            let n = nonce.len();
            let mut positions = vec![0, 3, 6 + kid / 2];
            if n > 0 {
                positions.push(7 + kid + n / 2);
            }
            if !aad.is_empty() {
                positions.push(7 + kid + n + 2);
            }
            let body_at = 10 + kid + n + aad.len();
            // The doc's overhead, 10 + K + N + A + T bytes (CBC adds its padding).
            let padding = if name.contains("-cbc") {
                16 - plaintext.len() % 16
            } else {
                0
            };
            assert_eq!(
                message.len() - plaintext.len(),
                body_at + key.scheme.tag_len() + padding,
                "{name}: overhead"
            );
            if name == "aead:aes-128-gcm" && aad.is_empty() {
                assert_eq!(
                    (kid, message.len() - plaintext.len()),
                    (8, 46),
                    "the doc's example"
                );
            }
            if !plaintext.is_empty() {
                positions.push(body_at);
            }
            positions.push(message.len() - 1);
            expected.push(Some((aad.to_vec(), plaintext.to_vec())));
            messages.push(message.clone());
            for at in positions {
                let mut tampered = message.clone();
                tampered[at] ^= 0x10;
                expected.push(None);
                messages.push(tampered);
            }
            // Truncated by one byte.
            expected.push(None);
            messages.push(message[..message.len() - 1].to_vec());
        }
        let verdicts = python_open_binary(&key, &messages);
        for (i, (verdict, want)) in verdicts.iter().zip(&expected).enumerate() {
            match (verdict, want) {
                (Ok(got), Some(want)) => assert_eq!(got, want, "{name} message {i}"),
                (Err(e), Some(_)) => panic!("{name} message {i}: refused ({e})"),
                (Ok(_), None) => panic!("{name} message {i}: tampered message accepted"),
                (Err(_), None) => {}
            }
        }
    }
}
