//! A ranking as `recommend` prints it: the duty cycle's and the frame's
//! verdicts, the table of rows with their marks, whose code each is, what
//! is not ranked, then the sentences (`summary`).

use std::fmt::Write as _;

use crate::choices::{NO_SEAL_PATH, NOT_ON_DEVICE};
use crate::session_share::SessionSaid;
use crate::summary::{Excluded, RankedRow, RankingSummary};

impl<S: SessionSaid> RankingSummary<S> {
    /// The ranking as `recommend` prints it: the first `top` rows, marked
    /// (legacy, broken, insecure, host time), then why the winner won and
    /// study 003's advice judged. Empty rows print only the header.
    pub fn text(&self, top: usize) -> String {
        let mut o = String::new();
        if let Some(d) = &self.duty_cycle {
            let _ = writeln!(o, "{}\n", d.sentence);
        }
        if let Some(f) = &self.frame_fit {
            let _ = writeln!(o, "{}", f.text());
        }
        let _ = writeln!(
            o,
            "Schemes for {} over {} carrying {} (energy: model estimate; msg B: the sealed message, air B: what the radio sends)",
            self.device, self.link, self.sample
        );
        // The defaults behind the figures, so that none is assumed unsaid.
        let _ = writeln!(
            o,
            "  one message every {} s (--interval), battery {} (--battery), serialized as {} (--serialization), in {} (--container)",
            self.interval_s,
            self.battery,
            self.serialization,
            self.containers.join(", ")
        );
        if !self.radio_basis.is_empty() {
            let _ = writeln!(o, "  radio figures: {}", self.radio_basis);
        }
        let _ = writeln!(
            o,
            "{:>3}  {:<38} {:>5} {:>7} {:>7} {:>6} {:>10} {:>10} {:>10} {:>7} {:>7} {:>9}  timing",
            "#",
            "scheme",
            "bits",
            "msg B",
            "air B",
            "frames",
            "CPU uJ",
            "radio uJ",
            "total uJ",
            "code B",
            "stack B",
            "battery d"
        );
        let first_on_device = self.rows.first().is_some_and(|r| r.device_measured);
        for row in self.rows.iter().take(top) {
            let mark = match (row.status.as_str(), row.device_measured) {
                ("recommended", false) if first_on_device => " [host time]".into(),
                ("recommended", _) => String::new(),
                (status, _) => format!(" [{}]", status.to_uppercase()),
            };
            // The container is named when several are ranked, or compressed.
            let wrap = |r: &RankedRow| match &r.compression {
                Some(c) => format!("{}+{}", r.container, c.scheme),
                None => r.container.clone(),
            };
            let shown = if self.rows.iter().any(|r| wrap(r) != wrap(row)) {
                format!("{} ({})", row.scheme, wrap(row))
            } else {
                row.scheme.clone()
            };
            let mark = match &row.device_failure {
                Some(_) if !row.device_measured => " [does not fit: host time]".to_string(),
                _ => mark,
            };
            let mark = match (row.session_messages, &row.key_establishment) {
                (Some(n), Some(p)) => format!(" [{p} per {n}]{mark}"),
                _ => mark,
            };
            let mark = match row.duty_cycle_allowed {
                true => mark,
                false => {
                    let broken: Vec<&str> = row.limits_broken.iter().map(|l| l.short()).collect();
                    format!(" [NOT ALLOWED: {}]{mark}", broken.join(", "))
                }
            };
            let mark = match &row.engine {
                Some(e) => format!(" [{}: published]{mark}", e.engine),
                None => mark,
            };
            let mark = match row.key_limit.as_ref().filter(|k| k.session_past_limit) {
                Some(k) => format!(
                    " [SESSION PAST KEY LIMIT {}]{mark}",
                    k.messages_per_key.unwrap_or_default()
                ),
                None => mark,
            };
            let _ = writeln!(
                o,
                "{:>3}  {:<38} {:>5} {:>7} {:>7} {:>6} {:>10.2} {:>10.2} {:>10.2} {:>7} {:>7} {:>9}  {}",
                row.rank,
                format!("{shown}{mark}"),
                row.security_bits,
                row.sealed_bytes,
                row.on_air_bytes,
                row.frames,
                row.cpu_uj,
                row.radio_uj,
                row.message_uj,
                row.code_size_bytes.map_or("-".into(), |s| s.to_string()),
                row.stack_bytes.map_or("-".into(), |s| s.to_string()),
                row.battery_days.map_or("-".into(), |d| format!(
                    "{d:.0}{}",
                    if row.battery_note.is_some() { "*" } else { "" }
                )),
                row.timing()
            );
        }
        if self.rows.len() > top {
            let _ = writeln!(o, "     ... {} more (--top N)", self.rows.len() - top);
        }
        if let Some(note) = self
            .rows
            .iter()
            .take(top)
            .find_map(|r| r.battery_note.as_ref())
        {
            let _ = writeln!(o, "  * battery life: {note}");
        }
        // Whose code each shown row's CPU time is, once per scheme (and
        // once more with an engine).
        let mut named: Vec<String> = Vec::new();
        for row in self.rows.iter().take(top) {
            let shown = match &row.engine {
                Some(e) => e.shown_name(&row.scheme),
                None => row.scheme.clone(),
            };
            if row.seal_paths.is_empty() || named.contains(&shown) {
                continue;
            }
            if named.is_empty() {
                let _ = writeln!(
                    o,
                    "\nWhose code (the fastest whole seal path measured on the device with passing known answers; `--impl` restricts it):"
                );
            }
            let _ = writeln!(o, "  {shown}: {}", row.implementation_sentence());
            named.push(shown);
        }
        // Messages per key under each shown scheme's published limits.
        let mut said: Vec<&str> = Vec::new();
        for row in self.rows.iter().take(top) {
            let Some(k) = row
                .key_limit
                .as_ref()
                .filter(|_| !said.contains(&row.scheme.as_str()))
            else {
                continue;
            };
            if said.is_empty() {
                let _ = writeln!(
                    o,
                    "\nMessages one key may protect (published limits at the row's sealed length; {}):",
                    k.limit_target
                );
            }
            let _ = writeln!(o, "  {}: {} [{}]", row.scheme, k.short(), k.limit_source);
            said.push(&row.scheme);
        }
        // Schemes the device itself cannot seal with (does not build, fit
        // or pass there, or never measured): said, never ranked.
        let unfit: Vec<&Excluded> = self
            .excluded
            .iter()
            .filter(|e| e.why.starts_with(NOT_ON_DEVICE) || e.why.starts_with(NO_SEAL_PATH))
            .collect();
        if !unfit.is_empty() {
            let names: Vec<&str> = unfit.iter().take(6).map(|e| e.scheme.as_str()).collect();
            let _ = writeln!(
                o,
                "\nNot ranked: {} scheme{} without the device's own seal path (does not build or fit there, or not measured): {}{} (--format json: `excluded`, with each reason)",
                unfit.len(),
                if unfit.len() == 1 { "" } else { "s" },
                names.join(", "),
                if unfit.len() > names.len() {
                    ", …"
                } else {
                    ""
                }
            );
        }
        let _ = writeln!(o);
        for session in &self.sessions {
            let _ = writeln!(o, "{}\n", session.sentence());
        }
        if let Some((row, k)) = self
            .rows
            .first()
            .and_then(|r| Some((r, r.key_limit.as_ref()?)))
        {
            let _ = writeln!(o, "{}\n", k.sentence(&row.scheme, self.interval_s));
        }
        for t in &self.tag_or_session {
            let _ = writeln!(o, "{}\n", t.sentence(self.interval_s));
        }
        if let Some(p) = &self.post_quantum {
            let _ = writeln!(o, "{p}\n");
        }
        for line in &self.explanation {
            let _ = writeln!(o, "{line}");
        }
        if let Some(build) = &self.build {
            let _ = write!(o, "\n{}", build.text());
        }
        let _ = writeln!(o, "\n{}", self.study003_verdict);
        if let Some(first) = self.rows.first() {
            let _ = writeln!(o, "CPU time source: {}", first.cpu_time_source);
        }
        o
    }
}
