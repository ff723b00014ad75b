//! Two runs side by side: for every result both hold, the ratio B/A with an
//! interval, and whether it changed. A change needs both:
//! - the statistical test: the two 95 % intervals do not overlap, so sampling
//!   noise within each run cannot explain it (skipped where a value has no
//!   interval);
//! - the size: |B/A − 1| exceeds a noise threshold, because the intervals of
//!   one run know nothing of the run-to-run noise (frequency, caches, memory
//!   placement, neighbours) that dominates between runs.
//!
//! The threshold of sampled host times comes from the runs' own noise
//! measurements (`conventions::NOISE`): the probes' drift within each run and
//! the difference of a few groups retimed in fresh processes; else a fixed
//! default; exact values (simulated
//! counts, figures computed from fixed inputs) have none: any difference in
//! them is real. Every stored metric is a cost (time, energy, cycles), so
//! higher is worse. Runs from two machines are compared, never judged: the
//! output says "higher on B", not "regression".

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::conventions::{BENCH, DRIFT_PCT, GROUP_DRIFT_PCT, MCU, NOISE, PROCESS_DRIFT_PCT};
use crate::records::{ResultKey, ResultRow, RunId, RunSummary};
use crate::{Store, StoreError};

/// The threshold without a measurement of the noise: criterion's default.
pub const DEFAULT_THRESHOLD_PCT: f64 = 2.0;
/// The probes see a few drifts within one run; between runs the spread is
/// wider (its tails, and placement that changes with each process), so the
/// threshold is this multiple of the largest drift seen, never below the
/// default.
pub const NOISE_MULTIPLE: f64 = 2.0;
pub const NOISE_FLOOR_PCT: f64 = DEFAULT_THRESHOLD_PCT;
/// Of the results retimed in fresh processes, the share whose difference the
/// threshold's base covers. Not all of them: one case in a hundred can jump
/// by tens of percent between processes, and the largest would blind the
/// comparison to every real change.
pub const PROCESS_QUANTILE: f64 = 0.9;

