//! On every simulated device, `recommend` ranks every safe scheme with the
//! device's own seal time (the sealing core's whole path, measured in the
//! shipped device cost tables), or marks it as not fitting the device with
//! the reason and sizes. Never this host's time silently. Run as a user
//! runs it, with a throwaway results store (so only the shipped tables count).

use assert_cmd::Command;

mod support;
use support::run::stdout_ok;

/// `recommend` on LoRaWAN DR5, MAC-only schemes included.
fn recommend(device: &str, extra: &[&str]) -> serde_json::Value {
    recommend_on(
        device,
        "lorawan-eu868-dr5",
        &[&["--need", "integrity"][..], extra].concat(),
    )
}

#[test]
fn every_ranked_scheme_has_device_numbers_or_does_not_fit() {
    for device in [
        "sodaq-mbili",
        "mkr-wan-1300",
        "stm32l0",
        "nrf52840",
        "esp32-c3",
    ] {
        let doc = recommend(device, &[]);
        let rows = doc["rows"].as_array().unwrap();
        assert!(rows.len() >= 50, "{device}: only {} rows", rows.len());
        for r in rows {
            assert_eq!(
                r["device_measured"], true,
                "{device}: {} is ranked without device numbers: {}",
                r["scheme"], r["cpu_time_source"]
            );
            assert!(r["device_failure"].is_null(), "{device}: {r}");
            assert!(r["code_size_bytes"].as_i64().unwrap() > 0, "{device}: {r}");
            assert!(r["stack_bytes"].as_u64().unwrap() > 0, "{device}: {r}");
        }
        // What does not fit the device is listed apart, with its sizes.
        for e in doc["excluded"].as_array().unwrap() {
            let why = e["why"].as_str().unwrap();
            if why.contains("does not fit") {
                assert!(why.starts_with("not on "), "{device}: {e}");
                assert!(why.chars().any(|c| c.is_ascii_digit()), "{device}: {e}");
                assert!(
                    rows.iter().all(|r| r["scheme"] != e["scheme"]),
                    "{device}: {e} is also ranked"
                );
            }
        }
        // The modern choices are among the measured ones.
        for scheme in [
            "aead:chacha20-poly1305",
            "aead:ascon-aead128",
            "aead:aes-128-ccm",
        ] {
            let row = rows.iter().find(|r| r["scheme"] == scheme).unwrap();
            assert_eq!(row["device_measured"], true, "{device}: {row}");
        }
    }
}

#[test]
fn the_container_is_part_of_the_choice() {
    let doc = recommend("nrf52840", &["--container", "all"]);
    let rows = doc["rows"].as_array().unwrap();
    // The software rows (an engine's are beside them, tested below).
    let gcm: Vec<_> = rows
        .iter()
        .filter(|r| r["scheme"] == "aead:aes-128-gcm" && r["engine"].is_null())
        .collect();
    let containers: Vec<&str> = gcm
        .iter()
        .map(|r| r["container"].as_str().unwrap())
        .collect();
    assert_eq!(gcm.len(), 3, "{containers:?}");
    for c in ["json", "binary", "cose"] {
        assert!(containers.contains(&c), "{containers:?}");
    }
    // Base64 and field names cost bytes: json is the longest message.
    let bytes = |c: &str| {
        gcm.iter().find(|r| r["container"] == c).unwrap()["sealed_bytes"]
            .as_u64()
            .unwrap()
    };
    assert!(bytes("json") > bytes("cose") && bytes("json") > bytes("binary"));
    assert!(gcm.iter().all(|r| r["device_measured"] == true));
}

