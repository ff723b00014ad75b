//! Study 003: Figures 9-11 (host) and 9, 10, 12 (device) redrawn from our
//! measurements, and as tables.

use studies::Finding;
use studies::tiny_security::{Report, Series, mean_sd};
use studies::tiny_security_device::Report as DeviceReport;

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Bar, BarChart, BarGroup, BarSeries, Mark};

pub fn render(r: &Report) -> String {
    let mut t = Table::new(&[
        "group",
        "scheme",
        "bits",
        "µs/B (Fig. 9)",
        "(µs/B)/bit (Fig. 10)",
        "overhead (Fig. 11)",
    ]);
    for s in &r.series {
        t.rows.push(vec![
            esc(&s.group),
            esc(&s.scheme),
            s.bits_study003.to_string(),
            num(mean_sd(&s.us_per_byte).0),
            num(mean_sd(&s.cost_per_bit()).0),
            num(mean_sd(&s.overhead_ratio_appendix_b).0),
        ]);
    }
    format!(
        "{}<p>Reading sizes: paper ≈ {} B.</p><div class=\"wide\">{}</div>",
        host_figures(r),
        r.paper
            .input_bytes_approx
            .iter()
            .map(|b| num(*b))
            .collect::<Vec<_>>()
            .join(", "),
        t.render()
    )
}

pub fn render_device(r: &DeviceReport) -> String {
    let mut t = Table::new(&[
        "algorithm",
        "group",
        "bits",
        "µs/B",
        "(µs/B)/bit",
        "flash +B",
        "known answer",
    ]);
    for row in &r.rows {
        t.rows.push(vec![
            esc(&row.algorithm),
            esc(&row.group),
            row.security_bits.to_string(),
            row.us_per_byte.map_or("-".into(), num),
            row.cost_per_bit.map_or("-".into(), num),
            row.program_size_bytes.map_or("-".into(), |b| b.to_string()),
            match (&row.error, row.kat_passed) {
                (Some(e), _) => esc(e),
                (None, true) => "ok".into(),
                (None, false) => "FAIL".into(),
            },
        ]);
    }
    format!(
        "{}<div class=\"wide\">{}</div>",
        device_figures(r),
        t.render()
    )
}

/// One of the paper's bar charts.
struct PaperFigure {
    number: u32,
    /// The first sentence of the paper's caption.
    caption: &'static str,
    y_label: &'static str,
    /// Statements the paper makes about this figure outside its section
    /// (their place names section 6, not the figure).
    also: &'static [&'static str],
}

const FIG_9: PaperFigure = PaperFigure {
    number: 9,
    caption: "Average time for framing a message from sensor data of varying length.",
    y_label: "µs per byte of reading",
    also: &["acorn_fastest", "sha3_512_faster_than_sha512"],
};
const FIG_10: PaperFigure = PaperFigure {
    number: 10,
    caption: "Energy cost per bit of security.",
    y_label: "(µs per byte) per bit of security",
    also: &[],
};
const FIG_11: PaperFigure = PaperFigure {
    number: 11,
    caption: "Average overhead ratio.",
    y_label: "message length / reading length",
    also: &[],
};
const FIG_12: PaperFigure = PaperFigure {
    number: 12,
    caption: "Security implementation contribution to total compiled size.",
    y_label: "flash over the no-security build (bytes)",
    also: &[],
};

/// The paper's Fig. 12 range of additions, "from around 7500 to slightly
/// above 10000 bytes" (section 5.3); the data file holds it only as text.
const PAPER_ADDITION_BYTES: (f64, f64) = (7500.0, 10000.0);

/// The paper's colours: AEAD blue, HMAC red, EtM green.
fn group_colour(group: &str) -> &'static str {
    match group {
        "AEAD" => svg::colour(0),
        "HMAC" => svg::colour(1),
        "EtM" => svg::colour(2),
        _ => svg::colour(7),
    }
}

/// One algorithm's bar, coloured by its group.
struct AlgorithmBar {
    algorithm: String,
    group: String,
    value: f64,
    range: Option<(f64, f64)>,
    note: Option<String>,
}

/// The bar for the mean of `values` (one per chain length), with an error
/// bar of ± one standard deviation, as the paper's; None without values.
fn mean_bar(algorithm: &str, group: &str, values: &[f64]) -> Option<AlgorithmBar> {
    if values.is_empty() {
        return None;
    }
    let (mean, sd) = mean_sd(values);
    Some(AlgorithmBar {
        algorithm: algorithm.to_string(),
        group: group.to_string(),
        value: mean,
        range: (sd > 0.0).then_some((mean - sd, mean + sd)),
        note: None,
    })
}

