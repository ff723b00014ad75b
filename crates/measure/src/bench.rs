//! `bench`: a request as a user types it (algorithms, kind, sizes,
//! operations, backend, time) planned into cases, and the cases measured one
//! operation and size at a time with their samples interleaved, into a
//! report with the machine it ran on.

use catalogue::{Backend, Kind};

use crate::environment::{self, Environment};
use crate::workload::{self, BackendChoice, Case, CaseError, DEFAULT_ALGORITHMS, Operation};
use crate::{BenchReport, BenchResult, Config, Sampler};

/// The studies' message sizes: LoRa payloads (16-256 B) to 16 KiB records.
pub const DEFAULT_SIZES: &str = "16,64,100,256,1024,1536,4096,16384";

/// What to measure, as typed.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Names or aliases; none: a representative set, or every algorithm of `kind`.
    pub algorithms: Vec<String>,
    pub kind: Option<String>,
    /// Comma-separated sizes with optional units (16,1KiB).
    pub sizes: String,
    /// Comma-separated operations; none: each algorithm's every one.
    pub operations: Option<String>,
    /// A backend, or `all`; none: each algorithm's first.
    pub backend: Option<String>,
    /// Seconds of sampling per result.
    pub time: Option<f64>,
    pub quick: bool,
}

/// The cases a request asks for, how to sample them, and notes on what was
/// asked but does not apply.
pub struct Plan {
    pub config: Config,
    pub cases: Vec<Case>,
    pub notes: Vec<String>,
}

impl Request {
    /// The plan; an error says what in the request is wrong.
    pub fn plan(&self) -> Result<Plan, String> {
        let sizes = crate::sizes::parse_size_list(&self.sizes)?;
        let ops = match &self.operations {
            None => None,
            Some(list) => Some(Operation::parse_list(list)?),
        };
        let kind = self.kind.as_deref().map(Kind::from_name).transpose();
        let kind = kind.map_err(|e| e.to_string())?;
        let backend = match self.backend.as_deref() {
            None => BackendChoice::Default,
            Some("all") => BackendChoice::All,
            Some(name) => BackendChoice::One(Backend::parse(name).map_err(|e| e.to_string())?),
        };
        let config = Config::chosen(self.time, self.quick)?;
        let entries = workload::select(&self.algorithms, kind, DEFAULT_ALGORITHMS)?;
        let (cases, notes) = workload::plan(&entries, &sizes, ops.as_deref(), &backend);
        Ok(Plan {
            config,
            cases,
            notes,
        })
    }
}

/// What a run tells its caller as it goes.
pub enum Progress<'a> {
    /// A group starts: its first case, and how many cases are interleaved.
    Group { first: &'a Case, cases: usize },
    /// A case that cannot run; the others go on.
    Skipped { case: &'a Case, why: &'a CaseError },
    /// A group finished, with this many cases.
    Done(usize),
}

/// Measures the plan's cases, each operation and size's group interleaved
/// (`workload::interleave_groups`), into a report of the machine; the
/// results in the plan's order (by algorithm, then operation and size). An
/// interruption ([`crate::interrupt`]) loses only the group it cut short
/// and marks the report interrupted.
pub fn run(plan: &Plan, progress: &mut dyn FnMut(Progress<'_>)) -> BenchReport {
    let mut sampler = Sampler::new(plan.config.clone(), true);
    let env = Environment::capture(sampler.cycles_source(), environment::perf_status());
    let mut report = BenchReport::new(env, plan.config.time.as_secs_f64());
    let (results, interrupted) = measure_cases(&mut sampler, &plan.cases, progress);
    report.results = results;
    report.interrupted = interrupted;
    report
}

/// The results of `cases` in their order, and whether an interruption cut
/// the run short.
pub fn measure_cases(
    sampler: &mut Sampler,
    cases: &[Case],
    progress: &mut dyn FnMut(Progress<'_>),
) -> (Vec<BenchResult>, bool) {
    let mut measured = Vec::new();
    let mut interrupted = false;
    for group in workload::interleave_groups(cases) {
        let batch: Vec<Case> = group.iter().map(|&i| cases[i]).collect();
        progress(Progress::Group {
            first: &batch[0],
            cases: batch.len(),
        });
        let Ok(outcomes) = workload::measure_group(sampler, &batch) else {
            interrupted = true;
            break;
        };
        for ((&i, case), outcome) in group.iter().zip(&batch).zip(outcomes) {
            match outcome {
                Ok(output) => measured.push((i, BenchResult::from_case(case, &output))),
                Err(why) => progress(Progress::Skipped { case, why: &why }),
            }
        }
        progress(Progress::Done(batch.len()));
    }
    measured.sort_by_key(|m| m.0);
    (measured.into_iter().map(|m| m.1).collect(), interrupted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(algorithms: &[&str]) -> Request {
        Request {
            algorithms: algorithms.iter().map(|a| a.to_string()).collect(),
            sizes: "16,64".into(),
            quick: true,
            ..Request::default()
        }
    }

    #[test]
    fn a_request_is_planned_or_refused_in_the_flags_words() {
        let plan = request(&["sha256", "aes-128-gcm"]).plan().unwrap();
        assert!(plan.cases.iter().any(|c| c.entry.id == "sha256"));
        assert!(plan.cases.iter().all(|c| c.size == 16 || c.size == 64));
        let bad_kind = Request {
            kind: Some("cipher".into()),
            ..request(&[])
        };
        let err = bad_kind.plan().err().unwrap();
        assert!(err.starts_with("unknown kind 'cipher' (known: "), "{err}");
        let bad_time = Request {
            time: Some(0.0),
            ..request(&["sha256"])
        };
        assert!(bad_time.plan().err().unwrap().starts_with("--time 0"));
        let only = Request {
            operations: Some("sign".into()),
            ..request(&["sha256"])
        };
        let plan = only.plan().unwrap();
        assert!(plan.cases.is_empty());
        assert_eq!(plan.notes.len(), 1, "{:?}", plan.notes);
    }

    #[test]
    fn results_come_back_in_the_plans_order_with_each_group_announced() {
        let plan = request(&["sha256", "sha512"]).plan().unwrap();
        let mut sampler = Sampler::new(Config::quick(), false);
        let (mut groups, mut done) = (0, 0);
        let (results, interrupted) = measure_cases(&mut sampler, &plan.cases, &mut |p| match p {
            Progress::Group { .. } => groups += 1,
            Progress::Done(n) => done += n,
            Progress::Skipped { .. } => panic!("nothing is skipped"),
        });
        assert!(!interrupted);
        assert_eq!((groups, done), (2, plan.cases.len()), "one group per size");
        let order: Vec<_> = results
            .iter()
            .map(|r| (r.algorithm.as_str(), r.size_bytes))
            .collect();
        assert_eq!(
            order,
            [
                ("sha256", 16),
                ("sha256", 64),
                ("sha512", 16),
                ("sha512", 64)
            ]
        );
    }
}
