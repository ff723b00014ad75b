//! `ciphermeter bench`: times the catalogue's algorithms with the measure
//! engine and prints the results with the machine they came from.

use std::io::IsTerminal;
use std::path::PathBuf;

use catalogue::{Backend, Kind};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use measure::environment::{self, Environment};
use measure::export::{self, Format};
use measure::workload::{self, DEFAULT_ALGORITHMS, Operation};
use measure::{BenchReport, BenchResult, Config, Sampler};

use crate::args::write_output;
use crate::error::CliError;

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
        Some(list) => Some(Operation::parse_list(list).map_err(CliError::usage)?),
    };
    let kind = match &args.kind {
        None => None,
        Some(k) => Some(Kind::parse(k).ok_or_else(|| {
            let known: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
            CliError::usage(format!("unknown kind '{k}' (known: {})", known.join(", ")))
        })?),
    };
    let backend = match args.backend.as_deref() {
        None => workload::BackendChoice::Default,
        Some("all") => workload::BackendChoice::All,
        Some(name) => workload::BackendChoice::One(Backend::parse(name)?),
    };
    let config = Config::chosen(args.time, args.quick).map_err(CliError::usage)?;
    let entries =
        workload::select(&args.algorithms, kind, DEFAULT_ALGORITHMS).map_err(CliError::usage)?;
    let (cases, notes) = workload::plan(&entries, &sizes, ops.as_deref(), &backend);
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
    let mut measured = Vec::new();
    for group in workload::interleave_groups(&cases) {
        let group: Vec<_> = group.into_iter().map(|i| (i, cases[i])).collect();
        let (first, n) = (group[0].1, group.len());
        bar.set_message(format!(
            "{} {} B, {n} interleaved",
            first.operation,
            first.recorded_size()
        ));
        let batch: Vec<_> = group.iter().map(|g| g.1).collect();
        let Ok(outcomes) = workload::measure_group(&mut sampler, &batch) else {
            report.interrupted = true;
            break;
        };
        for ((i, case), outcome) in group.iter().zip(outcomes) {
            match outcome {
                Ok(output) => measured.push((*i, BenchResult::from_case(case, &output))),
                Err(why) => bar.suspend(|| {
                    eprintln!(
                        "note: skipped {} {} {}: {why}",
                        case.entry.id, case.backend, case.operation
                    )
                }),
            }
        }
        bar.inc(n as u64);
    }
    // Back in the order asked for: by algorithm, then operation and size.
    measured.sort_by_key(|m| m.0);
    report.results = measured.into_iter().map(|m| m.1).collect();
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
