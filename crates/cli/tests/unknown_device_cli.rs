//! A device ciphermeter has no profile for is helped, not guessed (issue 62):
//! an unknown name is told its chip's core and target and how to give a
//! profile of its own; a profile of one's own on a Cortex-M target must name
//! the part whose flash prices it; one whose target only stands in for its
//! core says so in every row.

mod support;
use support::run::{cm, json_ok, refused};

/// A data directory holding one device profile, `body` after its common fields.
fn data_dir_with(name: &str, body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("devices")).unwrap();
    let profile = format!(
        r#"[[device]]
name = "{name}"
title = "unknown_device_cli's device"
cpu = "the test's"
clock_mhz = {{ value = 128.0, source = "the test's" }}
voltage_v = {{ value = 3.0, source = "the test's" }}
active_ma = {{ value = 3.0, source = "the test's" }}
sleep_ua = {{ value = 1.0, source = "the test's" }}
flash_kib = {{ value = 1024, source = "the test's" }}
ram_kib = {{ value = 256, source = "the test's" }}
{body}
"#
    );
    std::fs::write(dir.path().join("devices/mine.toml"), profile).unwrap();
    dir
}

/// The message of a refusal (exit 2) of `args`.
fn refusal(args: &[&str]) -> String {
    let out = cm().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    err
}

#[test]
fn an_unknown_chip_is_told_its_core_its_target_and_the_data_dir() {
    let rp2040 = refusal(&[
        "recommend",
        "--device",
        "rp2040-xyz",
        "--link",
        "ble-1m-251",
    ]);
    assert!(rp2040.contains("cortex-m0plus runs that core"), "{rp2040}");
    assert!(rp2040.contains("--data-dir"), "{rp2040}");
    // Not a look-alike profile: an STM32L562 (Cortex-M33) is no stm32l082
    // (Cortex-M0+). (The RP2350 has a profile since issue 62 item 5.)
    let l562 = refusal(&[
        "energy",
        "--device",
        "stm32l562",
        "--link",
        "ble-1m-251",
        "--bytes",
        "10",
    ]);
    assert!(l562.contains("cortex-m33 runs that core"), "{l562}");
    assert!(!l562.contains("did you mean"), "{l562}");
    // A name no family matches still learns how to add a profile.
    let other = refusal(&["recommend", "--device", "pdp-11", "--link", "ble-1m-251"]);
    assert!(other.contains("--data-dir"), "{other}");
}

#[test]
fn a_cortex_m_profile_without_a_part_is_refused_with_what_is_missing() {
    let data = data_dir_with(
        "no-part",
        r#"simulated_target = { value = "cortex-m4", source = "the test's" }"#,
    );
    refused(
        cm().args(["recommend", "--device", "no-part", "--link", "ble-1m-251"])
            .arg("--data-dir")
            .arg(data.path()),
        "names no part",
    );
}

#[test]
fn a_stand_in_target_says_so_in_every_row() {
    let data = data_dir_with(
        "m33-on-m4",
        r#"simulated_target = { value = "cortex-m4", source = "the test's" }
part = { value = "nrf52840", source = "the test's" }
core = { value = "Cortex-M33", source = "the test's" }"#,
    );
    let db = tempfile::tempdir().unwrap();
    let doc = json_ok(
        cm().args(["recommend", "--device", "m33-on-m4", "--link", "ble-1m-251"])
            .args(["--format", "json", "--top", "5", "--data-dir"])
            .arg(data.path())
            .arg("--db")
            .arg(db.path().join("results.sqlite")),
    );
    let rows = doc["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        let source = r["cpu_time_source"].as_str().unwrap();
        assert!(
            source.contains("cortex-m4 standing in for the device's Cortex-M33"),
            "{source}"
        );
    }
}
