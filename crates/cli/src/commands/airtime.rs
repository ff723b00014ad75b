//! `ciphermeter airtime`: LoRa time on air, exact, for one case or a grid; with
//! `--region`, LoRaWAN uplinks with their MAC overhead, payload limits and duty cycle.

use clap::Args as ClapArgs;
use link::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use link::lorawan::{MAC_OVERHEAD, Region};
use serde_json::{Value, json};

use crate::args::{Format, ms, parse_range, parse_switch, print_json, usage};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Spreading factor, or a range such as 5..12.
    #[arg(
        long,
        default_value = "7",
        allow_hyphen_values = true,
        conflicts_with = "region"
    )]
    sf: String,
    /// Bandwidth in kHz (7.8, 10.4, 15.6, 20.8, 31.25, 41.7, 62.5, 125, 250, 500).
    #[arg(long, default_value = "125", conflicts_with = "region")]
    bw: String,
    /// Coding rate 4/5 … 4/8.
    #[arg(long, default_value = "4/5", conflicts_with = "region")]
    cr: String,
    /// Payload bytes (PHY payload; with --region, application bytes), or a range A..B.
    #[arg(long, default_value = "13", allow_hyphen_values = true)]
    payload: String,
    /// Programmed preamble symbols [default: 8; 12 for SX126x at SF5/SF6].
    #[arg(long, allow_hyphen_values = true, conflicts_with = "region")]
    preamble: Option<String>,
    /// explicit or implicit PHY header.
    #[arg(long, default_value = "explicit", conflicts_with = "region")]
    header: String,
    /// Payload CRC on or off.
    #[arg(long, default_value = "on", conflicts_with = "region")]
    crc: String,
    /// Low data rate optimisation: auto (on when a symbol lasts 16 ms or more), on, off.
    #[arg(long, default_value = "auto", conflicts_with = "region")]
    ldro: String,
    /// Counting rules: sx127x (SF6–SF12) or sx126x (SF5–SF12).
    #[arg(long, default_value = "sx127x", conflicts_with = "region")]
    chip: String,
    /// LoRaWAN region (EU868 or US915): cost uplinks with 13 B of MAC overhead.
    #[arg(long)]
    region: Option<String>,
    /// LoRaWAN data rate, or a range such as 0..5 [default: every uplink DR].
    #[arg(long, requires = "region", allow_hyphen_values = true)]
    dr: Option<String>,
    /// With --region: split a message over the per-frame maximum into several frames
    /// instead of refusing it.
    #[arg(long, requires = "region")]
    split: bool,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    match &args.region {
        Some(region) => lorawan(&args, region.parse().map_err(usage)?),
        None => phy(&args),
    }
}

