//! Energy per message split into CPU and radio, and battery life at a
//! reporting interval, for the plaintext and the sealed message: what
//! `energy` computes and prints. A model estimate.
//!
//! The messages are byte counts, or a real reading sealed with a scheme,
//! whose sealing CPU time is given by the user, taken from a stored device
//! simulation, or measured on this host and labelled so.

use energy::model::parse_interval;
use energy::{Battery, Device, EnergyEstimate, MODEL_LABEL, MessageLoad, Radio};
use link::{LinkCost, LinkSpec, SendOptions};
use seal::host::container::MessageContainer;
use serde_json::{Value, json};
use store::Store;

use crate::Error;
use crate::data::ms;
use crate::device_times::DeviceTimes;
use crate::duty_cycle;
use crate::link_view::parse_bytes;
use crate::message::{Message, MessageSpec, build_note, host_time_label, message_len};
use crate::scheme_cost::{Setting, protocol_cost};
use cost_engine::scheme_cost::message_energy;

/// The two messages to compare.
pub enum Messages {
    /// Sizes as typed: plaintext and sealed bytes.
    Bytes { plain: u32, sealed: u32 },
    /// A real reading, serialized and sealed.
    Real(MessageSpec),
}

impl Messages {
    /// Sizes as typed: `--bytes`, and `--sealed-bytes` or `--overhead` (the
    /// bytes sealing adds); neither: the sealed message is the plaintext.
    pub fn from_sizes(
        bytes: &str,
        sealed: Option<&str>,
        overhead: Option<&str>,
    ) -> Result<Messages, Error> {
        let plain = parse_bytes(bytes)?;
        let sealed = match (sealed, overhead) {
            (Some(s), _) => parse_bytes(s)?,
            (None, Some(o)) => {
                let added = parse_bytes(o)
                    .map_err(|e| Error::invalid(e.to_string().replace("--bytes", "--overhead")))?;
                plain
                    .checked_add(added)
                    .ok_or_else(|| Error::invalid("--overhead: too large"))?
            }
            (None, None) => plain,
        };
        Ok(Messages::Bytes { plain, sealed })
    }
}

/// Where the seal's CPU time comes from.
pub enum CpuChoice<'a> {
    /// The default: the device's own instruction stream, from a stored
    /// simulation of the same firmware or the shipped device cost table.
    /// `choice` (`--impl`, as `recommend` reads it) says whose code may run
    /// the seal and whether the device's engines may do part of it: the
    /// scheme's row `recommend` ranks first under it is the device's time.
    Device {
        store: &'a Store,
        choice: device_facts::implementation::Choice,
    },
    /// Device-level, given by the user.
    User(f64),
    /// The newest stored simulation of this target.
    Stored {
        store: &'a Store,
        target: device_facts::Target,
    },
    /// Measured on this host (only for a real message).
    Host { quick: bool },
}

/// Where `energy`'s flags take the seal's CPU time from, before the store
/// is opened: `--cpu-us US`, `--cpu-from host|TARGET`, else the device's
/// own with `--impl LIST`.
pub enum CpuSource {
    User(f64),
    Host {
        quick: bool,
    },
    Stored(device_facts::Target),
    /// `--impl` as typed, read once the store is open.
    Device(String),
}

impl CpuSource {
    pub fn from_flags(
        cpu_us: Option<&str>,
        cpu_from: Option<&str>,
        quick: bool,
        implementations: &str,
    ) -> Result<CpuSource, Error> {
        Ok(match (cpu_us, cpu_from) {
            (Some(us), _) => CpuSource::User(parse_cpu_us(us)?),
            (None, Some("host")) => CpuSource::Host { quick },
            (None, Some(target)) => CpuSource::Stored(target.parse()?),
            (None, None) => CpuSource::Device(implementations.into()),
        })
    }

