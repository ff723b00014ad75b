//! Study 001: Tables IV and V beside ours.

use studies::serialization::{Report, reduction};

use crate::html::{Table, esc, num};

pub fn render(r: &Report) -> String {
    let mut s = String::new();
    for (title, encrypt) in [("Table IV: encrypt", true), ("Table V: decrypt", false)] {
        let paper = if encrypt {
            &r.paper.encrypt
        } else {
            &r.paper.decrypt
        };
        let mut t = Table::new(&[
            "No",
            "cipher",
            "mode",
            "ours S1 ns",
            "ours S4 ns",
            "ours red. %",
            "paper S1 ns",
            "paper S4 ns",
            "paper red. %",
        ]);
        for (row, p) in r.rows.iter().zip(paper) {
            let ours = if encrypt {
                &row.encrypt_total_ns
            } else {
                &row.decrypt_total_ns
            };
            t.rows.push(vec![
                p.no.to_string(),
                esc(&p.cipher),
                esc(&p.mode_printed),
                num(ours[0]),
                num(ours[3]),
                num(reduction(ours)),
                num(p.total_ns[0]),
                num(p.total_ns[3]),
                num(p.reduction_pct),
            ]);
        }
        s.push_str(&format!(
            "<h4>{}</h4><div class=\"wide\">{}</div>",
            esc(title),
            t.render()
        ));
    }
    s
}
