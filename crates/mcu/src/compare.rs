//! `mcu --compare FILE`: a board's cycles (`mcu --board … --cost-table
//! FILE`) against the Cortex-M cycle model (`cycles`), per region and per
//! instruction class.
//!
//! The boards run with no flash wait state (docs/boards/), so the model to
//! hold them to is the core's own: every class at its low and at its high
//! end of the ARM table, no wait state. Each build in FILE is simulated
//! again with QEMU's execution log for its regions' instruction mixes, and
//! the cycles per class that explain the board's counts best are fitted:
//! least squares on each region's relative error, held to the table's
//! values where the regions cannot tell two classes apart (a small ridge).
//! A class whose fitted cycles fall outside its table range is one to
//! revise in `data/cycle-timings/cortex-m.toml`, with the board's source.

use std::collections::BTreeMap;

use device_facts::cost_table::CostTable;
use serde::Serialize;

use crate::cycles::{Class, CoreTiming, Mix};
use crate::{McuError, algorithms, compile, emulate, parse, results};
use device_facts::cycle_model::validation::Check;

/// A validation file or folder (data/validation), not a board's table.
pub fn is_validation(path: &std::path::Path) -> bool {
    path.is_dir() || path.extension().is_some_and(|x| x == "toml")
}

/// Published board figures against the shipped tables' mixes priced on
/// each figure's part, and per core the cycles per class that best explain
/// the counted figures once their parts' memory is taken out.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub figures: Vec<Check>,
    pub fits: Vec<CoreFit>,
}

/// How hard the fit holds each class to the table's middle.
#[derive(Debug, Clone, Copy)]
pub enum Ridge {
    /// This share of the class's own weight in the regions.
    PerClass(f64),
    /// This share of the mean class weight, for every class alike.
    Uniform(f64),
}

/// A board's table has a region per operation and size (dozens): a
/// thousandth of each class's weight only steadies what they cannot tell apart.
const BOARD_RIDGE: Ridge = Ridge::PerClass(1e-3);

/// A core's published figures are a handful for twenty classes: every class
/// is held alike, so one the figures barely see stays near the table
/// instead of taking the others' error.
const VALIDATION_RIDGE: Ridge = Ridge::Uniform(0.1);

/// One core's classes fitted to its counted published figures.
#[derive(Debug, Clone, Serialize)]
pub struct CoreFit {
    pub target: String,
    pub figures: usize,
    pub classes: Vec<ClassFit>,
}

/// `mcu --compare` on a validation file or folder (data/validation).
pub fn validation(path: &std::path::Path) -> Result<Validation, McuError> {
    let figures =
        device_facts::cycle_model::validation::checks_at(path).map_err(McuError::Usage)?;
    let fits = crate::Target::ALL
        .into_iter()
        .filter_map(|t| {
            let core = crate::cycles::timing::for_target(t)?;
            let regions: Vec<(Mix, u64)> = figures
                .iter()
                .filter(|c| c.counted() && c.core == t.name())
                .map(|c| (c.core_fit.0.clone(), c.core_fit.1.max(1.0).round() as u64))
                .collect();
            (!regions.is_empty()).then(|| CoreFit {
                target: t.name().to_string(),
                figures: regions.len(),
                classes: fit(&regions, core, VALIDATION_RIDGE),
            })
        })
        .collect();
    Ok(Validation { figures, fits })
}

impl Validation {
    /// docs/cycle-accuracy.md's table, then the fitted classes.
    pub fn text(&self) -> String {
        let mut out = device_facts::cycle_model::validation::markdown(&self.figures);
        for f in &self.fits {
            out.push_str(&format!(
                "\nCycles per class on the {} that best explain its {} counted figures \
                 (their parts' memory taken out; a ridge keeps the table's middle where the \
                 figures cannot tell classes apart; * outside the table's range):\n",
                f.target, f.figures
            ));
            for c in f.classes.iter().filter(|c| c.instructions > 0) {
                out.push_str(&format!(
                    "  {:<22} {:>12} instructions  table {}..{}  fitted {:.2}{}\n",
                    c.class,
                    c.instructions,
                    c.table_low,
                    c.table_high,
                    c.fitted,
                    if c.outside { " *" } else { "" }
                ));
            }
        }
        out
    }
}

/// One measured region beside the model.
#[derive(Debug, Clone, Serialize)]
pub struct Region {
    pub build: String,
    pub operation: String,
    pub size_bytes: usize,
    pub measured: u64,
    /// The model with no wait state: every class at its low, and at its high end.
    pub model_low: u64,
    pub model_high: u64,
    /// Measured against the middle of the model's range, in percent.
    pub error_percent: f64,
}

/// One instruction class: the table's cycles and the fitted ones.
#[derive(Debug, Clone, Serialize)]
pub struct ClassFit {
    pub class: String,
    /// Instructions of the class over every region.
    pub instructions: i64,
    pub table_low: u32,
    pub table_high: u32,
    pub fitted: f64,
    /// The fitted cycles are outside the table's range.
    pub outside: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub measured_on: String,
    pub target: String,
    pub regions: Vec<Region>,
    pub classes: Vec<ClassFit>,
}

