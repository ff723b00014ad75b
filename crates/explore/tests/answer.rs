//! The page's answers on the host: a custom device profile (the text of a
//! file the user picked) is ranked from its own figures, and what the page
//! cannot answer is refused with a message, never guessed.

use explore::request::PageRequest;

/// nRF52840's profile (data/devices/modern-boards.toml) renamed, its active
/// current scaled by `scale`.
fn profile(name: &str, scale: f64) -> String {
    let shipped = include_str!("../../../data/devices/modern-boards.toml");
    let start = shipped.find("name = \"nrf52840\"").unwrap();
    let end = start + shipped[start..].find("\n\n").unwrap();
    let entry = &shipped[start..end];
    let active = entry.lines().find(|l| l.starts_with("active_ma")).unwrap();
    format!(
        "[[device]]\n{}",
        entry
            .replace("name = \"nrf52840\"", &format!("name = \"{name}\""))
            .replace(
                active,
                &format!(
                    "active_ma = {{ value = {}, estimate = \"a test's\" }}",
                    3.3 * scale
                )
            )
    )
}

fn request(device: &str, profiles: Vec<String>) -> PageRequest {
    PageRequest {
        device: device.into(),
        link: "ble-1m-251".into(),
        implementation: Some("software".into()),
        profiles,
        ..PageRequest::default()
    }
}

#[test]
fn a_custom_profile_is_ranked_from_its_own_figures() {
    let shipped = explore::answer(&request("nrf52840", vec![])).unwrap();
    let same = explore::answer(&request("my-board", vec![profile("my-board", 1.0)])).unwrap();
    let hungry = explore::answer(&request("my-board", vec![profile("my-board", 2.0)])).unwrap();
    assert!(shipped.rows.len() >= 10);
    assert_eq!(same.rows.len(), shipped.rows.len());
    for (a, b) in same.rows.iter().zip(&shipped.rows) {
        assert_eq!(
            (&a.scheme, a.sealed_bytes, a.cpu_uj),
            (&b.scheme, b.sealed_bytes, b.cpu_uj)
        );
    }
    // Twice the active current: twice the CPU energy of each scheme.
    for row in &hungry.rows {
        let base = same
            .rows
            .iter()
            .find(|r| r.scheme == row.scheme && r.container == row.container)
            .unwrap();
        let ratio = row.cpu_uj / base.cpu_uj;
        assert!((ratio - 2.0).abs() < 1e-9, "{}: {ratio}", row.scheme);
    }
}

#[test]
fn what_the_page_cannot_answer_is_refused() {
    for (json, said) in [
        (
            r#"{"device":"nrf52840","link":"ble-1m-251","compression":"schc","container":"oscore"}"#,
            "cannot compress",
        ),
        (
            r#"{"device":"nrf52840","link":"ble-1m-251","session-messages":100}"#,
            "--session-messages",
        ),
        (r#"{"device":"nrf52840","link":"nowhere"}"#, "nowhere"),
        (
            r#"{"device":"esp32","link":"ble-1m-251"}"#,
            "no simulated target",
        ),
        (
            r#"{"device":"nrf52840","link":"ble-1m-251","colour":"red"}"#,
            "colour",
        ),
        (
            r#"{"device":"nrf52840","link":"ble-1m-251","profiles":["[[device]]\nname = 3"]}"#,
            "profile file 1",
        ),
        ("not json", "request"),
    ] {
        let answer: serde_json::Value = serde_json::from_str(&explore::answer_json(json)).unwrap();
        let error = answer["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{json}: {answer}"));
        assert!(error.contains(said), "{json}: {error}");
    }
}
