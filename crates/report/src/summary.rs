//! The answer first: what one run recommends for its device and link, said in
//! a few sentences built from the stored rows. The report opens with it and
//! `run` prints it, so the page and the terminal say the same thing.

use std::collections::BTreeMap;

use cost::ranking::{RankedRow, RankingSummary, percent_of};
use serde_json::Value;
use store::conventions::{ENERGY, RECOMMENDATION, REPRODUCTION};
use store::{Artifact, ResultRow};
use studies::{StudyReport, Verdict};

use crate::html::{esc, num};

/// The answer of one run.
pub struct Answer {
    pub ranking: Option<RankingSummary>,
    /// The cheapest integrity-only scheme on the run's link, and its µJ.
    pub integrity_only: Option<(String, f64)>,
    /// Per link, the CPU's share of a message's energy across the schemes
    /// (min, max), and the largest share of the link protocol's own costs
    /// around and between messages (`energy::protocol`; 0 without them).
    pub cpu_shares: Vec<(String, f64, f64, f64)>,
    /// The studies' statements: agree, differ, not judged (figures to compare apart).
    pub verdicts: [usize; 3],
    /// What SCHC saves on the run's link (LoRaWAN runs).
    pub schc: Option<cost::schc_savings::SchcSavings>,
}

impl Answer {
    pub fn from_run(results: &[ResultRow], artifacts: &[Artifact]) -> Answer {
        let ranking = artifacts
            .iter()
            .find(|a| a.kind == RECOMMENDATION)
            .and_then(|a| serde_json::from_value(a.data.get("ranking")?.clone()).ok());
        let mut answer = Answer {
            ranking,
            integrity_only: None,
            cpu_shares: Vec::new(),
            verdicts: verdicts(artifacts),
            schc: artifacts
                .iter()
                .find(|a| a.kind == store::conventions::SCHC)
                .and_then(|a| serde_json::from_value(a.data.clone()).ok()),
        };
        answer.energy_facts(results);
        answer
    }

    fn energy_facts(&mut self, results: &[ResultRow]) {
        // The ranking's device and link when there is one; else every energy row.
        let device = self.ranking.as_ref().map(|r| r.device.clone());
        let link = self.ranking.as_ref().map(|r| r.link.clone());
        let mut shares: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
        for r in results.iter().filter(|r| r.section == ENERGY) {
            let text = |k: &str| r.data.get(k).and_then(Value::as_str).map(str::to_string);
            if device.is_some() && text("device") != device {
                continue;
            }
            let Some(row_link) = text("link") else {
                continue;
            };
            let recommended = text("status").as_deref() == Some("recommended");
            if recommended
                && r.value > 0.0
                && let Some(cpu) = r.data.get("cpu_uj").and_then(Value::as_f64)
            {
                let share = cpu / r.value;
                let upkeep = r.data.get("protocol_uj").and_then(Value::as_f64);
                let upkeep = upkeep.unwrap_or(0.0) / r.value;
                let e = shares
                    .entry(row_link.clone())
                    .or_insert((share, share, upkeep));
                *e = (e.0.min(share), e.1.max(share), e.2.max(upkeep));
            }
            let cheaper = self
                .integrity_only
                .as_ref()
                .is_none_or(|(_, uj)| r.value < *uj);
            if Some(&row_link) == link.as_ref()
                && recommended
                && text("pattern").as_deref() == Some("hmac")
                && cheaper
            {
                self.integrity_only = Some((r.subject.clone(), r.value));
            }
        }
        // The run's own link first.
        let mut v: Vec<(String, f64, f64, f64)> = shares
            .into_iter()
            .map(|(l, (a, b, p))| (l, a, b, p))
            .collect();
        v.sort_by_key(|(l, ..)| Some(l) != link.as_ref());
        self.cpu_shares = v;
    }

    fn winner(&self) -> Option<(&RankingSummary, &RankedRow)> {
        let r = self.ranking.as_ref()?;
        Some((r, r.rows.first()?))
    }

