//! The five studies, each rendered from its typed report: the paper's values
//! beside ours as HTML tables, the paper's figures redrawn with our numbers
//! overlaid, and every statement of the paper with our verdict and reason.

use serde_json::Value;
use store::Artifact;
use store::conventions::REPRODUCTION;
use studies::{Finding, StudyReport, Verdict};

use crate::html::{Table, esc};
use crate::studies as study;

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
        out.push_str(&section(a));
    }
    out
}

/// One study's section; a failed or unreadable reproduction says why.
fn section(a: &Artifact) -> String {
    let report = a
        .data
        .get("report")
        .map(|v| serde_json::from_value::<StudyReport>(v.clone()));
    let report = match report {
        Some(Ok(r)) => r,
        Some(Err(e)) => {
            return failed(a, &format!("its stored report cannot be read: {e}"));
        }
        None => {
            let why = a
                .data
                .get("failed")
                .or_else(|| a.data.get("unavailable"))
                .and_then(Value::as_str)
                .unwrap_or("no report was stored");
            return failed(a, why);
        }
    };
    let mut s = format!(
        "<h3 id=\"study-{}\" class=\"study\">{}</h3><p class=\"meta\">Our numbers come from {}.</p>",
        report.number(),
        esc(report.study_title()),
        esc(report.ran_on())
    );
    s.push_str(&match &report {
        StudyReport::RfTransmission(r) => study::rf_transmission::render(r),
        StudyReport::Serialization(r) => study::serialization::render(r),
        StudyReport::FileSizes(r) => study::file_sizes::render(r),
        StudyReport::TinySecurity(r) => study::tiny_security::render(r),
        StudyReport::TinySecurityDevice(r) => study::tiny_security::render_device(r),
        StudyReport::Lora(r) => study::lora::render(r),
        StudyReport::LoraDevice(r) => study::lora_device::render(r),
    });
    s.push_str("<h4>The paper's statements beside ours</h4>");
    s.push_str(&findings(report.findings()));
    s
}

fn failed(a: &Artifact, why: &str) -> String {
    format!(
        "<h3 id=\"reproduction-{}\" class=\"study failed\">{}</h3><p class=\"warn\">Not reproduced in this run: {}</p>",
        esc(&a.name),
        esc(&a.title),
        esc(why)
    )
}

/// Every claim with its verdict, as a table the reader can scan.
pub fn findings(list: &[Finding]) -> String {
    let mut t = Table::new(&["claim", "the paper says", "where", "verdict", "ours"]);
    t.class = "findings";
    for f in list {
        let class = match f.verdict {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
            Verdict::Compare | Verdict::NotJudged => "neutral",
        };
        t.rows.push(vec![
            format!("<code>{}</code>", esc(&f.id)),
            esc(&f.paper),
            esc(&f.place),
            format!(
                "<span class=\"verdict {class}\">{}</span>",
                esc(f.verdict.as_str())
            ),
            esc(&f.ours),
        ]);
    }
    t.render()
}
