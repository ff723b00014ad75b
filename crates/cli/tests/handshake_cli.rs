//! `handshake edhoc` as a user runs it: a real EDHOC handshake (lakers) whose
//! message sizes are RFC 9529's, costed on LoRaWAN exactly as `link` costs
//! the same number of bytes; unsupported methods and suites exit 2 with why.

use assert_cmd::Command;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// RFC 9529 Chapter 3's message sizes (method 3, suite 2, credentials by
/// kid), but message_1 offers one suite (02) where the trace offers two
/// (82 06 02): two bytes fewer.
const TRACE_SIZES: [u64; 4] = [39 - 2, 45, 19, 9];

#[test]
fn edhoc_method_3_suite_2_has_the_traces_sizes_and_links_airtime_on_dr0_and_dr5() {
    for link in ["lorawan-eu868-dr0", "lorawan-eu868-dr5"] {
        let h = json(&[
            "handshake",
            "edhoc",
            "--method",
            "3",
            "--suite",
            "2",
            "--link",
            link,
        ]);
        let messages = h["messages"].as_array().unwrap();
        let sizes: Vec<u64> = messages
            .iter()
            .map(|m| m["bytes"].as_u64().unwrap())
            .collect();
        assert_eq!(sizes, TRACE_SIZES, "{link}");
        let senders: Vec<&str> = messages
            .iter()
            .map(|m| m["sender"].as_str().unwrap())
            .collect();
        assert_eq!(
            senders,
            ["initiator", "responder", "initiator", "responder"]
        );
        let mut total = 0.0;
        for m in messages.iter().step_by(2) {
            // One truth: `link` prices the device's uplinks the same way.
            let bytes = m["bytes"].to_string();
            let l = json(&["link", "--link", link, "--bytes", &bytes]);
            assert_eq!(m["airtime_ms"], l["airtime_ms"], "{link} {bytes}");
            assert_eq!(m["frames"], l["frames"]);
            assert_eq!(m["on_air_bytes"], l["on_air_bytes"]);
            assert!(m.get("downlink").is_none(), "{m}");
        }
        // The gateway's message_2 and message_4 come down in RX1, 1 s after the
        // device's uplink, at EU868's RX1 rate (the uplink's) and without the
        // uplink's payload CRC (LoRaWAN 1.0.x §3.1). From the LoRa airtime
        // formula, PHYPayloads of 45 + 13 and 9 + 13 bytes, CR 4/5, explicit
        // header, 8-symbol preamble (12.25 symbols):
        // SF12/125 kHz with LDRO (32.768 ms a symbol): 8 + ceil((8*58 - 48 + 28) / 40) * 5
        // = 68 and 8 + ceil(156 / 40) * 5 = 28 symbols (33 with a CRC);
        // SF7/125 kHz (1.024 ms): 8 + ceil((464 - 28 + 28) / 28) * 5 = 93 and 43.
        let down_ms = match link {
            "lorawan-eu868-dr0" => [80.25 * 32.768, 40.25 * 32.768],
            _ => [105.25 * 1.024, 55.25 * 1.024],
        };
        for (m, ms) in messages.iter().skip(1).step_by(2).zip(down_ms) {
            let airtime = m["airtime_ms"].as_f64().unwrap();
            assert!((airtime - ms).abs() < 1e-6, "{link}: {m}");
            let d = &m["downlink"];
            assert_eq!(
                (d["mode"].as_str(), d["wait_s"].as_f64()),
                (Some("class-a"), Some(1.0)),
                "{m}"
            );
            assert_eq!(d["listen_ms"], m["airtime_ms"], "{m}");
            assert_eq!(
                m["on_air_bytes"].as_u64().unwrap(),
                m["bytes"].as_u64().unwrap() + 13
            );
        }
        for m in messages {
            total += m["airtime_ms"].as_f64().unwrap();
        }
        assert!((h["total_airtime_ms"].as_f64().unwrap() - total).abs() < 1e-6);
        assert_eq!(h["initiator_downlink_wait_s"], 2.0, "{link}");
        // The device's wait between message_1 and message_3 is message_1's duty cycle.
        assert_eq!(h["initiator_duty_wait_s"], messages[0]["min_interval_s"]);
        assert_eq!(
            (
                h["oscore_sender_id"].as_str(),
                h["oscore_recipient_id"].as_str()
            ),
            (Some("27"), Some("37"))
        );
    }
    // SF12 is slower than SF7 for every message.
    let (dr0, dr5) = (
        json(&["handshake", "edhoc", "--link", "lorawan-eu868-dr0"]),
        json(&["handshake", "edhoc", "--link", "lorawan-eu868-dr5"]),
    );
    assert!(dr0["total_airtime_ms"].as_f64() > dr5["total_airtime_ms"].as_f64());
    let without_4 = json(&[
        "handshake",
        "edhoc",
        "--link",
        "lorawan-eu868-dr5",
        "--no-message-4",
    ]);
    assert_eq!(without_4["messages"].as_array().unwrap().len(), 3);
}

