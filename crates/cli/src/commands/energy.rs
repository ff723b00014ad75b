//! `ciphermeter energy`: energy per message split into CPU and radio, and battery life
//! at a reporting interval, for the plaintext and the sealed message. A model estimate.
//!
//! The messages are byte counts (`--bytes`, `--sealed-bytes`), or a real reading sealed
//! with `--scheme` (`--sample`, `--container`), whose sealing CPU time is measured on
//! this machine unless the user supplies a device-level time with `--cpu-us`, or
//! takes a stored simulation's with `--cpu-from TARGET`.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use energy::model::parse_interval;
use energy::{EnergyEstimate, MODEL_LABEL, MessageLoad};
use serde_json::{Value, json};

use crate::args::{
    DbArgs, Format, MessageArgs, len_u32, links, ms, parse_bytes, print_json, profiles, usage,
};
use crate::error::CliError;
use cost::device_times::{CpuSource, DeviceTimes};
use cost::message::{Message, build_note, host_time_label};

#[derive(ClapArgs)]
pub struct Args {
    /// Device profile (see --list).
    #[arg(long, required_unless_present = "list")]
    device: Option<String>,
    /// Link from the catalogue (`ciphermeter link --list`).
    #[arg(long, required_unless_present = "list")]
    link: Option<String>,
    /// Plaintext message size in bytes; or give --scheme to seal a real message.
    #[arg(
        long,
        required_unless_present_any = ["list", "scheme", "sample"],
        conflicts_with_all = ["scheme", "sample"],
        allow_hyphen_values = true
    )]
    bytes: Option<String>,
    /// Size of the sealed message in bytes [default: same as --bytes].
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["overhead", "scheme"])]
    sealed_bytes: Option<String>,
    /// Bytes the sealing adds (nonce, tag, padding), instead of --sealed-bytes.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "scheme")]
    overhead: Option<String>,
    #[command(flatten)]
    message: MessageArgs,
    /// Device-level CPU time to seal one message, in microseconds (e.g. from the mcu
    /// tier). With --scheme and without this, the seal is measured on this machine;
    /// with --bytes and without this, 0.
    #[arg(long, allow_hyphen_values = true)]
    cpu_us: Option<String>,
    /// Take the seal's CPU time from the newest stored simulation of this target
    /// (atmega1284p, cortex-m0plus, ...; `ciphermeter mcu --target T message-...`).
    #[arg(
        long,
        value_name = "TARGET",
        conflicts_with = "cpu_us",
        requires = "scheme"
    )]
    cpu_from: Option<String>,
    #[command(flatten)]
    db: DbArgs,
    /// Measure the host CPU time briefly (a smoke run, not a figure to report).
    #[arg(long)]
    quick: bool,
    /// Reporting interval: 30s, 10m, 1h, 1d.
    #[arg(long, default_value = "10m", allow_hyphen_values = true)]
    interval: String,
    /// Battery profile for battery life.
    #[arg(long)]
    battery: Option<String>,
    /// Pad both messages to whole frames/packets.
    #[arg(long)]
    pad_to_packet: bool,
    /// List devices, radios and batteries and exit.
    #[arg(long)]
    list: bool,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let prof = profiles(&args.data_dir)?;
    if args.list {
        return list(&prof, args.format);
    }
    let cat = links(&args.data_dir)?;
    let device = prof
        .device(args.device.as_deref().unwrap_or_default())
        .map_err(usage)?;
    let spec = cat
        .get(args.link.as_deref().unwrap_or_default())
        .map_err(usage)?;
    let radio = prof.radio(&spec.radio).map_err(usage)?;
    let battery = args
        .battery
        .as_deref()
        .map(|b| prof.battery(b))
        .transpose()
        .map_err(usage)?;
    let interval = parse_interval(&args.interval).map_err(usage)?;
    let user_cpu_us = args.cpu_us.as_deref().map(parse_cpu_us).transpose()?;
    let sizes = if args.message.given() {
        message_sizes(&args, user_cpu_us)?
    } else {
        byte_sizes(&args, user_cpu_us)?
    };
    let (plain, sealed, cpu_us) = (sizes.plain, sizes.sealed, sizes.cpu.us);
    let mut rows = Vec::new();
    for (label, bytes, cpu_s) in [("plaintext", plain, 0.0), ("sealed", sealed, cpu_us * 1e-6)] {
        let cost = spec.cost(bytes, args.pad_to_packet).map_err(usage)?;
        let load = MessageLoad {
            cpu_time_s: cpu_s,
            airtime: cost.airtime,
            rx_time: cost.rx_time,
            tx_power_dbm: spec.tx_power_dbm,
        };
        let est = energy::estimate(device, radio, battery, &load, interval).map_err(usage)?;
        rows.push((label, cost, est));
    }
    let mut warnings: Vec<String> = Vec::new();
    for (label, cost, est) in &rows {
        if let Some(iv) = cost.min_interval
            && iv.as_secs() > interval
        {
            warnings.push(format!("{label}: the {}-s interval breaks the duty cycle, which allows one message every {:.1} s", interval, iv.as_secs()));
        }
        for w in cost.warnings.iter().chain(&est.warnings) {
            if !warnings.contains(w) {
                warnings.push(w.clone());
            }
        }
    }
    match args.format {
        Format::Json => print_json(&json!({
            "label": MODEL_LABEL,
            "device": device.name,
            "link": spec.name,
            "radio": radio.name,
            "tx_power_dbm": spec.tx_power_dbm,
            "battery": battery.map(|b| b.name.clone()),
            "interval_s": interval,
            "cpu_time_us": cpu_us,
            "cpu_time_source": sizes.cpu.source,
            "cpu_time_measurement": sizes.cpu.measured.as_ref().map(|m| json!({
                "median_us": m.ns.median / 1000.0,
                "ci95_us": [m.ns.ci95_low / 1000.0, m.ns.ci95_high / 1000.0],
                "samples": m.ns.samples,
                "iterations_per_sample": m.iterations_per_sample,
                "debug_build": cfg!(debug_assertions),
            })),
            "sample": sizes.sample,
            "scheme": sizes.scheme,
            "container": sizes.container,
            "messages": rows.iter().map(|(label, c, e)| row_json(label, c, e)).collect::<Vec<_>>(),
            "sealing_adds": delta_json(&rows[0].2, &rows[1].2),
            "warnings": warnings,
        })),
        Format::Table => {
            println!("Energy per message — {MODEL_LABEL}");
            println!(
                "  device {} ({} V, {} mA active, {} uA sleep)",
                device.title, device.voltage_v.value, device.active_ma.value, device.sleep_ua.value
            );
            println!(
                "  link   {} via {} at {:+} dBm",
                spec.title, radio.name, spec.tx_power_dbm
            );
            for line in &sizes.lines {
                println!("  {line}");
            }
            println!(
                "  CPU time per sealed message: {cpu_us:.3} us — {}",
                sizes.cpu.source
            );
            if let Some(m) = &sizes.cpu.measured {
                println!(
                    "    (median of {} samples, 95% CI {:.3}..{:.3} us; a microcontroller is far slower: give its time with --cpu-us)",
                    m.ns.samples,
                    m.ns.ci95_low / 1000.0,
                    m.ns.ci95_high / 1000.0
                );
                if let Some(note) = build_note() {
                    println!("    ({note})");
                }
            }
            println!("  one message every {}", args.interval);
            println!();
            println!(
                "{:<10} {:>7} {:>12} {:>11} {:>11} {:>11} {:>12} {:>8} {:>6} {:>10}",
                "message",
                "bytes",
                "time on air",
                "CPU uJ",
                "radio uJ",
                "sleep uJ",
                "interval uJ",
                "CPU%",
                "radio%",
                "battery d"
            );
            for (label, c, e) in &rows {
                println!(
                    "{:<10} {:>7} {:>12} {:>11.2} {:>11.2} {:>11.2} {:>12.2} {:>8} {:>6.2} {:>10}",
                    label,
                    c.message_bytes + c.padding,
                    c.airtime.to_string(),
                    e.cpu_j * 1e6,
                    (e.tx_j + e.rx_j) * 1e6,
                    e.sleep_j * 1e6,
                    e.interval_j * 1e6,
                    percent(e.cpu_share),
                    e.radio_share * 100.0,
                    e.battery_days.map_or("-".into(), |d| format!("{d:.0}"))
                );
            }
            let (p, s) = (&rows[0].2, &rows[1].2);
            println!();
            println!(
                "  sealing adds {:.2} uJ per message: CPU {:.2} uJ, radio {:.2} uJ ({:+.2} % per interval)",
                (s.message_j - p.message_j) * 1e6,
                (s.cpu_j - p.cpu_j) * 1e6,
                (s.tx_j + s.rx_j - p.tx_j - p.rx_j) * 1e6,
                (s.interval_j / p.interval_j - 1.0) * 100.0
            );
            if let (Some(pd), Some(sd)) = (p.battery_days, s.battery_days) {
                println!(
                    "  battery life {pd:.0} d plaintext, {sd:.0} d sealed: {:+.1} d ({:+.2} %)",
                    sd - pd,
                    (sd / pd - 1.0) * 100.0
                );
            }
            for w in &warnings {
                println!("  warning: {w}");
            }
            println!(
                "  every figure above is a {MODEL_LABEL}; profile sources: `ciphermeter energy --list --format json`"
            );
            Ok(())
        }
    }
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

