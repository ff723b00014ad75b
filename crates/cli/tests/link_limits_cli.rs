//! Each link's limits on how often it sends, judged as a user meets them:
//! a row that breaks one is marked with the limit's name, every remedy
//! `recommend` prints runs and then allows, on every link family with a
//! limit; an interval no message could keep is refused (exit 2) with its
//! real cause.

use assert_cmd::Command;
use serde_json::Value;

mod support;
use support::run::{cm, json_ok};

/// `recommend` for a 4-byte reading in the binary container on a throwaway
/// store; a flag in `extra` replaces the question's own (`--link`,
/// `--interval`, `--container`) or adds to it.
fn recommend(db: &std::path::Path, link: &str, interval: &str, extra: &[&str]) -> Command {
    let mut flags = vec![
        ["--link", link],
        ["--interval", interval],
        ["--container", "binary"],
    ];
    for pair in extra.chunks(2) {
        match flags.iter_mut().find(|f| f[0] == pair[0]) {
            Some(f) => f[1] = pair[1],
            None => flags.push([pair[0], pair[1]]),
        }
    }
    let mut c = cm();
    c.args(["recommend", "--device", "stm32l0", "--sample", "random:4"])
        .args(["--top", "2"])
        .args(flags.concat())
        .arg("--db")
        .arg(db);
    c
}

fn json(c: &mut Command) -> Value {
    json_ok(c.args(["--format", "json"]))
}

/// Nothing allowed at `interval` on `link`, each row marked with the limits
/// it breaks (`broken`), and every printed remedy, taken, allows a choice.
fn every_remedy_runs_and_allows(link: &str, interval: &str, broken: &[&str]) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let doc = json(&mut recommend(&db, link, interval, &[]));
    let answer = &doc["duty_cycle"];
    assert_eq!(answer["allowed_count"], 0, "{answer}");
    for row in doc["rows"].as_array().unwrap() {
        assert_eq!(row["duty_cycle_allowed"], false, "{row}");
        assert_eq!(row["limits_broken"], serde_json::json!(broken), "{row}");
    }
    let out = recommend(&db, link, interval, &[]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let marks: Vec<&str> = broken
        .iter()
        .map(|b| match *b {
            "uplinks_per_day" => "uplinks/day",
            _ => "duty cycle",
        })
        .collect();
    assert!(
        text.contains(&format!("[NOT ALLOWED: {}]", marks.join(", "))),
        "{text}"
    );
    let remedies = answer["remedies"].as_array().unwrap();
    let shortest = answer["shortest_legal_interval_s"].as_f64().unwrap();
    assert_eq!(
        remedies[0]["option"],
        format!("--interval {}s", shortest.ceil())
    );
    for r in remedies {
        let option = r["option"].as_str().unwrap();
        // Printed, word for word, in the sentence the text starts with.
        assert!(
            text.lines().next().unwrap().contains(option),
            "{option}: {text}"
        );
        let args: Vec<&str> = option.split(' ').collect();
        let taken = json(&mut recommend(&db, link, interval, &args));
        assert!(
            taken["duty_cycle"].is_null()
                || taken["duty_cycle"]["allowed_count"].as_u64().unwrap() > 0,
            "{option}: {}",
            taken["duty_cycle"]
        );
        assert_eq!(taken["rows"][0]["duty_cycle_allowed"], true, "{option}");
    }
    remedies.len()
}

/// Issue 61's Sigfox case: 5 uplinks a reading every 617 s is 700 a day
/// where RC1 sells 140, and 31.2 s on air an interval where 1 % allows 6.2.
#[test]
fn sigfox_rc1_marks_the_daily_limit_and_every_remedy_allows() {
    let n = every_remedy_runs_and_allows("sigfox-rc1", "617s", &["duty_cycle", "uplinks_per_day"]);
    // The interval and at least one other link.
    assert!(n >= 2, "{n}");
}

