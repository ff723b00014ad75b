//! The steps of `run` that measure: the catalogue sweep on this host and the
//! device tier. Each stores its results as it finishes, so an interrupted run
//! keeps everything up to the step that was cut.

use catalogue::Kind;
use cost::Error;
use cost::record::{bench_row, mcu_rows};
use measure::workload::{Case, CaseError, measure_case, operations_of};
use measure::{BenchResult, Sampler};
use store::{RunId, Store};

use crate::Progress;

/// A representative subset for `--quick`: each kind, fast and slow, modern and legacy.
pub const QUICK_ALGORITHMS: [&str; 18] = [
    "identity",
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "ascon-aead128",
    "acorn-128",
    "aes-128-ccm",
    "aes-128-cbc",
    "aes-128-ctr",
    "chacha20",
    "present-80-cbc",
    "des-cbc",
    "rc4",
    "sha256",
    "sha3-256",
    "md5",
    "hmac-sha256",
    "cmac-aes-128",
];

/// `bench`'s default sizes: the four study sizes plus typical packet and file sizes.
pub const DEFAULT_SIZES: [usize; 8] = [16, 64, 100, 256, 1024, 1536, 4096, 16384];

pub struct SweepOutcome {
    pub results: usize,
    pub skipped: Vec<String>,
    pub interrupted: bool,
}

/// Measures each algorithm at each size, storing one batch per algorithm.
pub fn sweep(
    store: &mut Store,
    run: RunId,
    sampler: &mut Sampler,
    ids: &[String],
    sizes: &[usize],
    progress: &mut dyn FnMut(Progress),
) -> Result<SweepOutcome, Error> {
    let mut out = SweepOutcome {
        results: 0,
        skipped: Vec::new(),
        interrupted: false,
    };
    for (i, id) in ids.iter().enumerate() {
        let Some(entry) = catalogue::catalogue().get(id) else {
            out.skipped.push(format!("{id}: not in the catalogue"));
            continue;
        };
        let Some(&backend) = entry.backends().first() else {
            continue;
        };
        progress(Progress::Working(&format!(
            "[sweep {}/{}] {}",
            i + 1,
            ids.len(),
            entry.id
        )));
        let mut batch: Vec<BenchResult> = Vec::new();
        'ops: for op in operations_of(entry, backend) {
            let op_sizes: &[usize] = if op.is_size_free() { &[0] } else { sizes };
            for &size in op_sizes {
                let case = Case {
                    entry,
                    backend,
                    operation: op,
                    size,
                };
                match measure_case(sampler, case) {
                    Ok(output) => batch.push(BenchResult::from_case(&case, &output)),
                    Err(CaseError::Interrupted) => {
                        out.interrupted = true;
                        break 'ops;
                    }
                    Err(CaseError::Unsupported(why)) => {
                        out.skipped
                            .push(format!("{} {op} {size} B: {why}", entry.id));
                        continue 'ops;
                    }
                }
            }
        }
        let rows: Vec<_> = batch.iter().map(bench_row).collect();
        store.add_results(run, &rows)?;
        out.results += rows.len();
        if out.interrupted {
            break;
        }
    }
    Ok(out)
}

/// Every catalogue entry (asymmetric ones too) for `--full`.
pub fn all_algorithms(include_asymmetric: bool) -> Vec<String> {
    catalogue::catalogue()
        .entries()
        .iter()
        .filter(|e| include_asymmetric || e.kind != Kind::Asymmetric)
        .map(|e| e.id.clone())
        .collect()
}

/// Simulates study 003's sealed-message firmwares on the device's target and
/// stores the counts. Returns a note when the toolchain is missing.
pub fn device_tier(
    store: &mut Store,
    run: RunId,
    target: mcu::Target,
    progress: &mut dyn FnMut(Progress),
) -> Result<Result<usize, String>, Error> {
    let missing = mcu::toolchain::missing(target);
    if !missing.is_empty() {
        let what: Vec<String> = missing
            .iter()
            .map(|m| format!("{} ({})", m.what, m.install))
            .collect();
        return Ok(Err(format!(
            "device tier skipped, missing: {}",
            what.join("; ")
        )));
    }
    let mut ids = vec![mcu::tiny_security::BASELINE.to_string()];
    ids.extend(
        mcu::tiny_security::SCHEMES
            .iter()
            .map(|(id, _)| id.to_string()),
    );
    let req = mcu::Request {
        target,
        algorithms: ids,
        sizes: vec![16],
    };
    let results = mcu::measure(&req, |what| {
        progress(Progress::Working(&format!(
            "[device {}] {what}",
            target.name()
        )))
    });
    let results = match results {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("device tier failed: {e}"))),
    };
    let rows = mcu_rows(&results);
    store.add_results(run, &rows)?;
    Ok(Ok(rows
        .iter()
        .filter(|r| r.metric != store::conventions::FAILURE)
        .count()))
}