fn phy(args: &Args) -> Result<(), CliError> {
    let sfs = parse_range("--sf", &args.sf, 64)?;
    if let Some(&bad) = sfs.iter().find(|&&s| !(5..=12).contains(&s)) {
        return Err(CliError::usage(format!(
            "--sf: SF{bad} does not exist; LoRa spreading factors are 5..12"
        )));
    }
    let payloads = parse_range("--payload", &args.payload, 255)?;
    let preamble = match &args.preamble {
        Some(p) => Some(
            parse_range("--preamble", p, 65535)?
                .first()
                .copied()
                .unwrap_or(8) as u16,
        ),
        None => None,
    };
    let base = LoraParams {
        sf: 7,
        bandwidth: args.bw.parse::<Bandwidth>().map_err(usage)?,
        coding_rate: args.cr.parse::<CodingRate>().map_err(usage)?,
        preamble,
        header: args.header.parse::<Header>().map_err(usage)?,
        crc: parse_switch("--crc", &args.crc)?,
        ldro: args.ldro.parse::<Ldro>().map_err(usage)?,
        chip: args.chip.parse::<Chip>().map_err(usage)?,
    };
    let single = sfs.len() == 1 && payloads.len() == 1;
    if single {
        let p = LoraParams {
            sf: sfs[0] as u8,
            ..base
        };
        let a = p.airtime(payloads[0]).map_err(usage)?;
        return match args.format {
            Format::Json => print_json(&case_json(&p, payloads[0], &a)),
            Format::Table => {
                println!("LoRa time on air ({} rules, exact)", p.chip.name());
                println!(
                    "  SF{} / {} / CR {} / {} header / CRC {} / preamble {}",
                    p.sf,
                    p.bandwidth,
                    p.coding_rate,
                    header_name(p.header),
                    on_off(p.crc),
                    p.preamble_symbols()
                );
                println!("  payload          {} B", payloads[0]);
                println!("  symbol time      {}", a.symbol_time);
                println!("  preamble         {} symbols", a.preamble_symbols());
                println!("  payload symbols  {}", a.payload_symbols);
                println!("  LDRO             {}", on_off(a.ldro));
                println!("  time on air      {}", a.total);
                Ok(())
            }
        };
    }
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for &sf in &sfs {
        for &pl in &payloads {
            let p = LoraParams {
                sf: sf as u8,
                ..base
            };
            match p.airtime(pl) {
                Ok(a) => rows.push((p, pl, Ok(a))),
                Err(e) => {
                    let msg = e.to_string();
                    if !notes.contains(&msg) {
                        notes.push(msg.clone());
                    }
                    rows.push((p, pl, Err(msg)));
                }
            }
        }
    }
    if rows.iter().all(|r| r.2.is_err()) {
        return Err(CliError::usage(notes.join("; ")));
    }
    match args.format {
        Format::Json => print_json(&Value::Array(
            rows.iter()
                .map(|(p, pl, r)| match r {
                    Ok(a) => case_json(p, *pl, a),
                    Err(e) => json!({"sf": p.sf, "payload_bytes": pl, "error": e}),
                })
                .collect(),
        )),
        Format::Table => {
            println!(
                "LoRa time on air ({} rules, {} / CR {} / {} header / CRC {}, exact)",
                base.chip.name(),
                base.bandwidth,
                base.coding_rate,
                header_name(base.header),
                on_off(base.crc)
            );
            println!(
                "{:>4} {:>8} {:>9} {:>9} {:>5} {:>14}",
                "SF", "payload", "preamble", "symbols", "LDRO", "time on air"
            );
            for (p, pl, r) in &rows {
                match r {
                    Ok(a) => println!(
                        "{:>4} {:>6} B {:>9} {:>9} {:>5} {:>14}",
                        p.sf,
                        pl,
                        a.preamble_symbols(),
                        a.payload_symbols,
                        on_off(a.ldro),
                        a.total.to_string()
                    ),
                    Err(_) => println!(
                        "{:>4} {:>6} B {:>9} {:>9} {:>5} {:>14}",
                        p.sf, pl, "-", "-", "-", "n/a"
                    ),
                }
            }
            for n in notes {
                println!("n/a: {n}");
            }
            Ok(())
        }
    }
}

fn case_json(p: &LoraParams, payload: u32, a: &link::lora::Airtime) -> Value {
    json!({
        "chip": p.chip.name(),
        "sf": p.sf,
        "bandwidth_khz": p.bandwidth.label(),
        "coding_rate": p.coding_rate.to_string(),
        "header": header_name(p.header),
        "crc": p.crc,
        "payload_bytes": payload,
        "preamble_programmed": p.preamble_symbols(),
        "preamble_symbols": a.preamble_symbols(),
        "payload_symbols": a.payload_symbols,
        "ldro": a.ldro,
        "symbol_ms": ms(a.symbol_time),
        "airtime_ms": ms(a.total),
        "airtime_us": a.total.ratio().to_integer(),
    })
}

