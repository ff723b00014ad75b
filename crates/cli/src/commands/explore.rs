//! `ciphermeter explore -o page.html`: the explore page (crates/report `explorer`).

use std::path::PathBuf;

use crate::error::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// Where to write the page.
    #[arg(long, short, default_value = "ciphermeter-explore.html")]
    output: PathBuf,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let bytes = report::explorer::write(&args.output)?;
    println!("explore: {} ({bytes} bytes)", args.output.display());
    Ok(())
}
