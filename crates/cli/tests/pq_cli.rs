//! ML-KEM and ML-DSA through the CLI, both ways against implementations nobody
//! here wrote: kyber-py (FIPS 203) and dilithium-py (FIPS 204), driven by
//! tests/python/pq_peer.py. Keys, ciphertexts and signatures cross in the
//! standards' encodings; a missing Python package fails the test.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ciphermeter"))
        .args(args)
        .output()
        .unwrap()
}

/// Our CLI's standard output, which must succeed.
fn ours(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "ciphermeter {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The independent implementation's answer, space-separated hex.
fn theirs(args: &[&str]) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/pq_peer.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pq_peer {args:?} (scripts/setup installs kyber-py and dilithium-py): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// `encapsulate`'s two lines: (ciphertext, shared secret).
fn encapsulated(text: &str) -> (String, String) {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {text}"))
            .trim()
            .to_string()
    };
    (field("ciphertext "), field("shared_secret "))
}

fn write_private(path: &str, hex: &str) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(path)
        .unwrap();
    writeln!(f, "{hex}").unwrap();
}

fn flip(hex_text: &str, byte: usize) -> String {
    let mut bytes = hex::decode(hex_text).unwrap();
    bytes[byte] ^= 0x01;
    hex::encode(bytes)
}

#[test]
fn ml_kem_interoperates_with_kyber_py_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    for alg in ["ml-kem-512", "ml-kem-768"] {
        // The same seed d‖z gives the same encapsulation key.
        let seed = "a5".repeat(32) + &"3c".repeat(32);
        let key = path(dir.path(), &format!("{alg}.key"));
        ours(&["keygen", alg, "--seed", &seed, "--output", &key]);
        let ek = std::fs::read_to_string(format!("{key}.pub")).unwrap();
        let derived = theirs(&["kem-derive", alg, &seed]);
        assert_eq!(ek.trim(), derived[0], "{alg}: ek from the same seed");

        // Theirs encapsulates to our key; we decapsulate the same secret.
        let ct_k = theirs(&["kem-encaps", alg, ek.trim()]);
        let k = ours(&["decapsulate", alg, "--key-file", &key, "--input", &ct_k[0]]);
        assert_eq!(k, ct_k[1], "{alg}: kyber-py → ciphermeter");

        // We encapsulate to their fresh key; they decapsulate the same secret.
        let pair = theirs(&["kem-keygen", alg]);
        let (ct, k) = encapsulated(&ours(&["encapsulate", alg, "--public-key", &pair[0]]));
        assert_eq!(
            theirs(&["kem-decaps", alg, &pair[1], &ct])[0],
            k,
            "{alg}: ciphermeter → kyber-py"
        );

        // Their expanded decapsulation key loads as our private key file.
        let their_key = path(dir.path(), &format!("{alg}.theirs"));
        write_private(&their_key, &pair[1]);
        assert_eq!(
            ours(&["decapsulate", alg, "--key-file", &their_key, "--input", &ct]),
            k
        );

        // A flipped bit: no error, another secret, the same implicit
        // rejection key in both implementations.
        let bad = flip(&ct, 7);
        let rejected = ours(&[
            "decapsulate",
            alg,
            "--key-file",
            &their_key,
            "--input",
            &bad,
        ]);
        assert_ne!(rejected, k, "{alg}");
        assert_eq!(
            rejected,
            theirs(&["kem-decaps", alg, &pair[1], &bad])[0],
            "{alg}"
        );

        // Wrong lengths exit 2.
        let short = run(&["decapsulate", alg, "--key-file", &key, "--input", &ct[2..]]);
        assert_eq!(short.status.code(), Some(2), "{alg}");
        let bad_ek = run(&["encapsulate", alg, "--public-key", &pair[0][2..]]);
        assert_eq!(bad_ek.status.code(), Some(2), "{alg}");
    }
}

