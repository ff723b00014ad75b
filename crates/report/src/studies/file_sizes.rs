//! Study 002: Figs. 5-7 redrawn with our times, and Tables III, IV and VI
//! beside ours.

use std::collections::BTreeMap;

use studies::file_sizes::{MIB, Report};

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Line, Plot, Scale, Stroke};

pub fn render(r: &Report) -> String {
    let mut t = Table::new(&[
        "cipher",
        "mode",
        "backend",
        "size MiB",
        "ours s",
        "MB/s",
        "CPU %",
        "Pi 3 s (paper)",
        "speed-up",
    ]);
    for row in &r.rows {
        t.rows.push(vec![
            esc(&row.cipher),
            esc(&row.mode),
            esc(&row.backend),
            (row.size_bytes >> 20).to_string(),
            num(row.seconds),
            num(row.throughput_mb_s),
            row.cpu_percent.map_or("-".into(), num),
            row.paper_pi3_seconds.map_or("illegible".into(), num),
            row.speedup_vs_pi3
                .map_or("-".into(), |x| format!("{}×", num(x))),
        ]);
    }
    let mut s: String = PAPER_FIGURES.iter().map(|f| paper_figure(r, f)).collect();
    s.push_str(&format!("<div class=\"wide\">{}</div>", t.render()));
    for skipped in &r.skipped {
        s.push_str(&format!("<p class=\"note\">Skipped {}</p>", esc(skipped)));
    }
    s
}

/// One of the paper's Figs. 5-7: the Pi 3's times of one table.
struct PaperFigure {
    number: u32,
    /// `Row::mode` and the table of `PaperSeconds`: "ecb", "cbc" or "stream".
    mode: &'static str,
    /// The paper's caption, verbatim.
    caption: &'static str,
}

const PAPER_FIGURES: [PaperFigure; 3] = [
    PaperFigure {
        number: 5,
        mode: "ecb",
        caption: "Execution Quickness Comparison of Block Ciphers in ECB Mode between Raspberry Pi 3 and Beagle Bone Black",
    },
    PaperFigure {
        number: 6,
        mode: "cbc",
        caption: "Execution Quickness Comparison of Block Ciphers in CBC Mode between Raspberry Pi 3 and Beagle Bone Black",
    },
    PaperFigure {
        number: 7,
        mode: "stream",
        caption: "Execution Quickness Comparison of Stream Ciphers between Raspberry Pi 3 and Beagle Bone Black",
    },
];

fn paper_table<'a>(r: &'a Report, mode: &str) -> &'a BTreeMap<String, Vec<Option<f64>>> {
    match mode {
        "ecb" => &r.paper.seconds.ecb,
        "cbc" => &r.paper.seconds.cbc,
        _ => &r.paper.seconds.stream,
    }
}

/// The paper's legible times of one cipher against file size in MiB.
fn paper_points(r: &Report, times: &[Option<f64>]) -> Vec<(f64, f64)> {
    r.paper
        .sizes_mib
        .iter()
        .zip(times)
        .filter_map(|(&mib, s)| s.map(|s| (mib as f64, s)))
        .collect()
}

/// Our times of one cipher and mode against file size in MiB.
fn our_points(r: &Report, cipher: &str, mode: &str) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = r
        .rows
        .iter()
        .filter(|row| row.cipher == cipher && row.mode == mode)
        .map(|row| (row.size_bytes as f64 / MIB as f64, row.seconds))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    points
}

