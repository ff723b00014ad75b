//! The stable, versioned result contract of `bench --format json`, read by
//! other commands, the store and outside scripts. Adding a field is
//! compatible; renaming or removing one needs a new `SCHEMA` version and an
//! update of docs/bench.schema.json.

use serde::{Deserialize, Serialize};

use crate::environment::Environment;
use crate::timer::CycleSource;
use crate::workload::{Case, CaseOutput, Operation};

pub const SCHEMA: &str = "ciphermeter.bench/1";

/// A whole run: what ran where, and the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    pub schema: String,
    pub environment: Environment,
    /// Seconds of sampling per result that were asked for.
    pub time_per_result_s: f64,
    /// True when the run was stopped early (Ctrl-C); the results are those that finished.
    pub interrupted: bool,
    pub results: Vec<BenchResult>,
}

impl BenchReport {
    pub fn new(environment: Environment, time_per_result_s: f64) -> BenchReport {
        BenchReport {
            schema: SCHEMA.to_string(),
            environment,
            time_per_result_s,
            interrupted: false,
            results: Vec::new(),
        }
    }

    /// Reads a report back (the store re-imports them), refusing other schemas.
    pub fn from_json(text: &str) -> Result<BenchReport, String> {
        let report: BenchReport =
            serde_json::from_str(text).map_err(|e| format!("not a bench report: {e}"))?;
        if report.schema != SCHEMA {
            return Err(format!(
                "bench report schema '{}' is not the supported '{SCHEMA}'",
                report.schema
            ));
        }
        Ok(report)
    }
}

/// One measured operation. Times are per call, in nanoseconds. The field
/// order is the column order of the CSV and Markdown exports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    pub algorithm: String,
    pub kind: String,
    pub backend: String,
    pub provider: String,
    pub operation: Operation,
    /// Message bytes in; for keysetup the key length; 0 for keygen/agree.
    pub size_bytes: u64,
    pub key_bytes: u64,
    pub output_bytes: Option<u64>,
    pub expansion_bytes: Option<i64>,
    pub median_ns: f64,
    pub ci95_low_ns: f64,
    pub ci95_high_ns: f64,
    pub p5_ns: f64,
    pub p95_ns: f64,
    pub mad_ns: f64,
    pub mean_ns: f64,
    pub min_ns: f64,
    pub cv: f64,
    pub samples: u64,
    pub iterations_per_sample: u64,
    pub outliers: u64,
    /// 10^6 bytes per second at the median; null for size-free operations.
    pub throughput_mb_s: Option<f64>,
    pub cycles_per_op: Option<f64>,
    pub cycles_per_byte: Option<f64>,
    pub cycles_source: Option<CycleSource>,
    pub instructions_per_op: Option<f64>,
    /// Heap use of one call; null when the counting allocator is not installed.
    pub heap_peak_bytes: Option<u64>,
    pub heap_allocated_bytes: Option<u64>,
    pub allocations: Option<u64>,
    /// Process CPU time over wall time while sampling (100 = one core).
    pub cpu_percent: f64,
    pub status: String,
    pub warning: Option<String>,
}

impl BenchResult {
    pub fn from_case(case: &Case, output: &CaseOutput) -> BenchResult {
        let m = &output.measurement;
        let ns = &m.ns;
        let size = case.recorded_size() as u64;
        let per_byte = !case.operation.is_size_free() && size > 0;
        let provider = case
            .entry
            .implementations
            .iter()
            .find(|i| i.backend == case.backend)
            .map(|i| i.provider.clone())
            .unwrap_or_default();
        BenchResult {
            algorithm: case.entry.id.clone(),
            kind: case.entry.kind.to_string(),
            backend: case.backend.to_string(),
            provider,
            operation: case.operation,
            size_bytes: size,
            key_bytes: output.key_bytes as u64,
            output_bytes: output.output_bytes.map(|b| b as u64),
            expansion_bytes: output.expansion_bytes,
            median_ns: ns.median,
            ci95_low_ns: ns.ci95_low,
            ci95_high_ns: ns.ci95_high,
            p5_ns: ns.p5,
            p95_ns: ns.p95,
            mad_ns: ns.mad,
            mean_ns: ns.mean,
            min_ns: ns.min,
            cv: ns.cv,
            samples: ns.samples as u64,
            iterations_per_sample: m.iterations_per_sample,
            outliers: ns.outliers as u64,
            // bytes / ns = GB/s; * 1000 = MB/s.
            throughput_mb_s: (per_byte && ns.median > 0.0)
                .then(|| size as f64 / ns.median * 1000.0),
            cycles_per_op: m.cycles_per_op,
            cycles_per_byte: m
                .cycles_per_op
                .filter(|_| per_byte)
                .map(|c| c / size as f64),
            cycles_source: m.cycles_source,
            instructions_per_op: m.instructions_per_op,
            heap_peak_bytes: m.heap.map(|h| h.peak_bytes),
            heap_allocated_bytes: m.heap.map(|h| h.allocated_bytes),
            allocations: m.heap.map(|h| h.allocations),
            cpu_percent: m.cpu_percent(),
            status: case.entry.status.as_str().to_string(),
            warning: ns.spread_warning(),
        }
    }
}