    /// Whether the choice reads the results store.
    pub fn reads_store(&self) -> bool {
        matches!(self, CpuSource::Stored(_) | CpuSource::Device(_))
    }

    /// The choice, with the store when [`CpuSource::reads_store`].
    pub fn choice(self, store: Option<&Store>) -> Result<CpuChoice<'_>, Error> {
        let store = || store.ok_or_else(|| Error::failed("internal: the store was not opened"));
        Ok(match self {
            CpuSource::User(us) => CpuChoice::User(us),
            CpuSource::Host { quick } => CpuChoice::Host { quick },
            CpuSource::Stored(target) => CpuChoice::Stored {
                store: store()?,
                target,
            },
            CpuSource::Device(list) => CpuChoice::Device {
                store: store()?,
                choice: device_facts::implementation::parse_choice(&list)?,
            },
        })
    }
}

pub struct Request<'a> {
    pub device: &'a Device,
    pub link: &'a LinkSpec,
    pub radio: &'a Radio,
    pub battery: Option<&'a Battery>,
    /// Reporting interval as typed: 30s, 10m, 1h, 1d.
    pub interval: String,
    pub send: SendOptions,
    pub messages: Messages,
    pub cpu: CpuChoice<'a>,
    /// Messages per session keyed by one handshake: a row per key
    /// establishment (classical, hybrid, post-quantum), the sealed message
    /// with that handshake's share (`--session-messages`).
    pub session_messages: Option<u64>,
    /// The link protocol's parameters (`--conn-interval`, `--poll-period`,
    /// `--psm`…); default: the stack's, from the link's data.
    pub protocol: energy::protocol::Overrides,
}

pub struct EnergyView<'a> {
    req: &'a Request<'a>,
    interval_s: f64,
    sizes: Sizes,
    /// Plaintext, then sealed, then (with a session) sealed with each
    /// handshake's share, labelled `session:PROTOCOL`.
    pub rows: Vec<(String, LinkCost, EnergyEstimate)>,
    pub warnings: Vec<String>,
    /// With `session_messages`: each handshake's cost and when it stops mattering.
    pub sessions: Vec<crate::session::SessionAnswer>,
    /// The link protocol's costs around the sealed message and until the
    /// next (none for a link without them).
    pub protocol: Option<energy::protocol::ProtocolCost>,
}

/// The two messages' sizes and where the sealing CPU time comes from.
pub struct Sizes {
    plain: u32,
    sealed: u32,
    cpu: CpuTime,
    /// Lines describing the messages, printed above the table.
    lines: Vec<String>,
    /// The sample as given (`chain:10`), and in words.
    sample: Option<String>,
    sample_description: Option<String>,
    scheme: Option<String>,
    container: Option<String>,
    /// The sealed message compressed with SCHC, as the radio carries it.
    schc: Option<crate::message::SchcPacket>,
}

pub struct CpuTime {
    us: f64,
    source: String,
    /// Whose code the device's seal path ran (none: not a device time).
    implementation: Option<String>,
    /// A hardware engine doing part of the seal, as `recommend`'s row has it.
    engine: Option<cost_engine::engine_use::EngineUse>,
    measured: Option<measure::Measurement>,
}

fn user_cpu(us: f64) -> CpuTime {
    CpuTime {
        us,
        source: "device-level, user-supplied (--cpu-us)".into(),
        implementation: None,
        engine: None,
        measured: None,
    }
}

