//! Study 004: time on air by SF and size (Fig. 6), and per algorithm.

use studies::lora::Report;

use crate::html::{Table, esc, num};

pub fn render(r: &Report) -> String {
    let mut head = vec!["bytes".to_string()];
    head.extend(r.spreading_factors.iter().map(|sf| format!("SF{sf} ms")));
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&head);
    for row in &r.sizes {
        let mut cells = vec![row.bytes.to_string()];
        cells.extend(row.cells.iter().map(|c| c.ms.map_or("error".into(), num)));
        t.rows.push(cells);
    }
    let mut a = Table::new(&[
        "algorithm",
        "variant",
        "bytes on air",
        "SF7 ms",
        "SF12 ms",
        "expansion",
    ]);
    for x in r.algorithms.iter().chain([&r.plaintext]) {
        a.rows.push(vec![
            esc(&x.label),
            esc(&x.id),
            x.on_air.to_string(),
            x.sf7.ms.map_or("error".into(), num),
            x.sf12.ms.map_or("error".into(), num),
            esc(&x.how),
        ]);
    }
    format!(
        "<div class=\"wide\">{}</div><h4>A {}-byte message under each algorithm</h4><div class=\"wide\">{}</div>",
        t.render(),
        r.message_bytes,
        a.render()
    )
}
