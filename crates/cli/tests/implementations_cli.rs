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
    // Monocypher has no AES; ours lacks XChaCha20.
    ciphermeter()
        .args([
            "mcu",
            "--impl",
            "monocypher",
            "aead:aes-128-gcm",
            "--no-store",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "has no implementation by Monocypher 4",
        ));
    ciphermeter()
        .args([
            "mcu",
            "--impl",
            "ciphermeter",
            "aead:xchacha20-poly1305",
            "--no-store",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "has no implementation by ciphermeter",
        ));
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
    let table = shipped_table("cortex-m0plus");
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

/// Both C libraries build for riscv32imc (Debian's riscv64-unknown-elf-gcc,
/// firmware/build.rs) and run there: ChaCha20-Poly1305 by Mbed TLS and by
/// Monocypher passes the RFC 8439 known answer on QEMU `virt`, counted in
/// exact instructions, each library its own count, and each counts exactly
/// what the shipped riscv32imc table holds (`scripts/device-costs --impl
/// mbedtls,monocypher riscv32imc` regenerates them).
#[test]
fn a_c_library_on_riscv32imc_runs_with_passing_known_answers() {
    let rows = json(ciphermeter().args([
        "mcu",
        "--target",
        "riscv32imc",
        "--impl",
        "mbedtls,monocypher",
        "--sizes",
        "16,64,256,1024",
        "--format",
        "json",
        "--no-store",
        "chacha20-poly1305",
    ]));
    let rows = rows.as_array().unwrap();
    let riscv = shipped_table("riscv32imc");
    let mut encrypt = Vec::new();
    for imp in ["mbedtls", "monocypher"] {
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
            assert_eq!(r["time_basis"], "instructions", "{imp}: {r}");
            assert!(r["cycles"].as_u64().unwrap() > 0, "{imp}: {r}");
            assert!(r["code_size_bytes"].as_i64().unwrap() > 0, "{imp}");
            // Monocypher's key set-up is a leaf copy into the shim's static
            // context: no stack, truly; the AEAD calls have frames.
            if r["operation"] != "keysetup" {
                assert!(r["stack_bytes"].as_u64().unwrap() > 0, "{imp}: {r}");
            }
        }
        let at_1k = mine
            .iter()
            .find(|r| r["operation"] == "encrypt" && r["size_bytes"] == 1024)
            .unwrap_or_else(|| panic!("{imp}: no 1 KiB encrypt row"));
        let count = at_1k["cycles"].as_u64().unwrap();
        assert_eq!(
            count as f64,
            table_cycles(&riscv, "chacha20-poly1305", imp, "encrypt", 1024),
            "chacha20-poly1305@{imp} on riscv32imc no longer matches data/device-costs/riscv32imc.json: regenerate with scripts/device-costs --impl {imp} riscv32imc"
        );
        encrypt.push(count);
    }
    assert_ne!(encrypt[0], encrypt[1], "two libraries, two programs");
}

/// The shipped device cost table of `target`, read apart from the cost crate
/// (once per test: it is a megabyte of JSON).
fn shipped_table(target: &str) -> Value {
    let path = format!(
        "{}/../../data/device-costs/{target}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The shipped table as `device` runs it: a Cortex-M table's estimates
/// priced on the device's own part (data/devices `part`).
fn device_table(device: &str) -> Value {
    let profiles = cost::data::profiles(None).unwrap();
    let d = profiles.device(device).unwrap();
    let target = cost::device_times::device_target(d).unwrap().unwrap();
    let table = cost::device_times::shipped_for(d, target).unwrap().unwrap();
    serde_json::to_value(table).unwrap()
}

/// The implementations whose whole seal path of `scheme` the table measured
/// (seal-json at chain:10).
/// Whether `build`'s timing leaks on `target` (the shipped verdicts).
fn leaks(target: &str, build: &str) -> bool {
    use device_facts::constant_time::{Verdict, shipped};
    let table = shipped(target.parse().unwrap()).unwrap().expect("verdicts");
    table
        .report(build)
        .is_some_and(|r| r.verdict == Verdict::Leaks)
}

fn table_implementations(table: &Value, scheme: &str) -> Vec<String> {
    table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["algorithm"] == scheme && e["operation"] == "seal-json" && e["error"].is_null()
        })
        .map(|e| {
            e.get("implementation")
                .and_then(Value::as_str)
                .unwrap_or("rustcrypto")
                .to_string()
        })
        .collect()
}

