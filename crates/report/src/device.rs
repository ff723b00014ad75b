//! The microcontroller tier (simavr / QEMU): cycles per byte, time and code size
//! per target, when the run or an earlier one measured it.

use std::collections::BTreeMap;

use serde_json::Value;
use store::ResultRow;

use crate::ReportInput;
use crate::html::{Table, esc, num};

pub fn cycles_table(rows: &[&ResultRow]) -> String {
    // (target, algorithm, operation) -> size -> cycles/byte
    let mut map: BTreeMap<(&str, &str, &str, &str), BTreeMap<i64, f64>> = BTreeMap::new();
    for r in rows {
        let Some(cpb) = r.data.get("cycles_per_byte").and_then(Value::as_f64) else {
            continue;
        };
        let counter = r
            .data
            .get("counter")
            .and_then(Value::as_str)
            .unwrap_or("cycles");
        map.entry((
            r.target.as_str(),
            r.subject.as_str(),
            r.operation.as_str(),
            counter,
        ))
        .or_default()
        .insert(r.size_bytes.unwrap_or(0), cpb);
    }
    if map.is_empty() {
        return "<p>No device-level counts.</p>".into();
    }
    let sizes: Vec<i64> = {
        let mut s: Vec<i64> = map.values().flat_map(|m| m.keys().copied()).collect();
        s.sort();
        s.dedup();
        s
    };
    let mut head = vec![
        "target".to_string(),
        "algorithm".into(),
        "operation".into(),
        "counter".into(),
    ];
    head.extend(sizes.iter().map(|s| format!("{s} B")));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for ((target, alg, op, counter), per) in &map {
        let mut row = vec![
            esc(target),
            esc(alg) + &crate::html::status_badge(&crate::status_of(alg).0, None),
            esc(op),
            format!("{} / byte", esc(counter)),
        ];
        row.extend(
            sizes
                .iter()
                .map(|s| per.get(s).map(|v| num(*v)).unwrap_or_else(|| "-".into())),
        );
        t.rows.push(row);
    }
    t.render()
}

pub fn render(input: &ReportInput) -> String {
    let own: Vec<&ResultRow> = input
        .results
        .iter()
        .filter(|r| r.section == store::conventions::MCU)
        .collect();
    let (rows, from): (Vec<&ResultRow>, Option<i64>) = if own.is_empty() {
        match &input.device_results {
            Some((run, rows)) => (rows.iter().collect(), Some(*run)),
            None => (Vec::new(), None),
        }
    } else {
        (own, None)
    };
    let mut out = String::from("<section id=\"devices\"><h2>Microcontrollers (simulated)</h2>");
    if rows.is_empty() {
        out.push_str("<p>No device-level measurements in the store. Run <code>ciphermeter mcu --target atmega1284p</code> (simavr) or a Cortex-M target (QEMU), then <code>ciphermeter report</code>.</p>");
        out.push_str(&crate::implementations::render());
        out.push_str("</section>");
        return out;
    }
    out.push_str(&format!("<p>{}</p>", esc(&finding(&rows))));
    if let Some(run) = from {
        out.push_str(&format!("<p class=\"note\">Taken from run {run}, the newest device-level measurement in the store.</p>"));
    }
    let mut t = Table::new(&[
        "target",
        "algorithm",
        "operation",
        "size B",
        "count",
        "time µs",
        "code size B",
        "KAT",
        "note",
    ]);
    for r in &rows {
        let d = &r.data;
        t.rows.push(vec![
            esc(&r.target),
            esc(&r.subject),
            esc(&r.operation),
            r.size_bytes.map(|s| s.to_string()).unwrap_or_default(),
            if r.metric == store::conventions::FAILURE {
                "-".into()
            } else {
                format!("{} {}", num(r.value), esc(&r.unit))
            },
            d.get("time_us")
                .and_then(Value::as_f64)
                .filter(|_| r.metric != store::conventions::FAILURE)
                .map(num)
                .unwrap_or_default(),
            d.get("code_size_bytes")
                .and_then(Value::as_i64)
                .map(|v| v.to_string())
                .unwrap_or_default(),
            if d.get("kat_passed").and_then(Value::as_bool) == Some(true) {
                "pass".into()
            } else {
                "<b>fail</b>".into()
            },
            esc(d.get("error").and_then(Value::as_str).unwrap_or("")),
        ]);
    }
    out.push_str(&format!(
        "<details><summary>Every measurement: {} rows</summary>{}</details>",
        rows.len(),
        t.render()
    ));
    out.push_str(&crate::implementations::render());
    out.push_str("</section>");
    out
}

