//! `link` and `energy` with a real message (`--scheme`, `--sample`, `--container`), run
//! as a user runs them. No assertion depends on how fast this machine is.

use std::path::Path;

use assert_cmd::Command;
use payload::{Format, chain_reading};
use predicates::prelude::*;
use seal::{Container, KEY_ID_LEN, NoncePolicy, Scheme, SealKey, seal_with_key};

fn cm() -> Command {
    let mut c = Command::cargo_bin("ciphermeter").unwrap();
    c.env_remove("CIPHERMETER_DATA_DIR");
    c
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = cm().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The reading the CLI builds for `--sample chain:10` (default seed 1, compact JSON).
fn chain10() -> Vec<u8> {
    Format::JsonMin.serialize(&chain_reading(10, 1)).unwrap()
}

/// Size of the same reading sealed by the library under another random key.
fn sealed_len(scheme: &str, container: Container) -> usize {
    let key = SealKey::generate(Scheme::parse(scheme).unwrap(), NoncePolicy::Random).unwrap();
    seal_with_key(&key, false, container, &chain10(), b"")
        .unwrap()
        .len()
}

fn link_bytes(link: &str, bytes: u64) -> serde_json::Value {
    json(&[
        "link",
        "--link",
        link,
        "--bytes",
        &bytes.to_string(),
        "--format",
        "json",
    ])
}

#[test]
fn link_sealed_chain_agrees_with_bytes_of_the_same_size() {
    for link in [
        "lorawan-eu868-dr5",
        "lora-sf7-125",
        "lora-sf12-125",
        "slice-of-radio",
    ] {
        for container in ["json", "binary", "cose"] {
            let v = json(&[
                "link",
                "--link",
                link,
                "--scheme",
                "aead:aes-128-gcm",
                "--sample",
                "chain:10",
                "--container",
                container,
                "--format",
                "json",
            ]);
            let plain = v["plaintext"]["message_bytes"].as_u64().unwrap();
            let sealed = v["sealed"]["message_bytes"].as_u64().unwrap();
            assert_eq!(plain as usize, chain10().len());
            assert_eq!(
                sealed as usize,
                sealed_len("aead:aes-128-gcm", container.parse().unwrap()),
                "{link} {container}"
            );
            assert_eq!(v["sealed"]["scheme"], "aead:aes-128-gcm");
            assert_eq!(v["added_bytes"].as_i64().unwrap(), (sealed - plain) as i64);
            // The same numbers as costing a byte count of that size.
            for (row, n) in [("plaintext", plain), ("sealed", sealed)] {
                let b = link_bytes(link, n);
                for field in [
                    "on_air_bytes",
                    "frames",
                    "airtime_ms",
                    "rx_ms",
                    "delivery_ms",
                ] {
                    assert_eq!(v[row][field], b[field], "{link} {container} {row} {field}");
                }
            }
        }
    }
}

#[test]
fn binary_container_adds_its_documented_header() {
    // docs of the binary container: version 1 + scheme id 4 + K 1 + key id + N 1 +
    // nonce 12 + A 2 + T 1, then ciphertext (same length as the plaintext) and a 16-byte tag.
    let v = json(&[
        "link",
        "--link",
        "lora-sf7-125",
        "--scheme",
        "aes-128-gcm",
        "--container",
        "binary",
        "--format",
        "json",
    ]);
    assert_eq!(v["sample"], "chain:10", "chain:10 is the default sample");
    let added = v["added_bytes"].as_u64().unwrap() as usize;
    assert_eq!(added, 1 + 4 + 1 + KEY_ID_LEN + 1 + 12 + 2 + 1 + 16);
    // Hex transport doubles the sealed message.
    let hex = json(&[
        "link",
        "--link",
        "lora-sf7-125",
        "--scheme",
        "aes-128-gcm",
        "--container",
        "binary",
        "--encoding",
        "hex",
        "--format",
        "json",
    ]);
    assert_eq!(
        hex["sealed"]["message_bytes"].as_u64().unwrap(),
        2 * v["sealed"]["message_bytes"].as_u64().unwrap()
    );
}

#[test]
fn link_table_reports_lorawan_frames_for_both_messages() {
    // chain:10 as JSON fits one DR5 frame (222 B); in the JSON container it needs two.
    let plain = chain10().len();
    let sealed = sealed_len("aead:aes-128-gcm", Container::Json);
    assert!(plain <= 222 && sealed > 222, "{plain} {sealed}");
    cm().args([
        "link",
        "--link",
        "lorawan-eu868-dr5",
        "--scheme",
        "aead:aes-128-gcm",
        "--sample",
        "chain:10",
    ])
    .assert()
    .success()
    .stdout(
        predicate::str::contains(format!("{plain} B"))
            .and(predicate::str::contains(format!("{sealed} B")))
            .and(predicate::str::contains("fits one (<= 222 B)"))
            .and(predicate::str::contains("2 frames (<= 222 B each)"))
            .and(predicate::str::contains("does not fit one frame"))
            .and(predicate::str::contains("duty cycle")),
    );
    // Other patterns seal too: EtM and HMAC.
    for scheme in ["etm:aes-128-cbc+hmac-sha256", "hmac:hmac-sha256"] {
        let v = json(&[
            "link",
            "--link",
            "ble-1m-251",
            "--scheme",
            scheme,
            "--format",
            "json",
        ]);
        assert_eq!(
            v["sealed"]["message_bytes"].as_u64().unwrap() as usize,
            sealed_len(scheme, Container::Json)
        );
    }
}

#[test]
fn legacy_schemes_need_allow_insecure_and_are_marked() {
    let args = [
        "link",
        "--link",
        "lora-sf7-125",
        "--scheme",
        "etm:des-cbc+hmac-sha256",
    ];
    cm().args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--allow-insecure"));
    cm().args(args)
        .arg("--allow-insecure")
        .assert()
        .success()
        .stdout(predicate::str::contains("INSECURE"));
}

#[test]
fn energy_with_a_scheme_measures_the_seal_and_compares_with_plaintext() {
    let v = json(&[
        "energy",
        "--device",
        "sodaq-mbili",
        "--link",
        "lorawan-eu868-dr5",
        "--scheme",
        "aead:aes-128-gcm",
        "--sample",
        "chain:10",
        "--container",
        "binary",
        "--interval",
        "10m",
        "--battery",
        "2xAA",
        "--cpu-from",
        "host",
        "--quick",
        "--format",
        "json",
    ]);
    assert!(v["label"].as_str().unwrap().contains("model estimate"));
    assert!(
        v["cpu_time_source"]
            .as_str()
            .unwrap()
            .contains("host-measured on this machine, scaled by nothing")
    );
    assert!(v["cpu_time_us"].as_f64().unwrap() > 0.0);
    assert!(v["cpu_time_measurement"]["samples"].as_u64().unwrap() >= 3);
    let m = v["messages"].as_array().unwrap();
    assert_eq!(m[0]["message"], "plaintext");
    assert_eq!(
        m[0]["message_bytes"].as_u64().unwrap() as usize,
        chain10().len()
    );
    assert_eq!(
        m[1]["message_bytes"].as_u64().unwrap() as usize,
        sealed_len("aead:aes-128-gcm", Container::Binary)
    );
    assert_eq!(m[0]["cpu_uj"], 0.0);
    assert!(m[1]["cpu_uj"].as_f64().unwrap() > 0.0);
    for row in m {
        let (cpu, radio) = (
            row["cpu_share"].as_f64().unwrap(),
            row["radio_share"].as_f64().unwrap(),
        );
        assert!((cpu + radio - 1.0).abs() < 1e-9, "{row}");
    }
    let d = &v["sealing_adds"];
    assert!(d["cpu_uj"].as_f64().unwrap() > 0.0);
    assert!(d["radio_uj"].as_f64().unwrap() > 0.0);
    assert!(d["battery_days"].as_f64().unwrap() < 0.0);
}

/// On the segment between the two measured sizes around `bytes` (extended
/// past the ends), as the device cost tables interpolate; and that segment's
/// right end.
fn between(points: &[(f64, f64)], bytes: f64) -> (f64, usize) {
    let right = points
        .iter()
        .position(|p| p.0 > bytes)
        .unwrap_or(points.len() - 1)
        .max(1);
    let (a, b) = (points[right - 1], points[right]);
    (a.1 + (b.1 - a.1) / (b.0 - a.0) * (bytes - a.0), right)
}

/// `energy` on DEVICE for study 003's pick, AES-256-GCM, on a chain:10 reading, as JSON.
fn device_energy(device: &str, db: &Path) -> serde_json::Value {
    json(&[
        "energy",
        "--device",
        device,
        "--link",
        "lorawan-eu868-dr3",
        "--scheme",
        "aead:aes-256-gcm",
        "--sample",
        "chain:10",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "json",
    ])
}

/// AES-256-GCM's seal entry of a shipped device cost table, by the
/// implementation `energy` named (the fastest whole seal path there).
fn shipped_gcm_seal(table: &str, implementation: &serde_json::Value) -> serde_json::Value {
    let implementation = implementation
        .as_str()
        .expect("energy names the implementation");
    let table: serde_json::Value = serde_json::from_str(table).unwrap();
    table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| {
            e["algorithm"] == "aead:aes-256-gcm"
                && e["operation"] == "seal-json"
                && e.get("implementation")
                    .and_then(|i| i.as_str())
                    .unwrap_or("rustcrypto")
                    == implementation
        })
        .expect("the table has AES-256-GCM's seal")
        .clone()
}

