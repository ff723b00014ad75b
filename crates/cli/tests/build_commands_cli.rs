//! One step from the answer to the build (issue 63, item 2): the C library
//! command `recommend` prints for its winner (or, where the C library has
//! no path for it, the best software row's) runs as printed, with one
//! substitution: `--target TRIPLE` (the device's core) is dropped, so the
//! library is built for this host, where a C program can call it. Its
//! archive holds the chosen backend's code (its symbols), and `cm_seal`
//! there seals the bytes the host's sealing core seals under the same key
//! and nonce (tests/c/seal_once.c, linked against it).

use std::path::{Path, PathBuf};
use std::process::Command;

use seal::{Container, HostSealer, Scheme, SealKey};

mod support;
use support::run::{cm, json_ok};

/// Four devices, three cores: a CryptoCell winner (the fallback), two Cortex-M0+ and the ESP32-C3.
const DEVICES: [&str; 4] = ["nrf52840", "stm32l0", "mkr-wan-1300", "esp32-c3"];
const KEY_ID: &[u8] = b"dev-7";
const COUNTER: u64 = 7;
const READING: &str = r#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A symbol each backend's code defines in the archive (its C library's, or ours).
fn backend_symbol(implementation: &str) -> Option<&'static str> {
    match implementation {
        "mbedtls" => Some("mbedtls_"),
        "monocypher" => Some("crypto_"),
        _ => None,
    }
}

/// Runs `command` (`VAR=VALUE … cargo ARGS`) as printed, less `--target TRIPLE`,
/// into `target_dir`; the archive it made.
fn run_printed(command: &str, target_dir: &Path) -> PathBuf {
    assert!(!command.contains('\''), "quoted words: {command}");
    let words: Vec<&str> = command.split_whitespace().collect();
    let cargo_at = words.iter().position(|w| *w == "cargo").expect(command);
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for w in &words[..cargo_at] {
        let (k, v) = w.split_once('=').expect(command);
        cmd.env(k, v);
    }
    let mut args = words[cargo_at + 1..].iter();
    while let Some(a) = args.next() {
        match *a {
            "--target" => {
                args.next().expect("a triple after --target");
            }
            a => {
                cmd.arg(a);
            }
        }
    }
    let out = cmd
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", target_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    target_dir.join("release/libciphermeter_seal_ffi.a")
}

#[test]
fn the_printed_build_seals_what_the_host_seals_on_four_devices() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    // Beside the workspace's own builds, so a rerun reuses the dependencies.
    let target_dir = workspace().join("target/build-commands-test");
    for device in DEVICES {
        let doc = json_ok(
            cm().args(["recommend", "--device", device, "--link", "ble-1m-251"])
                .args(["--format", "json", "--db"])
                .arg(&db),
        );
        let build = &doc["build"];
        let (scheme, imp) = (
            build["scheme"].as_str().expect("a build"),
            build["implementation"].as_str().unwrap(),
        );
        let winner = &doc["rows"][0];
        // The winner's own commands, or why not and the best software row's.
        match build["instead_of_winner"].as_str() {
            None => {
                assert_eq!(winner["scheme"], scheme, "{device}");
                assert!(winner["engine"].is_null(), "{device}");
            }
            Some(why) => {
                assert!(!winner["engine"].is_null(), "{device}: {why}");
                assert!(why.contains("no driver"), "{device}: {why}");
            }
        }
        let command = build["c_library"]
            .as_str()
            .expect("a row the C library builds");
        assert!(
            command.contains(&format!("CIPHERMETER_SCHEME={scheme} ")),
            "{command}"
        );
        let archive = run_printed(command, &target_dir);
        let lib = dir.path().join(format!("lib-{device}.a"));
        std::fs::copy(&archive, &lib).unwrap();

        let nm = Command::new("nm")
            .arg("--defined-only")
            .arg(&lib)
            .output()
            .unwrap();
        let symbols = String::from_utf8_lossy(&nm.stdout);
        assert!(symbols.contains(" T cm_seal"), "{device}: no cm_seal");
        for other in ["mbedtls", "monocypher"] {
            let prefix = backend_symbol(other).unwrap();
            let has = symbols.lines().any(|l| l.contains(&format!(" T {prefix}")));
            assert_eq!(
                has,
                other == imp,
                "{device}: {other}'s code in a {imp} build"
            );
        }

        let program = dir.path().join(format!("seal-{device}"));
        let status = Command::new("cc")
            .arg(workspace().join("crates/cli/tests/c/seal_once.c"))
            .arg("-I")
            .arg(workspace().join("crates/seal-ffi/include"))
            .arg(&lib)
            .args(["-lpthread", "-ldl", "-lm", "-o"])
            .arg(&program)
            .status()
            .unwrap();
        assert!(status.success(), "{device}: the C program did not link");

        let parsed = Scheme::parse(scheme).unwrap();
        let spec = parsed.spec();
        let key: Vec<u8> = (0..spec.key_len()).map(|i| i as u8 ^ 0x5a).collect();
        // The container the row was ranked in, as C names it (CM_CONTAINER_*).
        let (container, id) = match build["container"].as_str().unwrap() {
            "json" => (Container::Json, "0"),
            "binary" => (Container::Binary, "1"),
            "cose" => (Container::Cose, "2"),
            other => panic!("{device}: the C library has no {other} container"),
        };
        let out = Command::new(&program)
            .args([scheme, &hex::encode(&key), &hex::encode(KEY_ID), id])
            .args([&COUNTER.to_string(), READING])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let by_c = String::from_utf8(out.stdout).unwrap();

        let mut nonce = vec![0u8; spec.nonce_len()];
        seal::counter_nonce(COUNTER, &mut nonce).unwrap();
        let key = SealKey::from_parts(parsed.clone(), KEY_ID.to_vec(), &key).unwrap();
        let by_host = HostSealer::new(&key, false)
            .unwrap()
            .seal(container, &nonce, READING.as_bytes(), b"")
            .unwrap();
        assert_eq!(
            by_c.trim(),
            hex::encode(by_host),
            "{device}: {scheme} by {imp}"
        );
    }
}