/// Each limit is judged on its own: a MAC-only message of 4 frames (24.5 s
/// on air) keeps 1 % every 2,460 s (2,448 s) but not 140 a day (4 frames
/// need 2,468.6 s); 5 frames of 31.2 s every 3,100 s keep the day (3,085.7 s)
/// but not 1 % (3,120 s).
#[test]
fn sigfox_rc1_names_the_one_limit_that_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let doc = json(&mut recommend(
        &db,
        "sigfox-rc1",
        "2460s",
        &["--need", "integrity"],
    ));
    let row = &doc["rows"][0];
    assert_eq!(
        (row["scheme"].as_str(), row["frames"].as_u64()),
        (Some("hmac:cmac-aes-128"), Some(4))
    );
    assert_eq!(
        row["limits_broken"],
        serde_json::json!(["uplinks_per_day"]),
        "{row}"
    );
    assert_eq!(doc["duty_cycle"]["limit"], "uplinks_per_day");
    let sentence = doc["duty_cycle"]["sentence"].as_str().unwrap();
    assert!(
        sentence.contains("it breaks the daily uplink limit (under Sigfox RC1's 1 % duty cycle and 140 uplinks a day")
            && sentence.contains("140.5 uplinks a day at this interval"),
        "{sentence}"
    );
    let doc = json(&mut recommend(&db, "sigfox-rc1", "3100s", &[]));
    let row = &doc["rows"][0];
    assert_eq!(
        row["limits_broken"],
        serde_json::json!(["duty_cycle"]),
        "{row}"
    );
    assert_eq!(doc["duty_cycle"]["limit"], "duty_cycle");
    let doc = json(&mut recommend(&db, "sigfox-rc1", "3200s", &[]));
    assert_eq!(doc["rows"][0]["duty_cycle_allowed"], true);
    assert_eq!(doc["rows"][0]["limits_broken"], serde_json::json!([]));
}

#[test]
fn lorawan_eu868_marks_the_duty_cycle_and_every_remedy_allows() {
    let n = every_remedy_runs_and_allows("lorawan-eu868-dr0", "60s", &["duty_cycle"]);
    // The interval, a faster data rate and at least one other link.
    assert!(n >= 3, "{n}");
}

/// Every link whose messages have a limit on how often belongs to a family
/// the tests above cover, so a new one fails here until it is covered.
#[test]
fn every_link_family_with_a_limit_is_covered() {
    let list = cm().args(["link", "--list"]).output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        let doc = json(cm().args(["link", "--link", name, "--bytes", "10"]));
        let limited = doc["min_interval_s"].is_number();
        let covered = name.starts_with("sigfox-") || name.starts_with("lorawan-eu868-");
        assert_eq!(limited, covered, "{name}: {doc}");
    }
}

/// An interval shorter than the message's time on air is refused with that
/// cause, not "lower --min-security"; so is one the duty cycle forbids even
/// a 1-byte frame.
#[test]
fn intervals_no_message_could_keep_are_refused_with_their_cause() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    for interval in ["29s", "10s"] {
        let out = recommend(&db, "sigfox-rc1", interval, &[])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{interval}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains(&format!(
                "--interval {interval} is shorter than one message's time on air on sigfox-rc1"
            )) && err.contains("31.2 s on air")
                && err.contains("--interval 3120s"),
            "{err}"
        );
        assert!(!err.contains("--min-security"), "{err}");
    }
    // 100 s is longer than 31.2 s on air, but 1 % lets even a 1-byte frame
    // (15 B three times, 3.6 s) start only every 360 s.
    let out = recommend(&db, "sigfox-rc1", "100s", &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--interval 100s breaks Sigfox RC1's 1 % duty cycle for any message")
            && err.contains("every 360.0 s"),
        "{err}"
    );
}

