//! `ciphermeter bench`: times the catalogue's algorithms with the measure
//! engine and prints the results with the machine they came from.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use catalogue::{Backend, Entry, Kind};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use measure::environment::{self, Environment};
use measure::export::{self, Format};
use measure::workload::{self, Case, CaseError, Operation};
use measure::{BenchReport, BenchResult, Config, Sampler};

use crate::args::write_output;
use crate::error::CliError;

/// Measured when no algorithm is named: one of each family the studies
/// compare, plus the identity floor. About 160 results at 0.3 s each, so a
/// default run takes about a minute on one core.
pub const DEFAULT_ALGORITHMS: &[&str] = &[
    "identity",
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "ascon-aead128",
    "aes-128-cbc",
    "aes-128-ctr",
    "chacha20",
    "sha256",
    "hmac-sha256",
];

/// The studies' message sizes: LoRa payloads (16-256 B) to 16 KiB records.
pub const DEFAULT_SIZES: &str = "16,64,100,256,1024,1536,4096,16384";

#[derive(clap::Args)]
pub struct Args {
    /// Algorithms to measure (names or aliases; see `ciphermeter list`).
    /// Default: a representative set, or every algorithm of --kind.
    pub algorithms: Vec<String>,
    /// Only algorithms of this kind: block-mode, stream, aead, hash, mac, asymmetric, baseline.
    #[arg(long)]
    pub kind: Option<String>,
    /// Message sizes, comma-separated, with optional units: 16,1KiB,128MiB,1kB.
    #[arg(long, default_value = DEFAULT_SIZES)]
    pub sizes: String,
    /// Operations, comma-separated: keysetup, keygen, encrypt, decrypt, digest, sign, verify, agree.
    #[arg(long)]
    pub op: Option<String>,
    /// Backend: rustcrypto, ciphermeter, ring, openssl, or `all`. Default: each algorithm's first.
    #[arg(long)]
    pub backend: Option<String>,
    /// Seconds of sampling per result (default 0.25; --quick 0.03).
    #[arg(long)]
    pub time: Option<f64>,
    /// A short run for smoke tests: fewer, shorter samples.
    #[arg(long)]
    pub quick: bool,
    /// Output format: table, json, csv or markdown.
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub db: crate::args::DbArgs,
    /// Do not append the results to the results store.
    #[arg(long)]
    pub no_store: bool,
}

/// Which backends to use for each entry.
enum BackendChoice {
    Default,
    All,
    One(Backend),
}

pub fn run(args: Args) -> Result<(), CliError> {
    let format = Format::parse(&args.format).ok_or_else(|| {
        CliError::usage(format!(
            "unknown format '{}' (table, json, csv, markdown)",
            args.format
        ))
    })?;
    let sizes = measure::sizes::parse_size_list(&args.sizes).map_err(CliError::usage)?;
    let ops = match &args.op {
        None => None,
        Some(list) => Some(parse_ops(list)?),
    };
    let kind = match &args.kind {
        None => None,
        Some(k) => Some(Kind::parse(k).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
            CliError::usage(format!("unknown kind '{k}' (known: {})", known.join(", ")))
        })?),
    };
    let backend = match args.backend.as_deref() {
        None => BackendChoice::Default,
        Some("all") => BackendChoice::All,
        Some(name) => BackendChoice::One(Backend::parse(name)?),
    };
    let config = match (args.time, args.quick) {
        (Some(t), _) if !(t > 0.0 && t <= 60.0) => {
            return Err(CliError::usage(format!(
                "--time {t}: give seconds per result, above 0 and at most 60"
            )));
        }
        (Some(t), quick) => {
            let base = if quick {
                Config::quick()
            } else {
                Config::standard()
            };
            Config {
                time: Duration::from_secs_f64(t),
                ..base
            }
        }
        (None, true) => Config::quick(),
        (None, false) => Config::standard(),
    };

    let entries = select_entries(&args.algorithms, kind)?;
    let (cases, notes) = plan(&entries, &sizes, ops.as_deref(), &backend);
    for note in &notes {
        eprintln!("note: {note}");
    }
    if cases.is_empty() {
        return Err(CliError::usage(
            "nothing to measure: no algorithm offers the requested operations and backend",
        ));
    }

    ctrlc::set_handler(measure::interrupt::request_stop)
        .map_err(|e| CliError::failed(format!("cannot install the Ctrl-C handler: {e}")))?;
    let mut sampler = Sampler::new(config.clone(), true);
    let env = Environment::capture(sampler.cycles_source(), environment::perf_status());
    let mut report = BenchReport::new(env, config.time.as_secs_f64());
    let bar = progress_bar(cases.len() as u64);
    for case in &cases {
        bar.set_message(format!(
            "{} {} {} {}",
            case.entry.id,
            case.backend,
            case.operation,
            case.recorded_size()
        ));
        match workload::measure_case(&mut sampler, *case) {
            Ok(output) => report.results.push(BenchResult::from_case(case, &output)),
            Err(CaseError::Interrupted) => {
                report.interrupted = true;
                break;
            }
            Err(CaseError::Unsupported(why)) => bar.suspend(|| {
                eprintln!(
                    "note: skipped {} {} {}: {why}",
                    case.entry.id, case.backend, case.operation
                )
            }),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();

    write_output(&export::render(&report, format), args.output.as_ref())?;
    if !args.no_store {
        // Stored after the output is written, so a store problem never loses the output.
        let mut store = args.db.open()?;
        let id = cost::record::save_bench_report(
            &mut store,
            &report,
            "bench",
            "local",
            &cost::record::host_name(),
        )?;
        crate::progress!("stored as run {id} (see `ciphermeter runs`)\n");
    }
    if report.interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: {} finished results written",
            report.results.len()
        )));
    }
    Ok(())
}