/// A sensor's reading is often a few bytes. The device tables time the seal
/// path from a 1-byte reading up, so such a seal is costed from a
/// measurement, never from the smallest chain's 64 B standing in nor a line
/// carried below it, and AES-256-GCM is never cheaper than AES-128-GCM in the
/// same implementation (a line once made it so at 10 B). A longer reading may
/// cost less: RustCrypto's GCM seals 32 B in fewer instructions than 24 B
/// on the Cortex-M4, a measured fact the tables keep.
#[test]
fn small_readings_are_costed_from_measurements_in_every_container() {
    let paths = |payload: &str, container: &str| {
        let doc = recommend_on(
            "nrf52840",
            "ble-1m-251",
            &["--sample", payload, "--container", container],
        );
        let mut out = std::collections::BTreeMap::new();
        for r in doc["rows"].as_array().unwrap() {
            let scheme = r["scheme"].as_str().unwrap().to_string();
            let source = r["cpu_time_source"].as_str().unwrap();
            assert!(
                !source.contains("smallest reading measured"),
                "{payload} in {container}: {scheme} costed below a measured size: {source}"
            );
            for p in r["seal_paths"].as_array().unwrap() {
                let imp = p["implementation"].as_str().unwrap().to_string();
                out.insert((scheme.clone(), imp), p["cpu_time_us"].as_f64().unwrap());
            }
        }
        out
    };
    for container in ["json", "binary", "cose"] {
        let one = paths("random:1", container);
        let ten = paths("random:10", container);
        assert!(one.len() > 40, "{container}: {}", one.len());
        let mut compared = 0;
        for costs in [&one, &ten] {
            for ((scheme, imp), us) in costs {
                if scheme == "aead:aes-256-gcm"
                    && let Some(aes128) = costs.get(&("aead:aes-128-gcm".to_string(), imp.clone()))
                {
                    assert!(
                        us >= aes128,
                        "{container} {imp}: AES-256-GCM {us} µs < AES-128-GCM {aes128} µs"
                    );
                    compared += 1;
                }
            }
        }
        assert!(
            compared >= 6,
            "{container}: {compared} implementations compared"
        );
    }
}

/// `recommend` on a fresh store, all rows shown: its standard output.
fn recommend_stdout(device: &str, link: &str, extra: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    stdout_ok(
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .env_remove("CIPHERMETER_DATA_DIR")
            .args(["recommend", "--device", device, "--link", link])
            .args(["--top", "200", "--db"])
            .arg(dir.path().join("results.sqlite"))
            .args(extra),
    )
}

fn recommend_on(device: &str, link: &str, extra: &[&str]) -> serde_json::Value {
    let out = recommend_stdout(device, link, &[extra, &["--format", "json"]].concat());
    serde_json::from_slice(&out).unwrap()
}

/// On the ESP32-C3 a table lookup through the flash cache leaks the key
/// (data/constant-time/riscv32imc.json): `recommend` ranks no build that leaks
/// there, falling back to the scheme's best one that does not; `--allow-leaky`
/// ranks the faster leaking builds, marked.
#[test]
fn no_build_that_leaks_on_the_device_is_ranked_unless_asked() {
    let safe = recommend_on("esp32-c3", "ble-1m-251", &[]);
    let leaky = recommend_on("esp32-c3", "ble-1m-251", &["--allow-leaky"]);
    let rows = |doc: &serde_json::Value| doc["rows"].as_array().unwrap().clone();
    for r in rows(&safe) {
        let ct = &r["constant_time"];
        assert_ne!(ct["verdict"], "leaks", "ranked though it leaks: {r}");
        assert_ne!(r["status"], "leaky", "{r}");
        assert!(
            ct["verdict"] == "constant-time" || ct["verdict"] == "not checked",
            "{r}"
        );
    }
    // Software rows: an engine's row is costed apart and its timing unchecked.
    let marked: Vec<_> = rows(&leaky)
        .into_iter()
        .filter(|r| r["constant_time"]["verdict"] == "leaks" && r["engine"].is_null())
        .collect();
    assert!(!marked.is_empty(), "--allow-leaky ranked no leaking build");
    let mut fell_back = 0;
    for r in &marked {
        assert_eq!(r["status"], "leaky", "{r}");
        let leak = r["constant_time"]["leak"].as_str().unwrap();
        assert!(leak.contains(" in "), "the leak names no function: {leak}");
        // The same scheme without --allow-leaky: another implementation, slower.
        let fallback = rows(&safe).into_iter().find(|s| {
            s["scheme"] == r["scheme"] && s["container"] == r["container"] && s["engine"].is_null()
        });
        if let Some(s) = fallback {
            assert_ne!(s["implementation"], r["implementation"], "{s}");
            assert!(
                s["cpu_time_us"].as_f64() >= r["cpu_time_us"].as_f64(),
                "{s}\n{r}"
            );
            fell_back += 1;
        }
    }
    assert!(
        fell_back > 0,
        "no scheme fell back to a build that does not leak"
    );
    // The text table's timing column says the same, row by row.
    let text = |extra: &[&str]| {
        String::from_utf8(recommend_stdout("esp32-c3", "ble-1m-251", extra)).unwrap()
    };
    let rows_of = |t: &str| -> Vec<String> {
        t.lines()
            .skip_while(|l| !l.trim_start().starts_with("#  scheme"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|r| r.parse::<u32>().is_ok())
            })
            .map(str::to_string)
            .collect()
    };
    let (safe_text, leaky_text) = (text(&[]), text(&["--allow-leaky"]));
    assert!(safe_text.contains("battery d  timing"), "{safe_text}");
    for row in rows_of(&safe_text) {
        assert!(row.ends_with(" ct") || row.ends_with(" unchecked"), "{row}");
    }
    let leaking: Vec<String> = rows_of(&leaky_text)
        .into_iter()
        .filter(|r| r.ends_with(" LEAKS"))
        .collect();
    assert_eq!(leaking.len(), marked.len(), "{leaky_text}");
    assert!(leaking.iter().all(|r| r.contains("[LEAKY]")), "{leaking:?}");
}