/// One run: its summary and its rows.
pub struct Side<'a> {
    pub run: &'a RunSummary,
    pub rows: &'a [ResultRow],
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Overrides the threshold of every result, in percent.
    pub threshold_pct: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// One machine at two times: differences are changes.
    SameMachine,
    /// Two machines: differences are ratios, never regressions.
    TwoMachines,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Timed on a host: sampling noise within a run, drift between runs.
    Sampled,
    /// Simulated counts and figures computed from fixed inputs.
    Exact,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Higher in B beyond the noise (slower, costlier).
    Higher,
    /// Lower in B beyond the noise.
    Lower,
    /// The intervals are apart, but the size is within the threshold.
    WithinThreshold,
    /// The intervals overlap: sampling noise explains it.
    Overlapping,
    Equal,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Threshold {
    pub pct: f64,
    /// Where the number came from.
    pub source: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratio {
    pub key: ResultKey,
    pub unit: String,
    pub kind: Kind,
    pub a: f64,
    pub b: f64,
    /// b / a.
    pub ratio: f64,
    /// Bounds of b / a over the two intervals (low B over high A, and so on).
    pub ratio_low: f64,
    pub ratio_high: f64,
    pub verdict: Verdict,
    /// Changed beyond the noise: `Higher` or `Lower`.
    pub significant: bool,
    /// Why the verdict, in words.
    pub reason: String,
}

impl Ratio {
    /// |B/A − 1| in percent.
    pub fn change_pct(&self) -> f64 {
        100.0 * (self.ratio - 1.0)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSide {
    pub run: i64,
    pub host: String,
    /// CPU model, architecture and cores from the run's environment.
    pub machine: String,
    /// The largest drift of the run's noise probes, in percent, if measured.
    pub noise_pct: Option<f64>,
    /// |difference| of each result the run retimed in a fresh process, in percent.
    #[serde(skip)]
    pub process_drifts: Vec<f64>,
    /// |drift| of the reference measured inside each sweep group, by the
    /// group's operation and size.
    #[serde(skip)]
    pub group_drifts: BTreeMap<(String, Option<i64>), f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub mode: Mode,
    pub a: RunSide,
    pub b: RunSide,
    pub sampled_threshold: Threshold,
    pub exact_threshold: Threshold,
    pub ratios: Vec<Ratio>,
    pub only_a: Vec<ResultKey>,
    pub only_b: Vec<ResultKey>,
}

impl Comparison {
    /// `--fail-above PCT`: the results slower by more than PCT beyond the
    /// noise. A gate judges one machine's runs only: two machines' are
    /// compared, never judged.
    pub fn gate(&self, pct: f64) -> Result<Vec<&Ratio>, StoreError> {
        if self.mode == Mode::TwoMachines {
            return Err(StoreError::Usage(format!(
                "--fail-above gates changes on one machine; runs {} and {} come from two ({} and {})",
                self.a.run, self.b.run, self.a.machine, self.b.machine
            )));
        }
        Ok(self.slower_than(pct))
    }

    pub fn significant(&self) -> impl Iterator<Item = &Ratio> {
        self.ratios.iter().filter(|r| r.significant)
    }

    /// Results higher in B beyond the noise and by more than `pct`: what a
    /// regression gate fails on. Empty across two machines, which are
    /// compared, not judged.
    pub fn slower_than(&self, pct: f64) -> Vec<&Ratio> {
        if self.mode == Mode::TwoMachines {
            return Vec::new();
        }
        self.ratios
            .iter()
            .filter(|r| r.verdict == Verdict::Higher && r.change_pct() > pct)
            .collect()
    }

    pub fn threshold(&self, kind: Kind) -> &Threshold {
        match kind {
            Kind::Sampled => &self.sampled_threshold,
            Kind::Exact => &self.exact_threshold,
        }
    }
}

/// `compare A B` as a user asks it: runs `a` and `b` of `store`, compared,
/// with `--threshold` and `--fail-above` (each a percentage, 0 to 1000) checked.
pub fn compare_runs(
    store: &Store,
    (a, b): (RunId, RunId),
    threshold_pct: Option<f64>,
    fail_above_pct: Option<f64>,
) -> Result<Comparison, StoreError> {
    for (flag, v) in [
        ("--threshold", threshold_pct),
        ("--fail-above", fail_above_pct),
    ] {
        if v.is_some_and(|p| !(0.0..=1000.0).contains(&p)) {
            return Err(StoreError::Usage(format!(
                "{flag}: give a percentage from 0 to 1000"
            )));
        }
    }
    let (run_a, run_b) = (store.run(a)?, store.run(b)?);
    let (rows_a, rows_b) = (store.results(a)?, store.results(b)?);
    let side = |run, rows| Side { run, rows };
    Ok(compare(
        side(&run_a, &rows_a),
        side(&run_b, &rows_b),
        &Options { threshold_pct },
    ))
}

pub fn compare(a: Side, b: Side, options: &Options) -> Comparison {
    let (side_a, side_b) = (run_side(&a), run_side(&b));
    let mode = if side_a.machine == side_b.machine {
        Mode::SameMachine
    } else {
        Mode::TwoMachines
    };
    let (sampled_threshold, exact_threshold) = thresholds(&side_a, &side_b, options);
    let index = |rows: &[ResultRow]| -> BTreeMap<ResultKey, ResultRow> {
        rows.iter()
            .filter(|r| r.section != NOISE)
            .map(|r| (r.key(), r.clone()))
            .collect()
    };
    let (rows_a, rows_b) = (index(a.rows), index(b.rows));
    let mut ratios = Vec::new();
    let mut only_a = Vec::new();
    for (key, ra) in &rows_a {
        let Some(rb) = rows_b.get(key) else {
            only_a.push(key.clone());
            continue;
        };
        let kind = if kind_of(ra) == Kind::Exact && kind_of(rb) == Kind::Exact {
            Kind::Exact
        } else {
            Kind::Sampled
        };
        let (pct, why) = match kind {
            Kind::Sampled if options.threshold_pct.is_none() => {
                group_threshold(key, &side_a, &side_b, sampled_threshold.pct)
            }
            Kind::Sampled => (sampled_threshold.pct, String::new()),
            Kind::Exact => (exact_threshold.pct, String::new()),
        };
        ratios.push(ratio(key, ra, rb, kind, pct, &why));
    }
    let only_b = rows_b
        .keys()
        .filter(|k| !rows_a.contains_key(*k))
        .cloned()
        .collect();
    Comparison {
        mode,
        a: side_a,
        b: side_b,
        sampled_threshold,
        exact_threshold,
        ratios,
        only_a,
        only_b,
    }
}

fn ratio(
    key: &ResultKey,
    ra: &ResultRow,
    rb: &ResultRow,
    kind: Kind,
    pct: f64,
    why: &str,
) -> Ratio {
    let interval = |r: &ResultRow| match (r.ci_low, r.ci_high) {
        (Some(lo), Some(hi)) => Some((lo, hi)),
        _ => None,
    };
    let (ia, ib) = (interval(ra), interval(rb));
    let (a_lo, a_hi) = ia.unwrap_or((ra.value, ra.value));
    let (b_lo, b_hi) = ib.unwrap_or((rb.value, rb.value));
    let div = |x: f64, y: f64| if y != 0.0 { x / y } else { f64::NAN };
    let value = div(rb.value, ra.value);
    let size = 100.0 * (value - 1.0).abs();
    let apart = a_hi < b_lo || b_hi < a_lo;
    let tested = kind == Kind::Sampled && ia.is_some() && ib.is_some();
    let (verdict, reason) = if ra.value == rb.value {
        (Verdict::Equal, "the same value".to_string())
    } else if !value.is_finite() {
        (
            Verdict::Overlapping,
            "A is zero: no ratio can be formed".to_string(),
        )
    } else if tested && !apart {
        (
            Verdict::Overlapping,
            format!("{size:.1} %, but the 95 % intervals overlap: sampling noise explains it"),
        )
    } else if size <= pct {
        (
            Verdict::WithinThreshold,
            format!("{size:.1} % is within the {pct:.1} % noise threshold{why}"),
        )
    } else {
        let test = if tested {
            "intervals apart"
        } else if kind == Kind::Exact {
            "exact values"
        } else {
            "no intervals to test"
        };
        let verdict = if value > 1.0 {
            Verdict::Higher
        } else {
            Verdict::Lower
        };
        (
            verdict,
            format!("{size:.1} % is beyond the {pct:.1} % threshold{why}, {test}"),
        )
    };
    Ratio {
        key: key.clone(),
        unit: ra.unit.clone(),
        kind,
        a: ra.value,
        b: rb.value,
        ratio: value,
        ratio_low: div(b_lo, a_hi),
        ratio_high: div(b_hi, a_lo),
        significant: matches!(verdict, Verdict::Higher | Verdict::Lower),
        verdict,
        reason,
    }
}

/// Exact: device-level counts, and figures without samples whose CPU time
/// came from a device (or that have none). Everything timed here is sampled.
fn kind_of(row: &ResultRow) -> Kind {
    let host_time = row
        .data
        .get("cpu_time_source")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.starts_with("device"));
    if row.section == MCU || (row.samples.is_none() && !host_time) {
        Kind::Exact
    } else {
        Kind::Sampled
    }
}

/// The machine is its CPU model, architecture and core count as the run's
/// environment recorded them: an imported report and a local run of one
/// machine match, though their host labels differ.
fn run_side(side: &Side) -> RunSide {
    let env = &side.run.environment;
    let field = |k: &str| match env.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(v @ Value::Number(_)) => v.to_string(),
        _ => "unknown".into(),
    };
    let drifts = |metric: &'static str| {
        side.rows
            .iter()
            .filter(move |r| r.section == NOISE && r.metric == metric && r.value.is_finite())
            .map(|r| r.value.abs())
    };
    let noise_pct = drifts(DRIFT_PCT).reduce(f64::max);
    let process_drifts = drifts(PROCESS_DRIFT_PCT).collect();
    let group_drifts = side
        .rows
        .iter()
        .filter(|r| r.section == NOISE && r.metric == GROUP_DRIFT_PCT && r.value.is_finite())
        .map(|r| ((r.operation.clone(), r.size_bytes), r.value.abs()))
        .collect();
    RunSide {
        run: side.run.id,
        host: side.run.host.clone(),
        machine: format!(
            "{}, {}, {} logical cores",
            field("cpu_model"),
            field("arch"),
            field("cores_logical")
        ),
        noise_pct,
        process_drifts,
        group_drifts,
    }
}

