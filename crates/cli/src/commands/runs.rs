//! `ciphermeter runs`: the runs in the store, oldest first.

use clap::Args as ClapArgs;

use crate::args::DbArgs;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let store = args.db.open()?;
    let runs = store.runs()?;
    if args.json {
        let text = serde_json::to_string_pretty(&runs).map_err(CliError::failed)?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", report::runs::text(&runs, store.path()));
    Ok(())
}
