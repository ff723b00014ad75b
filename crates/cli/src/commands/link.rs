//! `ciphermeter link`: what one message costs on a link from the catalogue: bytes on
//! air, frames or packets, time on air, and whether the last packet waits for a timeout.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use serde_json::{Value, json};

use super::linkdata::{Format, links, ms, print_json, usage};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Link name from the catalogue (see --list).
    #[arg(long, required_unless_present = "list")]
    link: Option<String>,
    /// Message size in bytes (the sealed message as it leaves the sealing step).
    #[arg(long, required_unless_present = "list", allow_hyphen_values = true)]
    bytes: Option<String>,
    /// Pad the message with zeros to whole frames/packets (study 000's remedy).
    #[arg(long)]
    pad_to_packet: bool,
    /// List the links in the catalogue and exit.
    #[arg(long)]
    list: bool,
    /// Directory with extra or replacement data files (links/*.toml …);
    /// also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let cat = links(&args.data_dir)?;
    if args.list {
        return list(&cat, args.format);
    }
    let name = args.link.as_deref().unwrap_or_default();
    let bytes = parse_bytes(args.bytes.as_deref().unwrap_or_default())?;
    let spec = cat.get(name).map_err(usage)?;
    let cost = spec.cost(bytes, args.pad_to_packet).map_err(usage)?;
    match args.format {
        Format::Json => print_json(&cost_json(spec, &cost)),
        Format::Table => {
            print_cost(spec, &cost);
            Ok(())
        }
    }
}

/// A byte count: a non-negative integer, with a clear message otherwise.
pub fn parse_bytes(text: &str) -> Result<u32, CliError> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(CliError::usage(format!(
            "--bytes: a message size must not be negative (got '{text}')"
        )));
    }
    t.parse::<u32>()
        .map_err(|_| CliError::usage(format!("--bytes: '{text}' is not a byte count")))
}

pub fn cost_json(spec: &::link::LinkSpec, c: &::link::LinkCost) -> Value {
    json!({
        "link": spec.name,
        "title": spec.title,
        "kind": spec.kind(),
        "message_bytes": c.message_bytes,
        "padding_bytes": c.padding,
        "on_air_bytes": c.on_air_bytes,
        "frames": c.frames,
        "frame_capacity": c.frame_capacity,
        "airtime_ms": ms(c.airtime),
        "rx_ms": ms(c.rx_time),
        "delivery_ms": ms(c.delivery),
        "last_waits_timeout": c.last_waits_timeout,
        "min_interval_s": c.min_interval.map(|t| t.as_secs()),
        "max_messages_per_hour": c.max_per_hour,
        "warnings": c.warnings,
        "source": spec.source,
    })
}

pub fn print_cost(spec: &::link::LinkSpec, c: &::link::LinkCost) {
    println!("{} — {}", spec.name, spec.title);
    println!(
        "  message            {} B{}",
        c.message_bytes,
        if c.padding > 0 {
            format!(" + {} B padding", c.padding)
        } else {
            String::new()
        }
    );
    println!(
        "  on air             {} B in {} frame(s) of at most {} B",
        c.on_air_bytes, c.frames, c.frame_capacity
    );
    println!("  time on air (TX)   {}", c.airtime);
    if c.rx_time > ::link::Micros::ZERO {
        println!("  receiver on (RX)   {}", c.rx_time);
    }
    if c.delivery != c.airtime {
        println!("  delivered after    {}", c.delivery);
    }
    if spec.serial.is_some() {
        println!(
            "  last packet waits  {}",
            if c.last_waits_timeout {
                "yes: it is partial, so it goes out only after the timeout (try --pad-to-packet)"
            } else {
                "no"
            }
        );
    }
    if let (Some(iv), Some(n)) = (c.min_interval, c.max_per_hour) {
        println!(
            "  duty cycle         next message after {:.1} s at the earliest; at most {n} per hour",
            iv.as_secs()
        );
    }
    for w in &c.warnings {
        println!("  warning: {w}");
    }
    println!("  source: {}", spec.source);
}

fn list(cat: &::link::Catalogue, format: Format) -> Result<(), CliError> {
    match format {
        Format::Json => print_json(&Value::Array(
            cat.links()
                .iter()
                .map(|l| json!({"name": l.name, "kind": l.kind(), "title": l.title, "radio": l.radio, "tx_power_dbm": l.tx_power_dbm, "source": l.source}))
                .collect(),
        )),
        Format::Table => {
            for l in cat.links() {
                println!("{:<22} {:<8} {}", l.name, l.kind(), l.title);
            }
            Ok(())
        }
    }
}
