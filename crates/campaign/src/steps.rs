//! The steps of `run` that measure: the catalogue sweep on this host and the
//! device tier. Each stores its results as it finishes, so an interrupted run
//! keeps everything up to the step that was cut.

use catalogue::Kind;
use cost::Error;
use std::path::Path;

use cost::record::{bench_row, group_noise_row, mcu_rows, noise_row, process_noise_row};
use measure::workload::{BackendChoice, Case, Operation, interleave_groups, measure_group, plan};
use measure::{BenchResult, Sampler};
use store::{RunId, Store};

use crate::{Progress, process_noise};

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

/// Timed at the start and the end of the sweep; how far they drift is this
/// run's noise (see `store::conventions::NOISE`). Four characters of code:
/// AES-NI, wide integer arithmetic, SHA extensions, table lookups.
pub const NOISE_PROBES: [(&str, Operation, usize); 4] = [
    ("aes-128-gcm", Operation::Encrypt, 1024),
    ("chacha20-poly1305", Operation::Encrypt, 1024),
    ("sha256", Operation::Digest, 1024),
    ("present-80-cbc", Operation::Encrypt, 64),
];

/// Times the probes are taken again inside the sweep, evenly spaced, besides
/// the end: a machine that slows down for a while in the middle of a run (a
/// neighbour on the host, a frequency cap) is otherwise invisible to probes
/// at the two ends, and so is the noise it puts into the run's results.
pub const PROBES_INSIDE: usize = 6;

pub struct SweepOutcome {
    pub results: usize,
    pub skipped: Vec<String>,
    pub interrupted: bool,
}

/// Measures each algorithm at each size, one operation and size at a time
/// with the algorithms' samples interleaved, storing each group as it
/// finishes; the noise probes run before, inside (`PROBES_INSIDE`) and after. With `fresh_process`
/// (this binary), a few groups are then timed again in fresh processes
/// (`process_noise`).
pub fn sweep(
    store: &mut Store,
    run: RunId,
    sampler: &mut Sampler,
    ids: &[String],
    sizes: &[usize],
    fresh_process: Option<(&Path, bool)>,
    progress: &mut dyn FnMut(Progress),
) -> Result<SweepOutcome, Error> {
    let mut out = SweepOutcome {
        results: 0,
        skipped: Vec::new(),
        interrupted: false,
    };
    let mut entries = Vec::new();
    for id in ids {
        match catalogue::catalogue().get(id) {
            Some(entry) => entries.push(entry),
            None => out.skipped.push(format!("{id}: not in the catalogue")),
        }
    }
    let sizes: Vec<u64> = sizes.iter().map(|&s| s as u64).collect();
    let (cases, _) = plan(&entries, &sizes, None, &BackendChoice::Default);
    let probes = noise_probes();
    let Some(before) = measure_probes(sampler, &probes) else {
        out.interrupted = true;
        return Ok(out);
    };
    let groups = interleave_groups(&cases);
    let retimed = process_noise::chosen(&groups, &cases, process_noise::GROUPS);
    let pulses: Vec<usize> = (1..=PROBES_INSIDE)
        .map(|k| k * groups.len() / (PROBES_INSIDE + 1))
        .collect();
    let mut to_retime: Vec<(Vec<Case>, Vec<BenchResult>)> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let group: Vec<Case> = group.iter().map(|&i| cases[i]).collect();
        progress(Progress::Working(&format!(
            "[sweep {}/{}] {} {} B, {} algorithms interleaved",
            g + 1,
            groups.len(),
            group[0].operation,
            group[0].recorded_size(),
            group.len()
        )));
        // The first probe rides along in every group, so each group carries
        // the machine's speed while it was measured (`GROUP_DRIFT_PCT`).
        let reference = probes
            .first()
            .zip(before.first())
            .filter(|(case, start)| case.entry.id == start.algorithm);
        let mut timed = group.clone();
        timed.extend(reference.map(|(case, _)| *case));
        let Ok(mut outcomes) = measure_group(sampler, &timed) else {
            out.interrupted = true;
            return Ok(out);
        };
        if let Some((case, start)) = reference
            && let Some(Ok(output)) = outcomes.pop()
        {
            let now = BenchResult::from_case(case, &output);
            let (op, size) = (group[0].operation.to_string(), group[0].recorded_size());
            store.add_results(run, &[group_noise_row(start, &now, &op, size)])?;
        }
        let mut rows = Vec::new();
        let mut results = Vec::new();
        for (case, outcome) in group.iter().zip(outcomes) {
            match outcome {
                Ok(output) => {
                    let result = BenchResult::from_case(case, &output);
                    rows.push(bench_row(&result));
                    results.push(result);
                }
                Err(why) => out.skipped.push(format!(
                    "{} {} {} B: {why}",
                    case.entry.id,
                    case.operation,
                    case.recorded_size()
                )),
            }
        }
        store.add_results(run, &rows)?;
        out.results += rows.len();
        if retimed.contains(&g) {
            to_retime.push((group, results));
        }
        if pulses.contains(&g) && !probe_again(store, run, sampler, &probes, &before)? {
            out.interrupted = true;
            return Ok(out);
        }
    }
    if !probe_again(store, run, sampler, &probes, &before)? {
        out.interrupted = true;
        return Ok(out);
    }
    if let Some((exe, quick)) = fresh_process {
        retime_in_fresh_processes(store, run, exe, quick, &to_retime, &mut out, progress)?;
    }
    Ok(out)
}

