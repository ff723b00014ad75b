//! What one sealing scheme costs a device on a link, shared by `run` and
//! `recommend`: the real sealed message (crates/payload + crates/seal), its CPU
//! time (device-level from the store when the device was simulated, else measured
//! on this host and labelled so), its cost on the link and its energy.

use measure::Measurement;
use seal::HostSealer;
use serde_json::json;
use store::ResultRow;
use store::conventions::{ENERGY, FRAME, MESSAGE_UJ, US_PER_MESSAGE, energy_context};

use crate::Error;
#[cfg(test)]
use crate::device_times::CpuSource;
use crate::device_times::DeviceTimes;
use crate::frame::{self, SealJob, time_sealings};
use crate::message::{Message, MessageSpec, Wrap, host_us};
pub use cost_engine::scheme_cost::{SchemeCost, Setting, protocol_cost, scheme_status};
use cost_engine::scheme_cost::{energy_of, from_message};

/// Study 003's schemes (Appendix C; its EtM used AES in ECB mode), then modern
/// choices and two legacy ones the report must mark.
pub const SCHEMES: [&str; 16] = [
    "aead:aes-128-gcm",
    "aead:aes-256-gcm",
    "aead:aes-128-eax",
    "aead:aes-256-eax",
    "aead:acorn-128",
    "hmac:hmac-sha256",
    "hmac:hmac-sha512",
    "hmac:hmac-sha3-256",
    "hmac:hmac-sha3-512",
    "etm:aes-128-ecb+hmac-sha256",
    "etm:aes-256-ecb+hmac-sha256",
    "aead:chacha20-poly1305",
    "aead:ascon-aead128",
    "aead:aes-128-ccm",
    "hmac:hmac-sha1",
    "etm:des-cbc+hmac-md5",
];

/// When a scheme's seal is timed on this host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostTiming {
    /// Always (the run stores the host's frame times).
    Always,
    /// Only where the device has no time of its own (a ranking on a
    /// simulated device needs none: its CPU is the device's).
    WhereDeviceHasNone,
}

/// Seals `sample` (serialized as `serialization`, json when none) with
/// `scheme_text` in `container` under a throw-away key and costs it.
#[allow(clippy::too_many_arguments)]
pub fn cost_scheme(
    scheme_text: &str,
    wrap: impl Into<Wrap>,
    sample: &str,
    serialization: Option<&str>,
    quick: bool,
    setting: &Setting,
    device: Option<&DeviceTimes>,
    timing: HostTiming,
) -> Result<SchemeCost, Error> {
    cost_schemes(
        &[(scheme_text, wrap.into())],
        sample,
        serialization,
        quick,
        setting,
        device,
        timing,
    )?
    .remove(0)
}

/// Costs several schemes on one sample, their host seal times measured
/// together with the samples interleaved (`frame::time_sealings`). Each
/// scheme's cost, or why it has none; an interruption is the outer error.
pub fn cost_schemes(
    schemes: &[(&str, Wrap)],
    sample: &str,
    serialization: Option<&str>,
    quick: bool,
    setting: &Setting,
    device: Option<&DeviceTimes>,
    timing: HostTiming,
) -> Result<Vec<Result<SchemeCost, Error>>, Error> {
    let built: Vec<Result<Message, Error>> = schemes
        .iter()
        .map(|(scheme, wrap)| {
            let message = Message::build(&MessageSpec {
                scheme: Some(scheme.to_string()),
                sample: Some(sample.to_string()),
                serialization: serialization.map(str::to_string),
                container: Some(wrap.container.as_str().to_string()),
                compression: wrap.compression.clone(),
                seed: 1,
                // Measuring legacy schemes is allowed; they are marked, never recommended by default.
                allow_insecure: true,
                ..MessageSpec::default()
            })?;
            message
                .sealed
                .as_ref()
                .ok_or_else(|| Error::failed("no sealed message"))?;
            Ok(message)
        })
        .collect();
    // Whether each built message is timed here, and its sealer if so.
    let mut built: Vec<Result<(Message, Option<HostSealer>), Error>> = built
        .into_iter()
        .map(|b| {
            let m = b?;
            let s = m.sealed.as_ref().expect("built with a seal");
            let timed = match (timing, device) {
                (HostTiming::WhereDeviceHasNone, Some(d)) => d
                    .seal_us(&s.scheme, s.container, m.plaintext.len())
                    .is_none(),
                _ => true,
            };
            let sealer = timed.then(|| s.sealer()).transpose()?;
            Ok((m, sealer))
        })
        .collect();
    let timed: Vec<bool> = built
        .iter()
        .map(|b| matches!(b, Ok((_, Some(_)))))
        .collect();
    let mut jobs = Vec::new();
    for (message, sealer) in built.iter_mut().filter_map(|b| b.as_mut().ok()) {
        let Some(sealer) = sealer else {
            continue;
        };
        let sealed = message.sealed.as_ref().expect("built with a seal");
        let plaintext = message.plaintext.clone();
        jobs.push(SealJob {
            sealer,
            scheme: &sealed.scheme,
            container: sealed.container.require_sealed()?,
            encoding: sealed.encoding,
            next: Box::new(move || plaintext.clone()),
        });
    }
    let mut times = time_sealings(jobs, frame::config(quick))?.into_iter();
    Ok(built
        .into_iter()
        .zip(timed)
        .map(|(b, timed)| {
            let (message, _) = b?;
            let measurement = match timed {
                true => Some(times.next().expect("one time per timed message")?),
                false => None,
            };
            finish(&message, measurement.as_ref(), sample, setting, device)
        })
        .collect())
}