/// The threshold of one sampled bench result: the run-wide one, or twice the
/// largest drift of its group's reference in either run when that is larger
/// (the machine's speed moved while the group was measured), with why.
fn group_threshold(key: &ResultKey, a: &RunSide, b: &RunSide, run_wide: f64) -> (f64, String) {
    if key.section != BENCH {
        return (run_wide, String::new());
    }
    let at = (key.operation.clone(), key.size_bytes);
    let moved = [a, b]
        .iter()
        .filter_map(|s| s.group_drifts.get(&at))
        .copied()
        .reduce(f64::max);
    match moved {
        Some(m) if NOISE_MULTIPLE * m > run_wide => (
            NOISE_MULTIPLE * m,
            format!(" (2× the {m:.1} % its group's reference moved while it was measured)"),
        ),
        _ => (run_wide, String::new()),
    }
}

/// The `q` quantile (nearest rank) of `values`, if any.
fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len().max(1));
    v.get(rank - 1).copied()
}

fn thresholds(a: &RunSide, b: &RunSide, options: &Options) -> (Threshold, Threshold) {
    if let Some(pct) = options.threshold_pct {
        let t = Threshold {
            pct,
            source: "--threshold".into(),
        };
        return (t.clone(), t);
    }
    let mut measured: Vec<String> = [a, b]
        .iter()
        .filter_map(|s| {
            s.noise_pct
                .map(|n| format!("run {} drifted {n:.2} %", s.run))
        })
        .collect();
    let within = a.noise_pct.into_iter().chain(b.noise_pct).reduce(f64::max);
    let pooled: Vec<f64> = [&a.process_drifts, &b.process_drifts]
        .into_iter()
        .flatten()
        .copied()
        .collect();
    let between = quantile(&pooled, PROCESS_QUANTILE);
    if let Some(q) = between {
        measured.push(format!(
            "{:.0}th percentile of {} results retimed in fresh processes {q:.2} %",
            100.0 * PROCESS_QUANTILE,
            pooled.len()
        ));
    }
    let sampled = match within.into_iter().chain(between).reduce(f64::max) {
        Some(noise) => Threshold {
            pct: (NOISE_MULTIPLE * noise).max(NOISE_FLOOR_PCT),
            source: format!(
                "{NOISE_MULTIPLE}× the larger noise measured ({}), at least {NOISE_FLOOR_PCT} %",
                measured.join("; ")
            ),
        },
        None => Threshold {
            pct: DEFAULT_THRESHOLD_PCT,
            source: "default: neither run measured its noise (only `run` does)".into(),
        },
    };
    let exact = Threshold {
        pct: 0.0,
        source: "exact values: any difference is real".into(),
    };
    (sampled, exact)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::RunStatus;
    use serde_json::json;

    fn run(id: i64, cpu: &str) -> RunSummary {
        RunSummary {
            id,
            started_at: String::new(),
            finished_at: None,
            command: "run".into(),
            host: "h".into(),
            origin: "local".into(),
            status: RunStatus::Complete,
            results: 0,
            environment: json!({"cpu_model": cpu, "arch": "x86_64", "cores_logical": 2}),
        }
    }

    fn row(subject: &str, v: f64, lo: f64, hi: f64) -> ResultRow {
        ResultRow {
            section: "bench".into(),
            target: "host".into(),
            subject: subject.into(),
            operation: "encrypt".into(),
            size_bytes: Some(64),
            context: String::new(),
            metric: "ns_per_op".into(),
            unit: "ns".into(),
            value: v,
            ci_low: Some(lo),
            ci_high: Some(hi),
            samples: Some(10),
            data: Value::Null,
        }
    }

    fn noise(drift_pct: f64) -> ResultRow {
        ResultRow {
            section: NOISE.into(),
            metric: DRIFT_PCT.into(),
            unit: "%".into(),
            ci_low: None,
            ci_high: None,
            samples: None,
            ..row("aes-128-gcm", drift_pct, 0.0, 0.0)
        }
    }

    fn verdict_of<'a>(c: &'a Comparison, subject: &str) -> &'a Ratio {
        c.ratios.iter().find(|r| r.key.subject == subject).unwrap()
    }

    #[test]
    fn a_change_needs_apart_intervals_and_a_size_beyond_the_threshold() {
        let (ra, rb) = (run(1, "EPYC"), run(2, "EPYC"));
        let a = [
            row("small", 100.0, 99.9, 100.1),
            row("big", 100.0, 99.9, 100.1),
            row("wide", 100.0, 80.0, 120.0),
            row("gone", 1.0, 1.0, 1.0),
        ];
        let b = [
            // 0.5 %, intervals apart, inside a 3 % threshold.
            row("small", 100.5, 100.4, 100.6),
            row("big", 110.0, 109.9, 110.1),
            row("wide", 110.0, 90.0, 130.0),
            row("new", 1.0, 1.0, 1.0),
        ];
        let options = Options {
            threshold_pct: Some(3.0),
        };
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &options,
        );
        assert_eq!(c.mode, Mode::SameMachine);
        let small = verdict_of(&c, "small");
        assert!(small.ratio_low > 1.0, "the intervals do not overlap");
        assert_eq!(small.verdict, Verdict::WithinThreshold);
        assert!(!small.significant);
        assert!(small.reason.contains("within the 3.0 % noise threshold"));
        let big = verdict_of(&c, "big");
        assert_eq!(big.verdict, Verdict::Higher);
        assert!(big.significant);
        assert!((big.ratio_low - 109.9 / 100.1).abs() < 1e-12);
        let wide = verdict_of(&c, "wide");
        assert_eq!(wide.verdict, Verdict::Overlapping);
        assert!(wide.reason.contains("intervals overlap"), "{}", wide.reason);
        assert_eq!(c.slower_than(5.0).len(), 1);
        assert!(c.slower_than(10.5).is_empty());
        assert_eq!(c.only_a[0].subject, "gone");
        assert_eq!(c.only_b[0].subject, "new");
    }

    #[test]
    fn the_threshold_comes_from_the_runs_noise_else_the_default() {
        let (ra, rb) = (run(1, "EPYC"), run(2, "EPYC"));
        let a = [row("x", 100.0, 99.9, 100.1), noise(-1.5)];
        let b = [row("x", 103.5, 103.4, 103.6), noise(0.4)];
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &Options::default(),
        );
        assert_eq!(c.sampled_threshold.pct, NOISE_MULTIPLE * 1.5);
        assert!(c.sampled_threshold.source.contains("run 1 drifted 1.50 %"));
        assert_eq!(verdict_of(&c, "x").verdict, Verdict::Higher);
        assert_eq!(c.ratios.len(), 1, "noise rows are not results");
        let plain = [row("x", 100.0, 99.9, 100.1)];
        let c = compare(
            Side {
                run: &ra,
                rows: &plain,
            },
            Side {
                run: &rb,
                rows: &plain,
            },
            &Options::default(),
        );
        assert_eq!(c.sampled_threshold.pct, DEFAULT_THRESHOLD_PCT);
        assert_eq!(verdict_of(&c, "x").verdict, Verdict::Equal);
    }

    #[test]
    fn fresh_process_differences_set_the_threshold_by_their_90th_percentile() {
        let process = |subject: &str, pct: f64| ResultRow {
            metric: PROCESS_DRIFT_PCT.into(),
            subject: subject.into(),
            ..noise(pct)
        };
        let (ra, rb) = (run(1, "EPYC"), run(2, "EPYC"));
        // Twenty retimed results: seventeen within 1 %, 4.0 % at the 90th
        // percentile, outliers at 5 % and 40 % that must not blind the comparison.
        let mut a = vec![row("x", 100.0, 99.9, 100.1), row("y", 100.0, 99.9, 100.1)];
        let mut b = vec![row("x", 107.0, 106.9, 107.1), row("y", 112.0, 111.9, 112.1)];
        for i in 0..9 {
            a.push(process(&format!("a{i}"), 0.5 + 0.05 * i as f64));
        }
        for i in 0..8 {
            b.push(process(&format!("b{i}"), -0.6));
        }
        a.push(process("a9", -4.0));
        b.push(process("b8", 5.0));
        b.push(process("b9", 40.0));
        a.push(noise(1.0));
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &Options::default(),
        );
        assert_eq!(c.sampled_threshold.pct, NOISE_MULTIPLE * 4.0);
        let source = &c.sampled_threshold.source;
        assert!(source.contains("90th percentile of 20 results"), "{source}");
        assert!(source.contains("run 1 drifted 1.00 %"), "{source}");
        assert_eq!(verdict_of(&c, "x").verdict, Verdict::WithinThreshold);
        assert_eq!(verdict_of(&c, "y").verdict, Verdict::Higher);
        assert_eq!(c.ratios.len(), 2, "noise rows are not results");
    }

    #[test]
    fn a_group_measured_while_the_machine_moved_gets_its_own_threshold() {
        let group = |op: &str, pct: f64| ResultRow {
            metric: GROUP_DRIFT_PCT.into(),
            operation: op.into(),
            ..noise(pct)
        };
        let at = |subject: &str, op: &str, v: f64| ResultRow {
            operation: op.into(),
            ..row(subject, v, v - 0.1, v + 0.1)
        };
        let (ra, rb) = (run(1, "EPYC"), run(2, "EPYC"));
        // Both groups moved 30 % in B; only the encrypt group's reference saw
        // the machine slow down (by 25 %) while it was measured.
        let a = [
            at("x", "encrypt", 100.0),
            at("y", "decrypt", 100.0),
            group("encrypt", 1.0),
        ];
        let b = [
            at("x", "encrypt", 130.0),
            at("y", "decrypt", 130.0),
            group("encrypt", -25.0),
            group("decrypt", 0.5),
        ];
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &Options::default(),
        );
        assert_eq!(c.sampled_threshold.pct, DEFAULT_THRESHOLD_PCT);
        let x = verdict_of(&c, "x");
        assert_eq!(x.verdict, Verdict::WithinThreshold);
        assert!(
            x.reason
                .contains("within the 50.0 % noise threshold (2× the 25.0 %"),
            "{}",
            x.reason
        );
        assert_eq!(verdict_of(&c, "y").verdict, Verdict::Higher);
        // --threshold is the user's word: it replaces the group's too.
        let forced = Options {
            threshold_pct: Some(3.0),
        };
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &forced,
        );
        assert_eq!(verdict_of(&c, "x").verdict, Verdict::Higher);
    }

    #[test]
    fn exact_values_change_at_any_size_and_two_machines_are_never_gated() {
        let exact = |v: f64| ResultRow {
            section: MCU.into(),
            ..row("aes", v, v, v)
        };
        let (ra, rb) = (run(1, "EPYC"), run(2, "Cortex-A53"));
        let a = [exact(1000.0)];
        let b = [exact(1001.0)];
        let c = compare(
            Side { run: &ra, rows: &a },
            Side { run: &rb, rows: &b },
            &Options::default(),
        );
        assert_eq!(c.mode, Mode::TwoMachines);
        let r = verdict_of(&c, "aes");
        assert_eq!(r.kind, Kind::Exact);
        assert_eq!(r.verdict, Verdict::Higher);
        assert!(c.slower_than(0.0).is_empty());
    }
}
