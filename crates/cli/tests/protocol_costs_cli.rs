//! A link's protocol costs around and between messages (BLE connection
//! events, 802.15.4 CSMA-CA and a Thread sleepy end device's polls, LTE-M
//! from PSM), run as a user runs `energy` and `recommend`: known answers from
//! the shipped data, the CR2032 case that used to leave them out, flags that
//! change the answer as predicted, and bad flags refused with exit 2.

use std::path::Path;

use serde_json::Value;

mod support;
use support::run::{cm, json_ok};

fn json(args: &[&str]) -> Value {
    json_ok(cm().args(args).args(["--format", "json"]))
}

/// `energy` for a 10-byte message (no CPU time) on the nRF52840.
fn energy(link: &str, interval: &str, more: &[&str]) -> Value {
    let mut args = vec![
        "energy",
        "--device",
        "nrf52840",
        "--link",
        link,
        "--bytes",
        "10",
        "--interval",
        interval,
        "--battery",
        "cr2032",
    ];
    args.extend_from_slice(more);
    json(&args)
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("no {k} in {v}"))
}

fn close(got: f64, want: f64) {
    assert!((got - want).abs() < 1e-3, "got {got}, want {want}");
}

/// `recommend` on a throwaway store: the CR2032 nRF52840 sending a 4-byte
/// reading in the binary container once a minute.
fn cr2032_days(dir: &Path, link: &str) -> (f64, Value) {
    let db = dir.join("results.sqlite");
    let d = json(&[
        "recommend",
        "--db",
        db.to_str().unwrap(),
        "--device",
        "nrf52840",
        "--link",
        link,
        "--battery",
        "cr2032",
        "--interval",
        "1m",
        "--sample",
        "random:4",
        "--container",
        "binary",
        "--top",
        "1",
    ]);
    (num(&d["rows"][0], "battery_days"), d)
}

// ble-1m-251, one frame a minute at Zephyr's 50 ms interval: 1199 empty
// events, each the crystal's start-up (3 V x 0.36 mA x 360 us = 0.3888 uJ)
// and 3 V x (4.6 mA x 141 us + 4.8 mA x 120 us) = 3.6738 uJ: 4.0626 uJ.
// The data frame: the crystal and two ramp-ups, 0.3888 + 1.128 = 1.5168 uJ.
// --conn-interval 100ms: 599 events, each window 5 us wider (146 us of RX):
// 0.3888 + 3.7428 = 4.1316 uJ each.
#[test]
fn ble_connection_events_known_and_moved_by_the_interval_flag() {
    let d = energy("ble-1m-251", "1m", &[]);
    let p = &d["link_protocol"];
    assert_eq!(p["protocol_kind"], "ble-connection");
    close(num(p, "between_messages_uj"), 1199.0 * 4.0626);
    let row = &d["messages"][0];
    close(num(row, "protocol_uj"), 1199.0 * 4.0626 + 1.5168);
    close(
        num(row, "message_uj"),
        num(row, "tx_uj") + num(row, "rx_uj") + num(row, "protocol_uj"),
    );
    let slow = energy("ble-1m-251", "1m", &["--conn-interval", "100ms"]);
    close(
        num(&slow["link_protocol"], "between_messages_uj"),
        599.0 * 4.1316,
    );
    assert!(num(&slow["messages"][0], "battery_days") > num(row, "battery_days") * 1.5);
    assert_eq!(
        slow["link_protocol"]["protocol_parameters"][0]["parameter_source"],
        "set by --conn-interval"
    );
}

// ble-adv-1m, a 10-byte reading: each advertising event starts the crystal
// (3 V x 0.36 mA x 360 us = 0.3888 uJ), then sends it on 3 channels (720 us)
// after 3 ramp-ups (120 us) at 4.8 mA and 3 V (12.096 uJ): 12.4848 uJ,
// every 105 ms (100 ms and advDelay's mean 5 ms); --adv-interval 1s: 1005 ms.
#[test]
fn ble_advertising_known_and_moved_by_the_adv_interval_flag() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/examples");
    let d = energy("ble-adv-1m", "1m", &["--data-dir", examples]);
    assert_eq!(d["link_protocol"]["protocol_kind"], "ble-advertising");
    close(
        num(&d["link_protocol"], "between_messages_uj"),
        (60.0 / 0.105 - 1.0) * 12.4848,
    );
    let slow = energy(
        "ble-adv-1m",
        "1m",
        &["--data-dir", examples, "--adv-interval", "1s"],
    );
    close(
        num(&slow["link_protocol"], "between_messages_uj"),
        (60.0 / 1.005 - 1.0) * 12.4848,
    );
}

