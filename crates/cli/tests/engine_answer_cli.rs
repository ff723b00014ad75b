//! `recommend --format json` prints the cost engine's answer (issue 65): the
//! same request ranked in this process by `cost_engine::rank`, from the
//! built-in profiles and links and the device's shipped table (no store, no
//! file), is the very JSON the command prints with an empty results store:
//! every row, rank, exclusion and verdict. The `explore` page shows this answer.

use assert_cmd::Command;

mod support;
use support::run::stdout_ok;

fn printed(device: &str, link: &str, container: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = stdout_ok(
        Command::cargo_bin("ciphermeter")
            .unwrap()
            .env_remove("CIPHERMETER_DATA_DIR")
            .args(["recommend", "--device", device, "--link", link])
            .args(["--container", container, "--format", "json", "--db"])
            .arg(dir.path().join("results.sqlite")),
    );
    serde_json::from_slice(&out).unwrap()
}

/// The request `recommend` makes of these flags and its defaults.
fn engine(device: &str, link: &str, container: &str) -> serde_json::Value {
    let choice = device_facts::implementation::parse_choice("all").unwrap();
    let req = cost_engine::request::Request {
        device: device.into(),
        link: link.into(),
        payload: "chain:10".into(),
        serialization: None,
        min_security: 128,
        need: cost_engine::choices::Need::Confidentiality,
        allow_legacy: false,
        allow_leaky: false,
        containers: cost::ranking::containers(container).unwrap(),
        compression: None,
        battery: "2xAA".into(),
        interval: "10m".into(),
        session_messages: None,
        implementations: choice.software,
        hardware: choice.hardware,
        protocol: Default::default(),
    };
    let profiles = energy::Profiles::builtin().unwrap();
    let links = link::Catalogue::builtin().unwrap();
    let facts = cost_engine::rank::Facts::shipped(&profiles, &links, device).unwrap();
    let sealer = cost::message::Sealer { quick: true };
    let mut sessions = cost_engine::rank::WithoutSessions;
    let r =
        cost_engine::rank::rank(&req, facts, &sealer, &mut sessions, &mut |_, _, _| {}).unwrap();
    serde_json::to_value(r.summary(&req)).unwrap()
}

#[test]
fn recommend_prints_the_engines_answer() {
    for (device, link, container) in [
        ("stm32wl", "lorawan-eu868-dr5", "all"),
        ("nrf52840", "ble-1m-251", "json"),
        ("nrf54l15", "ble-1m-251", "json"),
    ] {
        let cli = printed(device, link, container);
        let ours = engine(device, link, container);
        assert!(
            cli["rows"].as_array().unwrap().len() >= 10,
            "{device}: {}",
            cli["rows"]
        );
        assert_eq!(cli, ours, "{device} on {link} in {container}");
    }
}