/// Without a flag, a simulated device's seal time is its own: the ATmega1284P's
/// cycle count for that reading from the shipped table, at 8 MHz, never the host's.
#[test]
fn energy_takes_the_cpu_time_from_the_device_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let v = device_energy("sodaq-mbili", &db);
    let source = v["cpu_time_source"].as_str().unwrap();
    assert!(
        source.contains("atmega1284p") && source.contains("device cost table"),
        "{source}"
    );
    assert!(!source.contains("host"), "{source}");
    // RustCrypto's is not the fastest whole AES-GCM seal path on the
    // ATmega1284P (ours with its own GHASH, or Mbed TLS's); the fastest is used.
    assert_ne!(v["implementation"], "rustcrypto", "{v}");
    let entry = shipped_gcm_seal(
        include_str!("../../../data/device-costs/atmega1284p.json"),
        &v["implementation"],
    );
    // The table's exact cycles at the two firmware readings around this one.
    let points: Vec<(f64, f64)> = serde_json::from_value(entry["points"].clone()).unwrap();
    let bytes = chain10().len() as f64;
    let (cycles, _) = between(&points, bytes);
    let expected_us = cycles / 8.0;
    let us = v["cpu_time_us"].as_f64().unwrap();
    assert!(
        (us - expected_us).abs() <= 1e-9 * expected_us,
        "{us} vs {expected_us}"
    );
    assert!(us > 10_000.0, "an 8-bit MCU takes tens of ms: {us}");

    // The MKR WAN 1300's SAMD21 (Cortex-M0+, 48 MHz, one flash wait state):
    // QEMU's exact instruction mix priced with ARM's timings, from the table.
    let m0 = device_energy("mkr-wan-1300", &db);
    let source = m0["cpu_time_source"].as_str().unwrap();
    assert!(
        source.contains("cortex-m0plus at 48 MHz") && source.contains("cycles estimated"),
        "{source}"
    );
    let entry = shipped_gcm_seal(
        include_str!("../../../data/device-costs/cortex-m0plus.json"),
        &m0["implementation"],
    );
    let estimates: Vec<(f64, f64, f64, f64)> =
        serde_json::from_value(entry["cycle_estimates"].clone()).unwrap();
    let estimated: Vec<(f64, f64)> = estimates.iter().map(|e| (e.0, e.1)).collect();
    let (cycles, right) = between(&estimated, bytes);
    let us = m0["cpu_time_us"].as_f64().unwrap();
    assert!(
        (us - cycles / 48.0).abs() <= 1e-9 * us,
        "{us} vs {}",
        cycles / 48.0
    );
    // More than one cycle per instruction: the estimate is above the count.
    let instructions = entry["points"][right][1].as_f64().unwrap();
    assert!(
        estimated[right].1 > instructions,
        "{estimated:?} vs {instructions}"
    );

    // A device no simulator runs has no time of its own: said so, exit 2.
    cm().args(["energy", "--device", "esp32", "--link", "ble-1m-251"])
        .args([
            "--scheme",
            "aead:chacha20-poly1305",
            "--db",
            db.to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--cpu-from host"));
}

#[test]
fn energy_with_a_device_level_time_uses_it() {
    let v = json(&[
        "energy",
        "--device",
        "sodaq-mbili",
        "--link",
        "lorawan-eu868-dr5",
        "--scheme",
        "aead:aes-128-gcm",
        "--cpu-us",
        "1500",
        "--format",
        "json",
    ]);
    assert_eq!(
        v["cpu_time_source"],
        "device-level, user-supplied (--cpu-us)"
    );
    assert!(v["cpu_time_measurement"].is_null());
    // 3.3 V x 3.5 mA x 1.5 ms = 17.325 uJ (SODAQ Mbili profile).
    let cpu = v["messages"][1]["cpu_uj"].as_f64().unwrap();
    assert!((cpu - 17.325).abs() < 1e-9, "{cpu}");
    cm().args([
        "energy",
        "--device",
        "esp32",
        "--link",
        "ble-1m-251",
        "--scheme",
        "chacha20-poly1305",
        "--battery",
        "cr2032",
        "--cpu-from",
        "host",
        "--quick",
    ])
    .assert()
    .success()
    .stdout(
        predicate::str::contains("CPU%")
            .and(predicate::str::contains("radio%"))
            .and(predicate::str::contains("plaintext"))
            .and(predicate::str::contains("host-measured"))
            .and(predicate::str::contains("sealing adds"))
            .and(predicate::str::contains("battery life"))
            .and(predicate::str::contains("model estimate")),
    );
}

#[test]
fn bad_message_input_exits_2() {
    let link = ["link", "--link", "lora-sf7-125"];
    let energy = [
        "energy",
        "--device",
        "esp32",
        "--link",
        "ble-1m-251",
        "--quick",
    ];
    let cases: [(&[&str], &[&str], &str); 11] = [
        (&link, &["--scheme", "aead:rot13"], "rot13"),
        (
            &link,
            &["--scheme", "aead:aes-128-cbc"],
            "not authenticated",
        ),
        (
            &link,
            &["--scheme", "aes-128-gcm", "--sample", "chain:0"],
            "--sample",
        ),
        (
            &link,
            &["--scheme", "aes-128-gcm", "--sample", "banana"],
            "--sample",
        ),
        (
            &link,
            &["--sample", "chain:10", "--container", "binary"],
            "add --scheme",
        ),
        (
            &link,
            &["--scheme", "aes-128-gcm", "--container", "xml"],
            "--container",
        ),
        (
            &link,
            &["--scheme", "aes-128-gcm", "--encoding", "hex"],
            "text already",
        ),
        (
            &link,
            &[
                "--scheme",
                "aes-128-gcm",
                "--sample",
                "random:9",
                "--serialization",
                "cbor",
            ],
            "does not apply",
        ),
        (&energy, &["--scheme", "aead:rot13"], "rot13"),
        (&energy, &["--sample", "chain:10"], "add --scheme"),
        (
            &energy,
            &["--scheme", "aes-128-gcm", "--sample", "chain:x"],
            "--sample",
        ),
    ];
    for (cmd, extra, msg) in cases {
        cm().args(cmd)
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(msg));
    }
    // A byte count and a scheme cannot both say what is sent (clap: exit 2).
    cm().args(link)
        .args(["--bytes", "10", "--scheme", "aes-128-gcm"])
        .assert()
        .code(2);
    cm().args(energy)
        .args(["--overhead", "28", "--scheme", "aes-128-gcm"])
        .assert()
        .code(2);
}

