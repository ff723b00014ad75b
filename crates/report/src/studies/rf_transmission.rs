//! Study 000: Tables 1-3 and 5 beside the link model.

use studies::rf_transmission::Report;

use crate::html::{Table, num};

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
        "<p>Padding saves {} % of the delivered time in the model; the paper says {} %.</p><div class=\"wide\">{}</div>",
        num(r.model_padding_saving_pct),
        num(p.padding_saving_pct),
        t.render()
    )
}