fn parse_ops(list: &str) -> Result<Vec<Operation>, CliError> {
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            Operation::parse(s).ok_or_else(|| {
                let known: Vec<&str> = Operation::ALL.iter().map(|o| o.as_str()).collect();
                CliError::usage(format!(
                    "unknown operation '{}' (known: {})",
                    s.trim(),
                    known.join(", ")
                ))
            })
        })
        .collect()
}

fn select_entries(names: &[String], kind: Option<Kind>) -> Result<Vec<&'static Entry>, CliError> {
    let cat = catalogue::catalogue();
    let entries: Vec<&'static Entry> = if !names.is_empty() {
        let mut found = Vec::new();
        for name in names {
            let entry = cat.resolve(name, None)?;
            if !found.iter().any(|e: &&Entry| e.id == entry.id) {
                found.push(entry);
            }
        }
        found
    } else if kind.is_some() {
        cat.entries().iter().collect()
    } else {
        DEFAULT_ALGORITHMS
            .iter()
            .filter_map(|n| cat.get(n))
            .collect()
    };
    let entries: Vec<_> = entries
        .into_iter()
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .collect();
    if entries.is_empty() {
        return Err(CliError::usage(
            "no algorithm matches: check the names and --kind",
        ));
    }
    Ok(entries)
}

/// Every (entry, backend, operation, size) to run, size-free operations
/// once; and notes on what was asked but does not apply.
fn plan(
    entries: &[&'static Entry],
    sizes: &[u64],
    ops: Option<&[Operation]>,
    choice: &BackendChoice,
) -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut notes = Vec::new();
    for &entry in entries {
        let backends = match choice {
            BackendChoice::Default => entry.backends().into_iter().take(1).collect(),
            BackendChoice::All => entry.backends(),
            BackendChoice::One(b) if entry.backends().contains(b) => vec![*b],
            BackendChoice::One(b) => {
                notes.push(format!(
                    "{} has no {b} backend (it has: {})",
                    entry.id,
                    names(&entry.backends())
                ));
                continue;
            }
        };
        for backend in backends {
            let offered = workload::operations_of(entry, backend);
            if let Some(wanted) = ops {
                let missing: Vec<&str> = wanted
                    .iter()
                    .filter(|o| !offered.contains(o))
                    .map(|o| o.as_str())
                    .collect();
                if !missing.is_empty() {
                    let has: Vec<&str> = offered.iter().map(|o| o.as_str()).collect();
                    notes.push(format!(
                        "{} ({}) has no {} (it has: {})",
                        entry.id,
                        entry.kind,
                        missing.join(", "),
                        has.join(", ")
                    ));
                }
            }
            for op in offered
                .into_iter()
                .filter(|o| ops.is_none_or(|w| w.contains(o)))
            {
                let sizes: &[u64] = if op.is_size_free() {
                    &sizes[..1]
                } else {
                    sizes
                };
                for &size in sizes {
                    cases.push(Case {
                        entry,
                        backend,
                        operation: op,
                        size: size as usize,
                    });
                }
            }
        }
    }
    (cases, notes)
}

fn names(backends: &[Backend]) -> String {
    backends
        .iter()
        .map(|b| b.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}") {
        bar.set_style(style);
    }
    bar
}