/// Compares `table` (a board's, counted in cycles) with the model on its target.
pub fn compare(table: &CostTable, mut progress: impl FnMut(&str)) -> Result<Comparison, McuError> {
    let Some(on) = &table.measured_on else {
        return Err(McuError::Usage(
            "--compare: this table holds no board's measurements (no measured_on): \
             write one with `mcu --board B ALG --serial PORT --cost-table FILE`"
                .into(),
        ));
    };
    let target = table.target;
    let core = crate::cycles::timing::for_target(target).ok_or_else(|| {
        McuError::Usage(format!(
            "--compare: {target} has no cycle model to compare with (its simulated counts are exact)"
        ))
    })?;
    if table.counter != "cycles" {
        return Err(McuError::Usage(format!(
            "--compare: {on} counted {}, not cycles (a QEMU machine counts its virtual time): \
             there is nothing to hold the cycle model to",
            table.counter
        )));
    }
    crate::toolchain::require(target)?;
    let mut pairs = Vec::new();
    let mut regions = Vec::new();
    for build in table.measured_builds()? {
        progress(&format!(
            "simulating {build} on {target} for its instruction mix"
        ));
        for (operation, size, mix) in mixes(target, &build, &table.sizes_of(&build))? {
            let Some(measured) = table.count_of(&build, &operation, size) else {
                continue;
            };
            let (low, high) = crate::cycles::estimate::zero_wait(&mix, core);
            let middle = (low + high) as f64 / 2.0;
            regions.push(Region {
                build: build.clone(),
                operation,
                size_bytes: size,
                measured,
                model_low: low,
                model_high: high,
                error_percent: (measured as f64 - middle) / middle * 100.0,
            });
            pairs.push((mix, measured));
        }
    }
    if regions.is_empty() {
        return Err(McuError::Usage(
            "--compare: no measured region of the table is one the simulator ran".into(),
        ));
    }
    Ok(Comparison {
        measured_on: on.to_string(),
        target: target.to_string(),
        regions,
        classes: fit(&pairs, core, BOARD_RIDGE),
    })
}

/// `build`'s measured regions on `target` with their instruction mixes
/// (less the empty region's), from a traced simulation of the same build
/// at the message sizes the board measured (`sizes`: its buffers are part
/// of the build).
fn mixes(
    target: crate::Target,
    build: &str,
    sizes: &[usize],
) -> Result<Vec<(String, usize, Mix)>, McuError> {
    let alg = algorithms::resolve_builds(&[build.to_string()])?[0].0;
    let sizes = crate::build_sizes(alg, sizes);
    let elf = compile::firmware(target, build, &sizes).map_err(McuError::Failed)?;
    let (out, mixes) = emulate::run_traced(target, &elf)?;
    let run = parse::parse(&out.stdout)?;
    let mixes = mixes.map_err(McuError::Failed)?;
    let net = results::net_mixes(&run, &mixes).map_err(McuError::Failed)?;
    let ops = net
        .into_iter()
        .filter(|(n, _)| !n.starts_with("calibrate-"));
    Ok(ops
        .zip(&run.ops)
        .map(|((_, mix), op)| (op.operation.clone(), op.size, mix))
        .collect())
}

/// The cycles per class that best explain `measured` counts of regions
/// with these mixes: least squares on relative errors, with a ridge
/// (`ridge` times each class's weight) toward the middle of the table's
/// range, so a class the regions cannot separate keeps the table's value.
/// The registers of LDM/STM/PUSH/POP keep the table's per-register cycles.
pub fn fit(regions: &[(Mix, u64)], core: &CoreTiming, ridge: Ridge) -> Vec<ClassFit> {
    let classes: Vec<Class> = {
        let mut seen = BTreeMap::new();
        for (mix, _) in regions {
            for (&c, &n) in &mix.by_class {
                *seen.entry(c).or_insert(0i64) += n;
            }
        }
        seen.into_iter()
            .filter(|&(_, n)| n > 0)
            .map(|(c, _)| c)
            .collect()
    };
    let k = classes.len();
    let prior: Vec<f64> = classes
        .iter()
        .map(|&c| f64::from(core.cost(c).low + core.cost(c).high) / 2.0)
        .collect();
    let mut a = vec![vec![0.0; k]; k];
    let mut b = vec![0.0; k];
    for (mix, measured) in regions {
        let m = (*measured).max(1) as f64;
        let registers: f64 = mix
            .registers
            .iter()
            .map(|(&c, &n)| (n * i64::from(core.cost(c).per_register)) as f64)
            .sum();
        let row: Vec<f64> = classes.iter().map(|&c| mix.count(c) as f64 / m).collect();
        let target = (m - registers) / m;
        for i in 0..k {
            b[i] += row[i] * target;
            for j in 0..k {
                a[i][j] += row[i] * row[j];
            }
        }
    }
    let mean = (0..k).map(|i| a[i][i]).sum::<f64>() / k.max(1) as f64;
    for i in 0..k {
        let weight = match ridge {
            Ridge::PerClass(share) => share * a[i][i].max(1e-12),
            Ridge::Uniform(share) => share * mean.max(1e-12),
        };
        a[i][i] += weight;
        b[i] += weight * prior[i];
    }
    let fitted = solve(a, b);
    classes
        .iter()
        .zip(fitted)
        .map(|(&c, t)| {
            let cost = core.cost(c);
            ClassFit {
                class: c.name(),
                instructions: regions.iter().map(|(m, _)| m.count(c)).sum(),
                table_low: cost.low,
                table_high: cost.high,
                fitted: t,
                outside: t < f64::from(cost.low) - 0.05 || t > f64::from(cost.high) + 0.05,
            }
        })
        .collect()
}

