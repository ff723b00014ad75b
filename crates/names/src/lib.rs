//! Names a user types (algorithms, devices, links, batteries, targets,
//! schemes, containers): the known names closest to one that matched none,
//! so every "unknown X" error can say "did you mean …" the same way.

/// Up to three of `known` closest to `typed`, nearest first (case ignored):
/// the nearest, and after a one-letter slip those one edit further too.
///
/// Closeness is the edit distance to the whole name, or to one of its
/// dash-separated tails plus one ("dr55" is near "lorawan-eu868-dr5"), or,
/// for a name that contains what was typed, what it adds (at most 3: "gcm"
/// is near "aes-128-gcm"). Names further than a third of the typed length
/// (at least 4) are no suggestion.
pub fn suggest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let lower = typed.trim().to_ascii_lowercase();
    if lower.is_empty() {
        return Vec::new();
    }
    let limit = 4.max(lower.len() / 3);
    let mut scored: Vec<(usize, String)> = known
        .into_iter()
        .map(|candidate| {
            let c = candidate.to_ascii_lowercase();
            let mut d = strsim::levenshtein(&lower, &c);
            for (i, _) in c.match_indices('-') {
                d = d.min(strsim::levenshtein(&lower, &c[i + 1..]) + 1);
            }
            if c.contains(lower.as_str()) {
                d = d.min(c.len() - lower.len()).min(3);
            }
            (d, candidate.to_string())
        })
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    // The nearest, and one edit further only after a one-letter slip:
    // "jsno" suggests "json", not "cose"; "cortex-m44" both M4 and M3.
    let nearest = scored.first().map_or(0, |(d, _)| *d);
    let reach = if nearest <= 1 { nearest + 1 } else { nearest };
    scored
        .into_iter()
        .take_while(|(d, _)| *d <= reach)
        .take(3)
        .map(|(_, n)| n)
        .collect()
}

/// " (did you mean a or b?)" for the closest known names, or "" when none
/// is close: it reads well after the unknown name, wherever that stands.
pub fn did_you_mean<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let close = suggest(typed, known);
    if close.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", or_list(&close))
    }
}

/// "a", "a or b", "a, b or c".
fn or_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINKS: [&str; 4] = [
        "lorawan-eu868-dr0",
        "lorawan-eu868-dr5",
        "ble-1m-251",
        "lora-sf9-125",
    ];

    #[test]
    fn a_typo_is_near_its_name() {
        assert_eq!(
            suggest("sodaq-mbilly", ["sodaq-mbili", "mkr-wan-1300", "nrf52840"]),
            ["sodaq-mbili"]
        );
        assert_eq!(
            did_you_mean("sodaq-mbilly", ["sodaq-mbili", "esp32"]),
            " (did you mean sodaq-mbili?)"
        );
    }

    #[test]
    fn only_the_nearest_names_are_suggested() {
        let containers = ["json", "binary", "cose", "all"];
        assert_eq!(suggest("jsno", containers), ["json"]);
        assert_eq!(suggest("cbor", containers), ["cose", "json"]);
        assert_eq!(
            did_you_mean("cortex-m44", ["cortex-m4", "cortex-m3", "riscv32imc"]),
            " (did you mean cortex-m4 or cortex-m3?)"
        );
    }

    #[test]
    fn a_tail_of_a_long_name_counts() {
        assert_eq!(suggest("dr55", LINKS)[0], "lorawan-eu868-dr5");
        assert_eq!(suggest("BLE-1M-25", LINKS)[0], "ble-1m-251");
    }

    #[test]
    fn a_part_of_a_name_counts() {
        assert_eq!(
            suggest("gcm", ["aes-128-gcm", "aes-128-ccm-with-more"]),
            ["aes-128-gcm"]
        );
    }

    #[test]
    fn nothing_close_is_no_suggestion() {
        assert!(suggest("zzzzzzzz", LINKS).is_empty());
        assert!(suggest("", LINKS).is_empty());
        assert_eq!(did_you_mean("zzzzzzzz", LINKS), "");
    }
}