/// Stores the fresh processes' differences from the run's results; a group
/// that cannot be retimed is a note, since the run's own results stand.
fn retime_in_fresh_processes(
    store: &mut Store,
    run: RunId,
    exe: &Path,
    quick: bool,
    groups: &[(Vec<Case>, Vec<BenchResult>)],
    out: &mut SweepOutcome,
    progress: &mut dyn FnMut(Progress),
) -> Result<(), Error> {
    for (k, (group, in_run)) in groups.iter().enumerate() {
        if measure::interrupt::stop_requested() {
            out.interrupted = true;
            return Ok(());
        }
        progress(Progress::Working(&format!(
            "[noise {}/{}] {} {} B again in a fresh process",
            k + 1,
            groups.len(),
            group[0].operation,
            group[0].size
        )));
        match process_noise::retime(exe, group, quick) {
            Ok(fresh) => {
                let rows: Vec<_> = process_noise::pairs(in_run, &fresh)
                    .into_iter()
                    .map(|(r, f)| process_noise_row(r, f))
                    .collect();
                store.add_results(run, &rows)?;
            }
            Err(why) => out.skipped.push(format!("between-process noise: {why}")),
        }
    }
    Ok(())
}

fn noise_probes() -> Vec<Case> {
    NOISE_PROBES
        .iter()
        .filter_map(|&(id, operation, size)| {
            let entry = catalogue::catalogue().get(id)?;
            let backend = *entry.backends().first()?;
            Some(Case {
                entry,
                backend,
                operation,
                size,
            })
        })
        .collect()
}

/// Times the probes again and stores each one's drift from `before`;
/// false when interrupted.
fn probe_again(
    store: &mut Store,
    run: RunId,
    sampler: &mut Sampler,
    probes: &[Case],
    before: &[BenchResult],
) -> Result<bool, Error> {
    let Some(now) = measure_probes(sampler, probes) else {
        return Ok(false);
    };
    let rows: Vec<_> = before
        .iter()
        .zip(&now)
        .map(|(a, b)| noise_row(a, b))
        .collect();
    store.add_results(run, &rows)?;
    Ok(true)
}

/// The probes' results, or None when interrupted. A probe that cannot run
/// here is left out of both ends alike.
fn measure_probes(sampler: &mut Sampler, probes: &[Case]) -> Option<Vec<BenchResult>> {
    let outcomes = measure_group(sampler, probes).ok()?;
    Some(
        probes
            .iter()
            .zip(outcomes)
            .map(|(case, o)| o.map(|output| BenchResult::from_case(case, &output)))
            .filter_map(Result::ok)
            .collect(),
    )
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
    target: device_facts::Target,
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