/// The MKR WAN 1300 (SAMD21, 32 KB) shares the Cortex-M0+ table, measured on
/// a micro:bit given 32 KB, with smaller parts: Serpent's EtM build, which
/// needs about 9 KB, is ranked on the first and, on a part with 8 KB (a
/// profile of the test's own, in a copy of `data/`), listed apart as not
/// fitting its RAM, with both sizes and where it ran. The board is where the
/// code ran, never the verdict. (Twofish's build, which needed 30 KB and
/// showed this on the 20 KB STM32L0, needs 35 KB since the wipes on drop
/// and fits neither.)
#[test]
fn a_device_with_less_ram_than_the_board_is_judged_by_the_build_s_need() {
    let serpent = "etm:serpent-128-ctr+hmac-sha256";
    let mkr = recommend("mkr-wan-1300", &["--allow-leaky"]);
    assert!(
        mkr["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["scheme"] == serpent),
        "ranked on the 32 KB SAMD21: {}",
        mkr["excluded"]
    );
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let copied = std::process::Command::new("cp")
        .arg("-r")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data"))
        .arg(&data)
        .status()
        .unwrap();
    assert!(copied.success());
    let devices = data.join("devices/modern-boards.toml");
    let mut toml = std::fs::read_to_string(&devices).unwrap();
    toml.push_str(
        r#"
[[device]]
name = "m0-8k"
title = "A Cortex-M0+ with 8 KB of RAM (recommend_device_cli's)"
cpu = "Cortex-M0+"
clock_mhz = { value = 32.0, source = "the test's" }
simulated_target = { value = "cortex-m0plus", source = "the test's" }
part = { value = "atsamd21g18a", source = "the test's" }
voltage_v = { value = 3.0, source = "the test's" }
flash_kib = { value = 192, source = "the test's" }
ram_kib = { value = 8, source = "the test's" }
active_ma = { value = 3.0, source = "the test's" }
sleep_ua = { value = 0.8, source = "the test's" }
"#,
    );
    std::fs::write(&devices, toml).unwrap();
    let small = recommend(
        "m0-8k",
        &["--allow-leaky", "--data-dir", data.to_str().unwrap()],
    );
    let excluded = small["excluded"].as_array().unwrap();
    let why = excluded
        .iter()
        .find(|e| e["scheme"] == serpent)
        .and_then(|e| e["why"].as_str())
        .unwrap_or_else(|| panic!("{serpent} is not listed apart on the 8 KB part: {excluded:?}"));
    assert!(
        why.contains("does not fit in m0-8k's RAM (8192 B): it needs ")
            && why.contains("measured on microbit's 32768 B"),
        "{why}"
    );
}

/// A ranked row's message is the one `link` costs for its scheme in the
/// oscore container (with `extra` flags): bytes, frames, on-air bytes, and
/// the compression where there is one.
fn agrees_with_link(row: &serde_json::Value, link: &str, extra: &[&str]) {
    let scheme = row["scheme"].as_str().unwrap();
    let out = stdout_ok(
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .args(["link", "--link", link, "--scheme", scheme])
            .args(["--container", "oscore", "--format", "json"])
            .args(extra),
    );
    let sealed = &serde_json::from_slice::<serde_json::Value>(&out).unwrap()["sealed"];
    for (theirs, ours) in [
        ("message_bytes", "sealed_bytes"),
        ("frames", "frames"),
        ("on_air_bytes", "on_air_bytes"),
    ] {
        assert_eq!(sealed[theirs], row[ours], "{scheme} {extra:?}: {ours}");
    }
    let compression = sealed
        .get("compression")
        .unwrap_or(&serde_json::Value::Null);
    assert_eq!(*compression, row["compression"], "{scheme} {extra:?}");
}

/// The oscore container competes beside json, binary and cose: each OSCORE
/// build (`oscore:ALG`) is ranked with its own seal path measured on the
/// device, and its message is the one `link` costs, byte for byte and frame
/// for frame. A core scheme in the oscore container, or an OSCORE scheme in
/// another, is refused.
#[test]
fn oscore_rows_rank_beside_the_others_with_the_bytes_and_frames_link_gives() {
    let dr0 = "lorawan-eu868-dr0";
    let doc = recommend_on("mkr-wan-1300", dr0, &["--container", "all"]);
    let rows = doc["rows"].as_array().unwrap();
    let oscore: Vec<_> = rows.iter().filter(|r| r["container"] == "oscore").collect();
    assert_eq!(oscore.len(), 4, "{oscore:?}");
    for c in ["json", "binary", "cose"] {
        assert!(rows.iter().any(|r| r["container"] == c), "no {c} row");
    }
    for r in &oscore {
        assert!(r["scheme"].as_str().unwrap().starts_with("oscore:"), "{r}");
        assert_eq!(r["device_measured"], true, "{r}");
        agrees_with_link(r, dr0, &[]);
    }
    // OSCORE's 8-byte tag: its mandatory algorithm sends 8 bytes fewer than GCM.
    let bytes =
        |s: &str| oscore.iter().find(|r| r["scheme"] == s).unwrap()["sealed_bytes"].as_u64();
    assert_eq!(
        bytes("oscore:aes-ccm-16-64-128").unwrap() + 8,
        bytes("oscore:aes-128-gcm").unwrap()
    );
    // With --compression schc each OSCORE build is ranked compressed too,
    // with what `link` gives for the same compressed message.
    let small = [
        "--container",
        "oscore",
        "--compression",
        "schc",
        "--sample",
        "random:10",
    ];
    let doc = recommend_on("mkr-wan-1300", dr0, &small);
    let rows = doc["rows"].as_array().unwrap();
    let packed: Vec<_> = rows
        .iter()
        .filter(|r| !r["compression"].is_null())
        .collect();
    assert_eq!((rows.len(), packed.len()), (8, 4), "{rows:?}");
    for r in packed {
        agrees_with_link(r, dr0, &["--compression", "schc", "--sample", "random:10"]);
    }
    for (scheme, container) in [
        ("aead:aes-128-ccm", "oscore"),
        ("oscore:aes-128-gcm", "json"),
        ("oscore:aes-ccm-16-128-128", "oscore"),
    ] {
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .args([
                "link",
                "--link",
                dr0,
                "--scheme",
                scheme,
                "--container",
                container,
            ])
            .assert()
            .code(2);
    }
}

/// A device's hardware engines are ranked beside software, each row
/// labelled `published` with its sources (data/engines/); `--impl software`
/// leaves them out. On an AES-only engine AES-GCM pays for GHASH in
/// software, and on the nRF52840 that makes the engine's GCM lose to the
/// software's (the CryptoCell's published GCM rate).
#[test]
fn engine_rows_are_published_with_their_sources_and_software_removes_them() {
    for device in ["nrf52840", "esp32-c3"] {
        let all = recommend_on(device, "ble-1m-251", &[]);
        let rows = all["rows"].as_array().unwrap();
        let engine: Vec<&serde_json::Value> =
            rows.iter().filter(|r| !r["engine"].is_null()).collect();
        assert!(engine.len() >= 5, "{device}: {} engine rows", engine.len());
        for r in &engine {
            assert_eq!(r["cpu_time_basis"], "published", "{device}: {r}");
            let imp = r["implementation"].as_str().unwrap();
            assert!(imp.starts_with("hardware (published: "), "{device}: {imp}");
            let sources = r["engine"]["sources"].as_array().unwrap();
            assert!(
                !sources.is_empty() && sources.iter().all(|s| s.as_str().unwrap().len() > 30),
                "{device}: {r}"
            );
            assert!(r["engine"]["engine_cycles"].as_f64().unwrap() > 0.0);
        }
        assert!(
            rows.iter()
                .filter(|r| r["engine"].is_null())
                .all(|r| r["cpu_time_basis"] == "simulated")
        );
        let gcm = engine
            .iter()
            .find(|r| r["scheme"] == "aead:aes-128-gcm")
            .unwrap_or_else(|| panic!("{device}: no engine row for AES-GCM"));
        let ghash = gcm["engine"]["software_ghash_cycles"].as_f64().unwrap();
        assert!(ghash > 1000.0, "{device}: GHASH {ghash}");
        let software = recommend_on(device, "ble-1m-251", &["--impl", "software"]);
        let soft_rows = software["rows"].as_array().unwrap();
        assert!(soft_rows.iter().all(|r| r["engine"].is_null()), "{device}");
        assert_eq!(soft_rows.len() + engine.len(), rows.len(), "{device}");
    }
    // Hardware can lose: the CryptoCell's GCM (software GHASH) against the
    // best software AES-GCM on the same core.
    let doc = recommend_on("nrf52840", "ble-1m-251", &[]);
    let gcm_rows: Vec<&serde_json::Value> = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["scheme"] == "aead:aes-128-gcm")
        .collect();
    assert!(
        gcm_rows[0]["engine"].is_null(),
        "the software GCM ranks first"
    );
    assert!(!gcm_rows[1]["engine"].is_null());
    // The winner's sentence says when it depends on an engine.
    let explanation = doc["explanation"].to_string();
    if !doc["rows"][0]["engine"].is_null() {
        assert!(
            explanation.contains("the best software choice"),
            "{explanation}"
        );
    }
}

