//! HTML plumbing: escaping, number formatting, tables, the page shell.

use std::fmt::Write;

pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Three significant figures, without exponent for everyday magnitudes.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e7).contains(&a) {
        format!("{v:.2e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// "12.3 [12.1–12.6]".
pub fn with_ci(v: f64, lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(l), Some(h)) => format!("{} [{}–{}]", num(v), num(l), num(h)),
        _ => num(v),
    }
}

/// A table whose cells are already-escaped HTML.
pub struct Table {
    pub class: &'static str,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(head: &[&str]) -> Table {
        Table {
            class: "data",
            head: head.iter().map(|h| esc(h)).collect(),
            rows: Vec::new(),
        }
    }

    pub fn render(&self) -> String {
        let mut s = format!("<table class=\"{}\"><thead><tr>", self.class);
        for h in &self.head {
            let _ = write!(s, "<th>{h}</th>");
        }
        s.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                let _ = write!(s, "<td>{c}</td>");
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
        s
    }
}

/// A visible badge for legacy and broken algorithms (text, not only colour).
pub fn status_badge(status: &str, reason: Option<&str>) -> String {
    match status {
        "unknown" => format!(
            " <span class=\"badge unknown\" title=\"{}\">? unknown status</span>",
            esc(reason.unwrap_or("not in the catalogue"))
        ),
        "baseline" => format!(
            " <span class=\"badge baseline\" title=\"{}\">baseline</span>",
            esc(reason.unwrap_or("no encryption: the measurement's floor"))
        ),
        "legacy" | "broken" | "insecure" => format!(
            " <span class=\"badge {0}\" title=\"{1}\">{2} {0}</span>",
            esc(status),
            esc(reason.unwrap_or("")),
            if status == "broken" { "✖" } else { "⚠" }
        ),
        _ => String::new(),
    }
}

pub const STYLE: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1000px;padding:1em 1.5em;color:#222;background:#fff}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
.meta{color:#555}.note{color:#555;font-size:.9em}.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.4em .8em}
table.data,table.findings{border-collapse:collapse;font-size:.85em;margin:.6em 0}
table.findings td{border-bottom:1px solid #eee;padding:.3em .5em;vertical-align:top}
.verdict{font-weight:600;padding:0 .3em;border-radius:3px}.verdict.agrees{background:#e3f4e3}.verdict.differs{background:#fde2e1}.verdict.neutral{background:#eee}
table.data th,table.data td{border:1px solid #ddd;padding:.2em .5em;text-align:right}
table.data th{background:#f3f3f3}table.data td:first-child,table.data th:first-child{text-align:left}
table.env td{text-align:left}
.badge{font-size:.8em;padding:0 .35em;border-radius:.3em;white-space:nowrap}
.badge.legacy,.badge.insecure{background:#fff0c0;color:#7a5600;border:1px solid #d9b000}
.badge.broken{background:#ffd6d6;color:#900;border:1px solid #c00}
.answer{font-size:1.15em;background:#eef7ee;border-left:4px solid #4a4;padding:.5em .9em}
.badge.baseline{background:#eef;color:#335;border:1px solid #99b}
svg.chart{max-width:100%;height:auto;font-family:sans-serif;background:#fff}
svg .chart-title{font-size:14px;font-weight:bold;fill:#222}
.wide{overflow-x:auto;max-width:100%}
svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}svg .tick{font-size:11px;fill:#333}
svg .tick.insecure{fill:#a00;font-style:italic}
svg .axis{font-size:12px;fill:#222}svg .legend{font-size:11px;fill:#222}svg .point{font-size:10px;fill:#333}
.filters label{margin-right:1em;white-space:nowrap}
.hidden{display:none}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
nav a{margin-right:.8em}
";

/// Kind filter for the throughput chart: toggles series by CSS class. Works
/// offline; without JavaScript every series simply stays visible.
pub const SCRIPT: &str = "
document.querySelectorAll('.filters input').forEach(function(box){
  box.addEventListener('change',function(){
    document.querySelectorAll('.series.kind-'+box.value).forEach(function(g){
      g.classList.toggle('hidden',!box.checked);
    });
  });
});
document.body.setAttribute('data-rendered','yes');
";
