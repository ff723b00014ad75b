//! ciphermeter-report: renders one stored run as a single self-contained HTML file.
//!
//! Everything is inline: CSS, a few lines of JavaScript for the kind filter, and the
//! charts as SVG drawn by [`svg`]. Nothing is fetched, so the file reads offline and
//! can be attached to an email. Legacy and broken algorithms carry a visible badge
//! and are drawn dashed.
//!
//! Sections: [`environment`], [`host`] (throughput, ranking, cycles/byte, encrypt vs
//! decrypt), [`framing`] (sealed messages, energy, battery, Pareto), [`device`]
//! (microcontroller tier), [`recommendation`], [`explorer`] (the explore page, live)
//! and [`reproductions`] (one
//! module per study under [`studies`]).

pub mod comparison;
pub mod device;
pub mod environment;
pub mod explorer;
pub mod framing;
pub mod host;
pub mod html;
pub mod implementations;
pub mod key_establishment;
pub mod recommendation;
pub mod reproductions;
pub mod runs;
pub mod studies;
pub mod summary;
pub mod svg;

use std::fmt::Write;

use store::{Artifact, ResultRow, RunSummary};

/// What one report shows.
pub struct ReportInput {
    pub run: RunSummary,
    pub results: Vec<ResultRow>,
    pub artifacts: Vec<Artifact>,
    /// Device-level results taken from an earlier run when this one has none
    /// (the run id says where they came from).
    pub device_results: Option<(i64, Vec<ResultRow>)>,
    /// Another run shown beside this one (`report --with RUN`, e.g. a board's imported
    /// bench): both machines' environments side by side and the per-result ratios.
    pub beside: Option<Beside>,
    /// The explore page's section (`explorer::section`), or why it is not
    /// there (its WebAssembly could not be built).
    pub explorer: Result<String, String>,
}

/// The other run of a side-by-side report and its comparison with this one.
pub struct Beside {
    pub run: RunSummary,
    pub comparison: store::compare::Comparison,
}

/// The section ids, in page order; tests and the e2e check look for them.
pub const SECTIONS: [(&str, &str); 14] = [
    ("summary", "The answer"),
    ("throughput", "Throughput vs message size"),
    ("ranking", "Ranking at 16, 64, 256 and 1024 bytes"),
    ("cycles", "Cycles per byte"),
    ("encrypt-decrypt", "Encrypt vs decrypt"),
    ("framing", "Sealed-message path"),
    ("energy", "Energy per message"),
    ("battery", "Battery life"),
    ("pareto", "Security vs energy (Pareto)"),
    ("recommendation", "Recommendation"),
    ("explore", "Explore: any device, link and reading"),
    (
        "key-establishment",
        "Key establishment: classical, hybrid, post-quantum",
    ),
    (
        "reproductions",
        "Reproductions: our numbers beside the papers'",
    ),
    ("environment", "Environment"),
];

