//! The sealed-message path (study 003's framing) and what it costs in energy:
//! µs per message, overhead, cost per bit of security, CPU vs radio energy,
//! battery life, and the security/energy Pareto front.

use std::collections::BTreeMap;

use serde_json::Value;
use store::ResultRow;
use store::conventions::{ENERGY, FRAME, MESSAGE_UJ, US_PER_MESSAGE};

use crate::html::{Table, esc, num, status_badge, with_ci};
use crate::svg::{self, ScatterPoint, StackedBar};

fn f(row: &ResultRow, key: &str) -> Option<f64> {
    row.data.get(key).and_then(Value::as_f64)
}

fn s<'a>(row: &'a ResultRow, key: &str) -> &'a str {
    row.data.get(key).and_then(Value::as_str).unwrap_or("")
}

fn insecure(row: &ResultRow) -> bool {
    matches!(s(row, "status"), "legacy" | "broken")
}

fn scheme_html(row: &ResultRow) -> String {
    esc(&row.subject)
        + &status_badge(
            s(row, "status"),
            row.data.get("status_reason").and_then(Value::as_str),
        )
}

fn frame_rows(rows: &[ResultRow]) -> Vec<&ResultRow> {
    rows.iter()
        .filter(|r| r.section == FRAME && r.metric == US_PER_MESSAGE)
        .collect()
}

fn energy_rows(rows: &[ResultRow]) -> Vec<&ResultRow> {
    rows.iter()
        .filter(|r| r.section == ENERGY && r.metric == MESSAGE_UJ)
        .collect()
}

pub fn sealing(rows: &[ResultRow]) -> String {
    let frames = frame_rows(rows);
    if frames.is_empty() {
        return "<p>No sealed-message measurements in this run.</p>".into();
    }
    let mut t = Table::new(&[
        "Scheme",
        "reading",
        "plaintext B",
        "sealed B",
        "overhead ratio",
        "µs/message [95% CI]",
        "security bits",
        "ns per bit of security",
        "µs/byte per bit (study 003 Fig. 10)",
    ]);
    for r in &frames {
        let bits = f(r, "security_bits").unwrap_or(0.0);
        let plain = f(r, "plaintext_bytes").unwrap_or(0.0);
        t.rows.push(vec![
            scheme_html(r),
            esc(&r.context),
            num(plain),
            f(r, "sealed_bytes").map(num).unwrap_or_default(),
            f(r, "overhead_ratio").map(num).unwrap_or_default(),
            esc(&with_ci(r.value, r.ci_low, r.ci_high)),
            num(bits),
            if bits > 0.0 {
                num(r.value * 1000.0 / bits)
            } else {
                "-".into()
            },
            if bits > 0.0 && plain > 0.0 {
                num(r.value / plain / bits)
            } else {
                "-".into()
            },
        ]);
    }
    // The chart shows the middle reading size; the table has them all.
    let mut sizes: Vec<f64> = frames
        .iter()
        .filter_map(|r| f(r, "plaintext_bytes"))
        .collect();
    sizes.sort_by(f64::total_cmp);
    let middle = sizes.get(sizes.len() / 2).copied();
    let bars: Vec<StackedBar> = frames
        .iter()
        .filter(|r| f(r, "plaintext_bytes") == middle)
        .map(|r| StackedBar {
            label: r.subject.clone(),
            dashed: insecure(r),
            segments: vec![r.value],
        })
        .collect();
    let title = format!(
        "Sealing time per message on this host, {} ({} B reading)",
        frames
            .iter()
            .find(|r| f(r, "plaintext_bytes") == middle)
            .map_or("", |r| r.context.as_str()),
        middle.map(num).unwrap_or_default()
    );
    format!(
        "{}{}<p class=\"note\">Host CPU time to seal one reading (nonce, encryption/MAC, container, transport encoding), key schedule done once beforehand as on a device. Overhead ratio = sealed bytes / plaintext bytes.</p>",
        svg::stacked_bars(&title, "µs", &["seal"], &bars),
        t.render()
    )
}