/// The table's count of `scheme` by `implementation` in `operation` at
/// `bytes` (Cortex-M: the cycle estimate).
fn table_cycles(
    table: &Value,
    scheme: &str,
    implementation: &str,
    operation: &str,
    bytes: u64,
) -> f64 {
    let target = &table["target"];
    let entry = table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["algorithm"] == scheme
                && e["operation"] == operation
                && e.get("implementation")
                    .and_then(Value::as_str)
                    .unwrap_or("rustcrypto")
                    == implementation
        })
        .unwrap_or_else(|| {
            panic!("{scheme}@{implementation} {operation} not in the {target} table")
        });
    let estimates = entry["cycle_estimates"]
        .as_array()
        .filter(|e| !e.is_empty());
    let points = estimates.unwrap_or_else(|| entry["points"].as_array().unwrap());
    let point = points
        .iter()
        .find(|p| p[0].as_u64() == Some(bytes))
        .unwrap_or_else(|| panic!("{scheme}@{implementation}: no point at {bytes} B"));
    point[1].as_f64().unwrap()
}

fn recommend(device: &str, implementation: &str) -> Vec<Value> {
    let doc = json(ciphermeter().args([
        "recommend",
        "--device",
        device,
        "--link",
        "ble-1m-251",
        "--impl",
        implementation,
        "--format",
        "json",
    ]));
    doc["rows"].as_array().unwrap().clone()
}

/// The ranking is of (scheme, implementation) pairs: each row's CPU time is
/// the shipped table's whole seal path of the implementation it names, the
/// fastest allowed one, so no row is slower than its scheme under any one
/// implementation alone; and no row carries this host's time.
#[test]
fn recommend_ranks_each_scheme_by_its_fastest_measured_seal_path() {
    // (device, its simulated target, its clock in MHz: data/devices/)
    for (device_index, (device, target, mhz)) in [
        ("sodaq-mbili", "atmega1284p", 8.0),
        ("mkr-wan-1300", "cortex-m0plus", 48.0),
        ("nrf52840", "cortex-m4", 64.0),
        ("esp32-c3", "riscv32imc", 160.0),
    ]
    .into_iter()
    .enumerate()
    {
        // The software rows: a hardware engine's rows (published figures,
        // recommend_device_cli) are not a seal path of the table's.
        let rows: Vec<Value> = recommend(device, "all")
            .into_iter()
            .filter(|r| r["engine"].is_null())
            .collect();
        assert!(rows.len() > 20, "{device}: {}", rows.len());
        let table = device_table(device);
        assert_eq!(table["target"], target);
        for r in &rows {
            let scheme = r["scheme"].as_str().unwrap();
            assert_eq!(r["device_measured"], true, "{device} {scheme}: {r}");
            assert!(r["device_failure"].is_null(), "{device} {scheme}: {r}");
            let imp = r["implementation"].as_str().unwrap();
            // chain:10 is 216 bytes of JSON, a measured length.
            let cycles = table_cycles(&table, scheme, imp, "seal-json", 216);
            let us = r["cpu_time_us"].as_f64().unwrap();
            assert!(
                (us - cycles / mhz).abs() <= 1e-9 * us,
                "{device} {scheme}@{imp}: {us} µs, the table says {cycles} cycles at {mhz} MHz"
            );
            let paths = r["seal_paths"].as_array().unwrap();
            assert!(paths.iter().any(|p| p["implementation"] == imp), "{r}");
            // Every implementation the table measured this seal path for is
            // there, but one whose build leaks on the device (data/constant-time/).
            for other in table_implementations(&table, scheme) {
                let build = match other.as_str() {
                    "rustcrypto" => scheme.to_string(),
                    imp => format!("{scheme}@{imp}"),
                };
                if leaks(target, &build) {
                    assert!(
                        paths.iter().all(|p| p["implementation"] != other.as_str()),
                        "{device} {scheme}: {other} leaks there, yet it is a seal path in {r}"
                    );
                    continue;
                }
                assert!(
                    paths.iter().any(|p| p["implementation"] == other.as_str()),
                    "{device} {scheme}: no {other} seal path in {r}"
                );
            }
            for p in paths {
                assert!(
                    p["cpu_time_us"].as_f64().unwrap() >= us,
                    "{device} {scheme}: {r}"
                );
            }
        }
        // So each row is no slower than its scheme under any one
        // implementation; one `--impl` run per device checks that from the
        // outside, each implementation on one device.
        let only = ["rustcrypto", "ciphermeter", "mbedtls", "monocypher"][device_index];
        {
            for alone in recommend(device, only) {
                let scheme = alone["scheme"].as_str().unwrap();
                assert_eq!(alone["implementation"], only, "{device} {scheme}");
                let best = rows
                    .iter()
                    .find(|r| r["scheme"] == scheme)
                    .unwrap_or_else(|| {
                        panic!("{device}: {scheme} ranked under --impl {only} only")
                    });
                assert!(
                    best["cpu_time_us"].as_f64().unwrap() <= alone["cpu_time_us"].as_f64().unwrap(),
                    "{device} {scheme}: the default row is slower than under --impl {only}"
                );
            }
        }
    }
    // Study 003's board over BLE: the fastest AES-CCM that is not
    // RustCrypto's (ours or Mbed TLS's), measured through the whole seal
    // path, costs less CPU than RustCrypto's by the tables' own ratio.
    let ccm = |rows: &[Value]| {
        rows.iter()
            .find(|r| r["scheme"] == "aead:aes-128-ccm")
            .unwrap()
            .clone()
    };
    let ours = ccm(&recommend("sodaq-mbili", "all"));
    let theirs = ccm(&recommend("sodaq-mbili", "rustcrypto"));
    let winner = ours["implementation"].as_str().unwrap();
    assert_ne!(winner, "rustcrypto");
    let ratio = theirs["cpu_time_us"].as_f64().unwrap() / ours["cpu_time_us"].as_f64().unwrap();
    let avr = shipped_table("atmega1284p");
    let want = table_cycles(&avr, "aead:aes-128-ccm", "rustcrypto", "seal-json", 216)
        / table_cycles(&avr, "aead:aes-128-ccm", winner, "seal-json", 216);
    assert!(
        ratio > 1.5 && (ratio - want).abs() < 1e-9,
        "{ratio} vs {want}"
    );
}

