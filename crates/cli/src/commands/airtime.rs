//! `ciphermeter airtime`: LoRa time on air, exact, for one case or a grid; with
//! `--region`, LoRaWAN uplinks with their MAC overhead, payload limits and duty cycle.

use clap::Args as ClapArgs;
use cost::airtime_view;
use link::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use link::lorawan::Region;
use serde_json::Value;

use crate::args::{Format, parse_range, parse_switch, print_json, show, usage};
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
        return show(
            args.format,
            || airtime_view::case_json(&p, payloads[0], &a),
            || airtime_view::case_text(&p, payloads[0], &a),
        );
    }
    let (rows, notes) = airtime_view::phy_grid(&base, &sfs, &payloads).map_err(CliError::usage)?;
    show(
        args.format,
        || airtime_view::phy_json(&rows),
        || airtime_view::phy_text(&base, &rows, &notes),
    )
}

fn lorawan(args: &Args, region: Region) -> Result<(), CliError> {
    let max_dr = region.data_rates().len() as u32 - 1;
    let drs = match &args.dr {
        Some(d) => parse_range("--dr", d, 15)?,
        None => (0..=max_dr).collect(),
    };
    let payloads = parse_range("--payload", &args.payload, 65535)?;
    let single = drs.len() == 1 && payloads.len() == 1;
    let rows =
        airtime_view::lorawan_grid(region, &drs, &payloads, args.split).map_err(CliError::usage)?;
    match args.format {
        Format::Json if single => {
            print_json(&airtime_view::lorawan_json(region, rows[0].0, &rows[0].1))
        }
        Format::Json => print_json(&Value::Array(
            rows.iter()
                .map(|(pl, m)| airtime_view::lorawan_json(region, *pl, m))
                .collect(),
        )),
        Format::Table => {
            print!("{}", airtime_view::lorawan_text(region, &rows));
            Ok(())
        }
    }
}