/// An OSCORE winner's printed build (its core scheme's code, `CIPHERMETER_OSCORE`
/// beside it) makes a library whose `cm_oscore_protect`, called from
/// crates/seal-ffi/tests/c/oscore_readings.c under a `keygen` context,
/// writes the host's `protect_reading` bytes.
#[test]
fn an_oscore_winners_printed_build_protects_what_the_host_protects() {
    let dir = tempfile::tempdir().unwrap();
    let doc = json_ok(
        cm().args(["recommend", "--device", "stm32l0", "--link", "ble-1m-251"])
            .args(["--container", "oscore", "--format", "json", "--db"])
            .arg(dir.path().join("results.sqlite")),
    );
    let build = &doc["build"];
    let scheme = build["scheme"].as_str().expect("a build");
    assert_eq!(
        build["instead_of_winner"],
        serde_json::Value::Null,
        "{build}"
    );
    assert_eq!(doc["rows"][0]["scheme"], scheme);
    let alg = scheme.strip_prefix("oscore:").expect("an OSCORE winner");
    let command = build["c_library"]
        .as_str()
        .expect("the C library's command");
    let core = seal::oscore_build::core_scheme(scheme).unwrap();
    assert!(
        command.starts_with(&format!(
            "CIPHERMETER_SCHEME={core} CIPHERMETER_OSCORE={alg} "
        )),
        "{command}"
    );
    assert!(
        build["device_send_missing"]
            .as_str()
            .is_some_and(|w| w.contains("cm_oscore_protect")),
        "{build}"
    );
    let archive = run_printed(command, &workspace().join("target/build-commands-test"));
    let lib = dir.path().join("lib-oscore.a");
    std::fs::copy(&archive, &lib).unwrap();
    let nm = Command::new("nm")
        .arg("--defined-only")
        .arg(&lib)
        .output()
        .unwrap();
    let symbols = String::from_utf8_lossy(&nm.stdout);
    assert!(
        symbols.contains(" T cm_oscore_protect"),
        "no cm_oscore_protect"
    );
    if let Some(prefix) = backend_symbol(build["implementation"].as_str().unwrap()) {
        assert!(
            symbols.contains(&format!(" T {prefix}")),
            "no {prefix} code"
        );
    }

    let program = dir.path().join("oscore_readings");
    let status = Command::new("cc")
        .arg(workspace().join("crates/seal-ffi/tests/c/oscore_readings.c"))
        .arg("-I")
        .arg(workspace().join("crates/seal-ffi/include"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success(), "the C program did not link");
    let (dev, gw) = (dir.path().join("dev.key"), dir.path().join("gw.key"));
    cm().args(["keygen", "--scheme", scheme, "--output"])
        .arg(&dev)
        .arg("--peer-output")
        .arg(&gw)
        .assert()
        .success();
    let out = Command::new(&program)
        .arg(&dev)
        .arg(dir.path().join("slots"))
        .arg("2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let device = seal::host::oscore::OscoreKey::load(&dev).unwrap();
    let lines = String::from_utf8(out.stdout).unwrap();
    assert_eq!(lines.lines().count(), 2);
    for (i, line) in lines.lines().enumerate() {
        let (seq, hex) = line.split_once(' ').unwrap();
        let reading = format!(
            r#"{{"t":{},"id":"Logger1","s_t":"tc","s_d":[{{"d":0,"t":12.5}}]}}"#,
            1555666777 + i
        );
        let (by_host, _) = seal::host::oscore::protect_reading(
            device.context(),
            seq.parse().unwrap(),
            reading.as_bytes(),
            "readings",
            50,
        )
        .unwrap();
        assert_eq!(hex, hex::encode(by_host), "{scheme} sequence {seq}");
    }
}
