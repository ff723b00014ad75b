//! `reproduce lora` as a user runs it: the device-level study on the MKR1300's
//! stand-in (its JSON checked against the shipped device cost table and the
//! study's data file), bad input, and the plaintext row above 255 bytes.

use serde_json::Value;

mod support;
use support::run::{cm, json_ok};

fn json(args: &[&str]) -> Value {
    json_ok(cm().args(args).args(["--format", "json"]))
}

fn data(path: &str) -> Value {
    let text =
        std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Cycles at `bytes` from a table entry, computed apart from the library:
/// exact at a measured size, else on the segment through the nearest two
/// (Cortex-M: the cycle estimates); RSA one operation per OAEP-SHA-256 block
/// (at most modulus - 66 bytes each, RFC 8017 §7.1.1).
fn cycles(entry: &Value, per_block: bool, bytes: f64) -> f64 {
    let estimates = entry["cycle_estimates"].as_array().unwrap();
    let pts: Vec<(f64, f64)> = if estimates.is_empty() {
        entry["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect()
    } else {
        estimates
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect()
    };
    if per_block {
        return (bytes / (pts[0].0 - 66.0)).ceil() * pts[0].1;
    }
    if let Some(p) = pts.iter().find(|p| p.0 == bytes) {
        return p.1;
    }
    let right = pts
        .iter()
        .position(|p| p.0 > bytes)
        .unwrap_or(pts.len() - 1)
        .max(1);
    let ((x0, y0), (x1, y1)) = (pts[right - 1], pts[right]);
    y0 + (y1 - y0) / (x1 - x0) * (bytes - x0)
}

#[test]
fn reproduce_lora_on_the_mkr1300_carries_figures_2_to_4_and_every_algorithm() {
    let doc = json(&["reproduce", "lora", "--target", "cortex-m0plus"]);
    let study = data("data/studies/004_lora.json");
    let table = data("data/device-costs/cortex-m0plus.json");
    assert_eq!(doc["study"], "lora-device");
    assert_eq!(doc["target"], "cortex-m0plus");
    // The board from the data file: 48 MHz, 32 KB RAM, 256 KB flash.
    assert_eq!(doc["board"]["clock_hz"], 48_000_000);
    assert_eq!(doc["board"]["ram_bytes"], 32768);
    assert_eq!(doc["board"]["flash_bytes"], 262144);
    let clock = 48e6;
    let rows = doc["rows"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let paper: Vec<&str> = study["algorithms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(names, paper, "all eleven, in the paper's order");
    let mut with_numbers = 0;
    for r in rows {
        let name = r["name"].as_str().unwrap();
        if r["message"].is_null() {
            // No numbers: a stated reason, never a zero.
            let why = r["reason"].as_str().unwrap_or_else(|| panic!("{name}"));
            assert!(why.contains("cortex-m0plus"), "{name}: {why}");
            assert!(r["sizes"].as_array().unwrap().is_empty());
            continue;
        }
        with_numbers += 1;
        assert!(r["reason"].is_null(), "{name}");
        let id = r["device_id"].as_str().unwrap();
        let op = r["operation"].as_str().unwrap();
        let entry = table["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["algorithm"] == id && e["operation"] == op)
            .unwrap_or_else(|| panic!("{name}: {id} {op} not in the table"));
        let per_block = r["per_block"].as_bool().unwrap();
        // Fig. 3: 100 B at the board's clock, from the table.
        let us = r["message"]["us"].as_f64().unwrap();
        let want = cycles(entry, per_block, 100.0) / clock * 1e6;
        assert!(
            us > 0.0 && (us - want).abs() < 1e-6 * want,
            "{name}: {us} vs {want}"
        );
        let kb = r["message"]["kb_per_s"].as_f64().unwrap();
        assert!((kb - 100.0 / us * 1e3).abs() < 1e-9 * kb, "{name}");
        // Fig. 2: the table's code size.
        assert_eq!(r["code_size_bytes"], entry["code_size_bytes"], "{name}");
        // Fig. 4: 16 to 500 B, RAM need at 500 B against 32 KB.
        let sizes = r["sizes"].as_array().unwrap();
        assert_eq!(sizes.first().unwrap()["bytes"], 16);
        let last = sizes.last().unwrap();
        assert_eq!(last["bytes"], 500);
        let ram = last["ram_bytes"].as_u64().unwrap();
        assert!(ram > 500 + r["stack_bytes"].as_u64().unwrap(), "{name}");
        assert_eq!(last["fits_ram"], ram <= 32768);
        // Encryption time / time on air for SF7..SF12.
        let air = r["airtime"].as_array().unwrap();
        let sfs: Vec<u64> = air.iter().map(|a| a["sf"].as_u64().unwrap()).collect();
        assert_eq!(sfs, [7, 8, 9, 10, 11, 12]);
        for a in air {
            let toa = a["toa_ms"].as_f64().unwrap();
            let ratio = a["ratio"].as_f64().unwrap();
            assert!(toa > 0.0 && (ratio - us / 1e3 / toa).abs() < 1e-9, "{name}");
        }
    }
    // The table ships at least study 003's ciphers: PRESENT, PICCOLO, AES, CLEFIA.
    assert!(with_numbers >= 4, "{with_numbers}");
    let verdicts = doc["sf_verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 6);
    for v in verdicts {
        assert_eq!(v["of"].as_u64().unwrap(), with_numbers);
    }
    // Each of the paper's findings, with a verdict and why.
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            assert!(!f["ours"].as_str().unwrap().is_empty());
            assert!(f["verdict"].is_string());
            f["id"].as_str().unwrap()
        })
        .collect();
    for id in [
        "pi_des_xchacha_fastest",
        "arduino_des_md5_best",
        "mkr_fails_500_bytes",
        "encryption_time_equals_toa",
        "sf12_size_sensitive",
    ] {
        assert!(ids.contains(&id), "{id}");
    }
    // The time-on-air tables come along.
    assert_eq!(
        doc["airtime"]["spreading_factors"]
            .as_array()
            .unwrap()
            .len(),
        8
    );
}

#[test]
fn the_table_names_each_figure_and_the_verdict_per_sf() {
    let out = cm()
        .args(["reproduce", "lora", "--target", "m0plus"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for want in [
        "Arduino MKR WAN 1300",
        "Fig. 2 and Fig. 3",
        "Fig. 4",
        "RAM@500 B",
        "SF12:",
        "[encryption_time_equals_toa]",
        "Study 004 — LoRa time on air",
    ] {
        assert!(text.contains(want), "{want}");
    }
}

#[test]
fn bad_targets_and_sizes_exit_2_and_say_what_is_valid() {
    let out = cm()
        .args(["reproduce", "lora", "--target", "esp32"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cortex-m0plus") && err.contains("atmega1284p"),
        "{err}"
    );
    let out = cm()
        .args(["reproduce", "lora", "--target", "cortex-m4", "--bytes", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bytes"));
}

/// Issue 14 item 5: above 255 B the plaintext needs two packets like every
/// algorithm row, and no time-on-air cell is a zero standing for an error.
/// The packets are the sealing core's fragments, as every LoRa link costs
/// them: 2 + 253 B and 2 + 147 B.
#[test]
fn a_400_byte_plaintext_counts_two_packets_and_no_cell_is_an_error_as_zero() {
    let doc = json(&["reproduce", "lora", "--bytes", "400"]);
    let plain = &doc["plaintext"];
    assert_eq!(plain["on_air"], 400);
    for sf in ["sf7", "sf12"] {
        assert_eq!(plain[sf]["packets"], 2, "{sf}");
    }
    // SF7, 125 kHz, CR 4/5, explicit header, CRC on, 8-symbol preamble (SX1276
    // datasheet §4.1.1.7): 1.024 ms symbols, 12.25 preamble symbols, payload
    // 8 + ceil((8·PL − 28 + 28 + 16) / 28) × 5 symbols: 378 for 255 B, 228 for 149 B.
    let ms = plain["sf7"]["ms"].as_f64().unwrap();
    let want = (12.25 + 378.0) * 1.024 + (12.25 + 228.0) * 1.024;
    assert!((ms - want).abs() < 1e-6, "{ms} vs {want}");
    let mut cells: Vec<&Value> = doc["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["cells"].as_array().unwrap())
        .collect();
    for r in doc["algorithms"].as_array().unwrap().iter().chain([plain]) {
        cells.push(&r["sf7"]);
        cells.push(&r["sf12"]);
    }
    for c in cells {
        match (c["ms"].as_f64(), c["error"].as_str()) {
            (Some(ms), None) => assert!(ms > 0.0, "{c}"),
            (None, Some(e)) => assert!(!e.is_empty(), "{c}"),
            _ => panic!("a cell is neither a time nor an error: {c}"),
        }
    }
    let text = cm()
        .args(["reproduce", "lora", "--bytes", "400"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("(plaintext)")).unwrap();
    assert!(line.contains("2x:"), "{line}");
}
