//! `ciphermeter import FILE.json`: loads the JSON of `bench --format json` made on
//! another machine (a Raspberry Pi, a laptop) as a run, ready for `compare`.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use measure::BenchReport;

use crate::args::DbArgs;
use crate::error::CliError;
use cost::record::save_bench_report;

#[derive(ClapArgs)]
pub struct Args {
    /// A file written by `ciphermeter bench --format json`.
    file: PathBuf,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| CliError::usage(format!("{}: {e}", args.file.display())))?;
    let report = BenchReport::from_json(&text)
        .map_err(|e| CliError::usage(format!("{}: {e}", args.file.display())))?;
    if report.results.is_empty() {
        return Err(CliError::usage(format!(
            "{}: the report holds no results",
            args.file.display()
        )));
    }
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let host = format!(
        "{} ({})",
        report.environment.cpu_model, report.environment.arch
    );
    let mut store = args.db.open()?;
    let id = save_bench_report(
        &mut store,
        &report,
        &format!("import {name}"),
        &format!("import:{name}"),
        &host,
    )?;
    println!(
        "imported {} results from {} as run {id} ({host})",
        report.results.len(),
        args.file.display()
    );
    if report.environment.build_profile == "debug" {
        eprintln!("warning: that report came from a debug build; its timings are not benchmarks");
    }
    Ok(())
}