/// The per-primitive breakdown stays beside the ranking, and the text says
/// whose code each shown row is.
#[test]
fn recommend_keeps_the_per_primitive_breakdown() {
    let rows = recommend("sodaq-mbili", "all");
    let mut others = 0;
    for r in &rows {
        let choice = &r["implementation_breakdown"];
        let parts = choice["parts"]
            .as_array()
            .unwrap_or_else(|| panic!("{}: {r}", r["scheme"]));
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
    }
    assert!(others > 0, "no primitive names another implementation");
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
    assert!(
        text.contains("aead:aes-128-ccm: ciphermeter's code"),
        "{text}"
    );
    ciphermeter()
        .args([
            "recommend",
            "--device",
            "sodaq-mbili",
            "--link",
            "ble-1m-251",
            "--impl",
            "openssl",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown implementation 'openssl'"));
}

/// `scripts/device-costs` measures what `mcu --implementations` lists, never
/// names of its own: the listing has every implementation with the targets it
/// builds for (the Cortex-M4's assembly-class crates on the DSP cores only),
/// and the script names none but RustCrypto (whose sweep writes the table).
#[test]
fn device_costs_takes_every_implementation_from_the_registry() {
    let out = ciphermeter()
        .args(["mcu", "--implementations"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert!(rows.len() >= 6, "{text}");
    for row in &rows {
        assert_eq!(row.len(), 3, "name, label, targets: {row:?}");
        assert!(!row[2].is_empty(), "{} builds nowhere", row[0]);
    }
    let targets = |name: &str| -> Vec<&str> {
        let row = rows.iter().find(|r| r[0] == name).unwrap_or_else(|| {
            panic!("{name} is not listed:\n{text}");
        });
        row[2].split(',').collect()
    };
    for assembly in ["p256-cortex-m4", "salty"] {
        assert!(targets(assembly).contains(&"cortex-m4"));
        assert!(!targets(assembly).contains(&"cortex-m0plus"));
    }
    assert!(targets("mbedtls").contains(&"atmega1284p"));
    let script = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/device-costs"),
    )
    .unwrap();
    let code: String = script
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    // "ciphermeter" is the binary's name too: only as an implementation
    // (`--impl ciphermeter`, in a list) may it not appear.
    for row in rows
        .iter()
        .filter(|r| !["rustcrypto", "ciphermeter"].contains(&r[0]))
    {
        assert!(
            !code.contains(row[0]),
            "scripts/device-costs names {} itself instead of reading the registry",
            row[0]
        );
    }
    for form in ["--impl ciphermeter", "ciphermeter,", ",ciphermeter"] {
        assert!(
            !code.contains(form),
            "scripts/device-costs names ciphermeter's code itself: {form}"
        );
    }
    assert!(code.contains("mcu --implementations"));
}
