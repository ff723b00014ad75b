//! `ciphermeter link`: what one message costs on a link from the catalogue: bytes on
//! air, frames or packets, time on air, and whether the last packet waits for a timeout.
//! The message is either a byte count (`--bytes`) or a real reading, serialized and
//! sealed (`--sample`, `--scheme`), costed beside its plaintext.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use serde_json::{Value, json};

use cost::message::Message;

use crate::args::{Format, MessageArgs, len_u32, links, ms, parse_bytes, print_json, usage};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Link name from the catalogue (see --list).
    #[arg(long, required_unless_present = "list")]
    link: Option<String>,
    /// Message size in bytes (the sealed message as it leaves the sealing step);
    /// or give --scheme/--sample to build and seal a real message.
    #[arg(
        long,
        required_unless_present_any = ["list", "scheme", "sample"],
        conflicts_with_all = ["scheme", "sample"],
        allow_hyphen_values = true
    )]
    bytes: Option<String>,
    #[command(flatten)]
    message: MessageArgs,
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
    let spec = cat.get(name).map_err(usage)?;
    if args.message.given() {
        return run_message(spec, &args);
    }
    let bytes = parse_bytes(args.bytes.as_deref().unwrap_or_default())?;
    let cost = spec.cost(bytes, args.pad_to_packet).map_err(usage)?;
    match args.format {
        Format::Json => print_json(&cost_json(spec, &cost)),
        Format::Table => {
            print_cost(spec, &cost);
            Ok(())
        }
    }
}

/// Costs the serialized reading and, with a scheme, the sealed one.
fn run_message(spec: &::link::LinkSpec, args: &Args) -> Result<(), CliError> {
    let msg = Message::build(&args.message.spec())?;
    let plain = spec
        .cost(len_u32(msg.plaintext.len())?, args.pad_to_packet)
        .map_err(usage)?;
    let sealed = match &msg.sealed {
        Some(s) => Some(
            spec.cost(len_u32(s.bytes.len())?, args.pad_to_packet)
                .map_err(usage)?,
        ),
        None => None,
    };
    match args.format {
        Format::Json => {
            let mut out = json!({
                "link": spec.name,
                "sample": msg.sample.to_string(),
                "serialization": msg.format.map(|f| f.to_string()),
                "seed": msg.seed,
                "plaintext": cost_json(spec, &plain),
            });
            if let (Some(s), Some(c)) = (&msg.sealed, &sealed) {
                let mut sealed_json = cost_json(spec, c);
                sealed_json["scheme"] = json!(s.scheme.name());
                sealed_json["container"] = json!(s.container.as_str());
                sealed_json["encoding"] = json!(s.encoding.as_str());
                sealed_json["insecure"] = json!(s.insecurity);
                out["sealed"] = sealed_json;
                out["added_bytes"] = json!(c.message_bytes as i64 - plain.message_bytes as i64);
                out["added_airtime_ms"] = json!(ms(c.airtime) - ms(plain.airtime));
            }
            print_json(&out)
        }
        Format::Table => {
            print_comparison(spec, &msg, &plain, sealed.as_ref());
            Ok(())
        }
    }
}

fn frames_text(c: &::link::LinkCost) -> String {
    if c.frames == 1 {
        format!("fits one (<= {} B)", c.frame_capacity)
    } else {
        format!("{} frames (<= {} B each)", c.frames, c.frame_capacity)
    }
}

fn print_comparison(
    spec: &::link::LinkSpec,
    msg: &Message,
    plain: &::link::LinkCost,
    sealed: Option<&::link::LinkCost>,
) {
    println!("{} — {}", spec.name, spec.title);
    println!(
        "  plaintext: {}, {} B",
        msg.describe_plaintext(),
        msg.plaintext.len()
    );
    if let Some(s) = &msg.sealed {
        let added = s.bytes.len() as i64 - msg.plaintext.len() as i64;
        println!(
            "  sealed:    {}, {} B ({added:+} B, x{:.2})",
            s.describe(),
            s.bytes.len(),
            s.bytes.len() as f64 / msg.plaintext.len().max(1) as f64
        );
        for why in &s.insecurity {
            println!("  INSECURE:  {why} (sealed only because of --allow-insecure)");
        }
    }
    println!();
    let rows: Vec<(&str, &::link::LinkCost)> = std::iter::once(("plaintext", plain))
        .chain(sealed.map(|c| ("sealed", c)))
        .collect();
    let line = |what: &str, cell: &dyn Fn(&::link::LinkCost) -> String| {
        print!("  {what:<20}");
        for (_, c) in &rows {
            print!(" {:>26}", cell(c));
        }
        println!();
    };
    print!("  {:<20}", "");
    for (label, _) in &rows {
        print!(" {label:>26}");
    }
    println!();
    line("message bytes", &|c| {
        if c.padding > 0 {
            format!("{} + {} padding", c.message_bytes, c.padding)
        } else {
            c.message_bytes.to_string()
        }
    });
    line("bytes on air", &|c| c.on_air_bytes.to_string());
    line("frames", &frames_text);
    line("time on air (TX)", &|c| c.airtime.to_string());
    if rows.iter().any(|(_, c)| c.rx_time > ::link::Micros::ZERO) {
        line("receiver on (RX)", &|c| c.rx_time.to_string());
    }
    if rows.iter().any(|(_, c)| c.delivery != c.airtime) {
        line("delivered after", &|c| c.delivery.to_string());
    }
    if spec.serial.is_some() {
        line("last packet waits", &|c| {
            if c.last_waits_timeout {
                "yes (timeout)"
            } else {
                "no"
            }
            .to_string()
        });
    }
    if rows.iter().any(|(_, c)| c.min_interval.is_some()) {
        line("duty cycle: every", &|c| {
            c.min_interval
                .map_or("-".into(), |t| format!("{:.1} s", t.as_secs()))
        });
        line("max per hour", &|c| {
            c.max_per_hour.map_or("-".into(), |n| n.to_string())
        });
    }
    if let Some(s) = sealed {
        println!();
        println!(
            "  sealing adds {} B on air and {:.3} ms of time on air per message",
            s.on_air_bytes as i64 - plain.on_air_bytes as i64,
            ms(s.airtime) - ms(plain.airtime)
        );
    }
    let mut warnings: Vec<String> = Vec::new();
    for (label, c) in &rows {
        for w in &c.warnings {
            warnings.push(format!("{label}: {w}"));
        }
        if c.last_waits_timeout {
            warnings.push(format!(
                "{label}: the last packet is partial and goes out only after the timeout (try --pad-to-packet)"
            ));
        }
    }
    for w in &warnings {
        println!("  warning: {w}");
    }
    println!("  source: {}", spec.source);
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
