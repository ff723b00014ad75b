//! `ciphermeter mcu` as a user runs it. The device runs need the toolchain
//! from scripts/setup; without it they fail with the install command.

use assert_cmd::Command;
use predicates::prelude::*;

fn mcu() -> Command {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    cmd.arg("mcu");
    cmd
}

#[test]
fn unknown_target_is_a_usage_error() {
    mcu()
        .args(["--target", "z80", "aes-128-ecb"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown target 'z80'"));
}

#[test]
fn unknown_algorithm_is_a_usage_error() {
    mcu()
        .args(["--target", "cortex-m3", "rot13"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown firmware algorithm 'rot13'",
        ));
}

#[test]
fn bad_sizes_and_formats_are_usage_errors() {
    mcu().args(["aes-128-ecb", "--sizes", "0"]).assert().code(2);
    mcu()
        .args(["aes-128-ecb", "--format", "xml"])
        .assert()
        .code(2);
}

fn avr_cycles() -> Vec<(String, u64, u64)> {
    let out = mcu()
        .args([
            "--target",
            "atmega1284p",
            "aes-128-ecb",
            "--sizes",
            "16",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            for field in [
                "target",
                "algorithm",
                "operation",
                "size_bytes",
                "counter",
                "cycles",
                "cycles_per_byte",
                "time_us",
                "code_size_bytes",
                "stack_bytes",
                "kat_passed",
            ] {
                assert!(r.get(field).is_some(), "missing {field} in {r}");
            }
            assert_eq!(r["kat_passed"], true, "{r}");
            assert_eq!(r["counter"], "cycles");
            (
                r["operation"].as_str().unwrap().to_string(),
                r["size_bytes"].as_u64().unwrap(),
                r["cycles"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// simavr is cycle-exact: two runs of the same firmware give identical counts.
#[test]
fn two_avr_runs_give_identical_cycle_counts() {
    let first = avr_cycles();
    assert!(
        first
            .iter()
            .any(|(op, size, c)| op == "encrypt" && *size == 16 && *c > 0)
    );
    assert_eq!(first, avr_cycles());
}
