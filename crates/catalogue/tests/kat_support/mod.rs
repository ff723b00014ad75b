//! Shared by `tests/kat.rs` and `tests/roundtrip.rs`: the vector file parser,
//! the in-project vector files read in place, and small helpers.

#![allow(dead_code)] // each test binary uses a different part

pub mod parse;
pub mod sources;

use ciphermeter_catalogue::{Backend, Entry};

/// Every backend to run: `None` (the default) then each one the entry lists.
pub fn backends_of(entry: &Entry) -> Vec<Option<Backend>> {
    std::iter::once(None)
        .chain(entry.backends().into_iter().map(Some))
        .collect()
}

pub fn backend_name(backend: Option<Backend>) -> String {
    backend.map_or_else(|| "default".to_string(), |b| b.to_string())
}

/// `None` when equal, else where and how they first differ.
pub fn first_mismatch(got: &[u8], want: &[u8]) -> Option<String> {
    if got == want {
        return None;
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let show = |s: &[u8]| hex::encode(&s[at.min(s.len())..(at + 8).min(s.len())]);
    Some(format!(
        "first mismatch at byte {at}: got {}.. want {}.. (lengths got {} want {})",
        show(got),
        show(want),
        got.len(),
        want.len()
    ))
}