/// The two messages' sizes and where the sealing CPU time comes from.
struct Sizes {
    plain: u32,
    sealed: u32,
    cpu: CpuTime,
    /// Lines describing the messages, printed above the table.
    lines: Vec<String>,
    sample: Option<String>,
    scheme: Option<String>,
    container: Option<String>,
}

struct CpuTime {
    us: f64,
    source: String,
    measured: Option<measure::Measurement>,
}

fn parse_cpu_us(t: &str) -> Result<f64, CliError> {
    let v: f64 = t
        .trim()
        .parse()
        .map_err(|_| CliError::usage(format!("--cpu-us: '{t}' is not a number")))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(CliError::usage("--cpu-us: must be zero or positive"));
    }
    Ok(v)
}

fn user_cpu(us: f64) -> CpuTime {
    CpuTime {
        us,
        source: "device-level, user-supplied (--cpu-us)".into(),
        measured: None,
    }
}

/// `--cpu-from TARGET`: the simulated seal time of the same scheme, from the
/// store, at this reading's length.
fn device_cpu(
    db: &DbArgs,
    target: &str,
    scheme: &seal::Scheme,
    reading_bytes: usize,
) -> Result<CpuTime, CliError> {
    let target: mcu::Target = target.parse()?;
    let firmware = DeviceTimes::firmware_id(scheme);
    if mcu::algorithms::find(&firmware).is_none() {
        let built: Vec<&str> = mcu::algorithms::ALL
            .iter()
            .filter(|a| a.family == mcu::algorithms::Family::Message && a.id != "message-none")
            .map(|a| a.id.trim_start_matches("message-"))
            .collect();
        return Err(CliError::usage(format!(
            "--cpu-from: {} has no firmware build; the device tier seals study 003's schemes: {}",
            scheme.name(),
            built.join(", ")
        )));
    }
    let store = db.open()?;
    let times = DeviceTimes::load(&store, target)?.ok_or_else(|| {
        CliError::usage(format!(
            "no device-level results for {} in the store: run `ciphermeter mcu --target {} {firmware}` first",
            target.name(),
            target.name()
        ))
    })?;
    let us = times.seal_us(scheme, reading_bytes).ok_or_else(|| {
        CliError::usage(format!(
            "the newest {} run (run {}) has no seal time for {firmware}: run `ciphermeter mcu --target {} {firmware}`",
            target.name(),
            times.run,
            target.name()
        ))
    })?;
    Ok(CpuTime {
        us,
        source: format!(
            "{}, whole message path (serialize, seal, base64)",
            CpuSource::Device {
                target,
                run: times.run
            }
            .describe()
        ),
        measured: None,
    })
}

