//! `ciphermeter import FILE.json`: loads the JSON of `bench --format json` made on
//! another machine (a Raspberry Pi, a laptop) as a run, ready for `compare`.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::DbArgs;
use crate::error::CliError;
use cost::record::BenchFile;

#[derive(ClapArgs)]
pub struct Args {
    /// A file written by `ciphermeter bench --format json`.
    file: PathBuf,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let file = BenchFile::read(&args.file)?;
    let mut store = args.db.open()?;
    let id = file.import(&mut store)?;
    println!(
        "imported {} results from {} as run {id} ({})",
        file.report.results.len(),
        args.file.display(),
        file.host
    );
    if file.debug_build() {
        eprintln!("warning: that report came from a debug build; its timings are not benchmarks");
    }
    Ok(())
}
