//! `ciphermeter link`: what one message costs on a link from the catalogue: bytes on
//! air, frames or packets, time on air, and whether the last packet waits for a timeout.
//! The message is either a byte count (`--bytes`) or a real reading, serialized and
//! sealed (`--sample`, `--scheme`), costed beside its plaintext.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use serde_json::{Value, json};

use crate::args::{Format, MessageArgs, links, parse_bytes, print_json, usage};
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
        let costs = cost::link_view::cost_message(spec, &args.message.spec(), args.pad_to_packet)?;
        return match args.format {
            Format::Json => print_json(&costs.json(spec)),
            Format::Table => {
                print!("{}", costs.text(spec));
                Ok(())
            }
        };
    }
    let bytes = parse_bytes(args.bytes.as_deref().unwrap_or_default())?;
    let cost = spec.cost(bytes, args.pad_to_packet).map_err(usage)?;
    match args.format {
        Format::Json => print_json(&cost::link_view::cost_json(spec, &cost)),
        Format::Table => {
            print!("{}", cost::link_view::cost_text(spec, &cost));
            Ok(())
        }
    }
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