/// One bar per algorithm in the given order; one legend entry per group.
fn algorithm_chart(
    f: &PaperFigure,
    where_: &str,
    bars: Vec<AlgorithmBar>,
    marks: Vec<Mark>,
) -> String {
    let mut groups: Vec<&str> = Vec::new();
    for b in &bars {
        if !groups.contains(&b.group.as_str()) {
            groups.push(&b.group);
        }
    }
    let series = groups
        .iter()
        .map(|g| BarSeries {
            name: format!("{g}, ours"),
            colour: group_colour(g),
            faded: false,
        })
        .collect();
    let bar_groups = bars
        .iter()
        .map(|b| BarGroup {
            label: b.algorithm.clone(),
            bars: vec![Bar {
                series: groups.iter().position(|g| *g == b.group).unwrap_or(0),
                value: b.value,
                range: b.range,
                note: b.note.clone(),
            }],
        })
        .collect();
    svg::grouped_bars(&BarChart {
        title: format!(
            "Fig. {} ({where_}): {}",
            f.number,
            f.caption.trim_end_matches('.')
        ),
        x_label: "algorithm".into(),
        y_label: f.y_label.into(),
        series,
        groups: bar_groups,
        marks,
    })
}

/// The caption every Study 003 figure shares: the paper's figure, what is
/// drawn, where ours ran, and the paper's statements with our verdicts.
fn caption(f: &PaperFigure, drawn: &str, ran_on: &str, findings: &[Finding]) -> String {
    format!(
        "Paper's Fig. {}, “{}” The paper's bar chart prints no values, so the bars are ours alone: {drawn}, on {}. \
         Colours as in the paper: AEAD blue, HMAC red, EtM green.{}",
        f.number,
        esc(f.caption),
        esc(ran_on),
        statements_on(findings, f.number, f.also)
    )
}

/// A scheme's name without its group prefix ("hmac:hmac-sha256" → "hmac-sha256").
fn short_scheme(scheme: &str) -> &str {
    scheme.split_once(':').map_or(scheme, |(_, name)| name)
}

fn host_figures(r: &Report) -> String {
    let paper_ratio = r.paper.overhead_ratio_approx;
    let ratio_line = Mark::Line {
        at: paper_ratio,
        label: format!("paper: ≈ {paper_ratio}× for most"),
        colour: "#444",
    };
    host_figure(r, &FIG_9, &|s| s.us_per_byte.clone(), vec![], "")
        + &host_figure(r, &FIG_10, &Series::cost_per_bit, vec![], "")
        + &host_figure(
            r,
            &FIG_11,
            &|s| s.overhead_ratio_appendix_b.clone(),
            vec![ratio_line],
            " The dashed line is the paper's “about two times larger” (section 6); ours count Appendix B's iv, tag and data fields.",
        )
}

/// One host figure: per scheme, the mean of `values` over the chain lengths.
fn host_figure(
    r: &Report,
    f: &PaperFigure,
    values: &dyn Fn(&Series) -> Vec<f64>,
    marks: Vec<Mark>,
    note: &str,
) -> String {
    let bars = r
        .series
        .iter()
        .filter_map(|s| mean_bar(short_scheme(&s.scheme), &s.group, &values(s)))
        .collect();
    let drawn = format!(
        "the mean over {} chain lengths, error bars ± one standard deviation over them (the paper's error bars show the same spread)",
        r.chain_lengths.len()
    );
    figure(
        &algorithm_chart(f, "host", bars, marks),
        &(caption(f, &drawn, &r.ran_on, &r.findings) + note),
    )
}

/// A device row's µs per byte at each chain length.
fn per_byte(points: &[(usize, f64)]) -> Vec<f64> {
    points
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|&(n, us)| us / n as f64)
        .collect()
}

