//! `ciphermeter bench`: times the catalogue's algorithms with the measure
//! engine and prints the results with the machine they came from.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use measure::bench::{DEFAULT_SIZES, Progress, Request};
use measure::export::{self, Format};

use crate::args::write_output;
use crate::error::CliError;

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
    let request = Request {
        algorithms: args.algorithms,
        kind: args.kind,
        sizes: args.sizes,
        operations: args.op,
        backend: args.backend,
        time: args.time,
        quick: args.quick,
    };
    let plan = request.plan().map_err(CliError::usage)?;
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    if plan.cases.is_empty() {
        return Err(CliError::usage(
            "nothing to measure: no algorithm offers the requested operations and backend",
        ));
    }
    measure::interrupt::stop_on_ctrl_c().map_err(CliError::failed)?;
    let bar = progress_bar(plan.cases.len() as u64);
    let report = measure::bench::run(&plan, &mut |p| match p {
        Progress::Group { first, cases } => bar.set_message(format!(
            "{} {} B, {cases} interleaved",
            first.operation,
            first.recorded_size()
        )),
        Progress::Skipped { case, why } => bar.suspend(|| {
            let (id, backend, op) = (&case.entry.id, case.backend, case.operation);
            eprintln!("note: skipped {id} {backend} {op}: {why}")
        }),
        Progress::Done(n) => bar.inc(n as u64),
    });
    bar.finish_and_clear();

    write_output(&export::render(&report, format), args.output.as_ref())?;
    if !args.no_store {
        // Stored after the output is written, so a store problem never loses the output.
        let mut store = args.db.open()?;
        let host = cost::record::host_name();
        let id = cost::record::save_bench_report(&mut store, &report, "bench", "local", &host)?;
        if std::io::stderr().is_terminal() {
            eprintln!("stored as run {id} (see `ciphermeter runs`)");
        }
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
