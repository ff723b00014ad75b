//! Study 001: Figs. 4-11 redrawn relative to scheme 1, and Tables IV and V
//! beside ours.

use studies::serialization::{PaperRow, Report, Row, reduction};

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Bar, BarChart, BarGroup, BarSeries, Mark};

pub fn render(r: &Report) -> String {
    let mut s: String = PAPER_FIGURES.iter().map(|f| paper_figure(r, f)).collect();
    for (title, encrypt) in [("Table IV: encrypt", true), ("Table V: decrypt", false)] {
        let paper = if encrypt {
            &r.paper.encrypt
        } else {
            &r.paper.decrypt
        };
        let mut t = Table::new(&[
            "No",
            "cipher",
            "mode",
            "ours S1 ns",
            "ours S4 ns",
            "ours red. %",
            "paper S1 ns",
            "paper S4 ns",
            "paper red. %",
        ]);
        for (row, p) in r.rows.iter().zip(paper) {
            let ours = if encrypt {
                &row.encrypt_total_ns
            } else {
                &row.decrypt_total_ns
            };
            t.rows.push(vec![
                p.no.to_string(),
                esc(&p.cipher),
                esc(&p.mode_printed),
                num(ours[0]),
                num(ours[3]),
                num(reduction(ours)),
                num(p.total_ns[0]),
                num(p.total_ns[3]),
                num(p.reduction_pct),
            ]);
        }
        s.push_str(&format!(
            "<h4>{}</h4><div class=\"wide\">{}</div>",
            esc(title),
            t.render()
        ));
    }
    s
}

/// One of the paper's Figs. 4-11: one cipher, encryption or decryption.
struct PaperFigure {
    number: u32,
    /// As the paper's tables name it (`PaperRow::cipher`).
    cipher: &'static str,
    encrypt: bool,
    /// The paper's caption, verbatim.
    caption: &'static str,
}

const PAPER_FIGURES: [PaperFigure; 8] = [
    PaperFigure {
        number: 4,
        cipher: "AES-256",
        encrypt: true,
        caption: "AES-256 Encryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 5,
        cipher: "AES-256",
        encrypt: false,
        caption: "AES-256 Decryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 6,
        cipher: "Blowfish",
        encrypt: true,
        caption: "BlowFish Encryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 7,
        cipher: "Blowfish",
        encrypt: false,
        caption: "BlowFish Decryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 8,
        cipher: "Serpent",
        encrypt: true,
        caption: "Serpent Encryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 9,
        cipher: "Serpent",
        encrypt: false,
        caption: "Serpent Decryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 10,
        cipher: "Rijndael-256",
        encrypt: true,
        caption: "Rijndael Encryption Time Comparison (ns)",
    },
    PaperFigure {
        number: 11,
        cipher: "Rijndael-256",
        encrypt: false,
        caption: "Rijndael Decryption Time Comparison (μs)",
    },
];

/// The paper's four serialization schemes, in the order of `total_ns`.
const SCHEMES: [&str; 4] = ["JSON pretty", "JSON minified", "YAML", "YAML minified"];

/// Times as % of scheme 1's; None when scheme 1's time is not positive.
fn relative_to_scheme_1(totals: &[f64; 4]) -> Option<[f64; 4]> {
    (totals[0] > 0.0).then(|| totals.map(|t| t / totals[0] * 100.0))
}

/// Series 2s is the paper's scheme s (pale), 2s + 1 ours, in the scheme's colour.
fn scheme_series() -> Vec<BarSeries> {
    SCHEMES
        .iter()
        .enumerate()
        .flat_map(|(s, name)| {
            [("paper", true), ("ours", false)].map(|(who, faded)| BarSeries {
                name: format!("S{} {name}, {who}", s + 1),
                colour: svg::colour(s),
                faded,
            })
        })
        .collect()
}

/// One mode's bars: per scheme, the paper's beside ours.
fn mode_group(paper: &PaperRow, ours: &Row, encrypt: bool) -> BarGroup {
    let ours_ns = if encrypt {
        &ours.encrypt_total_ns
    } else {
        &ours.decrypt_total_ns
    };
    let (p, o) = (
        relative_to_scheme_1(&paper.total_ns),
        relative_to_scheme_1(ours_ns),
    );
    let bars = (0..SCHEMES.len())
        .flat_map(|s| {
            [(2 * s, p.map(|v| v[s])), (2 * s + 1, o.map(|v| v[s]))]
                .into_iter()
                .filter_map(|(series, value)| {
                    value.map(|value| Bar {
                        series,
                        value,
                        range: None,
                        note: None,
                    })
                })
        })
        .collect();
    BarGroup {
        label: paper.mode_printed.clone(),
        bars,
    }
}

