//! The machine the numbers came from, read from the stored environment record.

use serde_json::Value;
use store::RunSummary;

use crate::html::{Table, esc};

/// Fields shown first, with a label; any other field of the record follows.
const FIELDS: [(&str, &str); 15] = [
    ("board_model", "Board"),
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

/// This run's environment, and with another run both machines side by side followed
/// by the per-result comparison (ratios other/this).
pub fn render_beside(run: &RunSummary, beside: Option<&crate::Beside>) -> String {
    let Some(other) = beside else {
        return render(run);
    };
    let (a, b) = (&run.environment, &other.run.environment);
    let mut t = Table::new(&[
        "Property",
        &format!("run {} (A): {}", run.id, run.host),
        &format!("run {} (B): {}", other.run.id, other.run.host),
    ]);
    t.class = "data env";
    for (key, label) in FIELDS {
        if a.get(key).is_some() || b.get(key).is_some() {
            let cell = |env: &Value| env.get(key).map(show).unwrap_or_else(|| "-".into());
            t.rows.push(vec![esc(label), esc(&cell(a)), esc(&cell(b))]);
        }
        if key == "cpu_flags" && (arm_crypto(a).is_some() || arm_crypto(b).is_some()) {
            let cell = |env: &Value| arm_crypto(env).unwrap_or_else(|| "-".into());
            t.rows.push(vec![
                esc("ARM crypto instructions"),
                esc(&cell(a)),
                esc(&cell(b)),
            ]);
        }
    }
    t.rows.push(vec![
        esc("Origin"),
        esc(&run.origin),
        esc(&other.run.origin),
    ]);
    format!(
        "<h3>Two runs side by side</h3>{}<h3>Results, B/A</h3><pre>{}</pre><h3>Run {} in full</h3>{}",
        t.render(),
        esc(&crate::comparison::text(&other.comparison, false)),
        run.id,
        render(run)
    )
}

pub fn render(run: &RunSummary) -> String {
    let env = &run.environment;
    let mut t = Table::new(&["Property", "Value"]);
    t.class = "data env";
    let mut shown = vec!["arm_features"];
    for (key, label) in FIELDS {
        if let Some(v) = env.get(key) {
            t.rows.push(vec![esc(label), esc(&show(v))]);
            shown.push(key);
        }
        if key == "cpu_flags"
            && let Some(line) = arm_crypto(env)
        {
            t.rows
                .push(vec![esc("ARM crypto instructions"), esc(&line)]);
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

/// On an ARM run, whether the CPU has the ARMv8 crypto extensions: it decides which
/// AES wins there (a Pi 3's BCM2837 has none, so AES runs in software).
pub fn arm_crypto(env: &Value) -> Option<String> {
    let arch = env.get("arch").and_then(Value::as_str)?;
    if arch != "aarch64" && arch != "arm" {
        return None;
    }
    let Some(recorded) = env.get("arm_features").and_then(Value::as_array) else {
        return Some("not recorded (a report from before ciphermeter named them)".into());
    };
    let features: Vec<&str> = recorded.iter().filter_map(Value::as_str).collect();
    let neon = if features.contains(&"neon") {
        "NEON"
    } else {
        "no NEON"
    };
    Some(if features.contains(&"aes") {
        format!("{} (AES and GHASH in hardware)", features.join(", "))
    } else {
        format!(
            "no AES instructions ({neon}; no ARMv8 crypto extensions): AES runs in software, \
             so ChaCha20 and the lightweight ciphers usually beat it here"
        )
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arm_runs_say_whether_aes_is_in_hardware() {
        let pi3 = json!({"arch": "aarch64", "board_model": "Raspberry Pi 3 Model B Rev 1.2",
            "arm_features": ["neon"]});
        let line = arm_crypto(&pi3).unwrap();
        assert!(line.starts_with("no AES instructions (NEON;"), "{line}");
        let a53 =
            json!({"arch": "aarch64", "arm_features": ["neon", "aes", "pmull", "sha1", "sha2"]});
        assert!(
            arm_crypto(&a53)
                .unwrap()
                .contains("AES and GHASH in hardware")
        );
        let zero = json!({"arch": "arm", "arm_features": []});
        assert!(arm_crypto(&zero).unwrap().contains("no NEON"));
        assert_eq!(
            arm_crypto(&json!({"arch": "x86_64", "arm_features": []})),
            None
        );
    }
}
