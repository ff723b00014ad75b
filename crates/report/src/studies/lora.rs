//! Study 004: time on air by SF and size (Fig. 6), and per algorithm.

use studies::lora::{AlgorithmRow, Report};

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Bar, BarChart, BarGroup, BarSeries, Line, Mark, Plot, Scale, Stroke};

pub fn render(r: &Report) -> String {
    let mut head = vec!["bytes".to_string()];
    head.extend(r.spreading_factors.iter().map(|sf| format!("SF{sf} ms")));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for row in &r.sizes {
        let mut cells = vec![row.bytes.to_string()];
        cells.extend(row.cells.iter().map(|c| c.ms.map_or("error".into(), num)));
        t.rows.push(cells);
    }
    let mut a = Table::new(&[
        "algorithm",
        "variant",
        "bytes on air",
        "SF7 ms",
        "SF12 ms",
        "expansion",
    ]);
    for x in r.algorithms.iter().chain([&r.plaintext]) {
        a.rows.push(vec![
            esc(&x.label),
            esc(&x.id),
            x.on_air.to_string(),
            x.sf7.ms.map_or("error".into(), num),
            x.sf12.ms.map_or("error".into(), num),
            esc(&x.how),
        ]);
    }
    format!(
        "{}<div class=\"wide\">{}</div><h4>A {}-byte message under each algorithm</h4>{}<div class=\"wide\">{}</div>",
        figure_6(r),
        t.render(),
        r.message_bytes,
        algorithms_figure(r),
        a.render()
    )
}

/// Fig. 6: one line per spreading factor, time on air against data size.
fn figure_6(r: &Report) -> String {
    let lines = r
        .spreading_factors
        .iter()
        .enumerate()
        .map(|(k, sf)| Line {
            name: format!("SF{sf}, ours"),
            class: String::new(),
            colour: svg::colour(k),
            stroke: Stroke::Solid,
            points: r
                .sizes
                .iter()
                .filter_map(|row| Some((row.bytes as f64, row.cells.get(k)?.ms?)))
                .collect(),
        })
        .collect();
    let chart = svg::lines(&Plot {
        title: "Fig. 6: time on air according to data size, SF5 to SF12 at 125 kHz".into(),
        x_label: "data size (bytes)".into(),
        y_label: "time on air (ms, log scale)".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        lines,
    });
    let caption = format!(
        "Paper's Fig. 6, “Time on Air (ToA) according to different data sizes”, from its Equation 1 at 125 kHz. \
         The paper's plot prints no values, so the lines are ours alone: {}, CR 4/5, explicit header, CRC on; \
         a message over {} bytes is sent as several packets. The time axis is logarithmic.{}",
        esc(&r.ran_on),
        studies::lora::MAX_PACKET,
        statements_on(&r.findings, 6, &[])
    );
    figure(&chart, &caption)
}

/// One message under each algorithm: its SF12 time on air, bytes on air
/// written above the bar, the plaintext's time as the reference.
fn algorithms_figure(r: &Report) -> String {
    let bar = |x: &AlgorithmRow, series: usize| BarGroup {
        label: x.label.clone(),
        bars: x
            .sf12
            .ms
            .map(|ms| Bar {
                series,
                value: ms,
                range: None,
                note: Some(format!("{} B", x.on_air)),
            })
            .into_iter()
            .collect(),
    };
    let mut groups: Vec<BarGroup> = r.algorithms.iter().map(|x| bar(x, 0)).collect();
    groups.push(bar(&r.plaintext, 1));
    let marks = r
        .plaintext
        .sf12
        .ms
        .map(|ms| Mark::Line {
            at: ms,
            label: format!("plaintext alone, {} B", r.plaintext.on_air),
            colour: "#444",
        })
        .into_iter()
        .collect();
    let chart = svg::grouped_bars(&BarChart {
        title: format!(
            "A {}-byte message under each algorithm: time on air at SF12",
            r.message_bytes
        ),
        x_label: "algorithm (the paper's, then modern AEADs)".into(),
        y_label: "time on air at SF12 (ms)".into(),
        series: vec![
            BarSeries {
                name: "ours: encrypted, hashed or signed".into(),
                colour: svg::colour(0),
                faded: false,
            },
            BarSeries {
                name: "ours: plaintext".into(),
                colour: svg::colour(7),
                faded: false,
            },
        ],
        groups,
        marks,
    });
    let caption = format!(
        "Not a figure of the paper: what each of its algorithms (and modern AEADs) does to one {}-byte message on air, \
         as bytes on air (above each bar) and time on air at SF12, the factor the paper finds most size-sensitive (its message was {} bytes). \
         Ours: {}. The paper's Figs. 2-4 (code size, execution time for 100 bytes, execution time by data size) are device measurements: \
         <code>reproduce lora --target</code> draws them from a device cost table.",
        r.message_bytes,
        r.paper.message_bytes,
        esc(&r.ran_on)
    );
    figure(&chart, &caption)
}

#[cfg(test)]
mod tests {
    use studies::lora::{Options, run};

    use super::*;

    #[test]
    fn figure_6_has_a_line_per_spreading_factor_and_the_algorithms_their_bars() {
        let r = run(&Options {
            quick: true,
            bytes: 100,
        })
        .unwrap();
        let html = render(&r);
        assert_eq!(html.matches("<svg").count(), 2);
        let figs: Vec<&str> = html.split("</figure>").collect();
        assert!(figs[0].contains("Paper's Fig. 6,") && figs[0].contains(&esc(&r.ran_on)));
        assert!(figs[1].contains("Figs. 2-4") && figs[1].contains("reproduce lora --target"));
        // SF5..SF12, each over the quick run's sizes.
        let lines: Vec<&str> = figs[0].split("<polyline").skip(1).collect();
        assert_eq!(lines.len(), r.spreading_factors.len());
        assert_eq!(lines.len(), 8);
        for line in &lines {
            let points = line
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            assert_eq!(points.split(' ').count(), r.sizes.len());
        }
        assert!(figs[0].contains(">SF12, ours</text>"));
        // One bar per algorithm and the plaintext, bytes on air above each.
        let bars = r.algorithms.len() + 1;
        assert_eq!(figs[1].matches("</rect>").count(), bars);
        assert!(figs[1].contains(&format!(">{} B</text>", r.plaintext.on_air)));
        assert!(figs[1].contains(">plaintext alone, 100 B</text>"));
        let sf12 = r.plaintext.sf12.ms.unwrap();
        assert!(figs[1].contains(&format!("(plaintext): {}</title>", num(sf12))));
    }
}