/// A sealed message's cost on the device `times` holds (no host timing):
/// the row `recommend` costs for it, for `energy`'s own message.
pub fn device_cost(
    message: &Message,
    setting: &Setting,
    times: &DeviceTimes,
) -> Result<SchemeCost, Error> {
    finish(
        message,
        None,
        &message.sample.to_string(),
        setting,
        Some(times),
    )
}

/// A scheme's cost from its message and its host seal time.
fn finish(
    message: &Message,
    measurement: Option<&Measurement>,
    sample: &str,
    setting: &Setting,
    device: Option<&DeviceTimes>,
) -> Result<SchemeCost, Error> {
    let sealed = message
        .facts()
        .ok_or_else(|| Error::failed("no sealed message"))?;
    from_message(&sealed, measurement.map(host_us), sample, setting, device)
}

/// The host sealing time, as a stored row.
pub fn frame_row(c: &SchemeCost) -> ResultRow {
    let (median, lo, hi, n) = c.host_us;
    ResultRow {
        section: FRAME.into(),
        target: store::conventions::HOST.into(),
        subject: c.name().to_string(),
        operation: "seal".into(),
        size_bytes: Some(c.plaintext_bytes as i64),
        context: c.sample.clone(),
        metric: US_PER_MESSAGE.into(),
        unit: "µs".into(),
        value: median,
        ci_low: Some(lo),
        ci_high: Some(hi),
        samples: Some(n as i64),
        data: c.row_data(),
    }
}