#[test]
fn reproduce_lora_takes_every_study_004_algorithm_from_the_catalogue() {
    cm().args(["reproduce", "lora", "--quick"])
        .assert()
        .success()
        // 100 B under a 64-bit block cipher in CBC: PKCS#7 to 104 B + 8 B IV = 112 B.
        .stdout(predicate::str::is_match(r"PRESENT\s+present-80-cbc\s+112 ").unwrap())
        .stdout(predicate::str::is_match(r"PICCOLO\s+piccolo-80-cbc\s+112 ").unwrap())
        // RSA-2048 OAEP-SHA-256 carries at most 256 - 66 = 190 B per block (RFC 8017 §7.1.1).
        .stdout(predicate::str::is_match(r"RSA\s+rsa-2048-oaep-sha256\s+256 ").unwrap())
        .stdout(predicate::str::contains("at most 190 B each"))
        .stdout(predicate::str::contains("left out").not());
}

/// On LoRaWAN, `link` builds the real uplinks: their lengths are what it counts,
/// the FOpts ride in clear in the first frame's header (1.0.x), and the security
/// overhead adds the network's MICs to the application's sealing.
#[test]
fn link_builds_the_real_lorawan_frames_with_fopts_and_counts_both_layers() {
    let v = json(&[
        "link",
        "--link",
        "lorawan-eu868-dr0",
        "--scheme",
        "aead:aes-128-gcm",
        "--container",
        "binary",
        "--f-opts",
        "0203",
        "--format",
        "json",
    ]);
    let sealed_bytes = sealed_len("aead:aes-128-gcm", Container::Binary);
    let frames: Vec<Vec<u8>> = v["lorawan_frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| hex::decode(f.as_str().unwrap()).unwrap())
        .collect();
    // DR0 carries 51 B per frame; the first loses 2 B to the FOpts, and the
    // message goes in the sealing core's fragments cut to that room.
    let n = seal::fragment::count(sealed_bytes, 51 - 2).unwrap();
    assert_eq!(frames.len(), n);
    let on_air: usize = frames.iter().map(Vec::len).sum();
    assert_eq!(on_air, sealed_bytes + 2 + (seal::fragment::HEADER + 13) * n);
    assert_eq!(v["sealed"]["on_air_bytes"], on_air);
    let first = &frames[0];
    assert_eq!(first[0], 0x40, "unconfirmed data up");
    assert_eq!(first[5] & 0x0f, 2, "FCtrl.FOptsLen");
    assert_eq!(&first[8..10], &[0x02, 0x03], "FOpts in clear");
    assert!(
        frames[1..].iter().all(|f| f[5] & 0x0f == 0),
        "FOpts only once"
    );
    let sec = &v["security_overhead"];
    let plain = chain10().len() as i64;
    assert_eq!(sec["network_bytes"], 4 * frames.len());
    assert_eq!(sec["application_bytes"], sealed_bytes as i64 - plain);
    assert_eq!(
        sec["total_bytes"],
        4 * frames.len() as i64 + sealed_bytes as i64 - plain
    );

    // Energy counts the same frames: the FOpts add their bytes on air.
    let energy = |f_opts: &str| {
        json(&[
            "energy",
            "--device",
            "sodaq-mbili",
            "--link",
            "lorawan-eu868-dr3",
            "--bytes",
            "40",
            "--cpu-us",
            "100",
            "--f-opts",
            f_opts,
            "--format",
            "json",
        ])
    };
    let (without, with) = (energy(""), energy("0203"));
    for (v, on_air) in [(&without, 40 + 13), (&with, 40 + 13 + 2)] {
        for m in v["messages"].as_array().unwrap() {
            assert_eq!(m["on_air_bytes"], on_air, "{m}");
        }
    }

    // FOpts are LoRaWAN's, and at most 15 bytes.
    cm().args([
        "link",
        "--link",
        "ble-1m-251",
        "--bytes",
        "40",
        "--f-opts",
        "02",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("FOpts belong to LoRaWAN frames"));
    cm().args([
        "link",
        "--link",
        "lorawan-eu868-dr3",
        "--bytes",
        "40",
        "--f-opts",
        "00".repeat(16).as_str(),
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("at most 15 bytes"));
}
