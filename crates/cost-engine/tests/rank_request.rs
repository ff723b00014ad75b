//! A whole `recommend` question answered by the engine: the built-in
//! profiles and links, the device's shipped table, no store and no file
//! read; the readings sealed for real by the host's sealer
//! (`cost::message::Sealer`, a dev-dependency), never timed here as the
//! device has its own times. Known answers: study 003's chain:10 reading is 216 B as JSON and
//! 415 B sealed with AES-128-GCM in the json container
//! (`crates/cost/src/scheme_cost.rs`); on EU868 DR5 those 415 B go in the
//! sealing core's two fragments, 701.952 ms on air (220 + 2 and 195 + 2
//! bytes at SF7/125 kHz, data/links/lorawan.toml).

use cost::message::Sealer;
use cost_engine::Error;
use cost_engine::choices::Need;
use cost_engine::rank::{Facts, WithoutSessions, rank_names};
use cost_engine::request::Request;
use cost_engine::summary::RankingSummary;
use seal::host::container::MessageContainer;

const GCM: &str = "aead:aes-128-gcm";
const JSON: MessageContainer = MessageContainer::Sealed(seal::Container::Json);

fn request(device: &str, link: &str) -> Request {
    Request {
        device: device.into(),
        link: link.into(),
        payload: "chain:10".into(),
        serialization: None,
        min_security: 128,
        need: Need::Confidentiality,
        allow_legacy: false,
        allow_leaky: false,
        containers: vec![JSON],
        compression: None,
        battery: "2xAA".into(),
        interval: "10m".into(),
        session_messages: None,
        implementations: Vec::new(),
        hardware: false,
        protocol: Default::default(),
    }
}

fn ranked(req: &Request, names: &[&str]) -> Result<RankingSummary, Error> {
    let profiles = energy::Profiles::builtin().unwrap();
    let links = link::Catalogue::builtin().unwrap();
    let facts = Facts::shipped(&profiles, &links, &req.device)?;
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let r = rank_names(
        req,
        facts,
        &names,
        &Sealer { quick: true },
        &mut WithoutSessions,
        &mut |_, _, _| {},
    )?;
    Ok(r.summary(req))
}

/// The STM32WL's row on EU868 DR5: the known bytes, frames and airtime,
/// its CPU time the Cortex-M4 simulation's (a device time, never a host's),
/// and its energy the device's CPU power for that time plus the radio's.
#[test]
fn stm32wl_on_eu868_dr5_ranks_the_known_message() {
    let s = ranked(&request("stm32wl", "lorawan-eu868-dr5"), &[GCM]).unwrap();
    assert_eq!(s.rows.len(), 1, "{:?}", s.excluded);
    let row = &s.rows[0];
    assert_eq!((row.rank, row.scheme.as_str()), (1, GCM));
    assert_eq!((row.sealed_bytes, row.frames), (415, 2));
    assert_eq!(row.airtime_ms, 701.952);
    assert!(row.device_measured, "{}", row.cpu_time_source);
    assert_eq!(row.cpu_time_basis, "simulated");
    assert!(
        row.cpu_time_source.contains("Cortex-M4"),
        "{}",
        row.cpu_time_source
    );
    // 3.3 V × 3.5 mA (data/devices/modern-boards.toml, DS13105) = 11.55 mW.
    let cpu_uj = row.cpu_time_us * 1e-6 * 3.3 * 3.5e-3 * 1e6;
    assert!(
        (row.cpu_uj - cpu_uj).abs() < 1e-9,
        "{} {cpu_uj}",
        row.cpu_uj
    );
    assert!((row.message_uj - row.cpu_uj - row.radio_uj).abs() < 1e-6);
    // EU868's 1 % duty cycle allows 1.4 s on air every 10 minutes.
    let duty = s.duty_cycle.as_ref().expect("EU868 has a duty-cycle rule");
    assert_eq!((duty.allowed_count, duty.ranked_count), (1, 1));
    assert!(row.duty_cycle_allowed);
    // Two frames: no choice fits one, so the options are costed.
    let fit = s.frame_fit.as_ref().expect("415 B takes two DR5 frames");
    assert!(
        fit.sentence.contains("No scheme fits one"),
        "{}",
        fit.sentence
    );
    // As `recommend --format json` prints it.
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["rows"][0]["sealed_bytes"], 415);
    assert_eq!(json["sessions"], serde_json::json!([]));
}