/// `--bytes` with `--sealed-bytes` or `--overhead`: sizes as typed.
fn byte_sizes(args: &Args, user_cpu_us: Option<f64>) -> Result<Sizes, CliError> {
    let plain = parse_bytes(args.bytes.as_deref().unwrap_or_default())?;
    let sealed = match (&args.sealed_bytes, &args.overhead) {
        (Some(s), _) => parse_bytes(s)?,
        (None, Some(o)) => plain
            .checked_add(
                parse_bytes(o)
                    .map_err(|e| CliError::usage(e.to_string().replace("--bytes", "--overhead")))?,
            )
            .ok_or_else(|| CliError::usage("--overhead: too large"))?,
        (None, None) => plain,
    };
    let cpu = match user_cpu_us {
        Some(us) => user_cpu(us),
        None => CpuTime {
            us: 0.0,
            source: "not given: 0 (give --cpu-us, or --scheme to measure the seal here)".into(),
            measured: None,
        },
    };
    Ok(Sizes {
        plain,
        sealed,
        cpu,
        lines: Vec::new(),
        sample: None,
        scheme: None,
        container: None,
    })
}

/// `--scheme`: the serialized reading against the same reading sealed, the seal's CPU
/// time measured here unless `--cpu-us` gives a device-level one.
fn message_sizes(args: &Args, user_cpu_us: Option<f64>) -> Result<Sizes, CliError> {
    if args.message.scheme.is_none() {
        return Err(CliError::usage(
            "energy compares the plaintext with a sealed message: add --scheme (e.g. --scheme aead:aes-128-gcm)",
        ));
    }
    let msg = Message::build(&args.message.spec())?;
    let sealed = msg.sealed.as_ref().expect("a scheme was given");
    let cpu = match (user_cpu_us, &args.cpu_from) {
        (Some(us), _) => user_cpu(us),
        (None, Some(target)) => device_cpu(&args.db, target, &sealed.scheme, msg.plaintext.len())?,
        (None, None) => {
            let t = sealed.measure_seal(&msg.plaintext, args.quick)?;
            CpuTime {
                us: t.median_us(),
                source: format!("{} ({})", host_time_label(), std::env::consts::ARCH),
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
    for why in &sealed.insecurity {
        lines.push(format!(
            "INSECURE:  {why} (sealed only because of --allow-insecure)"
        ));
    }
    Ok(Sizes {
        plain: len_u32(msg.plaintext.len())?,
        sealed: len_u32(sealed.bytes.len())?,
        cpu,
        lines,
        sample: Some(msg.describe_plaintext()),
        scheme: Some(sealed.scheme.name().to_string()),
        container: Some(sealed.container.as_str().to_string()),
    })
}

/// What the sealing costs over the plaintext, per message and in battery life.
fn delta_json(p: &EnergyEstimate, s: &EnergyEstimate) -> Value {
    json!({
        "message_uj": (s.message_j - p.message_j) * 1e6,
        "cpu_uj": (s.cpu_j - p.cpu_j) * 1e6,
        "radio_uj": (s.tx_j + s.rx_j - p.tx_j - p.rx_j) * 1e6,
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
        "bytes": c.message_bytes,
        "padding_bytes": c.padding,
        "on_air_bytes": c.on_air_bytes,
        "frames": c.frames,
        "airtime_ms": ms(c.airtime),
        "rx_ms": ms(c.rx_time),
        "cpu_uj": e.cpu_j * 1e6,
        "tx_uj": e.tx_j * 1e6,
        "rx_uj": e.rx_j * 1e6,
        "sleep_uj": e.sleep_j * 1e6,
        "message_uj": e.message_j * 1e6,
        "interval_uj": e.interval_j * 1e6,
        "cpu_share": e.cpu_share,
        "radio_share": e.radio_share,
        "average_current_ua": e.average_ua,
        "battery_days": e.battery_days,
    })
}

fn list(p: &energy::Profiles, format: Format) -> Result<(), CliError> {
    match format {
        Format::Json => print_json(&json!({
            "devices": serde_json::to_value(&p.devices).map_err(CliError::failed)?,
            "radios": serde_json::to_value(&p.radios).map_err(CliError::failed)?,
            "batteries": serde_json::to_value(&p.batteries).map_err(CliError::failed)?,
        })),
        Format::Table => {
            println!("devices:");
            for d in &p.devices {
                println!("  {:<18} {}", d.name, d.title);
            }
            println!("radios:");
            for r in &p.radios {
                println!("  {:<18} {}", r.name, r.title);
            }
            println!("batteries:");
            for b in &p.batteries {
                println!("  {:<18} {}", b.name, b.title);
            }
            Ok(())
        }
    }
}
