//! Robust statistics of timing samples: median, MAD, percentiles, a bootstrap
//! confidence interval of the median, outliers and the coefficient of variation.
//!
//! Timings are skewed to the right (interrupts, migrations, frequency steps
//! only ever make a run slower), so the summary leans on order statistics
//! rather than the mean.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

/// Bootstrap resamples used for the confidence interval of the median.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// A fixed seed keeps reports and tests reproducible: the same samples give
/// the same interval on every run and every machine.
pub const BOOTSTRAP_SEED: u64 = 0x6369_7068_6572_6d74; // "ciphermt"

/// Modified z-score above which a sample counts as an outlier (Iglewicz and
/// Hoaglin, "How to Detect and Handle Outliers", 1993, recommend 3.5).
pub const OUTLIER_Z: f64 = 3.5;

/// Spread beyond which a result is flagged as untrustworthy: a 95% interval
/// of the median wider than this fraction of the median.
pub const WIDE_CI: f64 = 0.05;
/// Or a coefficient of variation above this.
pub const WIDE_CV: f64 = 0.25;

/// The summary of one set of samples, all in the samples' unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub samples: usize,
    pub median: f64,
    /// Median absolute deviation from the median (not scaled).
    pub mad: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub p5: f64,
    pub p95: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Samples whose modified z-score exceeds `OUTLIER_Z`.
    pub outliers: usize,
    /// Standard deviation over mean; 0 when the mean is 0.
    pub cv: f64,
}

impl Summary {
    /// Summarises `samples` (which need not be sorted). Returns `None` for an
    /// empty slice or one holding a NaN.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        Summary::with_seed(samples, BOOTSTRAP_SEED)
    }

    pub fn with_seed(samples: &[f64], seed: u64) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| x.is_nan()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = percentile_sorted(&sorted, 50.0);
        let mad = mad_about(&sorted, median);
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let variance = if n > 1 {
            sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let (ci95_low, ci95_high) = bootstrap_median_ci(&sorted, BOOTSTRAP_RESAMPLES, seed);
        Some(Summary {
            samples: n,
            median,
            mad,
            mean,
            min: sorted[0],
            max: sorted[n - 1],
            p5: percentile_sorted(&sorted, 5.0),
            p95: percentile_sorted(&sorted, 95.0),
            ci95_low,
            ci95_high,
            outliers: count_outliers(&sorted, median, mad),
            cv: if mean != 0.0 {
                variance.sqrt() / mean
            } else {
                0.0
            },
        })
    }

    /// Width of the 95% interval relative to the median.
    pub fn relative_ci_width(&self) -> f64 {
        if self.median > 0.0 {
            (self.ci95_high - self.ci95_low) / self.median
        } else {
            0.0
        }
    }

    /// A sentence saying why these samples should not be trusted, if so.
    pub fn spread_warning(&self) -> Option<String> {
        let ci = self.relative_ci_width();
        if ci > WIDE_CI {
            Some(format!(
                "wide spread: 95% CI of the median spans {:.1}% of it (limit {:.0}%); close other programs or raise --time",
                ci * 100.0,
                WIDE_CI * 100.0
            ))
        } else if self.cv > WIDE_CV {
            Some(format!(
                "wide spread: coefficient of variation {:.0}% (limit {:.0}%)",
                self.cv * 100.0,
                WIDE_CV * 100.0
            ))
        } else {
            None
        }
    }
}