pub fn energy(rows: &[ResultRow]) -> String {
    let rows = energy_rows(rows);
    if rows.is_empty() {
        return "<p>No energy estimates in this run.</p>".into();
    }
    let mut out = String::new();
    // One chart per link: a BLE message and a LoRa one differ by orders of magnitude.
    let mut contexts: Vec<&str> = Vec::new();
    for r in &rows {
        if !contexts.contains(&r.context.as_str()) {
            contexts.push(&r.context);
        }
    }
    for ctx in &contexts {
        let here: Vec<&&ResultRow> = rows.iter().filter(|r| r.context == *ctx).collect();
        let bars: Vec<StackedBar> = here
            .iter()
            .map(|r| StackedBar {
                label: r.subject.clone(),
                dashed: insecure(r),
                segments: vec![
                    f(r, "cpu_uj").unwrap_or(0.0),
                    f(r, "tx_uj").unwrap_or(0.0),
                    f(r, "rx_uj").unwrap_or(0.0),
                ],
            })
            .collect();
        let first = here[0];
        out.push_str(&svg::stacked_bars(
            &format!(
                "Energy per message on {} ({}): CPU vs radio",
                s(first, "link"),
                s(first, "device")
            ),
            "µJ",
            &["CPU", "radio TX", "radio RX"],
            &bars,
        ));
    }
    // The finding first, then the rows, one table per link, folded.
    let answer = crate::summary::Answer::from_run(
        &rows.iter().map(|r| (*r).clone()).collect::<Vec<_>>(),
        &[],
    );
    let finding: String = answer
        .cpu_sentences()
        .iter()
        .map(|line| format!("<p class=\"answer\">{}</p>", esc(line)))
        .collect();
    out.insert_str(0, &finding);
    let mut tables = String::new();
    for ctx in &contexts {
        let mut t = Table::new(&[
            "Scheme",
            "device / link",
            "sealed B",
            "on air B",
            "frames",
            "time on air ms",
            "CPU µJ",
            "radio TX µJ",
            "radio RX µJ",
            "message µJ",
            "CPU share",
            "CPU time",
        ]);
        for r in rows.iter().filter(|r| r.context == *ctx) {
            t.rows.push(vec![
                scheme_html(r),
                esc(&format!("{} / {}", s(r, "device"), s(r, "link"))),
                f(r, "sealed_bytes").map(num).unwrap_or_default(),
                f(r, "on_air_bytes").map(num).unwrap_or_default(),
                f(r, "frames").map(num).unwrap_or_default(),
                f(r, "airtime_ms").map(num).unwrap_or_default(),
                f(r, "cpu_uj").map(num).unwrap_or_default(),
                f(r, "tx_uj").map(num).unwrap_or_default(),
                f(r, "rx_uj").map(num).unwrap_or_default(),
                num(r.value),
                f(r, "cpu_uj")
                    .map(|c| format!("{} %", num(c / r.value * 100.0)))
                    .unwrap_or_default(),
                esc(if s(r, "cpu_time_source").starts_with("device") {
                    "device (simulated)"
                } else {
                    "this host"
                }),
            ]);
        }
        tables.push_str(&format!("<h3>{}</h3>{}", esc(ctx), t.render()));
    }
    out.push_str(&format!(
        "<details><summary>Every scheme on every link: {} rows, one table per device and link</summary>{tables}</details>",
        rows.len()
    ));
    let mut sources: Vec<&str> = Vec::new();
    for src in rows.iter().map(|r| s(r, "cpu_time_source")) {
        if !sources.contains(&src) {
            sources.push(src);
        }
    }
    for src in sources {
        out.push_str(&format!("<p class=\"note\">CPU time: {}.</p>", esc(src)));
    }
    out.push_str("<p class=\"note\">A model estimate (energy profiles with their sources: <code>ciphermeter energy --list</code>), not a measurement. The reading is the middle study-003 chain.</p>");
    out
}