pub fn render(input: &ReportInput) -> String {
    let run = &input.run;
    let mut page = String::with_capacity(256 * 1024);
    let _ = write!(
        page,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>ciphermeter report — run {}</title><style>{}</style></head><body>",
        run.id,
        html::STYLE
    );
    let _ = write!(
        page,
        "<h1>ciphermeter report</h1><p class=\"meta\">Run {} · <code>{}</code> · {} · started {}{} · status {} · {} stored results</p>",
        run.id,
        html::esc(&run.command),
        html::esc(&run.host),
        html::esc(&run.started_at),
        run.finished_at
            .as_deref()
            .map(|f| format!(", finished {}", html::esc(f)))
            .unwrap_or_default(),
        html::esc(run.status.as_str()),
        run.results
    );
    page.push_str("<nav>");
    for (id, title) in SECTIONS {
        if id == "environment" {
            page.push_str("<a href=\"#devices\">Microcontrollers (simulated)</a>");
        }
        let _ = write!(page, "<a href=\"#{id}\">{}</a>", html::esc(title));
    }
    page.push_str("</nav>");
    let sections: [(&str, String); 14] = [
        (
            "summary",
            summary::Answer::from_run(&input.results, &input.artifacts).html(),
        ),
        ("throughput", host::throughput(&input.results)),
        ("ranking", host::ranking(&input.results)),
        ("cycles", host::cycles(&input.results, device_rows(input))),
        ("encrypt-decrypt", host::encrypt_decrypt(&input.results)),
        ("framing", framing::sealing(&input.results)),
        ("energy", framing::energy(&input.results)),
        ("battery", framing::battery(&input.results)),
        ("pareto", framing::pareto(&input.results)),
        ("recommendation", recommendation::render(&input.artifacts)),
        (
            "explore",
            match &input.explorer {
                Ok(section) => section.clone(),
                Err(why) => format!(
                    "<p class=\"warn\">The explorer is not in this report: {}</p>",
                    html::esc(why)
                ),
            },
        ),
        (
            "key-establishment",
            key_establishment::render(&input.artifacts),
        ),
        ("reproductions", reproductions::render(&input.artifacts)),
        (
            "environment",
            format!(
                "<details><summary>The machine, toolchain and crate versions behind these numbers</summary>{}</details>",
                environment::render_beside(run, input.beside.as_ref())
            ),
        ),
    ];
    for ((id, title), (_, body)) in SECTIONS.iter().zip(sections) {
        // The microcontroller tier writes its own section, before the
        // environment, which closes the page folded.
        if *id == "environment" {
            page.push_str(&device::render(input));
        }
        let _ = write!(
            page,
            "<section id=\"{id}\"><h2>{}</h2>{body}</section>",
            html::esc(title)
        );
    }
    let _ = write!(
        page,
        "<p class=\"note\">Made by ciphermeter {}. Confidence intervals are 95 %. Energy figures are model estimates from the device, radio and battery profiles, not measurements.</p><script>{}</script></body></html>",
        html::esc(env!("CARGO_PKG_VERSION")),
        html::SCRIPT
    );
    page
}

fn device_rows(input: &ReportInput) -> Vec<&ResultRow> {
    let own: Vec<&ResultRow> = input
        .results
        .iter()
        .filter(|r| r.section == store::conventions::MCU)
        .collect();
    if !own.is_empty() {
        return own;
    }
    input
        .device_results
        .as_ref()
        .map(|(_, rows)| rows.iter().collect())
        .unwrap_or_default()
}

/// Catalogue status of an id, a firmware build's the worst of the entries it
/// runs (legacy and broken get a badge). An id the catalogue does not know is
/// "unknown", never assumed safe.
pub(crate) fn status_of(id: &str) -> (String, Option<String>) {
    let rank = |s: &str| match s {
        "recommended" => 0,
        "legacy" => 1,
        "broken" => 2,
        "baseline" => 3,
        _ => 4,
    };
    let mut worst = ("recommended".to_string(), None);
    for part in device_facts::algorithms::catalogue_ids(id) {
        let status = match catalogue::catalogue().get(&part) {
            // The identity is the harness's floor: a baseline, not a broken cipher.
            Some(e) if e.kind == catalogue::Kind::Baseline => (
                "baseline".to_string(),
                Some("no encryption: the measurement's floor, not a choice".to_string()),
            ),
            Some(e) => (e.status.as_str().to_string(), e.status_reason.clone()),
            None => (
                "unknown".to_string(),
                Some(format!(
                    "{part} is not in the catalogue, so its status is not known"
                )),
            ),
        };
        if rank(&status.0) > rank(&worst.0) {
            worst = status;
        }
    }
    worst
}

#[cfg(test)]
mod status_tests {
    use super::status_of;

    #[test]
    fn device_builds_carry_the_status_of_what_they_run() {
        // EtM over AES-ECB: ECB is legacy, so the build is too.
        assert_eq!(status_of("message-etm-aes-128-hmac-sha256").0, "legacy");
        assert_eq!(status_of("message-aes-256-gcm").0, "recommended");
        assert_eq!(status_of("no-such-cipher").0, "unknown");
        let badge = crate::html::status_badge(&status_of("no-such-cipher").0, None);
        assert!(badge.contains("unknown"), "{badge}");
    }
}