/// Gaussian elimination with partial pivoting; `a` is positive definite
/// (the ridge makes it so).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let k = b.len();
    for col in 0..k {
        let pivot = (col..k)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (done, rest) = a.split_at_mut(col + 1);
        let pivot_row = &done[col];
        for (i, row) in rest.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[col + 1 + i] -= f * b[col];
        }
    }
    let mut x = vec![0.0; k];
    for i in (0..k).rev() {
        let s: f64 = (i + 1..k).map(|j| a[i][j] * x[j]).sum();
        x[i] = (b[i] - s) / a[i][i];
    }
    x
}

impl Comparison {
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut o = String::new();
        let _ = writeln!(
            o,
            "{} against the {} cycle model with no wait state (data/cycle-timings/cortex-m.toml)\n",
            self.measured_on, self.target
        );
        let _ = writeln!(
            o,
            "{:<28} {:<12} {:>6} {:>10} {:>21} {:>8}",
            "build", "operation", "bytes", "measured", "model [low-high]", "error"
        );
        for r in &self.regions {
            let range = format!("{}-{}", r.model_low, r.model_high);
            let _ = writeln!(
                o,
                "{:<28} {:<12} {:>6} {:>10} {:>21} {:>+7.1}%",
                r.build, r.operation, r.size_bytes, r.measured, range, r.error_percent
            );
        }
        let _ = writeln!(
            o,
            "\n{:<20} {:>12} {:>14} {:>8}",
            "class", "instructions", "table cycles", "fitted"
        );
        for c in &self.classes {
            let table = format!("{}-{}", c.table_low, c.table_high);
            let mark = if c.outside { "  outside the table" } else { "" };
            let _ = writeln!(
                o,
                "{:<20} {:>12} {:>14} {:>8.2}{mark}",
                c.class, c.instructions, table, c.fitted
            );
        }
        o.push_str(
            "\nA class outside its table range, over several builds, is one to revise in \
             data/cycle-timings/cortex-m.toml (docs/boards/README.md).\n",
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;
    use crate::cycles::timing::for_target;

    fn mix(counts: &[(Class, i64)]) -> Mix {
        let mut m = Mix::default();
        for &(c, n) in counts {
            m.by_class.insert(c, n);
            m.instructions += n;
        }
        m
    }

    /// Regions priced with loads one cycle slower than the M0+ table says:
    /// the fit finds the loads at 3 cycles and every other class as the
    /// table has it.
    #[test]
    fn the_fit_finds_the_one_class_the_table_prices_wrong() {
        let core = for_target(Target::CortexM0plus).unwrap();
        let truth = |c: Class| match c {
            Class::Load => 3.0,
            other => f64::from(core.cost(other).low),
        };
        let shapes: [[i64; 4]; 6] = [
            [100, 10, 5, 3],
            [40, 60, 10, 8],
            [10, 5, 50, 20],
            [70, 30, 30, 1],
            [5, 80, 2, 40],
            [20, 20, 20, 20],
        ];
        let classes = [Class::Alu, Class::Load, Class::Store, Class::BranchTaken];
        let regions: Vec<(Mix, u64)> = shapes
            .iter()
            .map(|s| {
                let m = mix(&classes
                    .iter()
                    .copied()
                    .zip(s.iter().copied())
                    .collect::<Vec<_>>());
                let cycles: f64 = classes
                    .iter()
                    .zip(s)
                    .map(|(&c, &n)| truth(c) * n as f64)
                    .sum();
                (m, cycles.round() as u64)
            })
            .collect();
        let fits = fit(&regions, core, BOARD_RIDGE);
        for f in &fits {
            let want = if f.class == "load" {
                3.0
            } else {
                f64::from(f.table_low)
            };
            assert!((f.fitted - want).abs() < 0.02, "{f:?}");
            assert_eq!(f.outside, f.class == "load", "{f:?}");
        }
    }

    #[test]
    fn solve_inverts_a_small_system() {
        let x = solve(vec![vec![2.0, 1.0], vec![1.0, 3.0]], vec![3.0, 5.0]);
        assert!(
            (x[0] - 0.8).abs() < 1e-12 && (x[1] - 1.4).abs() < 1e-12,
            "{x:?}"
        );
    }
}