/// Issue 61's Sigfox reading fits no scheme in one 12-byte frame: that is
/// said, and the options are costed as the tool costs them. The OSCORE
/// 8-byte tag's option, taken, ranks the bytes it was costed at; the link's
/// own security carries the 4-byte reading in one frame; another network's
/// option, taken, sends one frame.
#[test]
fn no_scheme_in_one_frame_is_said_with_its_costed_options() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let doc = json(&mut recommend(&db, "sigfox-rc1", "3200s", &[]));
    let fit = &doc["frame_fit"];
    assert!(
        fit["sentence"]
            .as_str()
            .unwrap()
            .starts_with("No scheme fits one 12-byte frame of sigfox-rc1: the smallest ranked"),
        "{fit}"
    );
    let options = fit["fit_options"].as_array().unwrap();
    let find = |approach: &str, what: &str| {
        options
            .iter()
            .find(|o| o["approach"] == approach && o["what"].as_str().unwrap().contains(what))
            .unwrap_or_else(|| panic!("{approach} {what}: {fit}"))
    };
    // OSCORE's 8-byte tag: sealed, and ranked at the same bytes when taken.
    let oscore = find("short_tag", "oscore:aes-ccm-16-64-128");
    assert_eq!(oscore["forgery"], "2^-64 a try");
    assert_eq!(oscore["option"], "--container oscore");
    assert_eq!(oscore["costed"], "sealed");
    let taken = json(&mut recommend(
        &db,
        "sigfox-rc1",
        "3200s",
        &["--container", "oscore"],
    ));
    let row = taken["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scheme"] == "oscore:aes-ccm-16-64-128")
        .unwrap();
    assert_eq!(row["sealed_bytes"], oscore["message_bytes"]);
    assert_eq!(row["on_air_bytes"], oscore["on_air_bytes"]);
    // CCM-8 and an 8-byte CMAC are no schemes the core builds: from the layout,
    // 8 tag bytes fewer than their 16-byte forms.
    for what in ["CCM-8", "AES-CMAC truncated to 8 bytes"] {
        let o = find("short_tag", what);
        assert_eq!(o["forgery"], "2^-64 a try", "{o}");
        assert!(
            o["costed"].as_str().unwrap().contains("less 8 tag bytes"),
            "{o}"
        );
        assert!(o["option"].is_null());
    }
    let ccm8 = find("short_tag", "CCM-8");
    let ccm = json(&mut recommend(&db, "sigfox-rc1", "3200s", &[]));
    let ccm = ccm["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scheme"] == "aead:aes-128-ccm")
        .unwrap()
        .clone();
    assert_eq!(
        ccm8["message_bytes"].as_u64().unwrap() + 8,
        ccm["sealed_bytes"].as_u64().unwrap()
    );
    // Sigfox's own MAC: the 4-byte reading alone, (4 + 14) B three times.
    let own = find("link_security", "Sigfox's per-frame MAC");
    assert_eq!(
        (
            own["message_bytes"].as_u64(),
            own["on_air_bytes"].as_u64(),
            own["frames"].as_u64()
        ),
        (Some(4), Some(54), Some(1))
    );
    assert_eq!(own["forgery"], "2^-16 a try");
    assert!(
        own["does_not_protect"]
            .as_str()
            .unwrap()
            .contains("Sigfox cloud")
    );
    // Another network carries it in one frame, as its option shows when taken.
    let other = options.iter().find(|o| o["approach"] == "link").unwrap();
    assert_eq!(other["frames"], 1);
    let args: Vec<&str> = other["option"].as_str().unwrap().split(' ').collect();
    let taken = json(&mut recommend(&db, "sigfox-rc1", "3200s", &args));
    assert_eq!(taken["rows"][0]["frames"], 1);
    assert!(taken["frame_fit"].is_null());
    // The text says it, option by option.
    let out = recommend(&db, "sigfox-rc1", "3200s", &[]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("No scheme fits one 12-byte frame of sigfox-rc1"),
        "{text}"
    );
    assert!(text.contains("forgery 2^-16 a try"), "{text}");
}

/// On LoRaWAN the link's own security is FRMPayload encryption and the
/// 4-byte MIC: US915 DR0 carries 11 bytes, so nothing sealed fits one frame.
#[test]
fn lorawan_costs_its_own_mic_as_an_option() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let doc = json(&mut recommend(&db, "lorawan-us915-dr0", "1h", &[]));
    let options = doc["frame_fit"]["fit_options"].as_array().unwrap();
    let own = options
        .iter()
        .find(|o| o["approach"] == "link_security")
        .unwrap();
    assert_eq!(own["forgery"], "2^-32 a try");
    assert_eq!(
        (own["message_bytes"].as_u64(), own["frames"].as_u64()),
        (Some(4), Some(1))
    );
    assert!(own["what"].as_str().unwrap().contains("FRMPayload"));
    // One frame of EU868 DR0 (51 B) carries the 50-byte message: nothing to say.
    let doc = json(&mut recommend(&db, "lorawan-eu868-dr0", "1h", &[]));
    assert!(doc["frame_fit"].is_null());
}

/// `link` and `energy` judge the same limits as `recommend`, named: 50 B on
/// Sigfox is 5 frames, 31.2 s on air, so 1 % binds (3,120 s) before the
/// day (3,085.7 s); 617 s breaks both.
#[test]
fn link_and_energy_name_the_limits_too() {
    let out = cm()
        .args(["link", "--link", "sigfox-rc1", "--bytes", "50"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("next message after 3120.0 s at the earliest, set by the duty cycle (Sigfox RC1's 1 % duty cycle and 140 uplinks a day)"),
        "{text}"
    );
    let out = cm()
        .args(["energy", "--device", "stm32l0", "--link", "sigfox-rc1"])
        .args(["--bytes", "50", "--interval", "617s"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("the 617-s interval breaks the duty cycle and the daily uplink limit, which allow one message every 3120.0 s"),
        "{text}"
    );
}
