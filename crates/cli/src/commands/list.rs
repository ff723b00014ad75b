//! `list`: every catalogue entry with its metadata, backends and status.

use catalogue::{Entry, Kind};
use clap::Args as ClapArgs;

use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Only this kind: block-mode, stream, aead, hash, mac, asymmetric, baseline.
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::args::Format,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let kind = args.kind.as_deref().map(Kind::from_name).transpose()?;
    let entries: Vec<&Entry> = catalogue::catalogue()
        .entries()
        .iter()
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .collect();
    match args.format {
        crate::args::Format::Json => crate::args::print_json(
            &serde_json::to_value(catalogue::listing::listing(&entries))
                .map_err(CliError::failed)?,
        ),
        crate::args::Format::Table => {
            print!("{}", catalogue::listing::table(&entries));
            Ok(())
        }
    }
}