/// Costs both messages on the link and the device.
pub fn view<'a>(req: &'a Request<'a>) -> Result<EnergyView<'a>, Error> {
    let (device, spec, radio, battery) = (req.device, req.link, req.radio, req.battery);
    let interval = parse_interval(&req.interval).map_err(Error::invalid)?;
    let setting = Setting {
        device,
        radio,
        link: spec,
        battery,
        interval_s: interval,
        protocol: req.protocol.clone(),
    };
    let sizes = match &req.messages {
        Messages::Real(spec) => message_sizes(spec, &req.cpu, &setting)?,
        Messages::Bytes { plain, sealed } => byte_sizes(*plain, *sealed, &req.cpu)?,
    };
    let (plain, sealed, cpu_us) = (sizes.plain, sizes.sealed, sizes.cpu.us);
    let session_messages = req
        .session_messages
        .map(crate::session::check_messages)
        .transpose()?;
    let mut rows = Vec::new();
    let mut loads = Vec::new();
    let mut protocols = Vec::new();
    for (label, bytes, cpu_us) in [("plaintext", plain, 0.0), ("sealed", sealed, cpu_us)] {
        let schc = sizes.schc.as_ref().filter(|_| label == "sealed");
        let cost = crate::on_air::message_cost(spec, bytes as usize, schc, &req.send)?;
        // The energy `recommend` gives a row of this CPU time and cost on air.
        let est = message_energy(&setting, &cost, cpu_us).map_err(Error::invalid)?;
        let protocol = protocol_cost(&setting, &cost).map_err(Error::invalid)?;
        loads.push(MessageLoad {
            cpu_time_s: cpu_us * 1e-6,
            airtime: cost.airtime,
            rx_time: cost.rx_time,
            tx_power_dbm: spec.tx_power_dbm,
        });
        protocols.push(protocol);
        rows.push((label.to_string(), cost, est));
    }
    let protocol = protocols.pop().flatten();
    let mut sessions = Vec::new();
    // The sealed message (the second row) keyed by each kind of session.
    if let Some(n) = session_messages {
        let load = loads[1];
        let sealed_uj = rows[1].2.message_j * 1e6;
        let name = sizes
            .scheme
            .clone()
            .unwrap_or_else(|| "the sealed message".into());
        for (cost, on_device) in crate::session::establishments_on_device(device, radio, spec)? {
            sessions.push(crate::session::answer(
                &cost, &on_device, &name, sealed_uj, n,
            ));
            if let Some(h) = on_device.measured() {
                let shared = crate::session::with_share(&load, h, n);
                let est = energy::estimate_with(
                    device,
                    radio,
                    battery,
                    &shared,
                    interval,
                    protocol.as_ref(),
                )
                .map_err(Error::invalid)?;
                rows.push((format!("session:{}", h.protocol), rows[1].1.clone(), est));
            }
        }
    }
    let mut warnings: Vec<String> = Vec::new();
    for (label, cost, est) in &rows {
        if let Some(why) = duty_cycle::breach(cost, interval) {
            warnings.push(format!("{label}: {why}"));
        }
        let battery = est
            .battery_note
            .iter()
            .map(|n| format!("battery life: {n}"));
        for w in cost
            .warnings
            .iter()
            .chain(&est.warnings)
            .cloned()
            .chain(battery)
        {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    Ok(EnergyView {
        req,
        interval_s: interval,
        sizes,
        rows,
        warnings,
        sessions,
        protocol,
    })
}

impl EnergyView<'_> {
    pub fn json(&self) -> Value {
        let (req, sizes, rows, warnings) = (self.req, &self.sizes, &self.rows, &self.warnings);
        let (device, spec, radio, battery) = (req.device, req.link, req.radio, req.battery);
        let (interval, cpu_us) = (self.interval_s, sizes.cpu.us);
        json!({
            "label": MODEL_LABEL,
            "device": device.name,
            "link": spec.name,
            "radio": radio.name,
            "tx_power_dbm": spec.tx_power_dbm,
            "battery": battery.map(|b| b.name.clone()),
            "interval_s": interval,
            "cpu_time_us": cpu_us,
            "cpu_time_source": sizes.cpu.source,
            "implementation": sizes.cpu.implementation,
            "engine": sizes.cpu.engine,
            "cpu_time_measurement": sizes.cpu.measured.as_ref().map(|m| json!({
                "median_us": m.ns.median / 1000.0,
                "ci95_us": [m.ns.ci95_low / 1000.0, m.ns.ci95_high / 1000.0],
                "samples": m.ns.samples,
                "iterations_per_sample": m.iterations_per_sample,
                "debug_build": cfg!(debug_assertions),
            })),
            "sample": sizes.sample,
            "sample_description": sizes.sample_description,
            "scheme": sizes.scheme,
            "container": sizes.container,
            "compression": sizes.schc.as_ref().map(crate::message::SchcPacket::json),
            "messages": rows.iter().map(|(label, c, e)| row_json(label, c, e)).collect::<Vec<_>>(),
            "sealing_adds": delta_json(&rows[0].2, &rows[1].2),
            "link_protocol": self.protocol,
            "sessions": self.sessions,
            "warnings": warnings,
        })
    }

    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let (req, sizes, rows, warnings) = (self.req, &self.sizes, &self.rows, &self.warnings);
        let (device, spec, radio) = (req.device, req.link, req.radio);
        let cpu_us = sizes.cpu.us;
        let mut o = String::new();
        let _ = writeln!(o, "Energy per message — {MODEL_LABEL}");
        let _ = writeln!(
            o,
            "  device {} ({} V, {} mA active, {} uA sleep)",
            device.title, device.voltage_v.value, device.active_ma.value, device.sleep_ua.value
        );
        let _ = writeln!(
            o,
            "  link   {} via {} at {:+} dBm",
            spec.title, radio.name, spec.tx_power_dbm
        );
        for line in &sizes.lines {
            let _ = writeln!(o, "  {line}");
        }
        let _ = writeln!(
            o,
            "  CPU time per sealed message: {cpu_us:.3} us — {}",
            sizes.cpu.source
        );
        if let Some(m) = &sizes.cpu.measured {
            let _ = writeln!(
                o,
                "    (median of {} samples, 95% CI {:.3}..{:.3} us; a microcontroller is far slower: give its time with --cpu-us)",
                m.ns.samples,
                m.ns.ci95_low / 1000.0,
                m.ns.ci95_high / 1000.0
            );
            if let Some(note) = build_note() {
                let _ = writeln!(o, "    ({note})");
            }
        }
        let battery = req.battery.map_or("none", |b| b.name.as_str());
        let _ = writeln!(o, "  one message every {}, battery {battery}", req.interval);
        let _ = writeln!(o);
        let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(10);
        let _ = writeln!(
            o,
            "{:<w$} {:>7} {:>12} {:>11} {:>11} {:>11} {:>11} {:>12} {:>8} {:>6} {:>6} {:>10}",
            "message",
            "bytes",
            "time on air",
            "CPU uJ",
            "radio uJ",
            "protocol uJ",
            "sleep uJ",
            "interval uJ",
            "CPU%",
            "radio%",
            "proto%",
            "battery d"
        );
        for (label, c, e) in rows {
            let _ = writeln!(
                o,
                "{:<w$} {:>7} {:>12} {:>11.2} {:>11.2} {:>11.2} {:>11.2} {:>12.2} {:>8} {:>6.2} {:>6.2} {:>10}",
                label,
                c.message_bytes + c.padding,
                c.airtime.to_string(),
                e.cpu_j * 1e6,
                (e.tx_j + e.rx_j) * 1e6,
                e.protocol_j * 1e6,
                e.sleep_j * 1e6,
                e.interval_j * 1e6,
                percent(e.cpu_share),
                e.radio_share * 100.0,
                e.protocol_share * 100.0,
                e.battery_days.map_or("-".into(), |d| format!("{d:.0}"))
            );
        }
        if let Some(p) = &self.protocol {
            o.push_str(&protocol_text(p));
        }
        let (p, s) = (&rows[0].2, &rows[1].2);
        let _ = writeln!(o);
        let protocol_adds = (s.protocol_j - p.protocol_j) * 1e6;
        let _ = writeln!(
            o,
            "  sealing adds {:.2} uJ per message: CPU {:.2} uJ, radio {:.2} uJ{} ({:+.2} % per interval)",
            (s.message_j - p.message_j) * 1e6,
            (s.cpu_j - p.cpu_j) * 1e6,
            (s.tx_j + s.rx_j - p.tx_j - p.rx_j) * 1e6,
            if protocol_adds.abs() >= 0.005 {
                format!(", protocol {protocol_adds:.2} uJ")
            } else {
                String::new()
            },
            (s.interval_j / p.interval_j - 1.0) * 100.0
        );
        if let (Some(pd), Some(sd)) = (p.battery_days, s.battery_days) {
            let _ = writeln!(
                o,
                "  battery life {pd:.0} d plaintext, {sd:.0} d sealed: {:+.1} d ({:+.2} %)",
                sd - pd,
                (sd / pd - 1.0) * 100.0
            );
        }
        for session in &self.sessions {
            let _ = writeln!(o, "  {}", session.sentence);
        }
        for w in warnings {
            let _ = writeln!(o, "  warning: {w}");
        }
        let _ = writeln!(
            o,
            "  every figure above is a {MODEL_LABEL}; profile sources: `ciphermeter energy --list --format json`"
        );
        o
    }
}