#[test]
fn methods_suites_and_links_that_cannot_be_run_exit_2_with_the_reason() {
    for (args, why) in [
        (vec!["--method", "0"], "method 3"),
        (vec!["--method", "9"], "does not exist"),
        (vec!["--suite", "0"], "suite 2"),
        (vec!["--suite", "99"], "not registered"),
    ] {
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .args(["handshake", "edhoc", "--link", "lorawan-eu868-dr0"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(why));
    }
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(["handshake", "edhoc", "--link", "lorawan-eu868-dr9"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown link"));
}

/// "What does EDHOC cost on Sigfox?": it cannot run. message_2 (45 B) is the
/// gateway's, and a Sigfox RC1 downlink carries 8 B, one in the window the
/// device opens after an uplink that asks, 4 a day as RC1 is sold: the
/// handshake exits 2 naming the limits, and a session answer says the same.
#[test]
fn edhoc_on_sigfox_is_refused_as_message_2_fits_no_downlink() {
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(["handshake", "edhoc", "--link", "sigfox-rc1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "message_2 (the responder's): on sigfox-rc1, 45 B cannot go down to the device: a downlink carries 8 B",
        ))
        .stderr(predicates::str::contains("would take 8"))
        .stderr(predicates::str::contains("4 a day"));
    let e = json(&[
        "energy",
        "--device",
        "stm32l0",
        "--link",
        "sigfox-rc1",
        "--scheme",
        "aead:aes-128-gcm",
        "--interval",
        "1h",
        "--session-messages",
        "100",
    ]);
    let edhoc = &e["sessions"][0];
    assert_eq!(edhoc["protocol"], "edhoc", "{e}");
    let why = edhoc["refused"].as_str().unwrap();
    assert!(why.contains("carries 8 B"), "{why}");
    assert!(
        edhoc["sentence"]
            .as_str()
            .unwrap()
            .contains("cannot run here"),
        "{edhoc}"
    );
    assert!(edhoc["handshake_uj"].is_null());
    // The KEMs send no downlink: not refused for one.
    assert!(e["sessions"][1]["refused"].is_null(), "{e}");
}

/// BLE, as before in kind: the central sends message_2 and message_4 as
/// the device sends, so each costs what `link` costs its bytes, the device
/// listening for their time on air and waiting for nothing.
#[test]
fn edhoc_on_ble_sends_down_as_up() {
    let h = json(&["handshake", "edhoc", "--link", "ble-1m-251"]);
    for m in h["messages"].as_array().unwrap() {
        let bytes = m["bytes"].to_string();
        let l = json(&["link", "--link", "ble-1m-251", "--bytes", &bytes]);
        assert_eq!(m["airtime_ms"], l["airtime_ms"], "{m}");
        assert_eq!(
            (&m["frames"], &m["on_air_bytes"]),
            (&l["frames"], &l["on_air_bytes"])
        );
        if m["sender"] == "responder" {
            let d = &m["downlink"];
            assert_eq!(
                (d["mode"].as_str(), d["wait_s"].as_f64()),
                (Some("symmetric"), Some(0.0))
            );
            assert_eq!(d["listen_ms"], m["airtime_ms"], "{m}");
        }
    }
    assert_eq!(h["initiator_downlink_wait_s"], 0.0);
}

/// The shipped table's cycles for one operation of a firmware build
/// (`ALG` RustCrypto's, `ALG@IMPL` another implementation's) as `device`
/// runs it: a Cortex-M table's estimate priced on the device's own part.
fn table_cycles(device: &str, build: &str, op: &str) -> u64 {
    let (algorithm, implementation) = build.split_once('@').unwrap_or((build, "rustcrypto"));
    let profiles = cost::data::profiles(None).unwrap();
    let d = profiles.device(device).unwrap();
    let target = cost::device_times::device_target(d).unwrap().unwrap();
    let table = cost::device_times::shipped_for(d, target).unwrap().unwrap();
    let imp: mcu::Implementation = implementation.parse().unwrap();
    let e = table
        .entry_of(algorithm, imp, op)
        .unwrap_or_else(|| panic!("no {build} {op} in {target}"));
    e.cycle_points()[0].1
}

/// Each party's CPU per message on four devices, from their own simulated
/// builds (the Cortex-M4's with Emill's P-256 assembly, the fastest there);
/// a Linux board (no simulator) says why it has none, beside the sizes.
#[test]
fn edhoc_on_a_device_gives_each_partys_cycles_per_message_or_why_not() {
    for (device, target, build) in [
        ("sodaq-mbili", "atmega1284p", "edhoc-m3-s2"),
        ("mkr-wan-1300", "cortex-m0plus", "edhoc-m3-s2"),
        ("nrf52840", "cortex-m4", "edhoc-m3-s2@p256-cortex-m4"),
        ("esp32-c3", "riscv32imc", "edhoc-m3-s2"),
    ] {
        let h = json(&[
            "handshake",
            "edhoc",
            "--link",
            "lorawan-eu868-dr0",
            "--device",
            device,
        ]);
        let d = &h["device"];
        assert_eq!(d["target"], target, "{h}");
        let messages = d["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 4);
        let mut initiator_cycles = 0;
        for (i, m) in messages.iter().enumerate() {
            let n = i + 1;
            assert_eq!(
                m["write_cycles"],
                table_cycles(device, build, &format!("m{n}-write"))
            );
            assert_eq!(
                m["read_cycles"],
                table_cycles(device, build, &format!("m{n}-read"))
            );
            // The initiator writes messages 1 and 3 and reads 2 and 4.
            initiator_cycles += m[if n % 2 == 1 {
                "write_cycles"
            } else {
                "read_cycles"
            }]
            .as_u64()
            .unwrap();
        }
        if let Some((_, imp)) = build.split_once('@') {
            let source = d["cycles_source"].as_str().unwrap();
            assert!(
                source.contains("edhoc-m3-s2 by P256-Cortex-M4"),
                "{imp}: {source}"
            );
        }
        let clock_hz = d["clock_mhz"].as_f64().unwrap() * 1e6;
        let ms = d["initiator_cpu_ms"].as_f64().unwrap();
        assert!(
            (ms - initiator_cycles as f64 / clock_hz * 1e3).abs() < 1e-6,
            "{d}"
        );
        let parts = ["cpu_uj", "tx_uj", "rx_uj"].map(|k| d[k].as_f64().unwrap());
        assert!(parts.iter().all(|&p| p > 0.0), "{d}");
        let total = d["energy_uj"].as_f64().unwrap();
        assert!((total - parts.iter().sum::<f64>()).abs() < 1e-6 * total);
    }
    let h = json(&[
        "handshake",
        "edhoc",
        "--link",
        "lorawan-eu868-dr5",
        "--device",
        "rpi-3b",
    ]);
    let why = h["device"]["failure"].as_str().unwrap();
    assert!(why.contains("no simulated microcontroller"), "{why}");
    let sizes: Vec<u64> = h["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, TRACE_SIZES);
}

/// `recommend` for the MKR WAN 1300 on EU868 DR5 with `n` messages per
/// session, on the store at `db`.
fn recommend_session<'a>(db: &'a std::path::Path, n: &'a str) -> Vec<&'a str> {
    vec![
        "recommend",
        "--device",
        "mkr-wan-1300",
        "--link",
        "lorawan-eu868-dr5",
        "--db",
        db.to_str().unwrap(),
        "--session-messages",
        n,
    ]
}

/// `recommend --session-messages`: one handshake per reading ranks the
/// session-keyed choice below every pre-shared-key scheme it could beat; a
/// thousand readings per handshake move it up, and the answer gives the
/// break-even from the device's own handshake energy.
#[test]
fn recommend_ranks_a_session_differently_at_1_and_1000_messages_and_says_the_break_even() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let rank = |n: &str| {
        let doc = json(&recommend_session(&db, n));
        let rows = doc["rows"].as_array().unwrap().clone();
        let keyed = rows
            .iter()
            .position(|r| r["key_establishment"] == "edhoc")
            .expect("an EDHOC-keyed row");
        (doc, rows, keyed)
    };
    let (one, rows_1, at_1) = rank("1");
    let (thousand, rows_1000, at_1000) = rank("1000");
    assert!(at_1000 < at_1, "{at_1000} vs {at_1}");
    // It keys the pre-shared-key winner, and costs it plus the handshake's share.
    let winner = &rows_1000[0];
    let keyed = &rows_1000[at_1000];
    assert_eq!(keyed["scheme"], winner["scheme"]);
    let edhoc = |doc: &serde_json::Value| doc["sessions"][0].clone();
    let (one, thousand) = (edhoc(&one), edhoc(&thousand));
    assert_eq!(thousand["protocol"], "edhoc");
    assert_eq!(thousand["class"], "classical");
    let handshake = thousand["handshake_uj"].as_f64().unwrap();
    assert!(handshake > 0.0);
    assert_eq!(one["handshake_uj"].as_f64().unwrap(), handshake);
    let share = keyed["handshake_share_uj"].as_f64().unwrap();
    assert!((share - handshake / 1000.0).abs() < 1e-9 * handshake);
    let extra = keyed["message_uj"].as_f64().unwrap() - winner["message_uj"].as_f64().unwrap();
    assert!((extra - share).abs() < 0.01 * share, "{extra} vs {share}");
    assert!(
        rows_1[at_1]["message_uj"].as_f64().unwrap() > rows_1[1]["message_uj"].as_f64().unwrap()
    );
    // The break-even: the handshake in messages, and where it falls under 1 %.
    let worth = thousand["handshake_in_messages"].as_f64().unwrap();
    let winner_uj = winner["message_uj"].as_f64().unwrap();
    assert!((worth - handshake / winner_uj).abs() < 1e-9 * worth);
    let negligible = thousand["negligible_from_messages"].as_u64().unwrap();
    assert_eq!(negligible, (100.0 * worth).ceil() as u64);
    let sentence = thousand["sentence"].as_str().unwrap();
    assert!(
        sentence.contains(&format!("from {negligible} messages")),
        "{sentence}"
    );
}

/// A tie group names each of its rows once: a session-keyed row is said with
/// its handshake, never as the pre-shared-key scheme beside itself.
#[test]
fn a_tie_names_a_session_keyed_row_by_its_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let doc = json(&recommend_session(&db, "1000"));
    let tied: Vec<&str> = doc["tie"]["schemes"]
        .as_array()
        .expect("a tie at 1000 messages a session")
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let mut distinct = tied.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), tied.len(), "{tied:?}");
    assert!(
        tied.iter()
            .any(|s| s.ends_with("keyed by edhoc every 1000 messages")),
        "{tied:?}"
    );
}

#[test]
fn zero_session_messages_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(recommend_session(&db, "0"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("at least 1"));
}

/// `energy --session-messages N`: a third row, the sealed message with the
/// device's handshake energy over N, the handshake being the one
/// `handshake edhoc --device` reports.
#[test]
fn energy_spreads_the_devices_handshake_over_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let e = json(&[
        "energy",
        "--device",
        "mkr-wan-1300",
        "--link",
        "lorawan-eu868-dr5",
        "--scheme",
        "aead:aes-128-gcm",
        "--sample",
        "chain:10",
        "--db",
        db.to_str().unwrap(),
        "--session-messages",
        "50",
    ]);
    let h = json(&[
        "handshake",
        "edhoc",
        "--link",
        "lorawan-eu868-dr5",
        "--device",
        "mkr-wan-1300",
    ]);
    let handshake = h["device"]["energy_uj"].as_f64().unwrap();
    assert_eq!(
        e["sessions"][0]["handshake_uj"].as_f64().unwrap(),
        handshake
    );
    // The MKR WAN 1300's 16 KB hold no post-quantum build: EDHOC's row only,
    // and each other key establishment says why it has none.
    let rows = e["messages"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["message"], "session:edhoc");
    for s in &e["sessions"].as_array().unwrap()[1..] {
        assert!(s["handshake_uj"].is_null(), "{s}");
        assert!(
            s["sentence"].as_str().unwrap().contains("does not fit"),
            "{s}"
        );
    }
    let extra = rows[2]["message_uj"].as_f64().unwrap() - rows[1]["message_uj"].as_f64().unwrap();
    // Airtimes are whole microseconds: the share is within a rounding of exact.
    assert!(
        (extra - handshake / 50.0).abs() < 1e-3 * handshake / 50.0,
        "{extra}"
    );
}

/// A target name where a device profile belongs: exit 2, naming the
/// profiles that run that target (each has its own clock and power).
#[test]
fn a_target_given_as_a_device_names_the_profiles_that_run_it() {
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args([
            "handshake",
            "edhoc",
            "--link",
            "lorawan-eu868-dr0",
            "--device",
            "cortex-m0plus",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("mkr-wan-1300"))
        .stderr(predicates::str::contains("stm32l0"));
}

/// `handshake kem`: ML-KEM-512's 768-byte ciphertext on EU868 DR0 goes in 16
/// fragments of 48 bytes behind a 3-byte header, each a full 51-byte frame,
/// exactly as `link` costs 51 bytes; the device waits out 15 frames' duty
/// cycle before the key exists.
#[test]
fn ml_kem_512_fragments_its_ciphertext_on_dr0_as_link_costs_each_frame() {
    let h = json(&[
        "handshake",
        "kem",
        "--kem",
        "ml-kem-512",
        "--link",
        "lorawan-eu868-dr0",
    ]);
    // The sealing core's fragments: 15 of 49 bytes and a 2-byte header, then
    // the last 33 bytes with theirs.
    let frame = json(&["link", "--link", "lorawan-eu868-dr0", "--bytes", "51"]);
    let last = json(&["link", "--link", "lorawan-eu868-dr0", "--bytes", "35"]);
    let m = &h["messages"][0];
    assert_eq!(m["bytes"], 768);
    assert_eq!(m["fragment_header_bytes"], 2);
    assert_eq!(m["frames"], 16, "{h}");
    let (one, end) = (
        frame["airtime_ms"].as_f64().unwrap(),
        last["airtime_ms"].as_f64().unwrap(),
    );
    assert!(
        (m["airtime_ms"].as_f64().unwrap() - (15.0 * one + end)).abs() < 1e-6,
        "{h}"
    );
    assert_eq!(
        m["on_air_bytes"],
        15 * frame["on_air_bytes"].as_u64().unwrap() + last["on_air_bytes"].as_u64().unwrap()
    );
    let interval = frame["min_interval_s"].as_f64().unwrap();
    let wait = h["initiator_duty_wait_s"].as_f64().unwrap();
    assert!(
        (wait - 15.0 * interval).abs() < 1e-6,
        "{wait} vs {interval}"
    );
    // The text's two duty-cycle figures are said together: the table's 16
    // intervals, and the wait before the key, the first 15 of them.
    let out = Command::cargo_bin("ciphermeter")
        .unwrap()
        .args([
            "handshake",
            "kem",
            "--kem",
            "ml-kem-512",
            "--link",
            "lorawan-eu868-dr0",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let after_last = last["min_interval_s"].as_f64().unwrap();
    let table = format!("{:.1}", 15.0 * interval + after_last);
    let sentence = format!(
        "waits {wait:.1} s under the duty cycle before the key exists (its {table} s of duty cycle above, less the {after_last:.1} s after its last frame"
    );
    assert!(text.contains(&format!(" {table}\n")), "{text}");
    assert!(text.contains(&sentence), "{text}");
}

/// `--fragmentation schc`: the ciphertext in RFC 9011's fragments instead.
/// 768 bytes and the no-compression rule id are 77 tiles of 10 bytes, 5 a
/// 51-byte frame and none across a window's end: window 0's 63 tiles in 12
/// full fragments and one of 3 tiles, window 1's 13 regular tiles in 5, 5
/// and 3, then the All-1 with the RCS and the 9-byte last tile. Each
/// frame is costed as `link` costs its bytes, and the device receives one
/// 1-byte ACK. What cannot be cut so exits 2 with the reason.
#[test]
fn ml_kem_512_in_rfc_9011_fragments_costs_each_frame_and_the_ack() {
    let h = json(&[
        "handshake",
        "kem",
        "--link",
        "lorawan-eu868-dr0",
        "--fragmentation",
        "schc",
    ]);
    let m = &h["messages"][0];
    assert_eq!(
        (m["frames"].as_u64(), m["schc"]["tiles"].as_u64()),
        (Some(17), Some(77)),
        "{h}"
    );
    assert!(m["fragment_header_bytes"].is_null(), "{h}");
    let airtime = |bytes: &str| {
        json(&["link", "--link", "lorawan-eu868-dr0", "--bytes", bytes])["airtime_ms"]
            .as_f64()
            .unwrap()
    };
    let expected = 14.0 * airtime("51") + 2.0 * airtime("31") + airtime(&(1 + 4 + 9).to_string());
    assert!(
        (m["airtime_ms"].as_f64().unwrap() - expected).abs() < 1e-6,
        "{h}"
    );
    assert_eq!(m["schc"]["acks"], 1);
    // The 1-byte ACK comes down in RX1 at DR0: 14 B of PHYPayload without the
    // uplink's CRC, 8 + ceil((112 - 48 + 28) / 40) * 5 = 23 symbols and 12.25
    // of preamble (with a CRC also 23: `link`'s figure for an uplink of 1 B).
    assert!((m["schc"]["ack_airtime_ms"].as_f64().unwrap() - 35.25 * 32.768).abs() < 1e-6);
    assert!((m["schc"]["ack_airtime_ms"].as_f64().unwrap() - airtime("1")).abs() < 1e-6);
    for (args, why) in [
        (
            &["kem", "--link", "ble-1m-251", "--fragmentation", "schc"][..],
            "for LoRaWAN links",
        ),
        // Refused even where nothing would be cut.
        (
            &["edhoc", "--link", "ble-1m-251", "--fragmentation", "schc"][..],
            "for LoRaWAN links",
        ),
        (
            &[
                "kem",
                "--link",
                "lorawan-eu868-dr0",
                "--fragmentation",
                "tiles",
            ][..],
            "unknown fragmentation 'tiles'",
        ),
    ] {
        let out = Command::cargo_bin("ciphermeter")
            .unwrap()
            .arg("handshake")
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
    }
    // US915 DR0's 11 bytes: message_1 is cut into SCHC fragments, but
    // message_2 needs none: it comes down in RX1 at DR10 (SF10/500 kHz),
    // whose limit is 242 B (RP002).
    let h = json(&[
        "handshake",
        "edhoc",
        "--link",
        "lorawan-us915-dr0",
        "--fragmentation",
        "schc",
    ]);
    assert!(
        h["messages"][0]["schc"]["fragments"].as_u64() > Some(1),
        "{h}"
    );
    let m2 = &h["messages"][1];
    assert_eq!(m2["frames"], 1, "{m2}");
    assert!(
        m2["downlink"]["how"].as_str().unwrap().contains("DR10"),
        "{m2}"
    );
}

/// On BLE the CPU matters: its share of the device's energy is reported, and
/// it is the CPU's part of the total; where ML-KEM does not fit, the reason.
#[test]
fn ml_kem_512_on_ble_gives_the_cpu_share_and_the_avr_says_it_does_not_fit() {
    let h = json(&[
        "handshake",
        "kem",
        "--link",
        "ble-1m-251",
        "--device",
        "nrf52840",
    ]);
    let d = &h["device"];
    let share = d["cpu_share"].as_f64().unwrap();
    let (cpu, total) = (
        d["cpu_uj"].as_f64().unwrap(),
        d["energy_uj"].as_f64().unwrap(),
    );
    assert!((share - cpu / total).abs() < 1e-9 && share > 0.5, "{d}");
    assert_eq!(
        d["messages"][0]["write_cycles"],
        table_cycles("nrf52840", "ml-kem-512", "encapsulate")
    );
    // Where it ran, and what it needs of the device's RAM: the most any of
    // the build's rows needed (static data and the deepest stack).
    let table: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/device-costs/cortex-m4.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let need = table["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["algorithm"] == "ml-kem-512" && e["implementation"].is_null())
        .filter_map(|e| e["ram_bytes"].as_u64())
        .max()
        .unwrap();
    assert_eq!(
        d["memory"],
        format!(
            "ran on mps2-an386 with 262144 B of RAM; its builds need at most {need} B (static \
             data and the deepest stack), within nrf52840's 262144 B"
        ),
        "{d}"
    );
    let h = json(&[
        "handshake",
        "kem",
        "--link",
        "ble-1m-251",
        "--device",
        "sodaq-mbili",
    ]);
    let why = h["device"]["failure"].as_str().unwrap();
    assert!(
        why.contains("does not fit") && why.contains("16384 B"),
        "{why}"
    );
    assert!(
        !why.contains("not measured"),
        "the ATmega1284P has 16 KiB: {why}"
    );
    // The MKR WAN 1300's SAMD21G18A has 32 KiB, and the micro:bit it runs on
    // is given as much: the verdict is the device's, with where it ran.
    let h = json(&[
        "handshake",
        "kem",
        "--link",
        "ble-1m-251",
        "--device",
        "mkr-wan-1300",
    ]);
    let why = h["device"]["failure"].as_str().unwrap();
    assert!(
        why.contains("does not fit in cortex-m0plus's RAM (32768 B)")
            && why.contains("ran on microbit with 32768 B of RAM, as much as mkr-wan-1300 has")
            && !why.contains("not measured"),
        "{why}"
    );
}

/// `recommend --session-messages 1` and `10000` for the nRF52840 on EU868
/// DR0, one reading an hour: classical, hybrid and post-quantum key
/// establishment side by side, each from the device's own cycles. At one
/// message per session ML-KEM-512's 16 fragments break the 1 % duty cycle
/// where EDHOC's 110 bytes do not; at 10,000 the post-quantum row is allowed
/// and within 1 % of the pre-shared key. The choice changes with N.
#[test]
fn post_quantum_key_establishment_changes_the_choice_between_1_and_10000_messages() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let run = |n: &str| {
        json(&[
            "recommend",
            "--device",
            "nrf52840",
            "--link",
            "lorawan-eu868-dr0",
            "--sample",
            "chain:1",
            "--interval",
            "1h",
            "--db",
            db.to_str().unwrap(),
            "--session-messages",
            n,
        ])
    };
    let row = |doc: &Value, protocol: &str| {
        doc["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key_establishment"] == protocol)
            .unwrap_or_else(|| panic!("no {protocol} row: {doc}"))
            .clone()
    };
    let (one, many) = (run("1"), run("10000"));
    let classes: Vec<&str> = one["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["class"].as_str().unwrap())
        .collect();
    assert_eq!(
        classes,
        ["classical", "hybrid", "post-quantum", "post-quantum"]
    );
    for s in one["sessions"].as_array().unwrap() {
        assert!(s["handshake_uj"].as_f64().unwrap() > 0.0, "{s}");
    }
    assert_eq!(row(&one, "edhoc")["duty_cycle_allowed"], true);
    assert_eq!(row(&one, "ml-kem-512")["duty_cycle_allowed"], false);
    let pq = row(&many, "ml-kem-512");
    assert_eq!(pq["duty_cycle_allowed"], true);
    let psk = &many["rows"][0];
    assert!(psk["key_establishment"].is_null());
    let extra = pq["message_uj"].as_f64().unwrap() / psk["message_uj"].as_f64().unwrap() - 1.0;
    assert!(extra > 0.0 && extra < 0.01, "{extra}");
    let sentence = many["post_quantum"].as_str().unwrap();
    assert!(sentence.contains("ml-kem-512 (post-quantum)"), "{sentence}");
    assert!(sentence.contains("x-wing (hybrid)"), "{sentence}");
}

/// `handshake kem` costs X-Wing and a signed ML-KEM ciphertext too: the
/// signature's 2,420 bytes go in the same fragments, and the device's write
/// is its encapsulation plus its signing, each from the Cortex-M4 table.
#[test]
fn a_signed_ml_kem_ciphertext_is_costed_with_both_operations() {
    let h = json(&[
        "handshake",
        "kem",
        "--kem",
        "ml-kem-512+ml-dsa-44",
        "--link",
        "lorawan-eu868-dr0",
        "--device",
        "nrf52840",
    ]);
    assert_eq!(h["messages"][0]["bytes"], 768 + 2420);
    assert_eq!(h["messages"][0]["frames"], 66, "{h}");
    assert_eq!(h["class"], "post-quantum");
    assert_eq!(h["mutual_authentication"], true);
    let write = h["device"]["messages"][0]["write_cycles"].as_u64().unwrap();
    let (encaps, sign) = (
        table_cycles("nrf52840", "ml-kem-512", "encapsulate"),
        table_cycles("nrf52840", "ml-dsa-44", "sign"),
    );
    assert_eq!(write, encaps + sign);
    let xw = json(&[
        "handshake",
        "kem",
        "--kem",
        "x-wing",
        "--link",
        "ble-1m-251",
    ]);
    assert_eq!(xw["messages"][0]["bytes"], 1120);
    assert_eq!(xw["class"], "hybrid");
    assert_eq!(xw["mutual_authentication"], false);
}

/// `--compression schc`: EDHOC's messages as CoAP carries them (RFC 9528
/// A.2), each compressed by the default rules' rule 104 and sent as RFC 9011
/// sends a SCHC packet. The sizes follow from the RFCs alone: a request is the
/// 4-byte CoAP header, a 4-byte token, Uri-Path `.well-known` (1 + 11) and
/// `edhoc` (1 + 5), the payload marker and its payload (`true` or C_R, then
/// the message); an answer is header, token, marker and message. Compressed,
/// each keeps its message id (16 bits) and token (32) after the 8-bit rule id.
#[test]
fn coap_carried_edhoc_compressed_with_schc_has_the_rfcs_sizes() {
    let v = json(&[
        "handshake",
        "edhoc",
        "--link",
        "lorawan-eu868-dr0",
        "--compression",
        "schc",
    ]);
    for m in v["messages"].as_array().unwrap() {
        let edhoc = m["bytes"].as_u64().unwrap();
        let c = &m["compressed"];
        let request = m["sender"] == "initiator";
        let payload = edhoc + u64::from(request);
        let coap = 4 + 4 + 1 + payload + if request { 12 + 6 } else { 0 };
        assert_eq!(c["coap_bytes"].as_u64().unwrap(), coap, "{m}");
        assert_eq!(c["rule_id"], 104, "{m}");
        assert_eq!(c["packet_bytes"].as_u64().unwrap(), 7 + payload, "{m}");
        // One frame each at DR0: the packet less its rule id, plus LoRaWAN's 13 B.
        assert_eq!(m["frames"], 1, "{m}");
        assert_eq!(m["on_air_bytes"].as_u64().unwrap(), 6 + payload + 13, "{m}");
    }
    for (args, why) in [
        (
            vec!["kem", "--kem", "ml-kem-512", "--link", "lorawan-eu868-dr0"],
            "CoAP",
        ),
        (vec!["edhoc", "--link", "ble-1m-251"], "LoRaWAN"),
    ] {
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .arg("handshake")
            .args(&args)
            .args(["--compression", "schc"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(why));
    }
}

/// On the STM32WL, P-256 each way it runs: Emill's assembly (simulated) and
/// the PKA (its published figures), and the PKA loses, as `handshake` says.
#[test]
fn the_stm32wl_pka_shows_it_losing_to_the_assembly() {
    let args = [
        "handshake",
        "edhoc",
        "--link",
        "lorawan-eu868-dr5",
        "--device",
        "stm32wl",
    ];
    let h = json(&args);
    let rows = h["device"]["p256"].as_array().unwrap();
    let sign: Vec<&Value> = rows.iter().filter(|r| r["operation"] == "sign").collect();
    assert_eq!(sign[0]["implementation"], "p256-cortex-m4");
    assert_eq!(sign[0]["basis"], "simulated");
    let pka = sign.iter().find(|r| r["basis"] == "published").unwrap();
    assert_eq!(pka["cycles"], 5_211_859.0);
    assert!(
        pka["source"]
            .as_str()
            .unwrap()
            .contains("b78f561cee5ba38937be70a27f1931c618fcee09")
    );
    let text = Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("hardware loses: 11.5×"), "{text}");
}

/// EDHOC-PSK (method 4, draft-ietf-lake-edhoc-psk): run for real by
/// ciphermeter's own implementation (lakers 0.8 has none), both parties in
/// process as method 3 is; its messages are what the draft's layout gives
/// with one-byte identifiers (37, 35, 11 and 9 bytes), costed as `link`
/// costs the same bytes, and it says which draft it ran. The rows of
/// `handshake drafts` stay costed from sizes, and say this one also runs.
#[test]
fn edhoc_psk_runs_for_real_and_says_so() {
    let v = json(&[
        "handshake",
        "edhoc",
        "--method",
        "psk",
        "--link",
        "lorawan-eu868-dr0",
    ]);
    let bytes: Vec<u64> = v["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(bytes, vec![37, 35, 11, 9]);
    assert_eq!(v["method"], 4, "{v}");
    let source = v["source"].as_str().unwrap();
    assert!(source.contains("draft-ietf-lake-edhoc-psk-08, run"), "{v}");
    // The OSCORE context it exported (RFC 9528 A.1): C_R and C_I.
    assert_eq!(
        (
            v["oscore_sender_id"].as_str(),
            v["oscore_recipient_id"].as_str()
        ),
        (Some("27"), Some("37"))
    );
    // Each message in one DR0 frame: as `link` costs the same bytes.
    let link = json(&["link", "--link", "lorawan-eu868-dr0", "--bytes", "37"]);
    assert_eq!(
        v["messages"][0]["airtime_ms"].as_f64().unwrap(),
        link["airtime_ms"].as_f64().unwrap(),
        "{link}"
    );
    // message_4 is optional (§3.2): without it, three messages.
    let three = json(&[
        "handshake",
        "edhoc",
        "--method",
        "4",
        "--no-message-4",
        "--link",
        "lorawan-eu868-dr0",
    ]);
    assert_eq!(three["messages"].as_array().unwrap().len(), 3, "{three}");
    let text = Command::cargo_bin("ciphermeter")
        .unwrap()
        .args([
            "handshake",
            "edhoc",
            "--method",
            "psk",
            "--link",
            "lorawan-eu868-dr0",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("EDHOC method 4 suite 2, draft-ietf-lake-edhoc-psk-08, run"),
        "{text}"
    );
    let drafts = json(&["handshake", "drafts", "--link", "lorawan-eu868-dr0"]);
    let row = drafts["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["suite"] == "edhoc-psk-s2")
        .unwrap();
    assert!(
        row["label"].as_str().unwrap().contains("also run for real"),
        "{row}"
    );
    assert_eq!(row["bytes"], 37 + 35 + 11 + 9);
    for (args, why) in [
        (vec!["--method", "psk", "--suite", "3"], "suite 2"),
        (vec!["--method", "5"], "does not exist"),
        (vec!["--method", "sig"], "psk"),
    ] {
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .args(["handshake", "edhoc"])
            .args(["--link", "lorawan-eu868-dr0"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(why));
    }
}

/// The drafts' table: ML-KEM-512 with ML-DSA-44 (method 0) is 6,445 bytes;
/// at EU868 DR0 its message_2 would take 66 class-A downlinks of 49 bytes,
/// which the link model refuses, while BLE carries it; every row names its draft.
#[test]
fn drafts_table_costs_every_suite_on_the_five_links() {
    let v = json(&["handshake", "drafts", "--device", "nrf52840"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 5 * 5);
    let row = |suite: &str, link: &str| {
        rows.iter()
            .find(|r| r["suite"] == suite && r["link"] == link)
            .unwrap()
    };
    let m0 = "edhoc-m0-ml-kem-512+ml-dsa-44";
    let dr0 = row(m0, "lorawan-eu868-dr0");
    assert_eq!(dr0["bytes"], 6445);
    assert_eq!(dr0["downlinks"], 3196u64.div_ceil(49));
    assert_eq!(
        dr0["uplink_frames"],
        806u64.div_ceil(49) + 2443u64.div_ceil(49)
    );
    assert!(dr0["refused"].as_str().unwrap().contains("message_2"));
    assert!(dr0["duty_cycle_h"].as_f64().unwrap() > 1.0, "{dr0}");
    let ble = row(m0, "ble-1m-251");
    assert!(ble.get("refused").is_none(), "{ble}");
    assert!(
        ble["device"]["initiator_cpu_ms"].as_f64().unwrap() > 0.0,
        "{ble}"
    );
    for r in rows {
        assert!(r["label"].as_str().unwrap().contains("draft-"), "{r}");
    }
    Command::cargo_bin("ciphermeter")
        .unwrap()
        .args(["handshake", "drafts", "--link", "lorawan-eu868-dr9"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown link"));
}
