//! How measurements become stored rows: host benchmarks, device-level counts
//! (with one failure row per reason) and whole runs. [`crate::device_times`]
//! reads the device rows back, so both sides of the schema live here.

use measure::{BenchReport, BenchResult};
use store::conventions::{
    BENCH, DRIFT_PCT, FAILURE, GROUP_DRIFT_PCT, HOST, MCU, NOISE, NS_PER_OP, PROCESS_DRIFT_PCT,
};
use store::{NewRun, ResultRow, RunId, RunStatus, Store};

use crate::Error;

fn json<T: serde::Serialize>(value: &T) -> serde_json::Value {
    // Our own result types always serialize; a failure would be a bug, kept visible.
    serde_json::to_value(value)
        .unwrap_or_else(|e| serde_json::json!({ "serialize_error": e.to_string() }))
}

/// One host measurement: the median ns per call with its 95 % CI.
pub fn bench_row(r: &BenchResult) -> ResultRow {
    ResultRow {
        section: BENCH.into(),
        target: HOST.into(),
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

/// A noise probe: the same case timed at the start and at the end of a run;
/// `value` is the end's drift from the start in percent.
pub fn noise_row(start: &BenchResult, end: &BenchResult) -> ResultRow {
    let data = serde_json::json!({ "start_ns": start.median_ns, "end_ns": end.median_ns });
    drift_row(DRIFT_PCT, start, end, data)
}

/// One case of the run timed again in a fresh process: `value` is the fresh
/// process's difference from the run's result in percent.
pub fn process_noise_row(in_run: &BenchResult, fresh: &BenchResult) -> ResultRow {
    let data =
        serde_json::json!({ "run_ns": in_run.median_ns, "fresh_process_ns": fresh.median_ns });
    drift_row(PROCESS_DRIFT_PCT, in_run, fresh, data)
}

/// The reference probe as measured inside one sweep group (`operation` at
/// `size` bytes): its drift from the run's start, filed under the group.
pub fn group_noise_row(
    start: &BenchResult,
    in_group: &BenchResult,
    operation: &str,
    size: usize,
) -> ResultRow {
    let data = serde_json::json!({
        "reference": start.algorithm, "start_ns": start.median_ns, "in_group_ns": in_group.median_ns,
    });
    ResultRow {
        operation: operation.into(),
        size_bytes: Some(size as i64),
        ..drift_row(GROUP_DRIFT_PCT, start, in_group, data)
    }
}

fn drift_row(
    metric: &str,
    first: &BenchResult,
    second: &BenchResult,
    data: serde_json::Value,
) -> ResultRow {
    ResultRow {
        section: NOISE.into(),
        target: HOST.into(),
        subject: first.algorithm.clone(),
        operation: first.operation.to_string(),
        size_bytes: Some(first.size_bytes as i64),
        context: first.backend.clone(),
        metric: metric.into(),
        unit: "%".into(),
        value: 100.0 * (second.median_ns / first.median_ns - 1.0),
        ci_low: None,
        ci_high: None,
        samples: None,
        data,
    }
}

/// Device-level counts, plus one `failure` row per algorithm and reason, so
/// the store and report say which algorithm a target could not run, and why.
pub fn mcu_rows(results: &[device_facts::McuResult]) -> Vec<ResultRow> {
    let mut rows = Vec::new();
    let mut reasons: Vec<(String, &str)> = Vec::new();
    for r in results {
        let Some(error) = r.error.as_deref() else {
            rows.push(ResultRow {
                section: MCU.into(),
                target: r.target.name().into(),
                // `sha512@monocypher` for another implementation than RustCrypto's.
                subject: r.build_id(),
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
            });
            continue;
        };
        let build = r.build_id();
        if reasons.iter().any(|(b, e)| *b == build && *e == error) {
            continue;
        }
        reasons.push((build.clone(), error));
        // A known-answer failure comes with counts that mean nothing: keep the reason only.
        let operation = match r.operation.as_str() {
            op @ ("build" | "run") => op,
            _ if error.contains("known-answer") => "known-answer",
            op => op,
        };
        let mut failure =
            device_facts::McuResult::failure(r.target, &r.algorithm, operation, error);
        failure.size_bytes = r.size_bytes;
        failure.implementation = r.implementation.clone();
        rows.push(ResultRow {
            section: MCU.into(),
            target: r.target.name().into(),
            subject: build,
            operation: operation.into(),
            size_bytes: None,
            context: String::new(),
            metric: FAILURE.into(),
            unit: String::new(),
            value: 0.0,
            ci_low: None,
            ci_high: None,
            samples: None,
            data: json(&failure),
        });
    }
    rows
}

/// This machine's name, for run listings.
pub fn host_name() -> String {
    hostname().unwrap_or_else(|| "this machine".into())
}

/// The kernel's name for this machine, if it has one.
pub fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
}

/// `bench --format json` output made elsewhere, to store as a run (`import FILE`).
pub struct BenchFile {
    pub report: BenchReport,
    /// The file's name, which names the run's command and origin.
    pub name: String,
    /// "CPU model (arch)" of the machine it came from.
    pub host: String,
}

impl BenchFile {
    /// Reads and checks the file; one without results is refused.
    pub fn read(path: &std::path::Path) -> Result<BenchFile, Error> {
        let bad = |e: &dyn std::fmt::Display| Error::invalid(format!("{}: {e}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| bad(&e))?;
        let report = BenchReport::from_json(&text).map_err(|e| bad(&e))?;
        if report.results.is_empty() {
            return Err(bad(&"the report holds no results"));
        }
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let env = &report.environment;
        let host = format!("{} ({})", env.cpu_model, env.arch);
        Ok(BenchFile {
            name: name.unwrap_or_default(),
            host,
            report,
        })
    }

    /// Stores it as an imported run, ready for `compare`.
    pub fn import(&self, store: &mut Store) -> Result<RunId, Error> {
        let (command, origin) = (
            format!("import {}", self.name),
            format!("import:{}", self.name),
        );
        save_bench_report(store, &self.report, &command, &origin, &self.host)
    }

    /// Made by a debug build: its timings are no benchmarks.
    pub fn debug_build(&self) -> bool {
        self.report.environment.build_profile == "debug"
    }
}

/// Stores a whole bench report (from `bench` or another machine's JSON) as one run.
pub fn save_bench_report(
    store: &mut Store,
    report: &BenchReport,
    command: &str,
    origin: &str,
    host: &str,
) -> Result<RunId, Error> {
    let status = if origin == "local" {
        RunStatus::Running
    } else {
        RunStatus::Imported
    };
    let run = store.begin_run(
        &NewRun {
            command: command.into(),
            host: host.into(),
            origin: origin.into(),
            environment: json(&report.environment),
        },
        status,
    )?;
    let rows: Vec<ResultRow> = report.results.iter().map(bench_row).collect();
    store.add_results(run, &rows)?;
    let end = match (origin == "local", report.interrupted) {
        (false, _) => RunStatus::Imported,
        (true, true) => RunStatus::Interrupted,
        (true, false) => RunStatus::Complete,
    };
    store.finish_run(run, end)?;
    Ok(run)
}

/// Stores one `mcu` invocation as a run; its environment is the toolchain
/// and simulator that produced the counts.
pub fn save_mcu_results(
    store: &mut Store,
    results: &[device_facts::McuResult],
    command: &str,
    environment: serde_json::Value,
    interrupted: bool,
) -> Result<RunId, Error> {
    let run = store.begin_run(
        &NewRun {
            command: command.into(),
            host: host_name(),
            origin: "local".into(),
            environment,
        },
        RunStatus::Running,
    )?;
    let rows = mcu_rows(results);
    store.add_results(run, &rows)?;
    let end = if interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    store.finish_run(run, end)?;
    Ok(run)
}

#[cfg(test)]
mod bench_file_tests {
    use super::*;

    #[test]
    fn a_file_without_results_or_not_a_report_is_the_users_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pi.json");
        let env = measure::Environment::capture(None, "test".into());
        let empty = BenchReport::new(env, 0.1);
        std::fs::write(&path, serde_json::to_string(&empty).unwrap()).unwrap();
        let err = BenchFile::read(&path).err().unwrap();
        assert!(err.is_invalid());
        assert!(
            err.to_string()
                .ends_with("pi.json: the report holds no results"),
            "{err}"
        );
        std::fs::write(&path, "{}").unwrap();
        assert!(BenchFile::read(&path).err().unwrap().is_invalid());
        let missing = BenchFile::read(&dir.path().join("none.json"))
            .err()
            .unwrap();
        assert!(missing.is_invalid());
    }
}