/// Percentile `p` (0..=100) of sorted data by linear interpolation between
/// the closest ranks (Hyndman and Fan's type 7, the default of R and NumPy).
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let rank = (p / 100.0).clamp(0.0, 1.0) * (n - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = rank.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

fn median_of(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    percentile_sorted(values, 50.0)
}

/// The median by selection, O(n): the bootstrap takes thousands of them.
/// Same interpolation as `percentile_sorted(_, 50.0)`.
fn median_unsorted(values: &mut [f64]) -> f64 {
    let n = values.len();
    let hi = n / 2;
    let (left, &mut upper, _) = values.select_nth_unstable_by(hi, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let lower = left.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

fn mad_about(sorted: &[f64], median: f64) -> f64 {
    let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    median_of(&mut deviations)
}

/// Iglewicz-Hoaglin modified z-score: 0.6745 (x - median) / MAD. With a MAD
/// of 0 (more than half the samples equal), anything off the median counts.
fn count_outliers(sorted: &[f64], median: f64, mad: f64) -> usize {
    if mad == 0.0 {
        return sorted.iter().filter(|&&x| x != median).count();
    }
    sorted
        .iter()
        .filter(|&&x| (0.6745 * (x - median) / mad).abs() > OUTLIER_Z)
        .count()
}

/// Percentile bootstrap: the 2.5th and 97.5th percentiles of the medians of
/// `resamples` resamples drawn with replacement.
pub fn bootstrap_median_ci(samples: &[f64], resamples: usize, seed: u64) -> (f64, f64) {
    let n = samples.len();
    if n == 1 {
        return (samples[0], samples[0]);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut scratch = vec![0.0; n];
    let mut medians = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in scratch.iter_mut() {
            *slot = samples[rng.random_range(0..n)];
        }
        medians.push(median_unsorted(&mut scratch));
    }
    medians.sort_by(f64::total_cmp);
    (
        percentile_sorted(&medians, 2.5),
        percentile_sorted(&medians, 97.5),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_to(n: usize) -> Vec<f64> {
        (1..=n).map(|i| i as f64).collect()
    }

    #[test]
    fn median_and_percentiles_of_known_data() {
        let s = Summary::of(&[5.0, 1.0, 4.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.median, 3.0);
        assert_eq!(s.mean, 3.0);
        assert_eq!((s.min, s.max), (1.0, 5.0));
        // Type 7: rank 0.05 * 4 = 0.2 -> 1 + 0.2 * (2 - 1).
        assert!((s.p5 - 1.2).abs() < 1e-12);
        assert!((s.p95 - 4.8).abs() < 1e-12);
        // Deviations 2,1,0,1,2 -> MAD 1.
        assert_eq!(s.mad, 1.0);
        // Sample sd of 1..5 is sqrt(2.5).
        assert!((s.cv - 2.5f64.sqrt() / 3.0).abs() < 1e-12);
        let even = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!(even.median, 2.5);
    }

    #[test]
    fn outliers_by_modified_z_score() {
        // 1..=20 plus 36, 37 and 1000: 23 values with median 12.
        let mut data = one_to(20);
        data.extend([36.0, 37.0, 1000.0]);
        let s = Summary::of(&data).unwrap();
        assert_eq!(s.median, 12.0);
        assert_eq!(s.mad, 6.0); // deviations of 23 values about 12
        // The fence is 12 + 3.5 * 6 / 0.6745 = 43.1: 36 and 37 stay inside.
        assert_eq!(s.outliers, 1);
        let clean = Summary::of(&one_to(20)).unwrap();
        assert_eq!(clean.outliers, 0);
    }

    #[test]
    fn selection_median_matches_sorted_median() {
        for data in [
            vec![3.0, 1.0, 2.0],
            vec![4.0, 1.0, 3.0, 2.0],
            vec![5.0],
            vec![2.0, 2.0, 1.0, 9.0, 9.0, 0.5],
        ] {
            let mut sorted = data.clone();
            sorted.sort_by(f64::total_cmp);
            assert_eq!(
                median_unsorted(&mut data.clone()),
                percentile_sorted(&sorted, 50.0),
                "{data:?}"
            );
        }
    }

    #[test]
    fn outliers_when_most_samples_are_equal() {
        let s = Summary::of(&[7.0, 7.0, 7.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mad, 0.0);
        assert_eq!(s.outliers, 1);
    }

    #[test]
    fn constant_samples_have_a_point_interval() {
        let s = Summary::of(&[42.0; 50]).unwrap();
        assert_eq!((s.ci95_low, s.median, s.ci95_high), (42.0, 42.0, 42.0));
        assert_eq!(s.cv, 0.0);
        assert!(s.spread_warning().is_none());
    }

    #[test]
    fn bootstrap_interval_matches_order_statistics() {
        // For n = 101 the distribution-free 95% interval of the median runs
        // from about the 41st to the 61st order statistic (binomial(101, 1/2):
        // 51 -+ 1.96 * sqrt(101) / 2 = 51 -+ 9.8). The bootstrap must agree to
        // within a couple of ranks, and must contain the true median.
        let s = Summary::of(&one_to(101)).unwrap();
        assert_eq!(s.median, 51.0);
        assert!((39.0..=44.0).contains(&s.ci95_low), "low {}", s.ci95_low);
        assert!((58.0..=63.0).contains(&s.ci95_high), "high {}", s.ci95_high);
    }

    #[test]
    fn bootstrap_is_deterministic_for_a_seed() {
        let data: Vec<f64> = (0..57).map(|i| ((i * 37) % 57) as f64 * 1.5).collect();
        assert_eq!(Summary::of(&data), Summary::of(&data));
        let a = bootstrap_median_ci(&data, 500, 1);
        let b = bootstrap_median_ci(&data, 500, 2);
        assert!(a.0 <= a.1 && b.0 <= b.1);
    }

    #[test]
    fn wide_spread_is_flagged() {
        // Two clusters far apart: the median's interval spans both.
        let mut data = vec![100.0; 10];
        data.extend(vec![200.0; 10]);
        let s = Summary::of(&data).unwrap();
        assert!(s.spread_warning().is_some(), "{s:?}");
        let tight: Vec<f64> = (0..100).map(|i| 1000.0 + (i % 5) as f64).collect();
        assert!(Summary::of(&tight).unwrap().spread_warning().is_none());
    }

    #[test]
    fn empty_or_nan_is_refused() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
        let one = Summary::of(&[3.0]).unwrap();
        assert_eq!(
            (one.median, one.ci95_low, one.ci95_high, one.cv),
            (3.0, 3.0, 3.0, 0.0)
        );
    }
}
