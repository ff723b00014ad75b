//! A board's rows, as a user gets them: `mcu --board B --serial PORT` reads
//! the board's run from its serial port and writes a cost table labelled
//! measured, which `recommend --cost-table` costs in place of the
//! simulation. The board here is QEMU's mps2-an386 running the Cortex-M4
//! board code (crates/mcu `board::simulate`: its UART on a pseudo-terminal),
//! so the test needs no hardware.

use std::path::Path;

use assert_cmd::Command;
use mcu::board::{self, Board};

fn ciphermeter() -> Command {
    Command::cargo_bin("ciphermeter").unwrap()
}

mod support;
use support::run::{refused, stdout_ok};

/// `ciphermeter ARGS` must exit 2, saying `why`.
fn refuses(args: &[&str], why: &str) {
    refused(ciphermeter().args(args), why);
}

/// The first ranked row of `scheme` on the nRF52840 over BLE, RustCrypto's
/// code only (the board measured that build).
fn gcm_row(db: &Path, table: Option<&Path>) -> serde_json::Value {
    let mut cmd = ciphermeter();
    cmd.args(["recommend", "--device", "nrf52840", "--link", "ble-1m-251"])
        .args(["--impl", "rustcrypto", "--format", "json", "--db"])
        .arg(db);
    if let Some(t) = table {
        cmd.arg("--cost-table").arg(t);
    }
    let doc: serde_json::Value = serde_json::from_slice(&stdout_ok(&mut cmd)).unwrap();
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scheme"] == "aead:aes-128-gcm")
        .cloned()
        .unwrap()
}

#[test]
fn a_board_s_rows_are_labelled_measured_and_recommend_costs_with_them() {
    mcu::toolchain::require(Board::QemuMps2An386.target()).expect("scripts/setup");
    let dir = tempfile::tempdir().unwrap();
    let (table, db) = (dir.path().join("board.json"), dir.path().join("r.sqlite"));
    let scheme = "aead:aes-128-gcm";
    let elf = mcu::compile::board(Board::QemuMps2An386, scheme, &[mcu::SEAL_BUFFER]).unwrap();
    let sim = board::simulate(Board::QemuMps2An386, &elf).unwrap();
    let out = stdout_ok(
        ciphermeter()
            .args([
                "mcu",
                "--board",
                "qemu-mps2-an386",
                scheme,
                "--format",
                "json",
            ])
            .arg("--serial")
            .arg(&sim.path)
            .args(["--board-serial", "QEMU-1"])
            .arg("--cost-table")
            .arg(&table),
    );
    drop(sim);
    // Another board's rows do not go into this board's file.
    let other = board::simulate(Board::QemuMps2An386, &elf).unwrap();
    refused(
        ciphermeter()
            .args(["mcu", "--board", "qemu-mps2-an386", scheme, "--serial"])
            .arg(&other.path)
            .args(["--board-serial", "QEMU-2", "--cost-table"])
            .arg(&table),
        "holds rows measured on board qemu-mps2-an386, serial QEMU-1",
    );
    drop(other);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).unwrap();
    assert!(rows.len() > 3, "{rows:?}");
    for r in &rows {
        // Its known answer is the host's bytes in every container.
        assert_eq!(r["kat_passed"], true, "{r}");
        assert_eq!(
            r["measured_on"], "measured on board qemu-mps2-an386, serial QEMU-1",
            "{r}"
        );
    }
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&table).unwrap()).unwrap();
    assert_eq!(written["measured_on"]["board"], "qemu-mps2-an386");
    assert_eq!(written["measured_on"]["serial_number"], "QEMU-1");

    let simulated = gcm_row(&db, None);
    let measured = gcm_row(&db, Some(&table));
    let source = measured["cpu_time_source"].as_str().unwrap();
    assert!(
        source.contains("measured on board qemu-mps2-an386, serial QEMU-1"),
        "{source}"
    );
    assert!(
        !simulated["cpu_time_source"]
            .as_str()
            .unwrap()
            .contains("measured on")
    );
    // The reading's time is the board's count of one of its measured
    // readings (chain:10 is one of study 003's lengths) at the nRF52840's
    // 64 MHz: exact instructions here, where the simulation's is a cycle
    // estimate, so the two differ.
    let counts: Vec<f64> = written["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["operation"] == "seal-json")
        .flat_map(|e| e["points"].as_array().unwrap().clone())
        .map(|p| p[1].as_f64().unwrap())
        .collect();
    let us = measured["cpu_time_us"].as_f64().unwrap();
    assert!(
        counts.iter().any(|c| (c / 64.0 - us).abs() < 1e-6),
        "{us} µs is none of {counts:?} at 64 MHz"
    );
    assert_ne!(us, simulated["cpu_time_us"].as_f64().unwrap());
}