/// The protocol's costs under the table: each activity per interval, then
/// the parameters with where each comes from.
fn protocol_text(p: &energy::protocol::ProtocolCost) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n  protocol ({}), sealed message: {:.2} uJ around it, {:.2} uJ between messages",
        p.kind, p.message_uj, p.idle_uj
    );
    for i in &p.items {
        let _ = writeln!(
            o,
            "    {:>10.2} x {:.3} uJ = {:.2} uJ  {}",
            i.count, i.each_uj, i.uj, i.what
        );
    }
    for q in &p.parameters {
        let _ = match q.unit {
            "off" => writeln!(o, "    {} off ({})", q.name, q.from),
            unit => writeln!(o, "    {} = {} {unit} ({})", q.name, q.value, q.from),
        };
    }
    o
}

/// A share in percent, readable when it is tiny (a CPU share is often 1e-4 %).
fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p == 0.0 || p >= 0.01 {
        format!("{p:.2}")
    } else {
        format!("{p:.1e}")
    }
}

/// `--cpu-from TARGET`: the simulated seal time of the same scheme, from the
/// store, at this reading's length.
fn device_cpu(
    store: &Store,
    target: device_facts::Target,
    scheme: &seal::Scheme,
    container: MessageContainer,
    reading_bytes: usize,
) -> Result<CpuTime, Error> {
    let firmware = DeviceTimes::firmware_id(scheme);
    let times = crate::device_times::load(store, target)?.ok_or_else(|| {
        Error::invalid(format!(
            "no device-level results for {} in the store: run `ciphermeter mcu --target {} {firmware}` first",
            target.name(),
            target.name()
        ))
    })?;
    let choice = times.seal_choice(scheme, container, reading_bytes).ok_or_else(|| {
        let why = times.failure(scheme).map(|w| format!(" ({w})")).unwrap_or_default();
        Error::invalid(format!(
            "{} has no seal time for {firmware} in the {container} container{why}: run `ciphermeter mcu --target {} {firmware}`",
            times.describe(),
            target.name()
        ))
    })?;
    Ok(device_time(choice, &times))
}

