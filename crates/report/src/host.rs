//! Host measurements of catalogue entries: throughput curves, the ranking at the
//! study sizes, cycles per byte, and encrypt against decrypt.

use std::collections::BTreeMap;

use serde_json::Value;
use store::ResultRow;
use store::conventions::{BENCH, NS_PER_OP};

use crate::html::{Table, esc, num, status_badge, with_ci};
use crate::status_of;
use crate::svg::{self, LineChart, Series};

pub const RANK_SIZES: [i64; 4] = [16, 64, 256, 1024];

/// MB/s, its CI bounds, and the stored row it came from.
type Point<'a> = (f64, Option<f64>, Option<f64>, &'a ResultRow);

/// One algorithm/operation/backend, with its throughput at each size.
struct Line<'a> {
    algorithm: &'a str,
    backend: &'a str,
    kind: String,
    status: String,
    reason: Option<String>,
    /// size -> (MB/s, low, high, row)
    points: BTreeMap<i64, Point<'a>>,
}

impl Line<'_> {
    fn label(&self) -> String {
        let mut s = self.algorithm.to_string();
        if !self.backend.is_empty() && self.backend != "rustcrypto" {
            s.push_str(&format!(" ({})", self.backend));
        }
        if self.status != "recommended" {
            s.push_str(&format!(" [{}]", self.status));
        }
        s
    }

    fn name_html(&self) -> String {
        let mut s = esc(self.algorithm);
        if !self.backend.is_empty() && self.backend != "rustcrypto" {
            s.push_str(&format!(" <small>({})</small>", esc(self.backend)));
        }
        s + &status_badge(&self.status, self.reason.as_deref())
    }
}

fn kind_of(row: &ResultRow) -> String {
    row.data
        .get("kind")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            catalogue::catalogue()
                .get(&row.subject)
                .map(|e| e.kind.to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The operation that stands for an algorithm's speed: what a sender runs.
fn primary_operation(kind: &str) -> &'static str {
    match kind {
        "hash" => "digest",
        "mac" => "sign",
        _ => "encrypt",
    }
}

/// MB/s (10^6 bytes per second) from ns per call, with the CI inverted.
fn mb_per_s(row: &ResultRow) -> Option<(f64, Option<f64>, Option<f64>)> {
    let size = row.size_bytes? as f64;
    if size <= 0.0 || row.value <= 0.0 {
        return None;
    }
    let mbs = |ns: f64| size / ns * 1000.0;
    Some((
        mbs(row.value),
        row.ci_high.filter(|v| *v > 0.0).map(mbs),
        row.ci_low.filter(|v| *v > 0.0).map(mbs),
    ))
}

fn lines<'a>(rows: &'a [ResultRow], operation: Option<&str>) -> Vec<Line<'a>> {
    let mut map: BTreeMap<(String, &str, &str, &str), Line<'a>> = BTreeMap::new();
    for row in rows
        .iter()
        .filter(|r| r.section == BENCH && r.metric == NS_PER_OP)
    {
        let kind = kind_of(row);
        let wanted = operation.unwrap_or(primary_operation(&kind));
        if row.operation != wanted {
            continue;
        }
        let Some((v, lo, hi)) = mb_per_s(row) else {
            continue;
        };
        let (status, reason) = match (
            row.data.get("status").and_then(Value::as_str),
            status_of(&row.subject),
        ) {
            (_, (known, why)) if known == "baseline" => (known, why),
            (Some(s), (_, why)) => (s.to_string(), why),
            (None, known) => known,
        };
        let line = map
            .entry((
                kind.clone(),
                row.subject.as_str(),
                row.context.as_str(),
                row.operation.as_str(),
            ))
            .or_insert_with(|| Line {
                algorithm: &row.subject,
                backend: &row.context,
                kind,
                status,
                reason,
                points: BTreeMap::new(),
            });
        line.points
            .insert(row.size_bytes.unwrap_or(0), (v, lo, hi, row));
    }
    map.into_values().collect()
}

pub fn throughput_chart_html(rows: &[ResultRow]) -> Option<String> {
    let lines = lines(rows, None);
    if lines.is_empty() {
        return None;
    }
    let mut kinds: Vec<&str> = lines.iter().map(|l| l.kind.as_str()).collect();
    kinds.dedup();
    kinds.sort();
    kinds.dedup();
    let mut out = String::from("<div class=\"filters\">Show kinds: ");
    for k in &kinds {
        out.push_str(&format!(
            "<label><input type=\"checkbox\" value=\"{0}\" checked> {0}</label>",
            esc(k)
        ));
    }
    out.push_str("</div>");
    let chart = LineChart {
        title: "Throughput vs message size (host)".into(),
        x_label: "message size (bytes, log)".into(),
        y_label: "throughput (MB/s, log)".into(),
        series: lines
            .iter()
            .map(|l| Series {
                name: l.label(),
                class: format!("kind-{}", l.kind),
                dashed: l.status != "recommended",
                points: l.points.iter().map(|(s, p)| (*s as f64, p.0)).collect(),
            })
            .collect(),
    };
    out.push_str(&svg::log_log(&chart));
    out.push_str("<p class=\"note\">One line per algorithm: encryption for ciphers and AEADs, hashing for hashes, tagging for MACs. Dashed lines and [legacy]/[broken] mark algorithms not to use for new designs. The kind filter needs JavaScript; without it all lines show.</p>");
    Some(out)
}