fn paper_figure(r: &Report, f: &PaperFigure) -> String {
    let paper = if f.encrypt {
        &r.paper.encrypt
    } else {
        &r.paper.decrypt
    };
    let groups = paper
        .iter()
        .zip(&r.rows)
        .filter(|(p, _)| p.cipher == f.cipher)
        .map(|(p, ours)| mode_group(p, ours, f.encrypt))
        .collect();
    let chart = svg::grouped_bars(&BarChart {
        title: format!("Fig. {}: {}, relative to scheme 1", f.number, f.caption),
        x_label: "cipher mode (as the paper prints it)".into(),
        y_label: "time, % of scheme 1 (JSON pretty)".into(),
        series: scheme_series(),
        groups,
        marks: vec![Mark::Line {
            at: 100.0,
            label: "scheme 1 = 100 %".into(),
            colour: "#444",
        }],
    });
    let caption = format!(
        "Paper's Fig. {}, “{}”: total {} time of the four samples per mode and serialization scheme ({}). \
         Redrawn as time relative to scheme 1 (JSON pretty = 100 %) because the paper ran on an Orange Pi Zero and we on {}: \
         absolute times differ by orders of magnitude, so only the ratios compare. \
         Pale dashed bars are the paper's, solid bars ours, one colour per scheme.{}",
        f.number,
        esc(f.caption),
        if f.encrypt {
            "encryption"
        } else {
            "decryption"
        },
        if f.encrypt { "Table IV" } else { "Table V" },
        esc(&r.ran_on),
        statements_on(&r.findings, f.number, &[])
    );
    figure(&chart, &caption)
}

#[cfg(test)]
mod tests {
    use studies::serialization::{Report, Row, paper};

    use super::*;

    /// The paper's rows with made-up times of ours: scheme 4 at half of scheme 1.
    fn report() -> Report {
        let paper = paper().unwrap();
        let rows = paper
            .encrypt
            .iter()
            .map(|p| Row {
                no: p.no,
                cipher: p.cipher.clone(),
                mode: p.mode_printed.clone(),
                catalogue_id: String::new(),
                encrypt_total_ns: [1000.0, 900.0, 800.0, 500.0],
                decrypt_total_ns: [2000.0, 2000.0, 2000.0, 2000.0],
            })
            .collect();
        Report {
            ran_on: "a test <host>".into(),
            paper,
            scheme_sample_bytes: vec![],
            scheme_names: vec![],
            rows,
            quick: true,
            findings: vec![],
        }
    }

    #[test]
    fn eight_figures_of_relative_times_paper_beside_ours() {
        let html = render(&report());
        assert_eq!(html.matches("<svg").count(), 8);
        let captions: Vec<&str> = html.split("<figcaption").skip(1).collect();
        for (caption, number) in captions.iter().zip(4..=11) {
            assert!(caption.contains(&format!("Fig. {number},")), "{number}");
            assert!(caption.contains("a test &lt;host&gt;") && caption.contains("100 %"));
        }
        for legend in ["S1 JSON pretty, paper", "S4 YAML minified, ours"] {
            assert!(html.contains(&format!(">{legend}</text>")), "{legend}");
        }
        // Fig. 4, AES-256: three modes of four schemes, the paper's bar and ours each.
        let fig4 = html.split("</figure>").next().unwrap();
        assert_eq!(fig4.matches("</rect>").count(), 3 * 4 * 2);
        assert!(fig4.contains("<title>S4 YAML minified, ours, ECB: 50.0</title>"));
        let fig5 = html.split("</figure>").nth(1).unwrap();
        assert!(fig5.contains("<title>S3 YAML, ours, CTR: 100</title>"));
    }

    #[test]
    fn a_zero_scheme_1_time_leaves_the_bars_out() {
        assert_eq!(relative_to_scheme_1(&[0.0, 1.0, 1.0, 1.0]), None);
        assert_eq!(
            relative_to_scheme_1(&[200.0, 100.0, 50.0, 300.0]),
            Some([100.0, 50.0, 25.0, 150.0])
        );
    }
}