/// `--scheme`: the serialized reading against the same reading sealed, the seal's CPU
/// time measured here unless `--cpu-us` gives a device-level one.
fn message_sizes(spec: &MessageSpec, cpu: &CpuChoice, setting: &Setting) -> Result<Sizes, Error> {
    if spec.scheme.is_none() {
        return Err(Error::invalid(
            "energy compares the plaintext with a sealed message: add --scheme (e.g. --scheme aead:aes-128-gcm)",
        ));
    }
    let msg = Message::build(spec)?;
    let sealed = msg.sealed.as_ref().expect("a scheme was given");
    let mut cpu = match cpu {
        CpuChoice::User(us) => user_cpu(*us),
        CpuChoice::Device { store, choice } => own_device_cpu(store, choice, &msg, setting)?,
        CpuChoice::Stored { store, target } => device_cpu(
            store,
            *target,
            &sealed.scheme,
            sealed.container,
            msg.plaintext.len(),
        )?,
        CpuChoice::Host { quick } => {
            let t = sealed.measure_seal(&msg.plaintext, *quick)?;
            CpuTime {
                us: t.median_us(),
                source: format!("{} ({})", host_time_label(), std::env::consts::ARCH),
                // The host seals with RustCrypto's code (`HostSealer::new`).
                implementation: Some(device_facts::Implementation::RustCrypto.name().into()),
                engine: None,
                measured: Some(t.measurement),
            }
        }
    };
    let mut lines = vec![
        format!(
            "plaintext: {}, {} B (not sealed: no CPU time counted; serializing is common to both)",
            msg.describe_plaintext(),
            msg.plaintext.len()
        ),
        format!("sealed:    {}, {} B", sealed.describe(), sealed.bytes.len()),
    ];
    if sealed.schc.is_some() {
        cpu.source.push_str(crate::message::SCHC_CPU_NOTE);
    }
    for why in &sealed.insecurity {
        lines.push(format!(
            "INSECURE:  {why} (sealed only because of --allow-insecure)"
        ));
    }
    Ok(Sizes {
        plain: message_len(msg.plaintext.len())?,
        sealed: message_len(sealed.bytes.len())?,
        cpu,
        lines,
        sample: Some(msg.sample.to_string()),
        sample_description: Some(msg.describe_plaintext()),
        scheme: Some(sealed.scheme.name().to_string()),
        container: Some(sealed.container.as_str().to_string()),
        schc: sealed.schc.clone(),
    })
}

