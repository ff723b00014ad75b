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

/// Up to three names closest to `name`, nearest first (`names::suggest`).
pub fn suggest(cat: &Catalogue, name: &str) -> Vec<String> {
    names::suggest(
        name,
        cat.entries()
            .iter()
            .flat_map(|e| std::iter::once(&e.id).chain(&e.aliases))
            .map(String::as_str),
    )
}