/// One colour per cipher: the paper's line dashed, ours solid.
fn paper_figure(r: &Report, f: &PaperFigure) -> String {
    let table = paper_table(r, f.mode);
    let mut ciphers: Vec<&str> = table.keys().map(String::as_str).collect();
    for row in r.rows.iter().filter(|row| row.mode == f.mode) {
        if !ciphers.contains(&row.cipher.as_str()) {
            ciphers.push(&row.cipher);
        }
    }
    let mut lines = Vec::new();
    for (i, cipher) in ciphers.iter().enumerate() {
        let line = |who: &str, stroke, points| Line {
            name: format!("{cipher} {who}"),
            class: String::new(),
            colour: svg::colour(i),
            stroke,
            points,
        };
        if let Some(times) = table.get(*cipher) {
            lines.push(line("paper (Pi 3)", Stroke::Dashed, paper_points(r, times)));
        }
        lines.push(line("ours", Stroke::Solid, our_points(r, cipher, f.mode)));
    }
    let chart = svg::lines(&Plot {
        title: format!(
            "Fig. {}: execution time against file size, {}",
            f.number,
            mode_words(f.mode)
        ),
        x_label: "file size (MiB)".into(),
        y_label: "execution time (s)".into(),
        x_scale: Scale::Log,
        y_scale: Scale::Log,
        lines,
    });
    let caption = format!(
        "Paper's Fig. {}, “{}”. Dashed: the paper's Raspberry Pi 3 times (its tables; cells illegible in the only copy are left out, and the BeagleBone Black's are not drawn). \
         Solid: ours, on {}, the cipher alone without the paper's file reading and writing. One colour per cipher; both axes logarithmic.{}",
        f.number,
        esc(f.caption),
        esc(&r.ran_on),
        statements_on(&r.findings, f.number, &[])
    );
    figure(&chart, &caption)
}

fn mode_words(mode: &str) -> &'static str {
    match mode {
        "ecb" => "block ciphers in ECB",
        "cbc" => "block ciphers in CBC",
        _ => "stream ciphers",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use studies::file_sizes::{Row, paper};

    use super::*;

    fn row(cipher: &str, mode: &str, mib: u64, seconds: f64) -> Row {
        Row {
            cipher: cipher.into(),
            mode: mode.into(),
            algorithm: String::new(),
            backend: "rustcrypto".into(),
            size_bytes: mib * MIB,
            seconds,
            repeats: 1,
            throughput_mb_s: 0.0,
            cpu_percent: None,
            heap_peak_bytes: None,
            memory_percent: None,
            paper_pi3_seconds: None,
            speedup_vs_pi3: None,
        }
    }

    /// The paper's tables and three rows of ours; the environment is not drawn.
    fn report(rows: Vec<Row>) -> Report {
        let environment = json!({
            "cpu_model": "test", "arch": "x86_64", "cores_logical": 1, "cpu_flags": [],
            "os": "linux", "kernel": "6", "rustc": "1", "build_profile": "debug",
            "ciphermeter_version": "0", "crypto_crates": [], "providers": [],
            "timers": {"monotonic_resolution_ns": 1.0, "perf_event": "no"},
            "heap_counting": false, "time_utc": "2024-01-01T00:00:00Z"
        });
        serde_json::from_value(json!({
            "schema": "test", "ran_on": "a test host", "paper": paper().unwrap(),
            "findings": [], "environment": environment, "buffer_bytes": 65536,
            "max_rss_bytes": null, "interrupted": false, "skipped": [], "rows": rows,
        }))
        .unwrap()
    }

    #[test]
    fn figures_5_to_7_draw_the_papers_legible_times_and_ours() {
        let r = report(vec![
            row("twofish", "ecb", 2, 0.01),
            row("twofish", "ecb", 1, 0.005),
            row("chacha20", "stream", 1, 0.002),
        ]);
        let html = render(&r);
        assert_eq!(html.matches("<svg").count(), 3);
        let captions: Vec<&str> = html.split("<figcaption").skip(1).collect();
        for (caption, number) in captions.iter().zip(5..=7) {
            assert!(caption.contains(&format!("Fig. {number},")), "{number}");
            assert!(caption.contains("a test host"));
        }
        let figures: Vec<&str> = html.split("</figure>").collect();
        for legend in ["twofish paper (Pi 3)", "twofish ours"] {
            assert!(
                figures[0].contains(&format!(">{legend}</text>")),
                "{legend}"
            );
        }
        // Ours: two sizes in ECB, drawn in size order, solid.
        let ours = figures[0]
            .split("<title>twofish ours</title>")
            .nth(1)
            .unwrap();
        let points = ours
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 2);
        assert!(!ours.split("/>").next().unwrap().contains("dasharray"));
        // The paper's illegible cells are left out: one point per legible cell.
        let legible = r.paper.seconds.stream["rc4"].iter().flatten().count();
        assert!(legible < r.paper.sizes_mib.len());
        let rc4 = figures[2]
            .split("<title>rc4 paper (Pi 3)</title>")
            .nth(1)
            .unwrap();
        let points = rc4
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), legible);
    }
}