fn device_figures(r: &DeviceReport) -> String {
    let measured: Vec<_> = r
        .rows
        .iter()
        .filter(|row| row.group != "none" && row.error.is_none())
        .collect();
    let failed = |kat_passed: bool| (!kat_passed).then(|| "KAT failed".to_string());
    // Fig. 9 in µs per byte, Fig. 10 the same per bit of security; the bar
    // is the row's own figure, the error bar the spread over chain lengths.
    let spread_bars = |per_bit: bool| -> Vec<AlgorithmBar> {
        measured
            .iter()
            .filter_map(|row| {
                let (value, k) = if per_bit {
                    (row.cost_per_bit?, 1.0 / row.security_bits.max(1) as f64)
                } else {
                    (row.us_per_byte?, 1.0)
                };
                let values: Vec<f64> = per_byte(&row.points).iter().map(|v| v * k).collect();
                let mut bar = mean_bar(&row.algorithm, &row.group, &values)?;
                bar.value = value;
                bar.note = failed(row.kat_passed);
                Some(bar)
            })
            .collect()
    };
    let sizes: Vec<AlgorithmBar> = measured
        .iter()
        .filter_map(|row| {
            Some(AlgorithmBar {
                algorithm: row.algorithm.clone(),
                group: row.group.clone(),
                value: row.program_size_bytes? as f64,
                range: None,
                note: failed(row.kat_passed),
            })
        })
        .collect();
    let drawn_time =
        "the mean over the chain lengths, error bars ± one standard deviation over them";
    let mut out = String::new();
    out.push_str(&figure(
        &algorithm_chart(&FIG_9, "device", spread_bars(false), vec![]),
        &caption(&FIG_9, drawn_time, &r.ran_on, &r.findings),
    ));
    out.push_str(&figure(
        &algorithm_chart(&FIG_10, "device", spread_bars(true), vec![]),
        &caption(&FIG_10, drawn_time, &r.ran_on, &r.findings),
    ));
    let mut text = caption(
        &FIG_12,
        "flash bytes each build adds over our no-security build",
        &r.ran_on,
        &r.findings,
    );
    text.push_str(&format!(
        " Shaded: the paper's additions, “{}”; grey dashed line: the paper's no-security build of {} B{}.",
        esc(&r.paper.compile_size_addition_bytes),
        r.paper.compile_size_baseline_bytes,
        if r.rows.iter().any(|row| row.baseline_program_bytes.is_some()) {
            ", black: ours"
        } else {
            ""
        }
    ));
    out.push_str(&figure(
        &algorithm_chart(&FIG_12, "device", sizes, program_size_marks(r)),
        &text,
    ));
    out
}

