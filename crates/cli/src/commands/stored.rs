//! The results store as commands use it: `--db PATH`, opening, and turning each
//! producer's own result type into stored rows (the record itself rides along in
//! `data`, so nothing is lost).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use measure::{BenchReport, BenchResult};
use store::conventions::{BENCH, MCU, NS_PER_OP};
use store::{NewRun, ResultRow, RunId, RunStatus, Store, StoreError};

use crate::error::CliError;

#[derive(ClapArgs, Clone, Debug, Default)]
pub struct DbArgs {
    /// Results database [default: $XDG_DATA_HOME/ciphermeter/results.sqlite].
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    pub fn open(&self) -> Result<Store, CliError> {
        let path = match &self.db {
            Some(p) => p.clone(),
            None => store::default_path().map_err(store_err)?,
        };
        Store::open(&path).map_err(store_err)
    }
}

pub fn store_err(e: StoreError) -> CliError {
    if e.is_user_error() {
        CliError::usage(e)
    } else {
        CliError::failed(e)
    }
}

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    // Our own result types always serialize; a failure would be a bug, kept visible.
    serde_json::to_value(value)
        .unwrap_or_else(|e| serde_json::json!({ "serialize_error": e.to_string() }))
}

/// One host measurement: the median ns per call with its 95 % CI.
pub fn bench_row(r: &BenchResult) -> ResultRow {
    ResultRow {
        section: BENCH.into(),
        target: store::conventions::HOST.into(),
        subject: r.algorithm.clone(),
        operation: r.operation.to_string(),
        size_bytes: Some(r.size_bytes as i64),
        context: r.backend.clone(),
        metric: NS_PER_OP.into(),
        unit: "ns".into(),
        value: r.median_ns,
        ci_low: Some(r.ci95_low_ns),
        ci_high: Some(r.ci95_high_ns),
        samples: Some(r.samples as i64),
        data: json(r),
    }
}

/// One device-level count; failures (no measurement) are not rows.
pub fn mcu_row(r: &mcu::McuResult) -> Option<ResultRow> {
    r.is_measurement().then(|| ResultRow {
        section: MCU.into(),
        target: r.target.name().into(),
        subject: r.algorithm.clone(),
        operation: r.operation.clone(),
        size_bytes: Some(r.size_bytes as i64),
        context: String::new(),
        metric: r.counter.clone(),
        unit: r.counter.clone(),
        value: r.cycles as f64,
        // Simulated counts are exact: the interval is the value itself.
        ci_low: Some(r.cycles as f64),
        ci_high: Some(r.cycles as f64),
        samples: Some(1),
        data: json(r),
    })
}

/// This machine's name, for run listings.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this machine".into())
}

/// Stores a whole bench report (from `bench` or another machine's JSON) as one run.
pub fn save_bench_report(
    store: &mut Store,
    report: &BenchReport,
    command: &str,
    origin: &str,
    host: &str,
) -> Result<RunId, CliError> {
    let status = if origin == "local" {
        RunStatus::Running
    } else {
        RunStatus::Imported
    };
    let run = store
        .begin_run(
            &NewRun {
                command: command.into(),
                host: host.into(),
                origin: origin.into(),
                environment: json(&report.environment),
            },
            status,
        )
        .map_err(store_err)?;
    let rows: Vec<ResultRow> = report.results.iter().map(bench_row).collect();
    store.add_results(run, &rows).map_err(store_err)?;
    let end = match (origin == "local", report.interrupted) {
        (false, _) => RunStatus::Imported,
        (true, true) => RunStatus::Interrupted,
        (true, false) => RunStatus::Complete,
    };
    store.finish_run(run, end).map_err(store_err)?;
    Ok(run)
}

/// Progress on standard error, only when it is a terminal (logs stay clean).
#[macro_export]
macro_rules! progress {
    ($($arg:tt)*) => {
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            eprint!($($arg)*);
        }
    };
}
