//! Two runs side by side: for every result both hold, the ratio B/A with an
//! interval, and whether the difference is outside the noise. "Outside the
//! noise" means the two 95 % confidence intervals do not overlap: a
//! conservative test, so a marked difference is one worth believing.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::records::{ResultKey, ResultRow};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ratio {
    pub key: ResultKey,
    pub unit: String,
    pub a: f64,
    pub b: f64,
    /// b / a.
    pub ratio: f64,
    /// Bounds of b / a over the two intervals (low B over high A, and so on).
    pub ratio_low: f64,
    pub ratio_high: f64,
    /// The intervals do not overlap.
    pub significant: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    pub ratios: Vec<Ratio>,
    pub only_a: Vec<ResultKey>,
    pub only_b: Vec<ResultKey>,
}

impl Comparison {
    pub fn significant(&self) -> impl Iterator<Item = &Ratio> {
        self.ratios.iter().filter(|r| r.significant)
    }
}

pub fn compare(a: &[ResultRow], b: &[ResultRow]) -> Comparison {
    let index = |rows: &[ResultRow]| -> BTreeMap<ResultKey, ResultRow> {
        rows.iter().map(|r| (r.key(), r.clone())).collect()
    };
    let (a, b) = (index(a), index(b));
    let mut out = Comparison::default();
    for (key, ra) in &a {
        let Some(rb) = b.get(key) else {
            out.only_a.push(key.clone());
            continue;
        };
        let (a_lo, a_hi) = (
            ra.ci_low.unwrap_or(ra.value),
            ra.ci_high.unwrap_or(ra.value),
        );
        let (b_lo, b_hi) = (
            rb.ci_low.unwrap_or(rb.value),
            rb.ci_high.unwrap_or(rb.value),
        );
        let div = |x: f64, y: f64| if y != 0.0 { x / y } else { f64::NAN };
        out.ratios.push(Ratio {
            key: key.clone(),
            unit: ra.unit.clone(),
            a: ra.value,
            b: rb.value,
            ratio: div(rb.value, ra.value),
            ratio_low: div(b_lo, a_hi),
            ratio_high: div(b_hi, a_lo),
            significant: a_hi < b_lo || b_hi < a_lo,
        });
    }
    out.only_b = b.keys().filter(|k| !a.contains_key(*k)).cloned().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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

    #[test]
    fn only_non_overlapping_intervals_are_marked() {
        let a = [
            row("x", 100.0, 95.0, 105.0),
            row("y", 100.0, 95.0, 105.0),
            row("gone", 1.0, 1.0, 1.0),
        ];
        let b = [
            row("x", 103.0, 99.0, 108.0),
            row("y", 200.0, 190.0, 210.0),
            row("new", 1.0, 1.0, 1.0),
        ];
        let c = compare(&a, &b);
        let x = c.ratios.iter().find(|r| r.key.subject == "x").unwrap();
        let y = c.ratios.iter().find(|r| r.key.subject == "y").unwrap();
        assert!(!x.significant, "overlapping CIs are noise");
        assert!(y.significant);
        assert_eq!(y.ratio, 2.0);
        assert!((y.ratio_low - 190.0 / 105.0).abs() < 1e-12);
        assert!((y.ratio_high - 210.0 / 95.0).abs() < 1e-12);
        assert_eq!(c.only_a[0].subject, "gone");
        assert_eq!(c.only_b[0].subject, "new");
    }
}
