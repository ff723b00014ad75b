//! `ciphermeter report [--run ID] [--output FILE]`: re-renders a stored run as HTML.

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use store::Store;

use super::stored::{DbArgs, store_err};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The run to show [default: the newest].
    #[arg(long)]
    run: Option<i64>,
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
        None => store.latest_run().map_err(store_err)?.ok_or_else(|| {
            CliError::usage("the store holds no runs yet: start one with `ciphermeter run --quick`")
        })?,
    };
    let path = args.output.unwrap_or_else(|| default_output(id));
    write_report(&store, id, &path)?;
    println!("report: {}", path.display());
    Ok(())
}

pub fn default_output(id: i64) -> PathBuf {
    PathBuf::from(format!("ciphermeter-run-{id}.html"))
}

/// Renders run `id` to `path`. Device-level results come from the newest run that
/// has them when this run has none.
pub fn write_report(store: &Store, id: i64, path: &Path) -> Result<(), CliError> {
    let run = store.run(id).map_err(store_err)?;
    let results = store.results(id).map_err(store_err)?;
    let artifacts = store.artifacts(id).map_err(store_err)?;
    let device_results = match results.iter().any(|r| r.section == store::conventions::MCU) {
        true => None,
        false => newest_device_results(store)?,
    };
    let html = report::render(&report::ReportInput {
        run,
        results,
        artifacts,
        device_results,
    });
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::failed(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(path, html).map_err(|e| CliError::failed(format!("{}: {e}", path.display())))
}

fn newest_device_results(store: &Store) -> Result<Option<(i64, Vec<store::ResultRow>)>, CliError> {
    let mut best: Option<(i64, Vec<store::ResultRow>)> = None;
    for target in mcu::Target::ALL {
        if let Some((run, rows)) = store
            .latest_section(store::conventions::MCU, target.name())
            .map_err(store_err)?
        {
            match &mut best {
                Some((r, all)) if *r == run => all.extend(rows),
                Some((r, _)) if *r > run => {}
                _ => best = Some((run, rows)),
            }
        }
    }
    Ok(best)
}