pub fn throughput(rows: &[ResultRow]) -> String {
    throughput_chart_html(rows).unwrap_or_else(|| "<p>No host measurements in this run.</p>".into())
}

pub fn ranking(rows: &[ResultRow]) -> String {
    let mut lines = lines(rows, None);
    if lines.is_empty() {
        return "<p>No host measurements in this run.</p>".into();
    }
    let best = |l: &Line, size: i64| l.points.get(&size).map(|p| p.0).unwrap_or(-1.0);
    let rank_size = RANK_SIZES
        .iter()
        .rev()
        .find(|s| lines.iter().any(|l| l.points.contains_key(s)))
        .copied()
        .unwrap_or(1024);
    lines.sort_by(|a, b| best(b, rank_size).total_cmp(&best(a, rank_size)));
    let mut rank_at: BTreeMap<(i64, usize), usize> = BTreeMap::new();
    for size in RANK_SIZES {
        let mut order: Vec<(usize, f64)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.points.get(&size).map(|p| (i, p.0)))
            .collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (rank, (i, _)) in order.iter().enumerate() {
            rank_at.insert((size, *i), rank + 1);
        }
    }
    let mut t = Table::new(&[
        "Algorithm",
        "Kind",
        "16 B: #, MB/s [95% CI]",
        "64 B",
        "256 B",
        "1024 B",
    ]);
    for (i, l) in lines.iter().enumerate() {
        let mut row = vec![l.name_html(), esc(&l.kind)];
        for size in RANK_SIZES {
            row.push(match (l.points.get(&size), rank_at.get(&(size, i))) {
                (Some(p), Some(r)) => format!("#{r} · {}", esc(&with_ci(p.0, p.1, p.2))),
                _ => "-".into(),
            });
        }
        t.rows.push(row);
    }
    format!(
        "<p class=\"note\">Sorted by throughput at {rank_size} B; # is the rank at each size. Throughput in 10<sup>6</sup> bytes/s from the median time per call; brackets give the 95 % confidence interval.</p>{}",
        t.render()
    )
}

pub fn cycles(rows: &[ResultRow], device: Vec<&ResultRow>) -> String {
    let mut out = String::new();
    let lines = lines(rows, None);
    let with_cycles: Vec<&Line> = lines
        .iter()
        .filter(|l| {
            l.points.values().any(|p| {
                p.3.data
                    .get("cycles_per_byte")
                    .and_then(Value::as_f64)
                    .is_some()
            })
        })
        .collect();
    if with_cycles.is_empty() {
        out.push_str("<p>No cycle counter was available on the host for this run (see the environment's timers).</p>");
    } else {
        let mut t = Table::new(&["Algorithm", "16 B", "64 B", "256 B", "1024 B", "source"]);
        for l in with_cycles {
            let mut row = vec![l.name_html()];
            let mut source = String::new();
            for size in RANK_SIZES {
                let p = l.points.get(&size).map(|p| p.3);
                row.push(
                    p.and_then(|r| r.data.get("cycles_per_byte").and_then(Value::as_f64))
                        .map(num)
                        .unwrap_or_else(|| "-".into()),
                );
                if let Some(s) = p
                    .and_then(|r| r.data.get("cycles_source"))
                    .filter(|v| !v.is_null())
                {
                    source = s
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| s.to_string());
                }
            }
            row.push(esc(&source));
            t.rows.push(row);
        }
        out.push_str("<h3>Host, cycles per byte</h3>");
        out.push_str(&t.render());
    }
    if !device.is_empty() {
        out.push_str("<h3>Microcontrollers (simulated), cycles per byte</h3>");
        out.push_str(&crate::device::cycles_table(&device));
    }
    out
}

pub fn encrypt_decrypt(rows: &[ResultRow]) -> String {
    let enc = lines(rows, Some("encrypt"));
    let dec = lines(rows, Some("decrypt"));
    let mut bars = Vec::new();
    let mut t = Table::new(&[
        "Algorithm",
        "size",
        "encrypt MB/s [95% CI]",
        "decrypt MB/s [95% CI]",
        "decrypt / encrypt",
    ]);
    for e in &enc {
        let Some(d) = dec
            .iter()
            .find(|d| d.algorithm == e.algorithm && d.backend == e.backend)
        else {
            continue;
        };
        let Some((&size, ep)) = e
            .points
            .iter()
            .rev()
            .find(|(s, _)| d.points.contains_key(s))
        else {
            continue;
        };
        let dp = &d.points[&size];
        t.rows.push(vec![
            e.name_html(),
            format!("{size} B"),
            esc(&with_ci(ep.0, ep.1, ep.2)),
            esc(&with_ci(dp.0, dp.1, dp.2)),
            num(dp.0 / ep.0),
        ]);
        if e.kind == "baseline" {
            continue; // the no-op baseline would flatten every other bar
        }
        bars.push(svg::StackedBar {
            label: format!("{} encrypt", e.label()),
            dashed: e.status != "recommended",
            segments: vec![ep.0, 0.0],
        });
        bars.push(svg::StackedBar {
            label: format!("{} decrypt", e.label()),
            dashed: e.status != "recommended",
            segments: vec![0.0, dp.0],
        });
    }
    if t.rows.is_empty() {
        return "<p>No algorithm has both directions measured in this run.</p>".into();
    }
    format!(
        "{}{}",
        svg::stacked_bars(
            "Encrypt vs decrypt at the largest common size",
            "MB/s",
            &["encrypt", "decrypt"],
            &bars
        ),
        t.render()
    )
}
