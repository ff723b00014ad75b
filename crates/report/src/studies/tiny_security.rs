//! Study 003: Figures 9-11 (host) and 9, 10, 12 (device) as tables.

use studies::tiny_security::{Report, mean_sd};
use studies::tiny_security_device::Report as DeviceReport;

use crate::html::{Table, esc, num};

pub fn render(r: &Report) -> String {
    let mut t = Table::new(&[
        "group",
        "scheme",
        "bits",
        "µs/B (Fig. 9)",
        "(µs/B)/bit (Fig. 10)",
        "overhead (Fig. 11)",
    ]);
    for s in &r.series {
        t.rows.push(vec![
            esc(&s.group),
            esc(&s.scheme),
            s.bits_study003.to_string(),
            num(mean_sd(&s.us_per_byte).0),
            num(mean_sd(&s.cost_per_bit()).0),
            num(mean_sd(&s.overhead_ratio_appendix_b).0),
        ]);
    }
    format!(
        "<p>Reading sizes: paper ≈ {} B.</p><div class=\"wide\">{}</div>",
        r.paper
            .input_bytes_approx
            .iter()
            .map(|b| num(*b))
            .collect::<Vec<_>>()
            .join(", "),
        t.render()
    )
}

pub fn render_device(r: &DeviceReport) -> String {
    let mut t = Table::new(&[
        "algorithm",
        "group",
        "bits",
        "µs/B",
        "(µs/B)/bit",
        "flash +B",
        "known answer",
    ]);
    for row in &r.rows {
        t.rows.push(vec![
            esc(&row.algorithm),
            esc(&row.group),
            row.security_bits.to_string(),
            row.us_per_byte.map_or("-".into(), num),
            row.cost_per_bit.map_or("-".into(), num),
            row.program_size_bytes.map_or("-".into(), |b| b.to_string()),
            match (&row.error, row.kat_passed) {
                (Some(e), _) => esc(e),
                (None, true) => "ok".into(),
                (None, false) => "FAIL".into(),
            },
        ]);
    }
    format!("<div class=\"wide\">{}</div>", t.render())
}