/// What the sealing costs over the plaintext, per message and in battery life.
fn delta_json(p: &EnergyEstimate, s: &EnergyEstimate) -> Value {
    json!({
        "message_uj": (s.message_j - p.message_j) * 1e6,
        "cpu_uj": (s.cpu_j - p.cpu_j) * 1e6,
        "radio_uj": (s.tx_j + s.rx_j - p.tx_j - p.rx_j) * 1e6,
        "protocol_uj": (s.protocol_j - p.protocol_j) * 1e6,
        "interval_percent": (s.interval_j / p.interval_j - 1.0) * 100.0,
        "battery_days": match (p.battery_days, s.battery_days) {
            (Some(a), Some(b)) => json!(b - a),
            _ => Value::Null,
        },
    })
}

fn row_json(label: &str, c: &::link::LinkCost, e: &EnergyEstimate) -> Value {
    json!({
        "message": label,
        "message_bytes": c.message_bytes,
        "padding_bytes": c.padding,
        "on_air_bytes": c.on_air_bytes,
        "frames": c.frames,
        "airtime_ms": ms(c.airtime),
        "min_interval_s": c.min_interval.map(|t| t.as_secs()),
        "rx_ms": ms(c.rx_time),
        "cpu_uj": e.cpu_j * 1e6,
        "tx_uj": e.tx_j * 1e6,
        "rx_uj": e.rx_j * 1e6,
        "sleep_uj": e.sleep_j * 1e6,
        "protocol_uj": e.protocol_j * 1e6,
        "message_uj": e.message_j * 1e6,
        "interval_uj": e.interval_j * 1e6,
        "cpu_share": e.cpu_share,
        "radio_share": e.radio_share,
        "protocol_share": e.protocol_share,
        "average_current_ua": e.average_ua,
        "battery_days": e.battery_days,
        "battery_note": e.battery_note,
    })
}