pub fn battery(rows: &[ResultRow]) -> String {
    let rows: Vec<&ResultRow> = energy_rows(rows)
        .into_iter()
        .filter(|r| f(r, "battery_days").is_some())
        .collect();
    if rows.is_empty() {
        return "<p>No battery estimate in this run.</p>".into();
    }
    let mut out = String::new();
    let mut links: Vec<&str> = Vec::new();
    for r in &rows {
        if !links.contains(&s(r, "link")) {
            links.push(s(r, "link"));
        }
    }
    let mut t = Table::new(&[
        "Scheme",
        "link",
        "battery",
        "one message every",
        "battery life (days)",
        "mean current µA",
    ]);
    for l in &links {
        let here: Vec<&&ResultRow> = rows.iter().filter(|r| s(r, "link") == *l).collect();
        let bars: Vec<StackedBar> = here
            .iter()
            .map(|r| StackedBar {
                label: r.subject.clone(),
                dashed: insecure(r),
                segments: vec![f(r, "battery_days").unwrap_or(0.0)],
            })
            .collect();
        out.push_str(&svg::stacked_bars(
            &format!(
                "Battery life on {} ({}, {})",
                l,
                s(here[0], "battery"),
                s(here[0], "device")
            ),
            "days",
            &["battery life"],
            &bars,
        ));
        for r in here {
            t.rows.push(vec![
                scheme_html(r),
                esc(s(r, "link")),
                esc(s(r, "battery")),
                f(r, "interval_s")
                    .map(|v| format!("{} s", num(v)))
                    .unwrap_or_default(),
                f(r, "battery_days").map(num).unwrap_or_default(),
                f(r, "average_current_ua")
                    .or_else(|| f(r, "average_ua"))
                    .map(num)
                    .unwrap_or_default(),
            ]);
        }
    }
    let finding: String = links
        .iter()
        .filter_map(|l| battery_sentence(&rows, l))
        .map(|line| format!("<p class=\"answer\">{}</p>", esc(&line)))
        .collect();
    out.insert_str(0, &finding);
    out.push_str(&format!(
        "<details><summary>Every scheme on every link: {} rows</summary>{}</details>",
        rows.len(),
        t.render()
    ));
    let mut notes: Vec<&str> = Vec::new();
    for note in rows
        .iter()
        .map(|r| s(r, "battery_note"))
        .filter(|n| !n.is_empty())
    {
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    for note in notes {
        out.push_str(&format!(
            "<p class=\"warn\">Battery life: {}.</p>",
            esc(note)
        ));
    }
    out
}

/// "On L, battery life ranges from A days (S) to B days (T) at one message every N s."
fn battery_sentence(rows: &[&ResultRow], link: &str) -> Option<String> {
    let here: Vec<(&ResultRow, f64)> = rows
        .iter()
        .filter(|r| s(r, "link") == link)
        .filter_map(|r| Some((*r, f(r, "battery_days")?)))
        .collect();
    let (lo_r, lo) = here.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let (hi_r, hi) = here.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let every = f(lo_r, "interval_s").map(|v| format!(" at one message every {} s", num(v)));
    Some(format!(
        "On {link} ({}, {}), battery life ranges from {} days ({}) to {} days ({}){}.",
        s(lo_r, "device"),
        s(lo_r, "battery"),
        num(lo),
        lo_r.subject,
        num(hi),
        hi_r.subject,
        every.unwrap_or_default()
    ))
}

/// Points no other point beats on both axes (less energy and at least as many bits).
pub fn frontier(points: &[(f64, f64)]) -> Vec<bool> {
    points
        .iter()
        .map(|&(e, b)| {
            !points
                .iter()
                .any(|&(e2, b2)| e2 <= e && b2 >= b && (e2 < e || b2 > b))
        })
        .collect()
}

pub fn pareto(rows: &[ResultRow]) -> String {
    let energy = energy_rows(rows);
    // One link: the first one the run costed (the user's --link).
    let link = energy.first().map(|r| r.context.clone());
    let mut best: BTreeMap<&str, &ResultRow> = BTreeMap::new();
    for r in energy.iter().filter(|r| Some(&r.context) == link.as_ref()) {
        let e = best.entry(r.subject.as_str()).or_insert(r);
        if r.value < e.value {
            *e = r;
        }
    }
    let (chosen, unit): (Vec<&ResultRow>, &str) = if best.is_empty() {
        (frame_rows(rows), "µs per message (host)")
    } else {
        (best.into_values().collect(), "energy per message (µJ)")
    };
    if chosen.is_empty() {
        return "<p>No sealed-message data in this run.</p>".into();
    }
    let xy: Vec<(f64, f64)> = chosen
        .iter()
        .map(|r| (r.value, f(r, "security_bits").unwrap_or(0.0)))
        .collect();
    // The front is drawn among the schemes one may use; legacy ones stay as red dots.
    let usable: Vec<(f64, f64)> = xy
        .iter()
        .zip(&chosen)
        .map(|(&(x, y), r)| {
            if insecure(r) {
                (f64::INFINITY, -1.0)
            } else {
                (x, y)
            }
        })
        .collect();
    let front: Vec<bool> = frontier(&usable)
        .into_iter()
        .zip(&chosen)
        .map(|(on, r)| on && !insecure(r))
        .collect();
    let points: Vec<ScatterPoint> = chosen
        .iter()
        .zip(&xy)
        .zip(&front)
        .map(|((r, &(x, y)), &on)| ScatterPoint {
            label: r.subject.clone(),
            x,
            y,
            on_frontier: on,
            insecure: insecure(r),
        })
        .collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].x.total_cmp(&points[b].x));
    let mut t = Table::new(&["Scheme", "security bits", unit, "on the front"]);
    for i in order {
        let p = &points[i];
        t.rows.push(vec![
            scheme_html(chosen[i]),
            num(p.y),
            num(p.x),
            if p.on_frontier {
                "yes".into()
            } else {
                String::new()
            },
        ]);
    }
    format!(
        "{}<p class=\"note\">{}Green: the Pareto front among recommended schemes (none gives as many bits for less energy). Red: legacy or broken, never on the front. Hover a point for its name.</p>{}",
        svg::pareto(
            "Security bits vs energy per message",
            unit,
            "security (bits)",
            &points
        ),
        link.map(|l| format!("Link: {}. ", esc(&l)))
            .unwrap_or_default(),
        t.render()
    )
}

#[cfg(test)]
mod tests {
    use super::frontier;

    #[test]
    fn the_front_keeps_only_undominated_points() {
        // (energy, bits): B dominates C (less energy, more bits); A and B trade off.
        let pts = [(1.0, 128.0), (2.0, 256.0), (3.0, 128.0), (2.0, 256.0)];
        assert_eq!(frontier(&pts), vec![true, true, false, true]);
    }
}
