//! `ciphermeter link`: what one message (`--bytes`, or a reading sealed with `--scheme`)
//! costs on a link from the catalogue (crates/cost `link_view`).

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::{Format, SendArgs, links, show};
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
    message: cost::message::MessageSpec,
    #[command(flatten)]
    send: SendArgs,
    /// List the links in the catalogue and exit.
    #[arg(long)]
    list: bool,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let cat = links(&args.data_dir)?;
    if args.list {
        let (json, text) = (cost::link_view::list_json, cost::link_view::list_text);
        return show(args.format, || json(&cat), || text(&cat));
    }
    let name = args.link.as_deref().unwrap_or_default();
    let spec = cat.get(name).map_err(CliError::usage)?;
    let message = &args.message;
    if message.given() {
        let costs = cost::link_view::cost_message(spec, message, &args.send.options()?)?;
        return show(args.format, || costs.json(spec), || costs.text(spec));
    }
    let bytes = cost::link_view::parse_bytes(args.bytes.as_deref().unwrap_or_default())?;
    let cost = spec
        .cost_with(bytes, &args.send.options()?)
        .map_err(CliError::usage)?;
    show(
        args.format,
        || cost::link_view::cost_json(spec, &cost),
        || cost::link_view::cost_text(spec, &cost),
    )
}
