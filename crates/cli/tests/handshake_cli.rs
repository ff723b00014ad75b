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
        for m in messages {
            // One truth: `link` prices the same bytes the same way.
            let bytes = m["bytes"].to_string();
            let l = json(&["link", "--link", link, "--bytes", &bytes]);
            assert_eq!(m["airtime_ms"], l["airtime_ms"], "{link} {bytes}");
            assert_eq!(m["frames"], l["frames"]);
            assert_eq!(m["on_air_bytes"], l["on_air_bytes"]);
            total += m["airtime_ms"].as_f64().unwrap();
        }
        assert!((h["total_airtime_ms"].as_f64().unwrap() - total).abs() < 1e-6);
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
