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
