//! The pieces of `run` that are not sealing: the catalogue sweep on this host, the
//! device tier, and the reproductions. Each stores its results as it finishes, so
//! an interrupted run keeps everything up to the step that was cut.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use catalogue::Kind;
use measure::workload::{Case, CaseError, measure_case, operations_of};
use measure::{BenchResult, Sampler};
use serde_json::json;
use store::conventions::REPRODUCTION;
use store::{Artifact, RunId, Store};

use super::stored::{bench_row, mcu_rows, store_err};
use crate::error::CliError;

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
) -> Result<SweepOutcome, CliError> {
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
        crate::progress!("\r\x1b[2K[sweep {}/{}] {}", i + 1, ids.len(), entry.id);
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
        store.add_results(run, &rows).map_err(store_err)?;
        out.results += rows.len();
        if out.interrupted {
            break;
        }
    }
    crate::progress!("\r\x1b[2K");
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
) -> Result<Result<usize, String>, CliError> {
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
        crate::progress!("\r\x1b[2K[device {}] {what}", target.name())
    });
    crate::progress!("\r\x1b[2K");
    let results = match results {
        Ok(r) => r,
        Err(e) => return Ok(Err(format!("device tier failed: {e}"))),
    };
    let rows = mcu_rows(&results);
    store.add_results(run, &rows).map_err(store_err)?;
    Ok(Ok(rows
        .iter()
        .filter(|r| r.metric != store::conventions::FAILURE)
        .count()))
}

/// The five studies' reproduction commands, with their titles.
pub const STUDIES: [(&str, &str); 5] = [
    (
        "rf-transmission",
        "Study 000: AES-256-CBC over RF (serial packet radio)",
    ),
    ("serialization", "Study 001/002: serialization formats"),
    (
        "tiny-security",
        "Study 003: Tiny Security on the ATmega1284P",
    ),
    ("lora", "Study 004: LoRa time on air per algorithm"),
    ("file-sizes", "File sizes and encryption time"),
];

/// Runs `ciphermeter reproduce STUDY --quick` (this same binary) and keeps what it
/// printed: JSON when the command offers `--format json`, else its text. The
/// reproductions are commands of their own, so a child process isolates them and
/// lets a time limit apply.
pub fn reproduce(
    store: &Store,
    run: RunId,
    study: &str,
    title: &str,
    quick: bool,
    limit: Duration,
) -> Result<bool, CliError> {
    let exe = std::env::current_exe()
        .map_err(|e| CliError::failed(format!("cannot find this binary: {e}")))?;
    let mut base = vec!["reproduce".to_string(), study.to_string()];
    if quick {
        base.push("--quick".into());
    }
    let mut json_args = base.clone();
    json_args.extend(["--format".into(), "json".into()]);
    let started = Instant::now();
    let mut outcome = run_child(&exe, &json_args, limit)?;
    if outcome.code == Some(2)
        && (outcome.stderr.contains("unexpected argument")
            || outcome.stderr.contains("invalid value"))
    {
        let left = limit.saturating_sub(started.elapsed());
        outcome = run_child(&exe, &base, left)?;
    }
    let data = if outcome.timed_out {
        json!({ "unavailable": format!("stopped after {} s (the quick run's time limit); run `ciphermeter reproduce {study}` alone", limit.as_secs()) })
    } else if outcome.code == Some(2) && outcome.stderr.contains("unrecognized subcommand") {
        json!({ "unavailable": format!("`reproduce {study}` is not part of this build yet") })
    } else if outcome.code != Some(0) {
        json!({ "unavailable": format!("`reproduce {study}` failed (exit {:?}): {}", outcome.code, outcome.stderr.trim()) , "text": outcome.stdout })
    } else {
        match serde_json::from_str::<serde_json::Value>(&outcome.stdout) {
            Ok(v) => json!({ "json": v }),
            Err(_) => json!({ "text": outcome.stdout }),
        }
    };
    let ok = data.get("unavailable").is_none();
    store
        .add_artifact(
            run,
            &Artifact {
                kind: REPRODUCTION.into(),
                name: study.into(),
                title: title.into(),
                data,
            },
        )
        .map_err(store_err)?;
    Ok(ok)
}

struct ChildOutcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run_child(
    exe: &std::path::Path,
    args: &[String],
    limit: Duration,
) -> Result<ChildOutcome, CliError> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CliError::failed(format!("cannot start {}: {e}", exe.display())))?;
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut so = child.stdout.take().expect("piped");
    let mut se = child.stderr.take().expect("piped");
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = so.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if Instant::now() >= deadline || measure::interrupt::stop_requested() {
            timed_out = !measure::interrupt::stop_requested();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Ok(ChildOutcome {
        code: status.and_then(|s| s.code()),
        stdout: out_t.join().unwrap_or_default(),
        stderr: err_t.join().unwrap_or_default(),
        timed_out,
    })
}
