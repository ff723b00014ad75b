//! `ciphermeter airtime`: LoRa time on air, exact, for one case or a grid; with
//! `--region`, LoRaWAN uplinks with their MAC overhead, payload limits and duty cycle.

use clap::Args as ClapArgs;
use cost::airtime_view::{self, Request};

use crate::args::{Format, show};
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
    let req = Request {
        sf: args.sf,
        bw: args.bw,
        cr: args.cr,
        payload: args.payload,
        preamble: args.preamble,
        header: args.header,
        crc: args.crc,
        ldro: args.ldro,
        chip: args.chip,
        region: args.region,
        dr: args.dr,
        split: args.split,
    };
    let view = airtime_view::view(&req)?;
    show(args.format, || view.json(), || view.text())
}
