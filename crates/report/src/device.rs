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
        out.push_str("<p>No device-level measurements in the store. Run <code>ciphermeter mcu --target atmega1284p</code> (simavr) or a Cortex-M target (QEMU), then <code>ciphermeter report</code>.</p></section>");
        return out;
    }
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
    out.push_str(&t.render());
    out.push_str("</section>");
    out
}
