//! Study 004 at device level: Figs. 2-4 redrawn from the target's device cost
//! table, encryption time against time on air per SF, then the time-on-air
//! figures (Fig. 6) of [`super::lora`].

use studies::lora_device::{Report, three_figures};

use crate::html::{Table, esc, num};
use crate::studies::{figure, statements_on};
use crate::svg::{self, Bar, BarChart, BarGroup, BarSeries, Line, Mark, Plot, Scale, Stroke};

pub fn render(r: &Report) -> String {
    let mut s = String::new();
    s.push_str(&figure_2(r));
    s.push_str(&figure_3(r));
    s.push_str(&format!(
        "<div class=\"wide\">{}</div>",
        algorithms_table(r).render()
    ));
    s.push_str(&figure_4(r));
    s.push_str(&format!("<p class=\"note\">{}.</p>", esc(&r.ram_rule)));
    s.push_str(&format!(
        "<h4>Encryption time against time on air, a {}-byte message</h4><div class=\"wide\">{}</div>",
        r.message_bytes,
        airtime_table(r).render()
    ));
    s.push_str(&super::lora::render(&r.airtime));
    s
}

/// "without numbers here: DES, IDEA (see the table for why)", or nothing.
fn lacking(r: &Report) -> String {
    let names: Vec<&str> = r
        .without_numbers()
        .into_iter()
        .map(|x| x.label.as_str())
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(
            " Without numbers on this target: {} (the table says why).",
            esc(&names.join(", "))
        )
    }
}

fn bars(title: String, y_label: &str, groups: Vec<BarGroup>, marks: Vec<Mark>) -> String {
    svg::grouped_bars(&BarChart {
        title,
        x_label: "algorithm (the paper's eleven)".into(),
        y_label: y_label.into(),
        series: vec![BarSeries {
            name: "ours".into(),
            colour: svg::colour(0),
            faded: false,
        }],
        groups,
        marks,
    })
}

fn bar(label: &str, value: f64, note: Option<String>) -> BarGroup {
    BarGroup {
        label: label.into(),
        bars: vec![Bar {
            series: 0,
            value,
            range: None,
            note,
        }],
    }
}

fn figure_2(r: &Report) -> String {
    let groups = r
        .rows
        .iter()
        .filter_map(|x| Some(bar(&x.label, x.code_size_bytes? as f64, None)))
        .collect();
    let chart = bars(
        format!("Fig. 2: code size on the {}", r.board.name),
        "flash added (bytes)",
        groups,
        Vec::new(),
    );
    let caption = format!(
        "Paper's Fig. 2, “Code Size”: ROM per algorithm. The paper's plot prints no values, so the bars are ours alone: \
         the flash each algorithm adds to our firmware's no-algorithm build, from {}.{}{}",
        esc(r.table.as_deref().unwrap_or("no table")),
        lacking(r),
        statements_on(&r.findings, 2, &[])
    );
    figure(&chart, &caption)
}

fn figure_3(r: &Report) -> String {
    let groups = r
        .with_numbers()
        .iter()
        .filter_map(|x| {
            let m = x.message.as_ref()?;
            Some(bar(&x.label, m.kb_per_s, Some(format!("{} µs", num(m.us)))))
        })
        .collect();
    let marks = vec![Mark::Line {
        at: r.airtime.paper.arduino_best_kb_per_s,
        label: format!(
            "paper: DES, MD5 at {} kB/s",
            r.airtime.paper.arduino_best_kb_per_s
        ),
        colour: "#444",
    }];
    let chart = bars(
        format!(
            "Fig. 3: {} bytes on the {} at {} MHz",
            r.message_bytes,
            r.board.name,
            r.board.clock_hz as f64 / 1e6
        ),
        "throughput (kB/s)",
        groups,
        marks,
    );
    let caption = format!(
        "Paper's Fig. 3, “Execution time for 100 Bytes of data”, as throughput with the time above each bar: \
         the table's cycle counts at the board's clock. The paper states only its best Arduino figure (the line) and \
         the Raspberry Pis' 1.5 MB/s, which needs a Pi (<code>bench</code> there, then <code>import</code>).{}{}",
        lacking(r),
        statements_on(&r.findings, 3, &[])
    );
    figure(&chart, &caption)
}

