//! `ciphermeter report [--run ID] [--output FILE]`: re-renders a stored run as HTML.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::DbArgs;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The run to show [default: the newest].
    #[arg(long)]
    run: Option<i64>,
    /// Another run beside it (e.g. a board's imported bench): both machines and the ratios.
    #[arg(long, value_name = "RUN")]
    with: Option<i64>,
    /// Where to write the HTML [default: ciphermeter-run-ID.html here].
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let store = args.db.open()?;
    let id = match args.run {
        Some(id) => id,
        None => store.latest_run()?.ok_or_else(|| {
            CliError::usage("the store holds no runs yet: start one with `ciphermeter run --quick`")
        })?,
    };
    let path = args.output.unwrap_or_else(|| campaign::default_output(id));
    campaign::write_report_with(&store, id, args.with, &path)?;
    println!("report: {}", path.display());
    Ok(())
}