/// A simulated Cortex-M time is the cycle model's estimate, and its error is
/// part of the answer: each row names the model's validated error on the
/// core, or says plainly that no published board has checked it (then its
/// range is one point: no error is invented). Its energy range is ± that
/// error on the CPU part, and a row within its rank's first row's range
/// shares that rank (`shared_ranks`); the next rank starts beyond it.
#[test]
fn a_cortex_m_row_names_the_cycle_models_error_and_ranks_by_it() {
    let args = ["--impl", "software"];
    let doc = recommend_on("nrf52840", "ble-1m-251", &args);
    let rows = doc["rows"].as_array().unwrap();
    let f = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap();
    let ends = |r: &serde_json::Value| {
        let a = r["message_uj_range"].as_array().unwrap();
        (a[0].as_f64().unwrap(), a[1].as_f64().unwrap())
    };
    for r in rows {
        let source = r["cpu_time_source"].as_str().unwrap();
        assert!(
            source.starts_with("device-level: cortex-m4 at 64 MHz"),
            "{source}"
        );
        let spread = match r["cpu_model_error"].as_f64() {
            Some(m) => {
                assert!(m > 0.0 && m < 1.0, "{r}");
                assert!(
                    source.contains("; validated: median error ")
                        && source.contains("published board figures on the Cortex-M4"),
                    "{source}"
                );
                f(r, "cpu_uj") * m
            }
            None => {
                assert!(r["cpu_model_error"].is_null(), "{r}");
                assert!(
                    source.ends_with("; not yet validated against a published board"),
                    "{source}"
                );
                0.0
            }
        };
        let (lo, hi) = ends(r);
        let total = f(r, "message_uj");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(lo, total - spread) && close(hi, total + spread),
            "{r}"
        );
    }
    // Below the tie at the top (whose members rank 1 by the tie-breakers),
    // each rank is its first row and those within that row's range.
    let top = doc["tie"]["schemes"].as_array().map_or(1, Vec::len) + 1;
    let rank = |r: &serde_json::Value| r["rank"].as_u64().unwrap() as usize;
    for (i, first) in rows.iter().enumerate() {
        if rank(first) <= top || (i > 0 && rank(&rows[i - 1]) == rank(first)) {
            continue;
        }
        let members = rows[i..].iter().take_while(|r| rank(r) == rank(first));
        for m in members {
            assert!(ends(m).0 <= ends(first).1, "{m} outside {first}");
        }
        if let Some(next) = rows[i..].iter().find(|r| rank(r) != rank(first)) {
            assert!(ends(next).0 > ends(first).1, "{next} within {first}");
        }
    }
    // The text says it beside the winner's CPU time source.
    let text = String::from_utf8(recommend_stdout("nrf52840", "ble-1m-251", &args)).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("CPU time source: "))
        .unwrap();
    assert!(
        line.contains("; validated: median error ")
            || line.ends_with("; not yet validated against a published board"),
        "{line}"
    );
}

