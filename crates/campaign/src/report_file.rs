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
    let run = store.run(id)?;
    let results = store.results(id)?;
    let artifacts = store.artifacts(id)?;
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
            .map_err(|e| Error::failed(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(path, html).map_err(|e| Error::failed(format!("{}: {e}", path.display())))
}

fn newest_device_results(store: &Store) -> Result<Option<(i64, Vec<store::ResultRow>)>, Error> {
    let mut best: Option<(i64, Vec<store::ResultRow>)> = None;
    for target in mcu::Target::ALL {
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
