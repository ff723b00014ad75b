//! Name resolution with suggestions for typos.

use crate::error::Error;
use crate::{Catalogue, Entry, mcrypt};

pub fn resolve<'c>(
    cat: &'c Catalogue,
    name: &str,
    key_len: Option<usize>,
) -> Result<&'c Entry, Error> {
    let lower = name.trim().to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("mcrypt:") {
        let id = mcrypt::canonical(rest, key_len)?;
        return cat.get(&id).ok_or_else(|| unknown(cat, name));
    }
    cat.get(&lower).ok_or_else(|| unknown(cat, name))
}

fn unknown(cat: &Catalogue, name: &str) -> Error {
    Error::UnknownAlgorithm {
        name: name.to_string(),
        suggestions: suggest(cat, name),
    }
}

/// Up to three names closest to `name` by edit distance, nearest first.
pub fn suggest(cat: &Catalogue, name: &str) -> Vec<String> {
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = cat
        .entries()
        .iter()
        .flat_map(|e| std::iter::once(&e.id).chain(&e.aliases))
        .map(|candidate| {
            let mut d = strsim::levenshtein(&lower, candidate);
            // A name that contains what was typed is a good guess ("gcm" -> "aes-128-gcm").
            if candidate.contains(lower.as_str()) {
                d = d.min(candidate.len() - lower.len()).min(3);
            }
            (d, candidate.as_str())
        })
        .filter(|(d, _)| *d <= 4.max(lower.len() / 3))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(3)
        .map(|(_, n)| n.to_string())
        .collect()
}
