//! Renders a report as a human table, JSON, CSV or Markdown. CSV and Markdown
//! carry exactly the fields of `BenchResult`, in its order, so they match the
//! JSON results column for column.

use std::fmt::Write as _;

use crate::result::{BenchReport, BenchResult};
use crate::sizes::format_size;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Csv,
    Markdown,
}

impl Format {
    pub fn parse(text: &str) -> Option<Format> {
        match text {
            "table" => Some(Format::Table),
            "json" => Some(Format::Json),
            "csv" => Some(Format::Csv),
            "markdown" | "md" => Some(Format::Markdown),
            _ => None,
        }
    }
}

pub fn render(report: &BenchReport, format: Format) -> String {
    match format {
        Format::Table => table(report),
        Format::Json => serde_json::to_string_pretty(report).expect("report serialises") + "\n",
        Format::Csv => csv(&report.results),
        Format::Markdown => markdown(&report.results),
    }
}

pub fn csv(results: &[BenchResult]) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    if results.is_empty() {
        // Still name the columns, so a reader sees an empty table, not nothing.
        writer.write_record(columns()).expect("in-memory write");
    }
    for r in results {
        writer.serialize(r).expect("result serialises to CSV");
    }
    String::from_utf8(writer.into_inner().expect("in-memory flush")).expect("CSV is UTF-8")
}

/// The column names: the field names of `BenchResult`, in order.
pub fn columns() -> Vec<String> {
    let text = csv(&[sample_row()]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .headers()
        .expect("header row")
        .iter()
        .map(str::to_string)
        .collect()
}

fn sample_row() -> BenchResult {
    serde_json::from_value(serde_json::json!({
        "algorithm": "", "kind": "", "backend": "", "provider": "", "operation": "encrypt",
        "size_bytes": 0, "key_bytes": 0, "output_bytes": null, "expansion_bytes": null,
        "median_ns": 0.0, "ci95_low_ns": 0.0, "ci95_high_ns": 0.0, "p5_ns": 0.0, "p95_ns": 0.0,
        "mad_ns": 0.0, "mean_ns": 0.0, "min_ns": 0.0, "cv": 0.0, "samples": 0,
        "iterations_per_sample": 0, "outliers": 0, "throughput_mb_s": null, "cycles_per_op": null,
        "cycles_per_byte": null, "cycles_source": null, "instructions_per_op": null,
        "heap_peak_bytes": null, "heap_allocated_bytes": null, "allocations": null,
        "cpu_percent": 0.0, "status": "", "warning": null
    }))
    .expect("sample row matches BenchResult")
}

pub fn markdown(results: &[BenchResult]) -> String {
    let text = csv(results);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .expect("header row")
        .iter()
        .map(str::to_string)
        .collect();
    let mut out = format!(
        "| {} |\n|{}\n",
        headers.join(" | "),
        "---|".repeat(headers.len())
    );
    for record in reader.records() {
        let record = record.expect("own CSV parses");
        let cells: Vec<String> = record.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// A short human summary; the other formats carry every column.
pub fn table(report: &BenchReport) -> String {
    let header = [
        "algorithm",
        "backend",
        "op",
        "size",
        "median",
        "95% CI",
        "MB/s",
        "cycles/B",
        "heap peak",
        "allocs",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    let mut warnings = Vec::new();
    for r in &report.results {
        let mark = if r.warning.is_some() { "!" } else { "" };
        if let Some(w) = &r.warning {
            warnings.push(format!(
                "! {} {} {} {}: {w}",
                r.algorithm,
                r.backend,
                r.operation,
                format_size(r.size_bytes)
            ));
        }
        rows.push(vec![
            r.algorithm.clone(),
            r.backend.clone(),
            r.operation.to_string(),
            if r.operation.is_size_free() {
                "-".into()
            } else {
                format_size(r.size_bytes)
            },
            format!("{}{mark}", human_ns(r.median_ns)),
            format!("{}..{}", human_ns(r.ci95_low_ns), human_ns(r.ci95_high_ns)),
            r.throughput_mb_s.map_or("-".into(), |t| format!("{t:.1}")),
            r.cycles_per_byte.map_or("-".into(), |c| format!("{c:.2}")),
            r.heap_peak_bytes.map_or("-".into(), |b| b.to_string()),
            r.allocations.map_or("-".into(), |a| a.to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if c < 3 {
                    format!("{cell:<w$}", w = widths[c])
                } else {
                    format!("{cell:>w$}", w = widths[c])
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if i == 0 {
            let _ = writeln!(
                out,
                "{}",
                widths
                    .iter()
                    .map(|w| "-".repeat(*w))
                    .collect::<Vec<_>>()
                    .join("  ")
            );
        }
    }
    let env = &report.environment;
    let cycles = match env.timers.cycles_source {
        Some(s) => serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        None => "none".into(),
    };
    let _ = writeln!(
        out,
        "\n{} ({} logical cores), {} {}, rustc {}, {} build; cycles: {}; perf_event: {}",
        env.cpu_model,
        env.cores_logical,
        env.os,
        env.kernel.split_whitespace().next().unwrap_or(""),
        env.rustc.trim_start_matches("rustc "),
        env.build_profile,
        cycles,
        env.timers.perf_event
    );
    for w in warnings {
        let _ = writeln!(out, "{w}");
    }
    if report.interrupted {
        let _ = writeln!(out, "interrupted: only the results above finished");
    }
    out
}

/// Nanoseconds in a readable unit: "12.3 ns", "4.56 µs", "1.23 ms", "2.00 s".
pub fn human_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_markdown_share_columns() {
        let cols = columns();
        assert_eq!(cols[0], "algorithm");
        assert!(cols.contains(&"cycles_per_byte".to_string()));
        let md = markdown(&[sample_row()]);
        let first = md.lines().next().unwrap();
        assert_eq!(first, format!("| {} |", cols.join(" | ")));
        assert_eq!(md.lines().count(), 3);
    }

    #[test]
    fn human_units() {
        assert_eq!(human_ns(12.34), "12.3 ns");
        assert_eq!(human_ns(4560.0), "4.56 µs");
        assert_eq!(human_ns(2.0e9), "2.00 s");
    }
}