/// The default: the seal's time on the device itself, or a clear error that
/// says how to give one. Never this host's time in the device's place.
fn own_device_cpu(
    store: &Store,
    choice: &device_facts::implementation::Choice,
    msg: &Message,
    setting: &Setting,
) -> Result<CpuTime, Error> {
    let device = setting.device;
    let sealed = msg.sealed.as_ref().expect("a scheme was given");
    let (scheme, container) = (&sealed.scheme, sealed.container);
    let mut times = crate::device_times::for_device(store, device)?;
    if let Some(t) = times.as_mut()
        && !choice.software.is_empty()
    {
        t.restrict(&choice.software);
    }
    let Some(times) = times else {
        if let Some(target) = crate::device_times::device_target(device)? {
            return Err(Error::invalid(format!(
                "{} runs on the simulated {target}, but there is no stored simulation of it here and no shipped device cost table: run `ciphermeter mcu --target {target}` first, give its seal time with --cpu-us US, or use this machine's with --cpu-from host",
                device.name
            )));
        }
        // The profile's notes may say why (no simulator for its CPU) and what is near.
        let notes = device
            .notes
            .as_deref()
            .map(|n| format!(" {}", n.trim_end_matches('.')))
            .map(|n| n + ".")
            .unwrap_or_default();
        return Err(Error::invalid(format!(
            "{} has no simulated target and no device measurements here: no simulator here runs its CPU, {}.{notes} Give its seal time with --cpu-us US, or use this machine's with --cpu-from host",
            device.name, device.cpu
        )));
    };
    times.seal_choice(scheme, container, msg.plaintext.len()).ok_or_else(|| {
        let why = match times.failure(scheme) {
            Some(w) => format!("on {}: {w}", times.target.name()),
            None => format!("not measured: run `ciphermeter mcu --target {} {}`", times.target.name(), scheme.name()),
        };
        Error::invalid(format!(
            "{} has no seal time for {} in the {container} container ({why}; {}): give --cpu-us US, or --cpu-from host",
            device.name,
            scheme.name(),
            times.describe(),
        ))
    })?;
    let row = crate::device_row::best(device, &times, choice.hardware, msg, setting)?;
    let implementation = match &row.engine {
        Some(e) => e.label(),
        None => row.seal_implementation.name().to_string(),
    };
    // An engine row's source already says whose code surrounds the engine.
    let whose = match &row.engine {
        Some(_) => String::new(),
        None => format!(", {}'s code", row.seal_implementation.label()),
    };
    Ok(CpuTime {
        us: row.cpu_us,
        source: format!(
            "{}{whose}, whole message path (serialize, seal, container)",
            row.cpu_source.describe()
        ),
        implementation: Some(implementation),
        engine: row.engine,
        measured: None,
    })
}

/// A device's seal time, labelled with where its counts came from and
/// whose code ran it.
fn device_time((us, imp): (f64, device_facts::Implementation), times: &DeviceTimes) -> CpuTime {
    CpuTime {
        us,
        source: format!(
            "{}, {}'s code, whole message path (serialize, seal, container)",
            times.describe(),
            imp.label()
        ),
        implementation: Some(imp.name().to_string()),
        engine: None,
        measured: None,
    }
}

/// `Messages::Bytes`: sizes as typed.
fn byte_sizes(plain: u32, sealed: u32, cpu: &CpuChoice) -> Result<Sizes, Error> {
    let cpu = match cpu {
        CpuChoice::User(us) => user_cpu(*us),
        CpuChoice::Host { .. } | CpuChoice::Device { .. } => CpuTime {
            us: 0.0,
            source: "not given: 0 (give --cpu-us, or --scheme to measure the seal here)".into(),
            implementation: None,
            engine: None,
            measured: None,
        },
        CpuChoice::Stored { .. } => {
            return Err(Error::invalid(
                "a stored device time needs a real message: add --scheme",
            ));
        }
    };
    Ok(Sizes {
        plain,
        sealed,
        cpu,
        lines: Vec::new(),
        sample: None,
        sample_description: None,
        scheme: None,
        container: None,
        schc: None,
    })
}