    /// "On L the CPU is 0.1–2 % of a message's energy, so the bytes on air decide."
    /// The message's energy holds the link protocol's costs until the next
    /// message; where they are most of it, the sentence says so.
    pub fn cpu_sentences(&self) -> Vec<String> {
        self.cpu_shares
            .iter()
            .map(|(link, lo, hi, upkeep)| {
                let decides = if *upkeep > 0.5 {
                    format!(
                        "so the link's own upkeep between messages decides (up to {} of it)",
                        percent_range(*upkeep, *upkeep)
                    )
                } else if *hi < 0.2 {
                    "so the bytes on air decide".to_string()
                } else if *lo > 0.5 {
                    "so the cipher's speed decides".to_string()
                } else {
                    "so both the bytes on air and the cipher's speed count".to_string()
                };
                format!(
                    "On {link} the CPU is {} of a message's energy, {decides}.",
                    percent_range(*lo, *hi)
                )
            })
            .collect()
    }

    /// The recommendation in one sentence, with what it beat.
    pub fn recommendation(&self) -> Option<String> {
        let (r, w) = self.winner()?;
        let mut s = format!(
            "For {} on {}, seal with {}{}: {} µJ per message, {} B on air in {} frame{}{}; it encrypts and authenticates the reading.",
            r.device,
            r.link,
            w.scheme,
            // Whose code the device's time is (a device-measured row).
            if w.seal_paths.is_empty() {
                String::new()
            } else {
                format!(" ({}'s code)", w.implementation_label())
            },
            num(w.message_uj),
            w.on_air_bytes,
            w.frames,
            if w.frames == 1 { "" } else { "s" },
            w.battery_days
                .map(|d| format!(
                    ", battery life {d:.0} days at one message every {} s",
                    r.interval_s
                ))
                .unwrap_or_default(),
        );
        if let Some(tie) = &r.tie {
            // The ranking's own tie group and what picked the first of it.
            s.push(' ');
            s.push_str(&tie.sentence);
        } else if let Some(next) = r.rows.get(1) {
            s.push_str(&if next.rank == w.rank {
                format!(
                    " It ties with {} (equal within the uncertainty of the CPU times).",
                    next.scheme
                )
            } else {
                format!(
                    " The runner-up, {}, costs {} µJ ({}) more.",
                    next.scheme,
                    num(next.message_uj - w.message_uj),
                    percent_of(next.message_uj - w.message_uj, w.message_uj)
                )
            });
        }
        if !w.duty_cycle_allowed {
            s.push_str(" No choice may be sent that often under the duty cycle (below).");
        }
        Some(s)
    }

    /// The integrity-only alternative, labelled as sending in clear.
    pub fn integrity_sentence(&self) -> Option<String> {
        let (scheme, uj) = self.integrity_only.as_ref()?;
        Some(format!(
            "Integrity only: {scheme} costs {} µJ per message, but it sends the reading in clear.",
            num(*uj)
        ))
    }

    pub fn studies_sentence(&self) -> Option<String> {
        let [agree, differ, not_judged] = self.verdicts;
        (agree + differ + not_judged > 0).then(|| {
            format!(
                "The studies' statements: {agree} agree with our numbers, {differ} differ, and {not_judged} {} not judged here.",
                if not_judged == 1 { "was" } else { "were" }
            )
        })
    }

    /// The terminal lines `run` prints.
    pub fn lines(&self) -> Vec<String> {
        self.recommendation()
            .into_iter()
            .chain(self.integrity_sentence())
            .chain(self.cpu_sentences())
            .chain(self.schc.as_ref().map(|s| s.sentence()))
            .collect()
    }