/// On BLE the same message is two frames too, the nRF52840's time is the
/// simulation's, and the table prints it with the device's own verdicts.
#[test]
fn nrf52840_on_ble_ranks_the_known_message_and_prints_it() {
    let s = ranked(&request("nrf52840", "ble-1m-251"), &[GCM]).unwrap();
    let row = &s.rows[0];
    assert_eq!((row.sealed_bytes, row.frames), (415, 2));
    assert!(row.device_measured && row.constant_time.is_some());
    // 3.0 V × 3.3 mA (nRF52840 PS) = 9.9 mW.
    let cpu_uj = row.cpu_time_us * 9.9e-3;
    assert!(
        (row.cpu_uj - cpu_uj).abs() < 1e-9,
        "{} {cpu_uj}",
        row.cpu_uj
    );
    assert!(s.duty_cycle.is_none(), "BLE has no duty-cycle rule");
    let text = s.text(10);
    assert!(
        text.contains("Schemes for nrf52840 over ble-1m-251 carrying chain:10"),
        "{text}"
    );
    assert!(text.contains(GCM), "{text}");
}

/// What the engine cannot answer alone is refused with why, never guessed:
/// a session's handshakes (the host's), an unknown device, a bad sample.
#[test]
fn what_the_engine_cannot_answer_is_refused_with_why() {
    let req = Request {
        session_messages: Some(100),
        ..request("stm32wl", "lorawan-eu868-dr5")
    };
    let err = ranked(&req, &[GCM]).err().unwrap();
    assert!(
        err.is_invalid() && err.to_string().contains("--session-messages"),
        "{err}"
    );
    let err = ranked(&request("stm32wx", "ble-1m-251"), &[GCM])
        .err()
        .unwrap();
    assert!(
        err.is_invalid() && err.to_string().contains("stm32wl"),
        "{err}"
    );
    let req = Request {
        payload: "chain:0x".into(),
        ..request("stm32wl", "ble-1m-251")
    };
    let err = ranked(&req, &[GCM]).err().unwrap();
    assert!(err.to_string().starts_with("--sample"), "{err}");
    // A scheme weaker than asked is excluded with its reason, not sealed.
    let req = Request {
        min_security: 256,
        ..request("stm32wl", "ble-1m-251")
    };
    let s = ranked(&req, &[GCM]).unwrap();
    assert!(s.rows.is_empty());
    assert_eq!(s.excluded[0].why, "128 bits < --min-security 256");
}

/// The host's sealer, refusing to time: a ranking on a simulated device never
/// asks this host for a seal time.
struct NeverTimed(Sealer);

impl cost_engine::message::Messages for NeverTimed {
    fn check(&self, sample: &str, compression: Option<&str>) -> Result<(), Error> {
        self.0.check(sample, compression)
    }

    fn seal(&self, ask: &cost_engine::message::Ask) -> Result<cost_engine::message::Sealed, Error> {
        self.0.seal(ask)
    }

    fn host_time(
        &self,
        ask: &cost_engine::message::Ask,
    ) -> Result<Option<(f64, f64, f64, u64)>, Error> {
        panic!("{} was timed on this host", ask.scheme)
    }
}

/// A scheme without the nRF52840's own seal path (Twofish: leaky there) is
/// listed apart with why, and neither it nor the ranked one is timed here.
#[test]
fn a_device_ranking_never_times_on_this_host() {
    let req = request("nrf52840", "lorawan-eu868-dr5");
    let twofish = "etm:twofish-128-cbc+hmac-sha256";
    let profiles = energy::Profiles::builtin().unwrap();
    let links = link::Catalogue::builtin().unwrap();
    let facts = Facts::shipped(&profiles, &links, &req.device).unwrap();
    let names = vec![GCM.to_string(), twofish.to_string()];
    let r = rank_names(
        &req,
        facts,
        &names,
        &NeverTimed(Sealer { quick: true }),
        &mut WithoutSessions,
        &mut |_, _, _| {},
    )
    .unwrap()
    .summary(&req);
    assert_eq!(r.rows[0].scheme, GCM);
    let why = &r
        .excluded
        .iter()
        .find(|e| e.scheme == twofish)
        .unwrap_or_else(|| panic!("{twofish} not listed apart: {:?}", r.excluded))
        .why;
    // Leaky there (its key schedule branches on the key): without the
    // device's own seal path all the same.
    use cost_engine::choices::{NO_SEAL_PATH, NOT_ON_DEVICE};
    assert!(
        why.starts_with(NO_SEAL_PATH) || why.starts_with(NOT_ON_DEVICE),
        "{why}"
    );
}