/// `energy --list`: the devices, radios and batteries, as JSON.
pub fn profiles_json(p: &energy::Profiles) -> Value {
    json!({ "devices": p.devices, "radios": p.radios, "batteries": p.batteries })
}

/// `energy --list` as text: one name and title per line, by kind.
pub fn profiles_text(p: &energy::Profiles) -> String {
    let mut o = String::new();
    let devices: Vec<(String, String)> = p
        .devices
        .iter()
        .map(|d| (d.name.clone(), format!("{}{}", d.title, memory(d))))
        .collect();
    let names = devices.iter().map(|(n, t)| (n, t));
    let radios = p.radios.iter().map(|r| (&r.name, &r.title));
    let batteries = p.batteries.iter().map(|b| (&b.name, &b.title));
    for (kind, rows) in [
        ("devices", names.collect::<Vec<_>>()),
        ("radios", radios.collect()),
        ("batteries", batteries.collect()),
    ] {
        o.push_str(&format!("{kind}:\n"));
        for (name, title) in rows {
            o.push_str(&format!("  {name:<18} {title}\n"));
        }
    }
    o
}

/// ", 256 KiB flash, 32 KiB RAM": the device's own memory, as far as known.
fn memory(d: &energy::Device) -> String {
    let kib = |k: u32| measure::sizes::format_size(u64::from(k) * 1024);
    let mut o = String::new();
    if let Some(f) = &d.flash_kib {
        o.push_str(&format!(", {} flash", kib(f.value)));
    }
    if let Some(r) = &d.ram_kib {
        o.push_str(&format!(", {} RAM", kib(r.value)));
    }
    o
}

/// `--cpu-us`: a CPU time per message in microseconds, zero or more.
pub fn parse_cpu_us(t: &str) -> Result<f64, Error> {
    match t.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(_) => Err(Error::invalid("--cpu-us: must be zero or positive")),
        Err(_) => Err(Error::invalid(format!("--cpu-us: '{t}' is not a number"))),
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    #[test]
    fn cpu_flags_say_whether_the_store_is_read() {
        let src = |us, from| CpuSource::from_flags(us, from, true, "all");
        assert!(matches!(src(Some("12.5"), None).unwrap(), CpuSource::User(us) if us == 12.5));
        assert!(matches!(
            src(None, Some("host")).unwrap(),
            CpuSource::Host { quick: true }
        ));
        assert!(src(None, Some("cortex-m4")).unwrap().reads_store());
        assert!(src(None, None).unwrap().reads_store());
        assert!(!src(None, Some("host")).unwrap().reads_store());
        assert!(src(None, Some("z80")).err().unwrap().is_invalid());
        assert!(src(Some("-1"), None).err().unwrap().is_invalid());
        assert!(matches!(
            src(Some("3"), None).unwrap().choice(None),
            Ok(CpuChoice::User(_))
        ));
    }

    #[test]
    fn sealed_sizes_come_from_sealed_bytes_or_an_overhead() {
        let sizes = |s: Option<&str>, o: Option<&str>| match Messages::from_sizes("100", s, o) {
            Ok(Messages::Bytes { plain, sealed }) => Ok((plain, sealed)),
            Ok(Messages::Real(_)) => unreachable!(),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(sizes(None, None), Ok((100, 100)));
        assert_eq!(sizes(Some("120"), None), Ok((100, 120)));
        assert_eq!(sizes(None, Some("28")), Ok((100, 128)));
        assert_eq!(
            sizes(None, Some("-3")),
            Err("--overhead: a message size must not be negative (got '-3')".into())
        );
        assert_eq!(
            sizes(None, Some("4294967295")),
            Err("--overhead: too large".into())
        );
    }
}
