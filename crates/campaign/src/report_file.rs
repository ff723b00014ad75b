//! Writes a stored run's HTML report to a file.

use std::path::{Path, PathBuf};

use cost::Error;
use store::Store;

/// `ciphermeter-run-ID.html` in the working directory, where the user looks
/// first (`.gitignore` keeps it out of a checkout).
pub fn default_output(id: i64) -> PathBuf {
    PathBuf::from(format!("ciphermeter-run-{id}.html"))
}

/// Renders run `id` to `path`. Device-level results come from the newest run that
/// has them when this run has none.
pub fn write_report(store: &Store, id: i64, path: &Path) -> Result<(), Error> {
    write_report_with(store, id, None, path)
}

/// The report of run `id`; with `with`, that run's machine beside it and the
/// per-result ratios (`compare id with`), e.g. a board's imported bench beside this
/// machine's run.
pub fn write_report_with(
    store: &Store,
    id: i64,
    with: Option<i64>,
    path: &Path,
) -> Result<(), Error> {
    let run = store.run(id)?;
    let results = store.results(id)?;
    let artifacts = store.artifacts(id)?;
    let device_results = match results.iter().any(|r| r.section == store::conventions::MCU) {
        true => None,
        false => newest_device_results(store)?,
    };
    let beside = match with {
        Some(other) => {
            let other_run = store.run(other)?;
            let other_rows = store.results(other)?;
            let comparison = store::compare::compare(
                store::compare::Side {
                    run: &run,
                    rows: &results,
                },
                store::compare::Side {
                    run: &other_run,
                    rows: &other_rows,
                },
                &store::compare::Options::default(),
            );
            Some(report::Beside {
                run: other_run,
                comparison,
            })
        }
        None => None,
    };
    let html = report::render(&report::ReportInput {
        run,
        results,
        artifacts,
        device_results,
        beside,
        // Without its WebAssembly the report is still written, saying why.
        explorer: report::explorer::wasm()
            .map(|w| report::explorer::section(&w))
            .map_err(|e| e.to_string()),
    });
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(path, html).map_err(|e| Error::failed(format!("{}: {e}", path.display())))
}

fn newest_device_results(store: &Store) -> Result<Option<(i64, Vec<store::ResultRow>)>, Error> {
    let mut best: Option<(i64, Vec<store::ResultRow>)> = None;
    for target in device_facts::Target::ALL {
        if let Some((run, rows)) = store.latest_section(store::conventions::MCU, target.name())? {
            match &mut best {
                Some((r, all)) if *r == run => all.extend(rows),
                Some((r, _)) if *r > run => {}
                _ => best = Some((run, rows)),
            }
        }
    }
    Ok(best)
}