// thread, one frame a minute: the crystal's start-up (3 V x 0.36 mA x 360 us
// = 0.3888 uJ) and CSMA-CA (18.3504 uJ) before it, 18.7392 uJ; a poll every
// 236 s of 0.3888 + 38.76 = 39.1488 uJ (the crystal, CSMA-CA, the 28-byte
// data request, the ACK wait).
// --poll-period 2s: 30 polls a minute.
#[test]
fn thread_polls_known_and_moved_by_the_poll_period_flag() {
    let d = energy("thread", "1m", &[]);
    let p = &d["link_protocol"];
    close(num(p, "around_message_uj"), 18.7392);
    close(num(p, "between_messages_uj"), 39.1488 * 60.0 / 236.0);
    let fast = energy("thread", "1m", &["--poll-period", "2s"]);
    close(
        num(&fast["link_protocol"], "between_messages_uj"),
        30.0 * 39.1488,
    );
}

// ltem from PSM, one message an hour: the connection (105 mJ) and 10 s of
// RRC inactivity at 8.53 mA and 3.7 V (315.61 mJ), then 6 / 2.56 paging occasions
// of 3.7 V x 1253 uC in the active time. --psm 30m,6s adds one TAU (105 mJ).
#[test]
fn lte_m_psm_known_and_moved_by_the_psm_flag() {
    let d = energy("ltem", "1h", &[]);
    let p = &d["link_protocol"];
    close(num(p, "around_message_uj"), 420_610.0);
    close(num(p, "between_messages_uj"), 6.0 / 2.56 * 3.7 * 1253.0);
    let tau = energy("ltem", "1h", &["--psm", "30m,6s"]);
    close(
        num(&tau["link_protocol"], "between_messages_uj"),
        6.0 / 2.56 * 3.7 * 1253.0 + 105_000.0,
    );
}

// Before the protocol costs, 802.15.4 gave this device 9.8 years (3590 days)
// and BLE 10.7 (3901). Thread's headers, CSMA-CA and polls, and BLE's
// connection events, now count, and `energy` says what share they take.
#[test]
fn a_cr2032_nrf52840_at_one_reading_a_minute_pays_its_protocols_idle_costs() {
    let dir = tempfile::tempdir().unwrap();
    let (raw, _) = cr2032_days(dir.path(), "ieee802154");
    let (thread, _) = cr2032_days(dir.path(), "thread");
    let (ble, _) = cr2032_days(dir.path(), "ble-1m-251");
    assert!(raw < 3590.0 * 0.97, "{raw}");
    assert!(thread < 9.0 * 365.25 && thread < raw, "{thread} {raw}");
    assert!(ble < 365.0, "{ble}");
    let out = cm()
        .args([
            "energy",
            "--device",
            "nrf52840",
            "--link",
            "thread",
            "--battery",
            "cr2032",
            "--interval",
            "1m",
            "--sample",
            "random:4",
            "--container",
            "binary",
            "--scheme",
            "aead:aes-128-ccm",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("protocol uJ") && text.contains("proto%"),
        "{text}"
    );
    assert!(
        text.contains("data polls to the parent (one per 236 s)"),
        "{text}"
    );
    assert!(text.contains("poll_period = 236 s"), "{text}");
    let d = energy("thread", "1m", &[]);
    assert!(num(&d["messages"][0], "protocol_share") > 0.2, "{d}");
}

#[test]
fn bad_protocol_flags_exit_2_with_the_reason() {
    let cases: [(&[&str], &str); 9] = [
        (
            &["--link", "ble-1m-251", "--adv-interval", "10ms"],
            "20ms to 10.24s",
        ),
        (
            &["--link", "ble-1m-251", "--conn-interval", "3ms"],
            "7.5ms to 4s",
        ),
        (
            &["--link", "ble-1m-251", "--conn-interval", "51ms"],
            "1.25ms",
        ),
        (
            &["--link", "ble-1m-251", "--peripheral-latency", "900"],
            "499",
        ),
        (
            &["--link", "ble-1m-251", "--poll-period", "10s"],
            "--poll-period sets",
        ),
        (&["--link", "thread", "--edrx", "81.92s"], "a cellular link"),
        (&["--link", "ltem", "--psm", "1h"], "TAU,ACTIVE"),
        (&["--link", "nbiot", "--rrc-inactivity", "2h"], "at most 1h"),
        (
            &["--link", "lorawan-eu868-dr5", "--conn-interval", "50ms"],
            "no protocol costs",
        ),
    ];
    for (command, extra) in [("energy", &["--bytes", "10"][..]), ("recommend", &[][..])] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("results.sqlite");
        for (args, want) in cases {
            let out = cm()
                .arg(command)
                .args(["--device", "nrf52840", "--db", db.to_str().unwrap()])
                .args(extra)
                .args(args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {args:?}: {err}");
            assert!(err.contains(want), "{command} {args:?}: {err}");
        }
    }
}
