//! Study 000: Fig. 6 redrawn with the link model's times, and Tables 1-3 and 5
//! beside the model.

use studies::rf_transmission::Report;

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Line, Plot, Scale, Stroke};

pub fn render(r: &Report) -> String {
    let p = &r.paper;
    let mut t = Table::new(&[
        "#",
        "T paper B",
        "T",
        "C paper B",
        "C",
        "P paper B",
        "P",
        "Tc paper ms",
        "Tc model ms",
        "Tp paper ms",
        "Tp model ms",
    ]);
    for (i, row) in r.rows.iter().enumerate() {
        t.rows.push(vec![
            (i + 1).to_string(),
            num(p.plaintext_kb[i] * 1000.0),
            row.bytes[0].to_string(),
            num(p.ciphertext_kb[i] * 1000.0),
            row.bytes[1].to_string(),
            num(p.padded_kb[i] * 1000.0),
            row.bytes[2].to_string(),
            num(p.ciphertext_ms[i]),
            num(row.delivered_ms[1]),
            num(p.padded_ms[i]),
            num(row.delivered_ms[2]),
        ]);
    }
    format!(
        "{}<p>Padding saves {} % of the delivered time in the model; the paper says {} %.</p><div class=\"wide\">{}</div>",
        figure_6(r),
        num(r.model_padding_saving_pct),
        num(p.padding_saving_pct),
        t.render()
    )
}

/// The paper's letters for plaintext, ciphertext and padded ciphertext, in
/// the order of `uart_ms` and `delivered_ms`.
const KINDS: [&str; 3] = ["T", "C", "P"];

/// Fig. 6: transmission time per message for T, C and P. The paper's times
/// dashed, the model's UART write solid and its delivery dotted, one colour
/// per kind; the time axis is logarithmic because delivery includes the
/// radio's timeout, ten times the paper's times.
fn figure_6(r: &Report) -> String {
    let p = &r.paper;
    let paper = [&p.plaintext_ms, &p.ciphertext_ms, &p.padded_ms];
    let mut lines = Vec::new();
    for (k, letter) in KINDS.iter().enumerate() {
        let colour = svg::colour(k);
        let line = |who: &str, stroke, points| Line {
            name: format!("{letter} {who}"),
            class: String::new(),
            colour,
            stroke,
            points,
        };
        lines.push(line(
            "paper",
            Stroke::Dashed,
            numbered(paper[k].iter().copied()),
        ));
        lines.push(line(
            "ours: model, UART write",
            Stroke::Solid,
            numbered(r.rows.iter().map(|row| row.uart_ms[k])),
        ));
        lines.push(line(
            "ours: model, delivered",
            Stroke::Dotted,
            numbered(r.rows.iter().map(|row| row.delivered_ms[k])),
        ));
    }
    let chart = svg::lines(&Plot {
        title:
            "Fig. 6: transmission time of plaintext (T), ciphertext (C) and padded ciphertext (P)"
                .into(),
        x_label: "message (Table 1)".into(),
        y_label: "transmission time (ms, log scale)".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        lines,
    });
    let caption = format!(
        "Paper's Fig. 6, “Comparison of Transmission Time between Plaintext (T), Ciphertext (C) and Ciphertext with Padding (P)”, for its ten messages. \
         Dashed: the paper's times (its Tables 2 and 3, two Raspberry Pis with Slice of Radio modules). \
         Ours come from {}: solid is the time to write the message to the serial port at {} baud (what the paper's times track), \
         dotted the time until the last byte is delivered, including the {} ms timeout a partial last packet waits. \
         One colour per kind of message; the time axis is logarithmic.{}",
        esc(&r.ran_on),
        r.model.serial_baud,
        r.model.timeout_ms,
        statements_on(&r.findings, 6, &[])
    );
    figure(&chart, &caption)
}

/// Points against the message number, counted from 1 as the paper's tables do.
fn numbered(ms: impl Iterator<Item = f64>) -> Vec<(f64, f64)> {
    ms.enumerate().map(|(i, v)| ((i + 1) as f64, v)).collect()
}

#[cfg(test)]
mod tests {
    use studies::rf_transmission::{Options, run};

    use super::*;

    #[test]
    fn figure_6_draws_the_papers_times_and_the_models() {
        let r = run(&Options {
            quick: true,
            link: "slice-of-radio".into(),
            data_dir: None,
        })
        .unwrap();
        let html = render(&r);
        assert_eq!(html.matches("<svg").count(), 1);
        let caption = html.split("<figcaption").nth(1).unwrap();
        assert!(caption.contains("Fig. 6") && caption.contains(&esc(&r.ran_on)));
        for legend in [
            "T paper",
            "C ours: model, UART write",
            "P ours: model, delivered",
        ] {
            assert!(html.contains(&format!(">{legend}</text>")), "{legend}");
        }
        // Three kinds × (paper, UART, delivered), each over the ten messages.
        let lines: Vec<&str> = html.split("<polyline").skip(1).collect();
        assert_eq!(lines.len(), 9);
        for line in lines {
            let points = line
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            let points: Vec<&str> = points.split(' ').collect();
            assert_eq!(points.len(), 10, "{points:?}");
            // Messages 1 and 10 on a 0-10 axis 560 px wide from x = 70.
            assert!(points[0].starts_with("126.0,") && points[9].starts_with("630.0,"));
        }
    }
}
