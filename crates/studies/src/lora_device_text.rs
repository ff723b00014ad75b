//! Study 004 at device level as text: Figs. 2-4, encryption time against time
//! on air per SF, the time-on-air tables and the paper's findings beside ours.

use crate::lora_device::{Report, Row, three_figures};
use crate::{out, put};

impl Report {
    /// The algorithms that have numbers on this target, in table order.
    pub fn with_numbers(&self) -> Vec<&Row> {
        self.rows.iter().filter(|x| x.message.is_some()).collect()
    }

    /// The algorithms without numbers here (each row says why).
    pub fn without_numbers(&self) -> Vec<&Row> {
        self.rows.iter().filter(|x| x.message.is_none()).collect()
    }

    pub fn text(&self) -> String {
        let num = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
        let b = &self.board;
        let n = self.message_bytes;
        let mut o = String::new();
        out!(
            o,
            "Study 004 at device level on the {}, target {}: {} MHz, {} B RAM, {} B flash",
            b.name,
            self.target,
            b.clock_hz as f64 / 1e6,
            b.ram_bytes,
            b.flash_bytes
        );
        out!(
            o,
            "Counts: {}",
            self.table
                .as_deref()
                .unwrap_or("no device cost table ships for this target")
        );
        out!(o);
        out!(
            o,
            "Fig. 2 and Fig. 3: code size, and time for a {n}-byte message at {} MHz",
            b.clock_hz as f64 / 1e6
        );
        out!(
            o,
            "{:<10} {:<15} {:<8} {:>8} {:>7} {:>12} {:>12} {:>10}",
            "algorithm",
            "device id",
            "op",
            "code B",
            "stack B",
            "key setup us",
            format!("us ({n} B)"),
            "kB/s"
        );
        for r in &self.rows {
            let Some(m) = &r.message else {
                out!(
                    o,
                    "{:<10} {}",
                    r.label,
                    r.reason.as_deref().unwrap_or("no numbers")
                );
                continue;
            };
            out!(
                o,
                "{:<10} {:<15} {:<8} {:>8} {:>7} {:>12} {:>12.1} {:>10}",
                r.label,
                r.device_id.as_deref().unwrap_or("-"),
                r.operation.as_deref().unwrap_or("-"),
                r.code_size_bytes.map_or("-".into(), |v| v.to_string()),
                r.stack_bytes.map_or("-".into(), |v| v.to_string()),
                num(r.keysetup_us, 1),
                m.us,
                three_figures(m.kb_per_s)
            );
        }
        for r in self.rows.iter().filter(|r| !r.notes.is_empty()) {
            out!(o, "  {}: {}", r.label, r.notes.join("; "));
        }
        out!(
            o,
            "(code B: flash the algorithm adds to the firmware's no-algorithm build; times: the table's cycle counts at the board's clock, exact at measured sizes, interpolated between; RSA: one operation per OAEP block sent, at most modulus - 66 bytes each)"
        );
        out!(o);
        let sizes = &self.setup.sizes;
        let last = sizes.last().copied().unwrap_or(0);
        out!(
            o,
            "Fig. 4: time (us) by data size, and RAM at {last} B against {} B",
            b.ram_bytes
        );
        put!(o, "{:<10}", "algorithm");
        for s in sizes {
            put!(o, " {:>10}", format!("{s} B"));
        }
        out!(o, " {:>12} {:>5}", format!("RAM@{last} B"), "fits");
        for r in self.rows.iter().filter(|r| !r.sizes.is_empty()) {
            put!(o, "{:<10}", r.label);
            for s in sizes {
                let t = r.sizes.iter().find(|t| t.bytes == *s).map(|t| t.us);
                put!(o, " {:>10}", num(t, 1));
            }
            let at = r.sizes.iter().find(|t| t.bytes == last);
            out!(
                o,
                " {:>12} {:>5}",
                at.map_or("-".into(), |t| t.ram_bytes.to_string()),
                at.map_or("-", |t| if t.fits_ram { "yes" } else { "NO" })
            );
        }
        out!(o, "({})", self.ram_rule);
        out!(o);
        out!(
            o,
            "Encryption time / time on air for a {n}-byte message as sent (125 kHz; within a factor of {} counts as 'more or less equal')",
            self.setup.equal_within_factor
        );
        put!(o, "{:<10} {:>6}", "algorithm", "bytes");
        for sf in &self.setup.spreading_factors {
            put!(o, " {:>9}", format!("SF{sf}"));
        }
        out!(o);
        for r in self.rows.iter().filter(|r| !r.airtime.is_empty()) {
            put!(
                o,
                "{:<10} {:>6}",
                r.label,
                r.on_air_bytes.map_or("-".into(), |b| b.to_string())
            );
            for a in &r.airtime {
                put!(o, " {:>9}", a.ratio.map_or("error".into(), three_figures));
            }
            out!(o);
        }
        for v in &self.sf_verdicts {
            out!(
                o,
                "  SF{}: {} of {} within a factor of {}{}, ratios {} to {}: {}",
                v.sf,
                v.within,
                v.of,
                self.setup.equal_within_factor,
                if v.equal.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", v.equal.join(", "))
                },
                v.min_ratio.map_or("-".into(), three_figures),
                v.max_ratio.map_or("-".into(), three_figures),
                v.verdict
            );
        }
        for (r, a) in self
            .rows
            .iter()
            .flat_map(|r| r.airtime.iter().map(move |a| (r, a)))
        {
            if let Some(e) = &a.error {
                out!(o, "error: {} SF{}: {e}", r.label, a.sf);
            }
        }
        out!(o);
        o.push_str(&self.airtime.tables());
        out!(o);
        out!(o, "The paper's findings beside ours:");
        o.push_str(&crate::finding::text(&self.findings));
        o
    }
}