fn figure_4(r: &Report) -> String {
    let lines = r
        .with_numbers()
        .iter()
        .enumerate()
        .map(|(k, x)| Line {
            name: x.label.clone(),
            class: String::new(),
            colour: svg::colour(k),
            stroke: if x.sizes.iter().all(|t| t.fits_ram) {
                Stroke::Solid
            } else {
                Stroke::Dashed
            },
            points: x.sizes.iter().map(|t| (t.bytes as f64, t.us)).collect(),
        })
        .collect();
    let chart = svg::lines(&Plot {
        title: format!("Fig. 4: time by data size on the {}", r.board.name),
        x_label: "data size (bytes)".into(),
        y_label: "time (µs, log scale)".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Log,
        lines,
    });
    let last = r.setup.sizes.last().copied().unwrap_or(0);
    let caption = format!(
        "Paper's Fig. 4(c), “Execution time taking into account different data sizes” on the Arduino MKR1300, up to {last} bytes. \
         Ours alone (the plot prints no values); a dashed line marks an algorithm whose RAM need passes the board's {} bytes.{}{}",
        r.board.ram_bytes,
        lacking(r),
        statements_on(&r.findings, 4, &[])
    );
    figure(&chart, &caption)
}

fn algorithms_table(r: &Report) -> Table {
    let last = r.setup.sizes.last().copied().unwrap_or(0);
    let head = [
        "algorithm".to_string(),
        "device id".into(),
        "operation".into(),
        "code B".into(),
        "stack B".into(),
        "key setup µs".into(),
        format!("µs for {} B", r.message_bytes),
        "kB/s".into(),
        format!("RAM at {last} B"),
        "notes".into(),
    ];
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for x in &r.rows {
        let dash = || "-".to_string();
        let at = x.sizes.iter().find(|s| s.bytes == last);
        let mut notes = x.reason.clone().into_iter().collect::<Vec<_>>();
        notes.extend(x.notes.iter().cloned());
        t.rows.push(vec![
            esc(&x.label),
            x.device_id.as_deref().map_or_else(dash, esc),
            x.operation.as_deref().map_or_else(dash, esc),
            x.code_size_bytes.map_or_else(dash, |b| b.to_string()),
            x.stack_bytes.map_or_else(dash, |b| b.to_string()),
            x.keysetup_us.map_or_else(dash, num),
            x.message.as_ref().map_or_else(dash, |m| num(m.us)),
            x.message.as_ref().map_or_else(dash, |m| num(m.kb_per_s)),
            at.map_or_else(dash, |s| {
                format!(
                    "{} B{}",
                    s.ram_bytes,
                    if s.fits_ram { "" } else { " (does not fit)" }
                )
            }),
            esc(&notes.join("; ")),
        ]);
    }
    t
}

fn airtime_table(r: &Report) -> Table {
    let mut head = vec!["algorithm".to_string(), "bytes on air".into()];
    head.extend(r.setup.spreading_factors.iter().map(|sf| format!("SF{sf}")));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for x in r.rows.iter().filter(|x| !x.airtime.is_empty()) {
        let mut cells = vec![
            esc(&x.label),
            x.on_air_bytes.map_or("-".into(), |b| b.to_string()),
        ];
        cells.extend(x.airtime.iter().map(|a| match (a.ratio, &a.error) {
            (Some(v), _) => three_figures(v),
            (None, e) => format!("error: {}", esc(e.as_deref().unwrap_or("unknown"))),
        }));
        t.rows.push(cells);
    }
    let mut verdicts = vec![
        "verdict".to_string(),
        format!("within ×{}", r.setup.equal_within_factor),
    ];
    verdicts.extend(
        r.sf_verdicts
            .iter()
            .map(|v| format!("{}/{}: {}", v.within, v.of, esc(&v.verdict))),
    );
    t.rows.push(verdicts);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_2_to_4_and_the_airtime_ratio_come_from_the_report() {
        let r = studies::lora_device::run(
            device_facts::Target::CortexM0plus,
            &studies::lora::Options {
                quick: true,
                bytes: 100,
            },
        )
        .unwrap();
        let html = render(&r);
        for n in [2, 3, 4, 6] {
            assert!(html.contains(&format!("Paper's Fig. {n}")), "Fig. {n}");
        }
        // One bar per algorithm with numbers in Figs. 2 and 3, one line each in Fig. 4.
        let figs: Vec<&str> = html.split("</figure>").collect();
        let with = r.rows.iter().filter(|x| x.message.is_some()).count();
        assert!(with > 0);
        assert_eq!(figs[1].matches("</rect>").count(), with);
        assert_eq!(figs[2].split("<polyline").count() - 1, with);
        assert!(figs[1].contains(">paper: DES, MD5 at 500 kB/s</text>"));
        // Every one of the eleven has a table row: numbers or its reason.
        for x in &r.rows {
            assert!(
                html.contains(&format!("<td>{}</td>", esc(&x.label))),
                "{}",
                x.label
            );
            if let Some(why) = &x.reason {
                assert!(html.contains(&esc(why)), "{why}");
            }
        }
        let aes = r.rows.iter().find(|x| x.name == "AES").unwrap();
        let sf12 = aes.airtime.iter().find(|a| a.sf == 12).unwrap();
        assert!(html.contains(&three_figures(sf12.ratio.unwrap())));
    }
}