/// The energy estimate, as a stored row (none when the link cannot carry it).
/// Recomputed for `s`, so one host measurement serves several links.
pub fn energy_row(c: &SchemeCost, s: &Setting) -> Option<ResultRow> {
    let bytes = match &c.schc {
        Some(p) => p.uncompressed_bytes,
        None => c.sealed_bytes,
    };
    let (cost, e) = energy_of(s, bytes, c.schc.as_ref(), c.cpu_us).ok()?;
    let e = e.ok()?;
    let (cost, e) = (&cost, &e);
    let interval_s = s.interval_s;
    let mut data = c.row_data();
    let extra = json!({
        "device": s.device.name,
        "link": s.link.name,
        "radio": s.radio.name,
        "battery": s.battery.map(|b| b.name.clone()),
        "interval_s": interval_s,
        "cpu_time_us": c.cpu_us,
        "cpu_time_source": c.cpu_source.describe(),
        "code_size_bytes": c.code_size,
        "stack_bytes": c.stack_bytes,
        "on_air_bytes": cost.on_air_bytes,
        "frames": cost.frames,
        "airtime_ms": cost.airtime.as_ms(),
        "min_interval_s": cost.min_interval.map(|t| t.as_secs()),
        "cpu_uj": e.cpu_j * 1e6,
        "tx_uj": e.tx_j * 1e6,
        "rx_uj": e.rx_j * 1e6,
        "sleep_uj": e.sleep_j * 1e6,
        "protocol_uj": e.protocol_j * 1e6,
        "interval_uj": e.interval_j * 1e6,
        "battery_days": e.battery_days,
        "battery_note": e.battery_note,
        "average_current_ua": e.average_ua,
        "label": energy::MODEL_LABEL,
    });
    if let (Some(d), Some(x)) = (data.as_object_mut(), extra.as_object()) {
        d.extend(x.clone());
    }
    Some(ResultRow {
        section: ENERGY.into(),
        target: store::conventions::HOST.into(),
        subject: c.name().to_string(),
        operation: "message".into(),
        size_bytes: Some(c.plaintext_bytes as i64),
        context: energy_context(&s.device.name, &s.link.name),
        metric: MESSAGE_UJ.into(),
        unit: "µJ".into(),
        value: e.message_j * 1e6,
        // A model of a measured time: no sampling interval of its own.
        ci_low: None,
        ci_high: None,
        samples: None,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use seal::Scheme;
    use store::Store;

    /// A store holding one ATmega1284P run of AES-128-GCM's seal at these
    /// (reading bytes, exact cycles), and the device times read from it.
    /// Study 003's chain:10 reading sealed in json, costed with these device times.
    fn cost_chain10(
        scheme: &str,
        setting: &Setting,
        times: &DeviceTimes,
    ) -> Result<SchemeCost, Error> {
        cost_scheme(
            scheme,
            seal::Container::Json,
            "chain:10",
            None,
            true,
            setting,
            Some(times),
            HostTiming::Always,
        )
    }

    /// Study 003's chain:10 reading in aead:aes-128-gcm on a SODAQ Mbili
    /// (2xAA, a message every 600 s) over `link`, its seal 800,000 cycles:
    /// the cost and its energy row.
    fn gcm_chain10_on_mbili(link: &str) -> (SchemeCost, ResultRow) {
        let (_dir, times) = stored_gcm_seals(&[(216, 800_000)]);
        let profiles = crate::data::profiles(None).unwrap();
        let links = crate::data::links(None).unwrap();
        let link = links.get(link).unwrap();
        let setting = Setting {
            device: profiles.device("sodaq-mbili").unwrap(),
            radio: profiles.radio(&link.radio).unwrap(),
            link,
            battery: Some(profiles.battery("2xAA").unwrap()),
            interval_s: 600.0,
            protocol: Default::default(),
        };
        let c = cost_chain10("aead:aes-128-gcm", &setting, &times).unwrap();
        let row = energy_row(&c, &setting).unwrap();
        (c, row)
    }

    fn stored_gcm_seals(points: &[(usize, u64)]) -> (tempfile::TempDir, DeviceTimes) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let run = store
            .begin_run(
                &store::NewRun {
                    command: "mcu".into(),
                    host: "test".into(),
                    origin: "local".into(),
                    environment: json!({}),
                },
                store::RunStatus::Running,
            )
            .unwrap();
        let results: Vec<device_facts::McuResult> = points
            .iter()
            .map(|&(bytes, cycles)| {
                let mut r = device_facts::McuResult::failure(
                    device_facts::Target::Atmega1284p,
                    "aead:aes-128-gcm",
                    "seal-json",
                    "",
                );
                (r.error, r.kat_passed, r.size_bytes, r.cycles) = (None, true, bytes, cycles);
                r
            })
            .collect();
        store
            .add_results(run, &crate::record::mcu_rows(&results))
            .unwrap();
        let times = crate::device_times::load(&store, device_facts::Target::Atmega1284p)
            .unwrap()
            .unwrap();
        (dir, times)
    }

    /// With a simulated device, a scheme that has a device seal time uses it;
    /// one without (its firmware failed a known answer) says the host's stands in.
    #[test]
    fn a_scheme_without_a_device_time_is_labelled_as_host() {
        // Exact cycles at 8 MHz: 8 per µs.
        let (_dir, times) = stored_gcm_seals(&[(65, 400_000), (481, 2_000_000)]);
        let profiles = crate::data::profiles(None).unwrap();
        let links = crate::data::links(None).unwrap();
        let link = links.get("lora-sf9-125").unwrap();
        let setting = Setting {
            device: profiles.device("sodaq-mbili").unwrap(),
            radio: profiles.radio(&link.radio).unwrap(),
            link,
            battery: None,
            interval_s: 600.0,
            protocol: Default::default(),
        };
        let gcm = cost_chain10("aead:aes-128-gcm", &setting, &times).unwrap();
        assert!(gcm.cpu_source.is_device());
        let expected = 50_000.0 + 200_000.0 / 416.0 * (gcm.plaintext_bytes as f64 - 65.0);
        assert!((gcm.cpu_us - expected).abs() < 1e-6, "{}", gcm.cpu_us);
        let eax = cost_chain10("aead:aes-128-eax", &setting, &times).unwrap();
        assert!(matches!(
            eax.cpu_source,
            CpuSource::HostInsteadOfDevice { .. }
        ));
        assert!(eax.cpu_source.describe().contains("no seal time"));
        assert!(
            eax.cpu_us < 1_000.0,
            "a host time, not a device one: {}",
            eax.cpu_us
        );
    }

    /// Every scheme is a firmware build by its own name, which the runner
    /// resolves (the sealing core's path), study 003's included.
    #[test]
    fn schemes_are_firmware_builds_by_name() {
        for name in [
            "aead:aes-128-gcm",
            "hmac:hmac-sha3-512",
            "etm:aes-128-cbc+hmac-sha256",
            "aead:ascon-aead128",
        ] {
            let scheme = Scheme::parse(name).unwrap();
            assert_eq!(DeviceTimes::firmware_id(&scheme), name);
            let resolved = device_facts::algorithms::resolve(&[name.to_string()]).unwrap();
            assert_eq!(resolved[0].family, device_facts::algorithms::Family::Seal);
        }
    }

    /// A known message on a known link, to the byte and the microjoule: study
    /// 003's chain:10 reading (216 B as JSON) sealed with AES-128-GCM in the
    /// json container is 415 B; on EU868 DR5 that is two fragments and
    /// 701.952 ms on air. With a device seal time of exactly 800,000 cycles (100 ms at
    /// the SODAQ Mbili's 8 MHz), the CPU costs 3.3 V × 3.5 mA × 0.1 s = 1,155 µJ.
    #[test]
    fn a_known_message_on_a_known_link_costs_known_bytes_and_microjoules() {
        let (c, row) = gcm_chain10_on_mbili("lorawan-eu868-dr5");
        assert_eq!((c.plaintext_bytes, c.sealed_bytes), (216, 415));
        assert_eq!(c.cpu_us, 100_000.0);
        assert_eq!(row.data["frames"], 2);
        // 415 B in the sealing core's fragments: 220 + 2 and 195 + 2 bytes.
        assert_eq!(row.data["airtime_ms"], 701.952);
        let cpu_uj = row.data["cpu_uj"].as_f64().unwrap();
        assert!((cpu_uj - 1_155.0).abs() < 1e-9, "{cpu_uj}");
        let radio_uj = row.data["tx_uj"].as_f64().unwrap() + row.data["rx_uj"].as_f64().unwrap();
        // 145.2 mW (3.3 V × 44 mA) on air for 701.952 ms, and the two receive windows.
        assert!((radio_uj - 121_192.98).abs() < 0.01, "{radio_uj}");
        assert!(
            (row.value - (cpu_uj + radio_uj)).abs() < 1e-6,
            "{}",
            row.value
        );
    }

    /// On BLE the stored message energy, whose CPU share `run` states,
    /// holds the connection's empty events until the next message: at
    /// Zephyr's 50 ms interval, 600 / 0.05 - 2 = 11,998 events of 4.0626 µJ
    /// (the crystal's start-up, 3 V × 0.36 mA × 360 µs = 0.3888 µJ, and the
    /// radio's 3.6738 µJ: data/links/ble.toml, the nRF52840's currents,
    /// crystal and ramp-up) and the two data frames' crystal and ramp-ups,
    /// 0.3888 + 1.128 = 1.5168 µJ each: 48,743.0748 + 3.0336 = 48,746.1084 µJ.
    #[test]
    fn the_stored_message_energy_holds_the_link_protocols_idle_costs() {
        let (_, row) = gcm_chain10_on_mbili("ble-1m-251");
        assert_eq!(row.data["frames"], 2);
        let f = |k: &str| row.data[k].as_f64().unwrap();
        assert!(
            (f("protocol_uj") - 48_746.108_4).abs() < 1e-3,
            "{}",
            f("protocol_uj")
        );
        let parts = f("cpu_uj") + f("tx_uj") + f("rx_uj") + f("protocol_uj");
        assert!((row.value - parts).abs() < 1e-6, "{}", row.value);
        // The share `run` says: 1,155 µJ of CPU is under 3 % of it, not the
        // 95 % it is of the CPU and radio alone.
        assert!(f("cpu_uj") / row.value < 0.03);
        assert!(f("cpu_uj") / (f("cpu_uj") + f("tx_uj") + f("rx_uj")) > 0.9);
    }
}
