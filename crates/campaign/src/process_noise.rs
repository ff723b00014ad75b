//! Between-process noise: a few of the sweep's groups timed again, each in a
//! fresh process of this binary (`bench`, not stored).
//!
//! The noise probes see how the machine drifts within one process. Two runs
//! are two processes, and some results differ between processes by more than
//! any drift within one: code and data land at other addresses, hash maps are
//! seeded anew, the scheduler places the process elsewhere. On an idle
//! machine two `run --quick` campaigns disagreed by 5–9 % on dozens of small
//! cases while the probes moved under 2 %. A fresh process is the only way
//! to see that noise from inside one run, so `compare` can set its threshold
//! from it. The groups are retimed exactly as the sweep timed them (same
//! algorithms interleaved, same size and operation, same sampling), so the
//! difference is the process, not the method.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use measure::workload::{Case, Operation};
use measure::{BenchReport, BenchResult};

/// Groups retimed per run: spread over the sweep's sizes and operations,
/// about ten seconds with `--quick`.
pub const GROUPS: usize = 8;

/// Indices of up to `count` groups, spread over the sweep's sizes first and
/// its operations second, among the groups whose operation takes the message
/// (a key setup is too short to tell placement from timer noise).
pub fn chosen(groups: &[Vec<usize>], cases: &[Case], count: usize) -> Vec<usize> {
    let mut by_size: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (g, group) in groups.iter().enumerate() {
        let Some(&first) = group.first() else {
            continue;
        };
        if matches!(
            cases[first].operation,
            Operation::Encrypt | Operation::Decrypt | Operation::Digest | Operation::Sign
        ) {
            by_size.entry(cases[first].size).or_default().push(g);
        }
    }
    // Round r takes each size's (r + its rank)-th operation, so the sizes
    // do not all contribute the same operation.
    let lists: Vec<&Vec<usize>> = by_size.values().collect();
    let rounds = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    let mut picked = Vec::new();
    'rounds: for r in 0..rounds {
        for (rank, list) in lists.iter().enumerate() {
            if picked.len() == count {
                break 'rounds;
            }
            if r < list.len() {
                picked.push(list[(r + rank) % list.len()]);
            }
        }
    }
    picked.sort_unstable();
    picked
}

/// Times `group` (one operation and size, several algorithms, each at its
/// default backend) in a fresh process of `exe`.
pub fn retime(exe: &Path, group: &[Case], quick: bool) -> Result<Vec<BenchResult>, String> {
    let Some(first) = group.first() else {
        return Ok(Vec::new());
    };
    let mut cmd = Command::new(exe);
    cmd.arg("bench")
        .args(group.iter().map(|c| c.entry.id.as_str()))
        .args(["--sizes", &first.size.to_string()])
        .args(["--op", first.operation.as_str()])
        .args(["--format", "json", "--no-store"]);
    if quick {
        cmd.arg("--quick");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} bench failed ({}): {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let report: BenchReport = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{} bench printed no bench JSON: {e}", exe.display()))?;
    Ok(report.results)
}

/// The fresh process's result for each result of the run, matched by
/// algorithm, backend, operation and size.
pub fn pairs<'a>(
    in_run: &'a [BenchResult],
    fresh: &'a [BenchResult],
) -> Vec<(&'a BenchResult, &'a BenchResult)> {
    in_run
        .iter()
        .filter_map(|r| {
            fresh
                .iter()
                .find(|f| {
                    f.algorithm == r.algorithm
                        && f.backend == r.backend
                        && f.operation == r.operation
                        && f.size_bytes == r.size_bytes
                })
                .map(|f| (r, f))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::workload::{BackendChoice, plan};

    fn cases() -> Vec<Case> {
        let entries: Vec<_> = ["aes-128-gcm", "sha256", "hmac-sha256"]
            .iter()
            .map(|id| catalogue::catalogue().get(id).unwrap())
            .collect();
        plan(
            &entries,
            &[16, 64, 256, 1024],
            None,
            &BackendChoice::Default,
        )
        .0
    }

    #[test]
    fn chosen_groups_are_spread_and_skip_key_setup() {
        let cases = cases();
        let groups = measure::workload::interleave_groups(&cases);
        let picked = chosen(&groups, &cases, 4);
        assert_eq!(picked.len(), 4);
        assert!(picked.windows(2).all(|w| w[0] < w[1]), "{picked:?}");
        for g in &picked {
            let op = cases[groups[*g][0]].operation;
            assert_ne!(op, Operation::Keysetup);
        }
        let sizes: std::collections::BTreeSet<usize> =
            picked.iter().map(|g| cases[groups[*g][0]].size).collect();
        assert_eq!(sizes.len(), 4, "one per size: {sizes:?}");
        let ops: std::collections::BTreeSet<Operation> = picked
            .iter()
            .map(|g| cases[groups[*g][0]].operation)
            .collect();
        assert!(ops.len() > 1, "not one operation everywhere: {ops:?}");
        let all = chosen(&groups, &cases, 100);
        assert_eq!(all.len(), 16, "every eligible group once");
    }

    #[test]
    fn a_missing_binary_is_an_error_not_a_zero() {
        let cases = cases();
        let err = retime(Path::new("/nonexistent/ciphermeter"), &cases[..1], true).unwrap_err();
        assert!(err.contains("cannot start"), "{err}");
    }
}
