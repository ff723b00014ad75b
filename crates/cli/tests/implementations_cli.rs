//! Implementation as a dimension (`mcu --impl`, `recommend`'s choice), run
//! as a user runs it: C libraries compiled for the simulated core beside
//! RustCrypto and our own code, with the same known answers.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn ciphermeter() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

fn json(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn an_implementation_the_algorithm_lacks_is_a_usage_error() {
    ciphermeter()
        .args(["mcu", "--impl", "openssl", "aes-128-ecb"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown implementation 'openssl'"));
    ciphermeter()
        .args(["mcu", "--impl", "monocypher", "aes-128-ecb", "--no-store"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "has no implementation by Monocypher 4",
        ))
        .stderr(predicate::str::contains("chacha20-poly1305"));
    // A sealing scheme is the sealing core's code, RustCrypto's.
    ciphermeter()
        .args(["mcu", "--impl", "mbedtls", "aead:aes-128-gcm", "--no-store"])
        .assert()
        .code(2);
}

/// One algorithm, four implementations, one core: each passes the same
/// official vector on the device, has its own counts, code size and stack,
/// and counts exactly what the shipped table holds (the drift sample of the
/// implementations' rows: `scripts/device-costs --impl ...` regenerates them).
#[test]
fn chacha20_poly1305_by_all_four_implementations_on_the_cortex_m0plus() {
    let rows = json(ciphermeter().args([
        "mcu",
        "--target",
        "cortex-m0plus",
        "--impl",
        "all",
        "--sizes",
        "16,64,256,1024",
        "--format",
        "json",
        "--no-store",
        "chacha20-poly1305",
    ]));
    let rows = rows.as_array().unwrap();
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/device-costs/cortex-m0plus.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut encrypt = Vec::new();
    for imp in ["rustcrypto", "ciphermeter", "mbedtls", "monocypher"] {
        let mine: Vec<&Value> = rows.iter().filter(|r| r["implementation"] == imp).collect();
        let ops: Vec<&str> = mine
            .iter()
            .map(|r| r["operation"].as_str().unwrap())
            .collect();
        assert_eq!(
            ops[..3],
            ["keysetup", "encrypt", "decrypt"],
            "{imp}: {mine:?}"
        );
        for r in &mine {
            assert_eq!(r["algorithm"], "chacha20-poly1305");
            assert_eq!(r["kat_passed"], true, "{imp}: {r}");
            assert!(r["error"].is_null(), "{imp}: {r}");
            assert!(r["code_size_bytes"].as_i64().unwrap() > 0, "{imp}");
            assert!(r["stack_bytes"].as_u64().unwrap() > 0, "{imp}");
        }
        let now: Vec<(u64, u64)> = mine
            .iter()
            .filter(|r| r["operation"] == "encrypt")
            .map(|r| {
                (
                    r["size_bytes"].as_u64().unwrap(),
                    r["cycles"].as_u64().unwrap(),
                )
            })
            .collect();
        let shipped = table["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| {
                e["algorithm"] == "chacha20-poly1305"
                    && e["operation"] == "encrypt"
                    && e.get("implementation")
                        .and_then(Value::as_str)
                        .unwrap_or("rustcrypto")
                        == imp
            })
            .unwrap_or_else(|| panic!("{imp} is not in the cortex-m0plus table"));
        let shipped: Vec<(u64, u64)> = serde_json::from_value(shipped["points"].clone()).unwrap();
        assert_eq!(
            now, shipped,
            "chacha20-poly1305@{imp} on cortex-m0plus no longer matches data/device-costs/cortex-m0plus.json: regenerate with scripts/device-costs --impl {imp} cortex-m0plus"
        );
        encrypt.push(now[1].1);
    }
    // Four programs, four counts.
    let mut distinct = encrypt.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "{encrypt:?}");
}

/// A C library on a target with no C cross compiler here says so, per row.
#[test]
fn a_c_library_on_riscv32imc_says_why_it_is_not_built() {
    let rows = json(ciphermeter().args([
        "mcu",
        "--target",
        "riscv32imc",
        "--impl",
        "monocypher",
        "--format",
        "json",
        "--no-store",
        "sha512",
    ]));
    let row = &rows[0];
    assert_eq!(row["implementation"], "monocypher");
    assert_eq!(row["operation"], "build");
    assert!(
        row["error"]
            .as_str()
            .unwrap()
            .contains("no riscv32 bare-metal C compiler"),
        "{row}"
    );
}

/// `recommend` names whose code to run for every scheme the device measured,
/// from the implementations measured on its core.
#[test]
fn recommend_names_an_implementation_for_every_device_measured_scheme() {
    let doc = json(ciphermeter().args([
        "recommend",
        "--device",
        "sodaq-mbili",
        "--link",
        "ble-1m-251",
        "--format",
        "json",
    ]));
    let rows = doc["rows"].as_array().unwrap();
    let measured: Vec<&Value> = rows
        .iter()
        .filter(|r| r["device_measured"] == true)
        .collect();
    assert!(measured.len() > 20, "{}", measured.len());
    let mut others = 0;
    for r in &measured {
        let choice = &r["implementation"];
        let parts = choice["parts"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: {r}", r["scheme"]));
        assert!(!parts.is_empty(), "{}", r["scheme"]);
        for p in parts {
            let chosen = p["implementation"].as_str().unwrap();
            let compared = p["implementations_compared"].as_array().unwrap();
            assert!(compared.iter().any(|c| c == chosen), "{p}");
            if chosen != "rustcrypto" {
                others += 1;
                assert!(
                    p["speedup_over_rustcrypto"]
                        .as_f64()
                        .unwrap_or(f64::INFINITY)
                        > 1.0,
                    "{p}"
                );
            }
        }
        assert!(!choice["sentence"].as_str().unwrap().is_empty());
    }
    // The ATmega1284P's tables measure faster code than RustCrypto's for some.
    assert!(others > 0, "no scheme names another implementation");
    let text = ciphermeter()
        .args([
            "recommend",
            "--device",
            "sodaq-mbili",
            "--link",
            "ble-1m-251",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("Implementation on this device"), "{text}");
}