/// The paper's range of additions as a band, its no-security build and ours as lines.
fn program_size_marks(r: &DeviceReport) -> Vec<Mark> {
    let (from, to) = PAPER_ADDITION_BYTES;
    let mut marks = vec![
        Mark::Band {
            from,
            to,
            label: "paper: additions ≈ 7500-10000 B".into(),
        },
        Mark::Line {
            at: r.paper.compile_size_baseline_bytes as f64,
            label: format!(
                "paper: no-security build {} B",
                r.paper.compile_size_baseline_bytes
            ),
            colour: "#444",
        },
    ];
    if let Some(base) = r.rows.iter().find_map(|row| row.baseline_program_bytes) {
        marks.push(Mark::Line {
            at: base as f64,
            label: format!("ours: no-security build {base} B"),
            colour: "#000",
        });
    }
    marks
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use studies::tiny_security::{judge, paper};

    use super::*;

    fn series(scheme: &str, group: &str, bits: u32, us_per_byte: Vec<f64>) -> Series {
        Series {
            scheme: scheme.into(),
            group: group.into(),
            bits_study003: bits,
            reading_bytes: vec![66.0, 98.0, 131.0],
            us_per_byte,
            overhead_ratio: vec![2.0; 3],
            overhead_ratio_appendix_b: vec![1.5, 1.4, 1.3],
            insecure: vec![],
            etm_cipher: None,
        }
    }

    fn host_report() -> Report {
        let paper = paper().unwrap();
        let series = vec![
            series("hmac:hmac-sha256", "HMAC", 256, vec![1.0, 2.0, 3.0]),
            series(
                "etm:aes-128-ecb+hmac-sha256",
                "EtM",
                256,
                vec![3.0, 3.0, 3.0],
            ),
            series("aead:acorn-128", "AEAD", 128, vec![0.5, 0.5, 0.5]),
        ];
        Report {
            ran_on: "a test host".into(),
            findings: judge(&paper, &series),
            paper,
            iterations: 1,
            chain_lengths: vec![1, 3, 5],
            series,
            groups: vec![],
            quick: true,
        }
    }

    fn figures(html: &str) -> Vec<&str> {
        html.split("</figure>")
            .filter(|f| f.contains("<svg"))
            .collect()
    }

    #[test]
    fn host_figures_9_to_11_are_ours_with_the_papers_statements() {
        let html = render(&host_report());
        assert_eq!(html.matches("<svg").count(), 3);
        let figs = figures(&html);
        for (fig, number) in figs.iter().zip([9, 10, 11]) {
            let caption = fig.split("<figcaption").nth(1).unwrap();
            assert!(caption.contains(&format!("Fig. {number},")), "{number}");
            assert!(caption.contains("prints no values") && caption.contains("a test host"));
            for legend in ["HMAC, ours", "EtM, ours", "AEAD, ours"] {
                assert!(fig.contains(&format!(">{legend}</text>")), "{legend}");
            }
            assert_eq!(fig.matches("</rect>").count(), 3, "one bar per scheme");
        }
        // Statements with their verdicts: Fig. 9's own and those of section 6.
        for id in [
            "aead_fastest",
            "acorn_fastest",
            "sha3_512_faster_than_sha512",
        ] {
            assert!(figs[0].contains(&format!("<code>{id}</code>")), "{id}");
        }
        assert!(figs[1].contains("<code>aes128_aead_highest_cost_per_bit</code>"));
        assert!(figs[2].contains("<code>hmac_smallest_overhead</code>"));
        assert!(figs[0].contains("class=\"verdict agrees\">agrees</span>"));
        // HMAC-SHA-256: mean 2 µs/B, error bar over 1..3; per bit of 256.
        assert!(figs[0].contains("<title>HMAC, ours, hmac-sha256: 2.00</title>"));
        assert_eq!(figs[0].matches("class=\"error-bar\"").count(), 1);
        assert!(figs[1].contains("<title>HMAC, ours, hmac-sha256: 0.008</title>"));
        // Fig. 11 carries the paper's "about two times" as a line.
        assert!(figs[2].contains(">paper: ≈ 2× for most</text>"));
    }

    fn device_row(algorithm: &str, group: &str, flash: i64, kat: bool) -> serde_json::Value {
        json!({
            "target": "atmega1284p", "algorithm": algorithm, "group": group,
            "security_bits": 128, "us_per_byte": 40.0, "us_per_byte_spread": 20.0,
            "security_us_per_byte": 30.0, "cost_per_bit": 40.0 / 128.0,
            "program_size_bytes": flash, "baseline_program_bytes": 6000,
            "kat_passed": kat, "error": null,
            "points": [[100, 3000.0], [200, 10000.0]],
        })
    }

    fn device_report() -> DeviceReport {
        serde_json::from_value(json!({
            "ran_on": "the ATmega1284P at 8 MHz, simulated",
            "target": "atmega1284p",
            "paper": paper().unwrap(),
            "rows": [
                device_row("none", "none", 0, true),
                device_row("aes-128-gcm", "AEAD", 8000, true),
                device_row("hmac-sha512", "HMAC", 16000, false),
            ],
            "groups": [],
            "findings": [],
        }))
        .unwrap()
    }

    #[test]
    fn device_figures_9_10_and_12_with_the_papers_program_sizes() {
        let html = render_device(&device_report());
        assert_eq!(html.matches("<svg").count(), 3);
        let figs = figures(&html);
        for (fig, number) in figs.iter().zip([9, 10, 12]) {
            assert!(fig.contains(&format!("Paper's Fig. {number},")), "{number}");
            assert!(fig.contains("simulated"));
            // The no-security baseline is the reference, not a bar.
            assert!(!fig.contains(">none</text>"));
            assert!(fig.contains(">KAT failed</text>"));
        }
        // Per byte: 30 and 50 µs/B at the two lengths, mean 40, ± sd.
        assert!(figs[0].contains("<title>AEAD, ours, aes-128-gcm: 40.0</title>"));
        assert_eq!(figs[0].matches("class=\"error-bar\"").count(), 2);
        assert!(figs[2].contains("<title>HMAC, ours, hmac-sha512: 16000</title>"));
        for legend in [
            "paper: additions ≈ 7500-10000 B",
            "paper: no-security build 9408 B",
            "ours: no-security build 6000 B",
            "AEAD, ours",
        ] {
            assert!(figs[2].contains(&format!(">{legend}</text>")), "{legend}");
        }
    }
}
