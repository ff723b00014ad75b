//! One module per study: the paper's tables beside ours and the paper's
//! figures redrawn with our numbers overlaid.

pub mod file_sizes;
pub mod lora;
pub mod lora_device;
pub mod rf_transmission;
pub mod serialization;
pub mod tiny_security;

use studies::{Finding, Verdict};

use crate::html::esc;

/// A chart and its caption; `caption` is HTML whose text is already escaped.
pub(crate) fn figure(svg: &str, caption: &str) -> String {
    format!(
        "<figure class=\"study-figure\" style=\"margin:1em 0\">{svg}<figcaption class=\"note\">{caption}</figcaption></figure>"
    )
}

/// The paper's statements on figure `number` (its place names the figure, or
/// its id is in `also`), each with our verdict; empty when there are none.
pub(crate) fn statements_on(findings: &[Finding], number: u32, also: &[&str]) -> String {
    let marked: Vec<String> = findings
        .iter()
        .filter(|f| figure_numbers(&f.place).contains(&number) || also.contains(&f.id.as_str()))
        .map(|f| {
            let class = match f.verdict {
                Verdict::Agrees => "agrees",
                Verdict::Differs => "differs",
                Verdict::Compare | Verdict::NotJudged => "neutral",
            };
            format!(
                "“{}” <code>{}</code> <span class=\"verdict {class}\">{}</span>",
                esc(&f.paper),
                esc(&f.id),
                esc(f.verdict.as_str())
            )
        })
        .collect();
    if marked.is_empty() {
        String::new()
    } else {
        format!(
            " The paper's statements on this figure, with our verdict: {}.",
            marked.join("; ")
        )
    }
}

/// The figures a place cites: "5.1.1, Fig. 9" → [9]; "V, Figs. 5-6" → [5, 6].
fn figure_numbers(place: &str) -> Vec<u32> {
    let mut numbers = Vec::new();
    for (at, _) in place.match_indices("Fig") {
        let rest = place[at + 3..]
            .trim_start_matches('s')
            .trim_start_matches('.');
        let spec: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '–' | ',' | ' '))
            .collect();
        for part in spec.split(',') {
            let ends: Vec<u32> = part
                .split(['-', '–'])
                .filter_map(|n| n.trim().parse().ok())
                .collect();
            match ends[..] {
                [one] => numbers.push(one),
                [from, to] if from <= to => numbers.extend(from..=to),
                _ => {}
            }
        }
    }
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_name_their_figures() {
        assert_eq!(figure_numbers("5.1.1, Fig. 9"), vec![9]);
        assert_eq!(figure_numbers("V, Tables III-IV, Figs. 5-6"), vec![5, 6]);
        assert_eq!(figure_numbers("III-B, Fig. 6"), vec![6]);
        assert!(figure_numbers("6").is_empty());
    }

    #[test]
    fn statements_carry_id_and_verdict() {
        let finding = |id: &str, place: &str| Finding {
            id: id.into(),
            paper: "A <b> claim".into(),
            place: place.into(),
            verdict: Verdict::Differs,
            ours: String::new(),
        };
        let list = [
            finding("on_nine", "5.1.1, Fig. 9"),
            finding("elsewhere", "6"),
        ];
        let nine = statements_on(&list, 9, &[]);
        assert!(nine.contains("<code>on_nine</code>") && nine.contains("differs"));
        assert!(nine.contains("A &lt;b&gt; claim") && !nine.contains("elsewhere"));
        assert!(statements_on(&list, 9, &["elsewhere"]).contains("elsewhere"));
        assert!(statements_on(&list, 10, &[]).is_empty());
    }
}