    /// The report's opening section.
    pub fn html(&self) -> String {
        let mut s = String::new();
        match self.recommendation() {
            Some(line) => s.push_str(&format!("<p class=\"answer\">{}</p>", esc(&line))),
            None => s.push_str(
                "<p class=\"warn\">This run stored no recommendation (see the notes of `run`).</p>",
            ),
        }
        if let Some(d) = self.ranking.as_ref().and_then(|r| r.duty_cycle.as_ref())
            && d.allowed_count < d.ranked_count
        {
            s.push_str(&format!("<p class=\"warn\">{}</p>", esc(&d.sentence)));
        }
        let mut items: Vec<String> = self.cpu_sentences();
        items.extend(self.integrity_sentence());
        items.extend(self.schc.as_ref().map(|s| s.sentence()));
        if !items.is_empty() {
            s.push_str("<ul>");
            for i in items {
                s.push_str(&format!("<li>{}</li>", esc(&i)));
            }
            s.push_str("</ul>");
        }
        if let Some(studies) = self.studies_sentence() {
            s.push_str(&format!(
                "<p>{} <a href=\"#reproductions\">Each statement with its verdict</a>.</p>",
                esc(&studies)
            ));
        }
        s.push_str("<p class=\"note\">Energy is a model estimate; the ranking, tables and sources follow. <a href=\"#recommendation\">The full ranking</a>.</p>");
        s
    }
}

/// Counts the verdicts of every stored reproduction.
fn verdicts(artifacts: &[Artifact]) -> [usize; 3] {
    let mut counts = [0; 3];
    for a in artifacts.iter().filter(|a| a.kind == REPRODUCTION) {
        let Some(Ok(report)) = a
            .data
            .get("report")
            .map(|v| serde_json::from_value::<StudyReport>(v.clone()))
        else {
            continue;
        };
        for f in report.findings() {
            match f.verdict {
                Verdict::Agrees => counts[0] += 1,
                Verdict::Differs => counts[1] += 1,
                Verdict::NotJudged => counts[2] += 1,
                Verdict::Compare => {}
            }
        }
    }
    counts
}

/// "0.1–2 %", "90–99 %", "5 %".
fn percent_range(lo: f64, hi: f64) -> String {
    let p = |x: f64| {
        let x = x * 100.0;
        if x < 1.0 {
            format!("{x:.1}")
        } else {
            format!("{x:.0}")
        }
    };
    if p(lo) == p(hi) {
        format!("{} %", p(lo))
    } else {
        format!("{}–{} %", p(lo), p(hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored energy row of `run`: its value the message's energy, the
    /// link protocol's part in `protocol_uj` where the link has one.
    fn energy(link: &str, cpu_uj: f64, protocol_uj: Option<f64>, message_uj: f64) -> ResultRow {
        ResultRow {
            section: ENERGY.into(),
            target: store::conventions::HOST.into(),
            subject: "aead:aes-128-gcm".into(),
            operation: "message".into(),
            size_bytes: Some(216),
            context: String::new(),
            metric: store::conventions::MESSAGE_UJ.into(),
            unit: "µJ".into(),
            value: message_uj,
            ci_low: None,
            ci_high: None,
            samples: None,
            data: serde_json::json!({
                "link": link,
                "status": "recommended",
                "cpu_uj": cpu_uj,
                "protocol_uj": protocol_uj,
            }),
        }
    }

    /// The CPU's share is of the whole message energy, the link's upkeep
    /// until the next message included, and says when that upkeep decides.
    #[test]
    fn the_cpu_share_counts_the_link_protocols_upkeep() {
        let rows = [
            energy("ble-1m-251", 1_155.0, Some(44_080.5), 45_300.0),
            energy("ble-1m-251", 900.0, Some(44_080.5), 45_045.0),
            energy("lorawan-eu868-dr5", 10.0, None, 60_000.0),
        ];
        let answer = Answer::from_run(&rows, &[]);
        let sentences = answer.cpu_sentences();
        assert_eq!(
            sentences[0],
            "On ble-1m-251 the CPU is 2–3 % of a message's energy, so the link's own upkeep between messages decides (up to 98 % of it)."
        );
        assert_eq!(
            sentences[1],
            "On lorawan-eu868-dr5 the CPU is 0.0 % of a message's energy, so the bytes on air decide."
        );
    }

    #[test]
    fn shares_read_as_percent_ranges() {
        assert_eq!(percent_range(0.001, 0.02), "0.1–2 %");
        assert_eq!(percent_range(0.9, 0.99), "90–99 %");
        assert_eq!(percent_range(0.05, 0.05), "5 %");
    }
}
