//! `ciphermeter energy`: energy per message split into CPU and radio, and battery life
//! at a reporting interval, for the plaintext and the sealed message. A model estimate.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use energy::model::parse_interval;
use energy::{EnergyEstimate, MODEL_LABEL, MessageLoad};
use serde_json::{Value, json};

use super::link::parse_bytes;
use super::linkdata::{Format, links, ms, print_json, profiles, usage};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Device profile (see --list).
    #[arg(long, required_unless_present = "list")]
    device: Option<String>,
    /// Link from the catalogue (`ciphermeter link --list`).
    #[arg(long, required_unless_present = "list")]
    link: Option<String>,
    /// Plaintext message size in bytes.
    #[arg(long, required_unless_present = "list", allow_hyphen_values = true)]
    bytes: Option<String>,
    /// Size of the sealed message in bytes [default: same as --bytes].
    #[arg(long, allow_hyphen_values = true, conflicts_with = "overhead")]
    sealed_bytes: Option<String>,
    /// Bytes the sealing adds (nonce, tag, padding), instead of --sealed-bytes.
    #[arg(long, allow_hyphen_values = true)]
    overhead: Option<String>,
    /// CPU time to seal one message on the device, in microseconds (user-supplied:
    /// a device-level figure or a `bench` result on this machine) [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    cpu_us: Option<String>,
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
    let cpu_us = match &args.cpu_us {
        Some(t) => {
            let v: f64 = t
                .trim()
                .parse()
                .map_err(|_| CliError::usage(format!("--cpu-us: '{t}' is not a number")))?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(CliError::usage("--cpu-us: must be zero or positive"));
            }
            v
        }
        None => 0.0,
    };
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
            "cpu_time_source": if args.cpu_us.is_some() { "user-supplied (--cpu-us)" } else { "none given: 0" },
            "messages": rows.iter().map(|(label, c, e)| row_json(label, c, e)).collect::<Vec<_>>(),
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
            println!(
                "  CPU time per sealed message: {cpu_us} us ({})",
                if args.cpu_us.is_some() {
                    "user-supplied"
                } else {
                    "not given: 0"
                }
            );
            println!("  one message every {}", args.interval);
            println!();
            println!(
                "{:<10} {:>7} {:>12} {:>11} {:>11} {:>11} {:>12} {:>6} {:>6} {:>10}",
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
                    "{:<10} {:>7} {:>12} {:>11.2} {:>11.2} {:>11.2} {:>12.2} {:>6.2} {:>6.2} {:>10}",
                    label,
                    c.message_bytes + c.padding,
                    c.airtime.to_string(),
                    e.cpu_j * 1e6,
                    (e.tx_j + e.rx_j) * 1e6,
                    e.sleep_j * 1e6,
                    e.interval_j * 1e6,
                    e.cpu_share * 100.0,
                    e.radio_share * 100.0,
                    e.battery_days.map_or("-".into(), |d| format!("{d:.0}"))
                );
            }
            let (p, s) = (&rows[0].2, &rows[1].2);
            println!();
            println!(
                "  sealing adds {:.2} uJ per message ({:+.2} % per interval)",
                (s.message_j - p.message_j) * 1e6,
                (s.interval_j / p.interval_j - 1.0) * 100.0
            );
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
