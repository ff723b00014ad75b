//! `ciphermeter recommend --device D --link L`: the sealing schemes that meet the
//! constraints ranked by energy per message (crates/cost `ranking`).

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use cost::ranking;

use crate::args::{DbArgs, Format, ProtocolArgs, print_json};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Device profile (`ciphermeter energy --list`).
    #[arg(long)]
    pub device: String,
    /// Link (`ciphermeter link --list`).
    #[arg(long)]
    pub link: String,
    /// The reading to send: chain:N, record:KB or random:N.
    #[arg(long, default_value = "chain:10")]
    pub sample: String,
    /// Old spelling of --sample.
    #[arg(long, hide = true, conflicts_with = "sample")]
    pub payload: Option<String>,
    /// How the reading is serialized: json, json-pretty, yaml, yaml-min, cbor, msgpack [default: json].
    #[arg(long)]
    pub serialization: Option<String>,
    /// Least security level in bits.
    #[arg(long, default_value_t = 128)]
    pub min_security: u32,
    /// What the reading needs: confidentiality (the default: it stays secret)
    /// or integrity (also ranks MAC-only schemes, which send it in clear).
    #[arg(long, default_value = "confidentiality", value_parser = ["confidentiality", "integrity"])]
    pub need: String,
    /// Also rank legacy and broken algorithms.
    #[arg(long)]
    pub allow_legacy: bool,
    /// Also rank builds whose timing leaks on the device (`ciphermeter ct`), marked.
    #[arg(long)]
    pub allow_leaky: bool,
    /// The container to seal in: json, binary, cose, oscore, or all (each scheme in each).
    #[arg(long, default_value = "json")]
    pub container: String,
    /// Also rank the oscore container's messages compressed: schc or schc:RULES.
    #[arg(long, value_name = "SCHC")]
    pub compression: Option<String>,
    /// Battery profile for battery life.
    #[arg(long, default_value = "2xAA")]
    pub battery: String,
    /// One message every: 30s, 10m, 1h.
    #[arg(long, default_value = "10m")]
    pub interval: String,
    /// Messages per EDHOC session: the winner keyed so (the handshake spread over N) is
    /// ranked beside the pre-shared keys, with the N from which the handshake stops mattering.
    #[arg(long, value_name = "N")]
    pub session_messages: Option<u64>,
    /// Whose code may seal on the device: rustcrypto, ciphermeter, mbedtls, monocypher, comma
    /// separated, with hardware for the device's engines (published figures); all (the
    /// default) or software (every implementation, no engines). Each row is the fastest.
    #[arg(long = "impl", value_name = "IMPL", default_value = "all")]
    pub implementation: String,
    /// How many ranked schemes to print.
    #[arg(long, default_value_t = 15)]
    pub top: usize,
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// A board's measured rows (`mcu --board … --cost-table FILE`), costed in place of the simulation's.
    #[arg(long, value_name = "FILE")]
    pub cost_table: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub protocol: ProtocolArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let choice = device_facts::implementation::parse_choice(&args.implementation)?;
    let req = ranking::Request {
        question: ranking::Question {
            device: args.device,
            link: args.link,
            payload: crate::renamed::old(args.payload, "--payload", "--sample")
                .unwrap_or(args.sample),
            serialization: args.serialization,
            min_security: args.min_security,
            need: args.need.parse().map_err(CliError::Usage)?,
            allow_legacy: args.allow_legacy,
            allow_leaky: args.allow_leaky,
            containers: ranking::containers(&args.container).map_err(CliError::Usage)?,
            compression: args.compression.clone(),
            battery: args.battery,
            interval: args.interval,
            session_messages: args.session_messages,
            implementations: choice.software,
            hardware: choice.hardware,
            protocol: energy::protocol::Overrides::from_flags(&args.protocol)
                .map_err(CliError::usage)?,
        },
        data_dir: args.data_dir,
        cost_table: args.cost_table,
    };
    let store = args.db.open()?;
    let progress = std::io::stderr().is_terminal();
    let r = ranking::rank(&req, &store, true, &mut |i, n, name| {
        if progress {
            eprint!("\r\x1b[2Kcosting {i}/{n} {name}");
        }
    })?;
    if progress {
        eprint!("\r\x1b[2K");
    }
    r.require_ranked()?;
    let summary = r.summary(&req);
    if args.format == Format::Json {
        return print_json(&serde_json::to_value(&summary).map_err(CliError::failed)?);
    }
    print!("{}", summary.text(args.top));
    Ok(())
}