fn lorawan(args: &Args, region: Region) -> Result<(), CliError> {
    let max_dr = region.data_rates().len() as u32 - 1;
    let drs = match &args.dr {
        Some(d) => parse_range("--dr", d, 15)?,
        None => (0..=max_dr).collect(),
    };
    for &dr in &drs {
        region.data_rate(dr as u8).map_err(usage)?;
    }
    let payloads = parse_range("--payload", &args.payload, 65535)?;
    let single = drs.len() == 1 && payloads.len() == 1;
    let mut rows = Vec::new();
    for &dr in &drs {
        let rate = region.data_rate(dr as u8).map_err(usage)?;
        for &pl in &payloads {
            if pl > rate.max_payload && single && !args.split {
                return Err(CliError::usage(format!(
                    "{}; pass --split to cost it as several frames",
                    rate.too_big(pl)
                )));
            }
            rows.push((pl, rate.message(pl).map_err(usage)?));
        }
    }
    let row_json = |pl: u32, m: &link::lorawan::LorawanMessage| {
        json!({
            "region": region.to_string(),
            "dr": m.rate.dr,
            "sf": m.rate.sf,
            "bandwidth_khz": m.rate.bandwidth.label(),
            "payload_bytes": pl,
            "max_payload": m.rate.max_payload,
            "fits_one_frame": m.frame_payloads.len() == 1,
            "frames": m.frame_payloads.len(),
            "phy_bytes": m.on_air_bytes(),
            "mac_overhead_per_frame": MAC_OVERHEAD,
            "airtime_ms": ms(m.airtime),
            "airtime_us": m.airtime.ratio().to_integer(),
            "dwell_ok": m.dwell_ok,
            "min_interval_s": m.min_interval().map(|t| t.as_secs()),
            "max_messages_per_hour": m.max_per_hour(),
        })
    };
    match args.format {
        Format::Json if single => print_json(&row_json(rows[0].0, &rows[0].1)),
        Format::Json => print_json(&Value::Array(
            rows.iter().map(|(pl, m)| row_json(*pl, m)).collect(),
        )),
        Format::Table => {
            let limit = match region.duty_cycle() {
                Some(_) => "1 % duty cycle",
                None => "400 ms dwell time",
            };
            println!(
                "LoRaWAN {region} uplinks: {MAC_OVERHEAD} B MAC overhead per frame, preamble 8, CR 4/5, CRC on; {limit}"
            );
            println!(
                "{:>4} {:>10} {:>8} {:>7} {:>8} {:>14} {:>14} {:>9}",
                "DR",
                "SF/BW",
                "payload",
                "max",
                "frames",
                "time on air",
                "min interval",
                "max/hour"
            );
            for (pl, m) in &rows {
                let frames = if m.frame_payloads.len() == 1 {
                    "1".to_string()
                } else {
                    format!("{} (!)", m.frame_payloads.len())
                };
                let interval = m.min_interval().map_or_else(
                    || {
                        if m.dwell_ok {
                            "dwell ok".into()
                        } else {
                            "DWELL!".into()
                        }
                    },
                    |t| format!("{:.1} s", t.as_secs()),
                );
                let per_hour = m.max_per_hour().map_or("-".into(), |n| n.to_string());
                println!(
                    "{:>4} {:>10} {:>6} B {:>5} B {:>8} {:>14} {:>14} {:>9}",
                    m.rate.dr,
                    format!("SF{}/{}", m.rate.sf, m.rate.bandwidth.label()),
                    pl,
                    m.rate.max_payload,
                    frames,
                    m.airtime.to_string(),
                    interval,
                    per_hour
                );
            }
            if rows.iter().any(|(_, m)| m.frame_payloads.len() > 1) {
                println!(
                    "(!) the message does not fit one frame at that data rate: it is split, each frame paying {MAC_OVERHEAD} B of MAC overhead"
                );
            }
            Ok(())
        }
    }
}

fn header_name(h: Header) -> &'static str {
    match h {
        Header::Explicit => "explicit",
        Header::Implicit => "implicit",
    }
}

fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}
