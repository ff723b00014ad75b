//! Study 002: Tables III, IV and VI beside ours.

use studies::file_sizes::Report;

use crate::html::{Table, esc, num};

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
    let mut s = format!("<div class=\"wide\">{}</div>", t.render());
    for skipped in &r.skipped {
        s.push_str(&format!("<p class=\"note\">Skipped {}</p>", esc(skipped)));
    }
    s
}