/// The Cortex-M33 and RV32IMAC devices (issue 62 item 5) rank from their
/// own target's table at their own clock, never a stand-in's, each with its
/// own part; a device with a radio of its own is costed with it, one
/// without with the link's, and the answer says which and why.
#[test]
fn the_2026_devices_rank_from_their_own_target_and_name_their_radio() {
    for (device, target, mhz, radio, basis) in [
        (
            "nrf54l15",
            "cortex-m33",
            128,
            "nrf54l15",
            "nrf54l15, the device's own radio",
        ),
        (
            "nrf5340",
            "cortex-m33",
            128,
            "nrf52840",
            "nrf52840, the link's radio: nrf5340 names no radio of its own",
        ),
        (
            "stm32u585",
            "cortex-m33",
            160,
            "nrf52840",
            "nrf52840, the link's radio: stm32u585 names no radio of its own",
        ),
        (
            "rp2350",
            "cortex-m33",
            150,
            "nrf52840",
            "nrf52840, the link's radio: rp2350 names no radio of its own",
        ),
        (
            "esp32-c6",
            "riscv32imac",
            160,
            "nrf52840",
            "nrf52840, the link's radio: esp32-c6 names no radio of its own",
        ),
    ] {
        let doc = recommend_on(device, "ble-1m-251", &["--need", "integrity"]);
        let rows = doc["rows"].as_array().unwrap();
        assert!(rows.len() >= 20, "{device}: {} rows", rows.len());
        assert_eq!(doc["radio"], radio, "{device}");
        assert_eq!(doc["radio_basis"], basis, "{device}");
        let software: Vec<_> = rows.iter().filter(|r| r["engine"].is_null()).collect();
        assert!(!software.is_empty(), "{device}");
        for r in &software {
            assert_eq!(r["device_measured"], true, "{device}: {r}");
            assert_eq!(r["cpu_time_basis"], "simulated", "{device}: {r}");
            let source = r["cpu_time_source"].as_str().unwrap();
            let at = format!("device-level: {target} at {mhz} MHz");
            assert!(source.starts_with(&at), "{device}: {source}");
        }
        for r in rows {
            let all = r.to_string();
            assert!(
                !all.contains("stand-in") && !all.contains("standing in"),
                "{device}: {all}"
            );
        }
        // The text says the same radio beside the request's defaults.
        let text = String::from_utf8(recommend_stdout(device, "ble-1m-251", &[])).unwrap();
        assert!(
            text.contains(&format!("\n  radio figures: {basis}\n")),
            "{device}: {text}"
        );
    }
    // A radio of its own is used only where it has figures for the link's
    // protocol: the nRF54L15's 802.15.4 currents were not found.
    let doc = recommend_on("nrf54l15", "ieee802154", &[]);
    assert_eq!(doc["radio"], "nrf52840");
    assert_eq!(
        doc["radio_basis"],
        "nrf52840, the link's radio: nrf54l15's own radio (nrf54l15) has no published figures for ieee802154 links"
    );
}