/// The section's first sentence: per target, the cheapest and the dearest
/// measurement per byte at the largest size measured there, and how many
/// known answers passed on the device.
fn finding(rows: &[&ResultRow]) -> String {
    let mut per_target: BTreeMap<&str, Vec<&ResultRow>> = BTreeMap::new();
    for r in rows {
        per_target.entry(r.target.as_str()).or_default().push(r);
    }
    let mut sentences = Vec::new();
    for (target, rows) in &per_target {
        let per_byte = |r: &ResultRow| r.data.get("cycles_per_byte").and_then(Value::as_f64);
        let largest = rows
            .iter()
            .filter(|r| per_byte(r).is_some())
            .filter_map(|r| r.size_bytes)
            .max();
        let at_largest: Vec<(&ResultRow, f64)> = rows
            .iter()
            .filter(|r| r.size_bytes == largest)
            .filter_map(|r| per_byte(r).map(|v| (*r, v)))
            .collect();
        let cheapest = at_largest.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let dearest = at_largest.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let passed = rows
            .iter()
            .filter(|r| r.data.get("kat_passed").and_then(Value::as_bool) == Some(true))
            .count();
        let answers = format!(
            "{passed} of {} measurements passed their known answer on the device",
            rows.len()
        );
        match (largest, cheapest, dearest) {
            (Some(size), Some((lo, lo_v)), Some((hi, hi_v))) => {
                let unit = lo
                    .data
                    .get("counter")
                    .and_then(Value::as_str)
                    .unwrap_or("cycles");
                sentences.push(format!(
                    "On the {target}, at {size} bytes, the cheapest is {} {} at {} {unit} per byte and the dearest {} {} at {} ({:.0}x); {answers}.",
                    lo.subject,
                    lo.operation,
                    num(*lo_v),
                    hi.subject,
                    hi.operation,
                    num(*hi_v),
                    hi_v / lo_v.max(f64::MIN_POSITIVE),
                ));
            }
            _ => sentences.push(format!("On the {target}, {answers}.")),
        }
    }
    sentences.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(target: &str, subject: &str, size: i64, per_byte: f64, kat: bool) -> ResultRow {
        ResultRow {
            section: store::conventions::MCU.into(),
            target: target.into(),
            subject: subject.into(),
            operation: "encrypt".into(),
            size_bytes: Some(size),
            context: String::new(),
            metric: "cycles".into(),
            unit: "cycles".into(),
            value: per_byte * size as f64,
            ci_low: None,
            ci_high: None,
            samples: None,
            data: serde_json::json!({"cycles_per_byte": per_byte, "counter": "cycles", "kat_passed": kat}),
        }
    }

    #[test]
    fn the_finding_names_the_cheapest_and_dearest_at_the_largest_size() {
        let rows = [
            row("atmega1284p", "ascon-aead128", 1024, 880.0, true),
            row("atmega1284p", "aes-128-gcm", 1024, 3436.0, true),
            // A smaller size with a lower figure must not win.
            row("atmega1284p", "speck64-128-ecb", 64, 300.0, false),
        ];
        let refs: Vec<&ResultRow> = rows.iter().collect();
        let s = finding(&refs);
        assert!(
            s.contains("at 1024 bytes, the cheapest is ascon-aead128 encrypt at 880 cycles per byte and the dearest aes-128-gcm encrypt at 3436 (4x)"),
            "{s}"
        );
        assert!(s.contains("2 of 3 measurements passed"), "{s}");
    }
}