#[test]
fn what_a_board_cannot_be_asked_exits_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    refuses(
        &["mcu", "--board", "arduino-uno", "aes-128-ecb"],
        "unknown board",
    );
    refuses(
        &["mcu", "--board", "nrf52840-dk", "aes-128-ecb", "sha256"],
        "one build at a time",
    );
    refuses(
        &[
            "mcu",
            "--board",
            "nrf52840-dk",
            "aes-128-ecb",
            "--serial",
            "/dev/null",
        ],
        "--board-serial",
    );
    refuses(
        &[
            "mcu",
            "--board",
            "nrf52840-dk",
            "aes-128-ecb",
            "--cost-table",
            "t.json",
        ],
        "give --serial PORT",
    );
    let pts = dir.path().join("no-such-port");
    refuses(
        &[
            "mcu",
            "--board",
            "nrf52840-dk",
            "aes-128-ecb",
            "--serial",
            pts.to_str().unwrap(),
            "--board-serial",
            "1",
        ],
        "no-such-port",
    );
    // recommend: a file that is no table, a simulation's table, another core's.
    let db = dir.path().join("r.sqlite");
    let db = db.to_str().unwrap();
    let base = [
        "recommend",
        "--device",
        "nrf52840",
        "--link",
        "ble-1m-251",
        "--db",
        db,
    ];
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{}").unwrap();
    let shipped = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/device-costs/cortex-m4.json"
    );
    let mut other: serde_json::Value = serde_json::from_str(include_str!(
        "../../../data/device-costs/cortex-m0plus.json"
    ))
    .unwrap();
    other["measured_on"] = serde_json::json!({"board": "mkr-wan-1300", "serial_number": "7"});
    let m0 = dir.path().join("m0.json");
    std::fs::write(&m0, other.to_string()).unwrap();
    for (file, why) in [
        (junk.to_str().unwrap(), "not a device cost table"),
        (shipped, "no board's measurements"),
        (m0.to_str().unwrap(), "this device runs on cortex-m4"),
        ("/nonexistent/t.json", "/nonexistent/t.json"),
    ] {
        refuses(&[&base[..], &["--cost-table", file]].concat(), why);
    }
}

/// A board's cycles for the M0+'s aes-128-ecb, made from the shipped
/// table's own estimate at the MKR's 48 MHz: the zero-wait-state model plus
/// one wait state per pipeline refill. `mcu --compare` finds every region
/// above the model by those wait states, and the fitted classes account for
/// them.
#[test]
fn compare_holds_a_board_s_cycles_to_the_cycle_model() {
    mcu::toolchain::require(mcu::Target::CortexM0plus).expect("scripts/setup");
    let dir = tempfile::tempdir().unwrap();
    let mut table: serde_json::Value = serde_json::from_str(include_str!(
        "../../../data/device-costs/cortex-m0plus.json"
    ))
    .unwrap();
    let entries: Vec<serde_json::Value> = table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["algorithm"] == "aes-128-ecb" && e.get("implementation").is_none())
        .map(|e| {
            let mut e = e.clone();
            let cycles: Vec<serde_json::Value> = e["cycle_estimates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| serde_json::json!([c[0], c[1]]))
                .collect();
            e["points"] = cycles.into();
            e["cycle_estimates"] = serde_json::json!([]);
            e
        })
        .collect();
    table["entries"] = entries.into();
    table["counter"] = "cycles".into();
    table["measured_on"] = serde_json::json!({"board": "mkr-wan-1300", "serial_number": "S"});
    let file = dir.path().join("m0.json");
    std::fs::write(&file, table.to_string()).unwrap();
    let out = stdout_ok(
        ciphermeter()
            .args(["mcu", "--format", "json", "--compare"])
            .arg(&file),
    );
    let c: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let regions = c["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 9, "{c}");
    let excess: f64 = regions
        .iter()
        .map(|r| {
            let (m, low) = (
                r["measured"].as_f64().unwrap(),
                r["model_low"].as_f64().unwrap(),
            );
            // The M0+'s table has one figure a class: low is high.
            assert_eq!(r["model_low"], r["model_high"], "{r}");
            assert!(m > low && r["error_percent"].as_f64().unwrap() > 0.0, "{r}");
            m - low
        })
        .sum();
    let fitted: f64 = c["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (k["fitted"].as_f64().unwrap() - k["table_low"].as_f64().unwrap())
                * k["instructions"].as_f64().unwrap()
        })
        .sum();
    assert!(
        (fitted - excess).abs() < 0.05 * excess,
        "the fit accounts for {fitted:.0} of the {excess} cycles of wait states"
    );
    let compare_refuses =
        |file: &Path, why: &str| refused(ciphermeter().args(["mcu", "--compare"]).arg(file), why);
    // Instructions from a QEMU machine, a simulation's table, an AVR's cycles.
    table["counter"] = "instructions".into();
    std::fs::write(&file, table.to_string()).unwrap();
    compare_refuses(&file, "not cycles");
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/device-costs/cortex-m4.json");
    compare_refuses(&shipped, "no board's measurements");
    let mut avr: serde_json::Value =
        serde_json::from_str(include_str!("../../../data/device-costs/atmega1284p.json")).unwrap();
    avr["measured_on"] = serde_json::json!({"board": "sodaq-mbili", "serial_number": "S"});
    std::fs::write(&file, avr.to_string()).unwrap();
    compare_refuses(&file, "no cycle model");
}