/// The nRF54L15's CRACEN and the STM32U585's AES/HASH are ranked beside
/// software, labelled `published` with their sources; CRACEN's rows pay its
/// per-request set-up (about 800 cycles, at most four SHA-256 blocks a
/// request: an HMAC is at least two requests and four blocks), and the
/// U585 runs GCM whole (no GHASH in software). The nRF5340's CryptoCell-312
/// has no published figures: no engine rows there.
#[test]
fn the_cortex_m33_engines_are_published_with_their_set_up() {
    let engine_rows = |device: &str| -> Vec<serde_json::Value> {
        let doc = recommend_on(device, "ble-1m-251", &["--need", "integrity"]);
        doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| !r["engine"].is_null())
            .cloned()
            .collect()
    };
    let cracen = engine_rows("nrf54l15");
    assert!(!cracen.is_empty(), "no CRACEN row");
    for r in &cracen {
        assert_eq!(r["cpu_time_basis"], "published", "{r}");
        let imp = r["implementation"].as_str().unwrap();
        assert_eq!(imp, "hardware (published: Nordic CRACEN in the nRF54L15)");
        let sources = r["engine"]["sources"].to_string();
        assert!(sources.contains("800 cycles of setup"), "{sources}");
        let scheme = r["scheme"].as_str().unwrap();
        assert!(scheme.contains("hmac-sha256"), "CRACEN runs {scheme}");
        let cycles = r["engine"]["engine_cycles"].as_f64().unwrap();
        assert!(cycles >= 2.0 * 800.0 + 4.0 * 330.0, "{scheme}: {cycles}");
        let source = r["cpu_time_source"].as_str().unwrap();
        assert!(
            source.starts_with("device-level: cortex-m33 at 128 MHz"),
            "{source}"
        );
    }
    let u585 = engine_rows("stm32u585");
    let gcm = u585
        .iter()
        .find(|r| r["scheme"] == "aead:aes-128-gcm")
        .expect("an engine row for AES-GCM on the STM32U585");
    assert!(gcm["engine"]["software_ghash_cycles"].is_null(), "{gcm}");
    for r in &u585 {
        assert_eq!(r["cpu_time_basis"], "published", "{r}");
        let imp = r["implementation"].as_str().unwrap();
        assert_eq!(imp, "hardware (published: STM32U585 AES, HASH and PKA)");
        assert!(
            r["engine"]["sources"].to_string().contains("STM32U585"),
            "{r}"
        );
    }
    assert!(engine_rows("nrf5340").is_empty());
    assert!(engine_rows("rp2350").is_empty());
    // `--impl software` leaves CRACEN out and changes no software row.
    let all = recommend_on("nrf54l15", "ble-1m-251", &["--need", "integrity"]);
    let software = recommend_on(
        "nrf54l15",
        "ble-1m-251",
        &["--need", "integrity", "--impl", "software"],
    );
    let rows = |d: &serde_json::Value| d["rows"].as_array().unwrap().clone();
    assert!(rows(&software).iter().all(|r| r["engine"].is_null()));
    assert_eq!(rows(&software).len() + cracen.len(), rows(&all).len());
}