#[test]
fn ml_dsa_interoperates_with_dilithium_py_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    let message = "73656e736f72203432"; // "sensor 42"
    let context = "6369706865726d65746572"; // "ciphermeter"
    for alg in ["ml-dsa-44", "ml-dsa-65"] {
        let seed = "5a".repeat(32);
        let key = path(dir.path(), &format!("{alg}.key"));
        ours(&["keygen", alg, "--seed", &seed, "--output", &key]);
        let pk = std::fs::read_to_string(format!("{key}.pub")).unwrap();
        let derived = theirs(&["dsa-derive", alg, &seed]);
        assert_eq!(pk.trim(), derived[0], "{alg}: pk from the same ξ");

        // Our signature, with a context, verifies in theirs; not under another context.
        let sig = ours(&[
            "sign",
            alg,
            "--key-file",
            &key,
            "--input",
            message,
            "--context",
            context,
        ]);
        assert_eq!(
            theirs(&["dsa-verify", alg, pk.trim(), message, &sig, context]),
            ["ok"]
        );
        assert_eq!(
            theirs(&["dsa-verify", alg, pk.trim(), message, &sig, ""]),
            ["bad"]
        );

        // Theirs verifies in ours, by --public-key; a flipped bit anywhere exits 2.
        let pair = theirs(&["dsa-keygen", alg]);
        let their_sig = theirs(&["dsa-sign", alg, &pair[1], message, context])[0].clone();
        let verify = |sig: &str, ctx: &str| {
            run(&[
                "verify",
                alg,
                "--public-key",
                &pair[0],
                "--input",
                message,
                "--signature",
                sig,
                "--context",
                ctx,
            ])
        };
        assert!(verify(&their_sig, context).status.success(), "{alg}");
        let sig_len = their_sig.len() / 2;
        for byte in [0, sig_len / 2, sig_len - 1] {
            let out = verify(&flip(&their_sig, byte), context);
            assert_eq!(out.status.code(), Some(2), "{alg}: byte {byte} flipped");
            assert!(String::from_utf8_lossy(&out.stderr).contains("authentication failed"));
        }
        assert_eq!(
            verify(&their_sig, "00").status.code(),
            Some(2),
            "{alg}: other context"
        );
        assert_eq!(
            verify(&their_sig[2..], context).status.code(),
            Some(2),
            "{alg}: short"
        );
    }
}

#[test]
fn x_wing_round_trips_and_refuses_what_it_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let key = path(dir.path(), "xw.key");
    ours(&["keygen", "x-wing", "--output", &key]);
    let (ct, k) = encapsulated(&ours(&[
        "encapsulate",
        "x-wing",
        "--key-file",
        &format!("{key}.pub"),
    ]));
    assert_eq!(ct.len(), 2 * 1120);
    assert_eq!(
        ours(&["decapsulate", "x-wing", "--key-file", &key, "--input", &ct]),
        k
    );
    assert_ne!(
        ours(&[
            "decapsulate",
            "x-wing",
            "--key-file",
            &key,
            "--input",
            &flip(&ct, 1100)
        ]),
        k
    );
    // A key pair without a seed form, a signature scheme asked to encapsulate,
    // a context string where the scheme has none.
    let ed = path(dir.path(), "ed");
    let seeded = run(&["keygen", "ed25519", "--seed", "00", "--output", &ed]);
    assert_eq!(seeded.status.code(), Some(2));
    ours(&["keygen", "ed25519", "--output", &ed]);
    let encaps = run(&["encapsulate", "ml-dsa-44", "--public-key", "00"]);
    assert_eq!(encaps.status.code(), Some(2));
    let ctx = run(&[
        "sign",
        "ed25519",
        "--key-file",
        &ed,
        "--context",
        "01",
        "--input",
        "00",
    ]);
    assert_eq!(ctx.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&ctx.stderr).contains("context"));
    ours(&["sign", "ed25519", "--key-file", &ed, "--input", "00"]);
}
