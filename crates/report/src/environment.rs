//! The machine the numbers came from, read from the stored environment record.

use serde_json::Value;
use store::RunSummary;

use crate::html::{Table, esc};

/// Fields shown first, with a label; any other field of the record follows.
const FIELDS: [(&str, &str); 14] = [
    ("cpu_model", "CPU"),
    ("arch", "Architecture"),
    ("cores_logical", "Logical cores"),
    ("cores_physical", "Physical cores"),
    ("cpu_mhz", "Clock (MHz)"),
    ("governor", "Governor"),
    ("virtualized", "Virtualized"),
    ("cpu_flags", "Crypto CPU features"),
    ("os", "OS"),
    ("kernel", "Kernel"),
    ("rustc", "rustc"),
    ("build_profile", "Build profile"),
    ("ciphermeter_version", "ciphermeter"),
    ("git_revision", "Git revision"),
];

pub fn render(run: &RunSummary) -> String {
    let env = &run.environment;
    let mut t = Table::new(&["Property", "Value"]);
    t.class = "data env";
    let mut shown = Vec::new();
    for (key, label) in FIELDS {
        if let Some(v) = env.get(key) {
            t.rows.push(vec![esc(label), esc(&show(v))]);
            shown.push(key);
        }
    }
    if let Value::Object(map) = env {
        for (k, v) in map {
            if !shown.contains(&k.as_str()) && !v.is_null() {
                t.rows.push(vec![esc(k), esc(&show(v))]);
            }
        }
    }
    let mut out = String::new();
    if env.get("build_profile").and_then(Value::as_str) == Some("debug") {
        out.push_str("<p class=\"warn\">This run came from a debug build: host timings are far slower than a release build's and are no benchmark.</p>");
    }
    if run.origin != "local" {
        out.push_str(&format!(
            "<p class=\"note\">Imported: {}.</p>",
            esc(&run.origin)
        ));
    }
    if t.rows.is_empty() {
        out.push_str("<p>No environment was recorded.</p>");
    } else {
        out.push_str(&t.render());
    }
    out
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(show).collect::<Vec<_>>().join(", "),
        Value::Null => "-".into(),
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| format!("{k}: {}", show(v)))
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}
