//! Each reproduction's output, as its command printed it: the studies' numbers
//! beside ours. JSON outputs are shown as tables, text as preformatted blocks.

use serde_json::Value;
use store::Artifact;
use store::conventions::REPRODUCTION;

use crate::html::{Table, esc};

pub fn render(artifacts: &[Artifact]) -> String {
    let reps: Vec<&Artifact> = artifacts
        .iter()
        .filter(|a| a.kind == REPRODUCTION)
        .collect();
    if reps.is_empty() {
        return "<p>No reproductions in this run.</p>".into();
    }
    let mut out = String::new();
    for a in reps {
        out.push_str(&format!(
            "<h3 id=\"reproduction-{}\">{}</h3>",
            esc(&a.name),
            esc(&a.title)
        ));
        if let Some(gap) = a.data.get("unavailable").and_then(Value::as_str) {
            out.push_str(&format!(
                "<p class=\"warn\">Not reproduced in this run: {}</p>",
                esc(gap)
            ));
            continue;
        }
        match a.data.get("json") {
            Some(v) => out.push_str(&format!("<div class=\"wide\">{}</div>", json_html(v, 0))),
            None => {
                let text = a.data.get("text").and_then(Value::as_str).unwrap_or("");
                out.push_str(&format!("<pre>{}</pre>", esc(text)));
            }
        }
    }
    out
}

/// Arrays of objects become tables; objects become nested lists; the rest text.
fn json_html(v: &Value, depth: usize) -> String {
    match v {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            let mut cols: Vec<String> = Vec::new();
            for item in items {
                for k in item.as_object().into_iter().flat_map(|o| o.keys()) {
                    if !cols.contains(k) {
                        cols.push(k.clone());
                    }
                }
            }
            let head: Vec<&str> = cols.iter().map(String::as_str).collect();
            let mut t = Table::new(&head);
            for item in items {
                t.rows.push(
                    cols.iter()
                        .map(|c| scalar(item.get(c).unwrap_or(&Value::Null), depth))
                        .collect(),
                );
            }
            t.render()
        }
        Value::Object(map) if depth < 4 => {
            let mut s = String::from("<ul>");
            for (k, v) in map {
                s.push_str(&format!(
                    "<li><b>{}</b>: {}</li>",
                    esc(k),
                    json_html(v, depth + 1)
                ));
            }
            s + "</ul>"
        }
        other => scalar(other, depth),
    }
}

fn scalar(v: &Value, depth: usize) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => esc(s),
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::html::num(f),
            _ => n.to_string(),
        },
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => items
            .iter()
            .map(|i| scalar(i, depth))
            .collect::<Vec<_>>()
            .join(", "),
        other if depth < 4 => json_html(other, depth + 1),
        other => esc(&other.to_string()),
    }
}
