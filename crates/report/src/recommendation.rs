//! The ranking of sealing schemes for the run's device and link, with the
//! winner's explanation, as `recommend` prints it.

use cost::ranking::RankingSummary;
use store::Artifact;
use store::conventions::RECOMMENDATION;

use crate::html::{Table, esc, num, status_badge};

pub fn render(artifacts: &[Artifact]) -> String {
    let Some(a) = artifacts.iter().find(|a| a.kind == RECOMMENDATION) else {
        return "<p>No recommendation in this run.</p>".into();
    };
    let summary = a
        .data
        .get("ranking")
        .map(|v| serde_json::from_value::<RankingSummary>(v.clone()));
    match summary {
        Some(Ok(r)) => ranking(&r),
        Some(Err(e)) => format!(
            "<p class=\"warn\">The stored ranking cannot be read: {}</p>",
            esc(&e.to_string())
        ),
        None => "<p class=\"warn\">No ranking was stored.</p>".into(),
    }
}

fn ranking(r: &RankingSummary) -> String {
    let mut s = format!(
        "<p>Sealing schemes for <b>{}</b> over <b>{}</b> carrying <code>{}</code>, at least {} security bits, ranked by energy per message (a model estimate). Schemes whose energies are equal within the uncertainty of their CPU times, or within 1 % of the least, share a rank.</p>",
        esc(&r.device),
        esc(&r.link),
        esc(&r.sample),
        r.min_security
    );

    if let Some(d) = &r.duty_cycle {
        let class = if d.allowed_count == d.ranked_count {
            "note"
        } else {
            "warn"
        };
        s.push_str(&format!("<p class=\"{class}\">{}</p>", esc(&d.sentence)));
    }
    if let Some(f) = &r.frame_fit {
        s.push_str(&format!("<p class=\"warn\">{}</p><ul>", esc(&f.sentence)));
        for o in &f.fit_options {
            s.push_str(&format!(
                "<li>{}: {} B on air in {} frame(s){}; protects {}; does not protect {}</li>",
                esc(&o.what),
                o.on_air_bytes,
                o.frames,
                o.forgery
                    .as_ref()
                    .map_or(String::new(), |x| format!(", forgery {}", esc(x))),
                esc(&o.protects),
                esc(&o.does_not_protect)
            ));
        }
        s.push_str("</ul>");
    }
    if r.rows.is_empty() {
        s.push_str("<p class=\"warn\">No scheme meets the constraints.</p>");
    } else {
        let mut t = Table::new(&[
            "rank",
            "scheme",
            "whose code",
            "bits",
            "message B",
            "on air B",
            "frames",
            "CPU µJ",
            "radio µJ",
            "total µJ",
            "code B",
            "stack B",
            "battery d",
            "timing",
            "CPU time from",
        ]);
        for row in r.rows.iter().take(15) {
            t.rows.push(vec![
                row.rank.to_string(),
                format!(
                    "{}{}{}",
                    esc(&row.scheme),
                    status_badge(&row.status, row.status_reason.as_deref()),
                    match row.duty_cycle_allowed {
                        true => String::new(),
                        false => format!(
                            " <span class=\"warn\">not allowed by {}</span>",
                            match row.limits_broken.is_empty() {
                                true => "the duty cycle".to_string(),
                                false => row
                                    .limits_broken
                                    .iter()
                                    .map(|l| l.words())
                                    .collect::<Vec<_>>()
                                    .join(" and "),
                            }
                        ),
                    }
                ),
                esc(&row.implementation_sentence()),
                row.security_bits.to_string(),
                row.sealed_bytes.to_string(),
                row.on_air_bytes.to_string(),
                row.frames.to_string(),
                num(row.cpu_uj),
                num(row.radio_uj),
                num(row.message_uj),
                row.code_size_bytes.map_or("-".into(), |b| b.to_string()),
                row.stack_bytes.map_or("-".into(), |b| b.to_string()),
                row.battery_days.map_or("-".into(), num),
                timing(row),
                if row.device_measured {
                    esc(&row.cpu_time_source)
                } else {
                    format!("<span class=\"warn\">{}</span>", esc(&row.cpu_time_source))
                },
            ]);
        }
        s.push_str(&format!("<div class=\"wide\">{}</div>", t.render()));
        if r.rows.len() > 15 {
            s.push_str(&format!(
                "<p class=\"note\">… {} more schemes (`ciphermeter recommend`).</p>",
                r.rows.len() - 15
            ));
        }
    }
    s.push_str("<div class=\"explanation\">");
    for line in &r.explanation {
        s.push_str(&format!("<p>{}</p>", esc(line)));
    }
    s.push_str(&format!("<p>{}</p></div>", esc(&r.study003_verdict)));
    if !r.excluded.is_empty() {
        s.push_str(&format!(
            "<details><summary>{} schemes left out, with why</summary><ul>",
            r.excluded.len()
        ));
        for e in &r.excluded {
            s.push_str(&format!(
                "<li><code>{}</code>: {}</li>",
                esc(&e.scheme),
                esc(&e.why)
            ));
        }
        s.push_str("</ul></details>");
    }
    s
}

/// The timing column: the build's constant-time verdict on the device, with
/// where it leaks when it does (ranked only with `--allow-leaky`).
fn timing(row: &cost::ranking::RankedRow) -> String {
    match row.constant_time.as_ref().and_then(|t| t.leak.as_deref()) {
        Some(leak) => format!("<span class=\"warn\" title=\"{}\">leaks</span>", esc(leak)),
        None => esc(row.timing()),
    }
}
