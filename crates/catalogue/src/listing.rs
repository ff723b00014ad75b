//! The catalogue as `list` shows it: a table, or JSON with each entry's
//! backends and libmcrypt's names (schema `ciphermeter.list/1`).

use serde::Serialize;

use crate::{Entry, Status};

#[derive(Serialize)]
pub struct Listing<'a> {
    schema: &'static str,
    entries: Vec<Listed<'a>>,
    mcrypt: Mcrypt,
}

#[derive(Serialize)]
struct Listed<'a> {
    #[serde(flatten)]
    entry: &'a Entry,
    backends: Vec<&'static str>,
}

#[derive(Serialize)]
struct Mcrypt {
    note: &'static str,
    ciphers: Vec<(&'static str, &'static str)>,
    modes: Vec<(&'static str, &'static str)>,
}

fn mcrypt() -> Mcrypt {
    Mcrypt {
        note: "libmcrypt's cfb/ofb feed back 8 bits and map to cfb8/ofb8; its ncfb/nofb feed back a full block; \
               its ctr counts over the whole block, big-endian; key sizes follow the key given",
        ciphers: crate::mcrypt::CIPHERS.to_vec(),
        modes: crate::mcrypt::MODES.to_vec(),
    }
}

fn sizes(list: &[usize]) -> String {
    match list {
        [] => "-".into(),
        [one] => one.to_string(),
        [first, .., last] if list.windows(2).all(|w| w[1] == w[0] + 1) => format!("{first}-{last}"),
        _ => list
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    }
}

fn opt(n: Option<usize>) -> String {
    n.map_or("-".into(), |n| n.to_string())
}

fn status(s: Status) -> &'static str {
    // Upper case so legacy and broken entries stand out in a long table.
    match s {
        Status::Recommended => "ok",
        Status::Legacy => "LEGACY",
        Status::Broken => "BROKEN",
    }
}

/// The JSON document of `list --format json`.
pub fn listing<'a>(entries: &[&'a Entry]) -> Listing<'a> {
    Listing {
        schema: "ciphermeter.list/1",
        entries: entries
            .iter()
            .map(|e| Listed {
                entry: e,
                backends: e.backends().iter().map(|b| b.as_str()).collect(),
            })
            .collect(),
        mcrypt: mcrypt(),
    }
}

/// The table of `list`, with each legacy or broken entry's reason below it.
pub fn table(entries: &[&Entry]) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<24} {:<10} {:>7} {:>5} {:>6} {:>4} {:>4}  {:<7} backends",
        "id", "kind", "key", "block", "nonce", "tag", "bits", "status"
    );
    let mut reasons: Vec<(String, String)> = Vec::new();
    for e in entries {
        let _ = writeln!(
            o,
            "{:<24} {:<10} {:>7} {:>5} {:>6} {:>4} {:>4}  {:<7} {}",
            e.id,
            e.kind.as_str(),
            sizes(&e.key_sizes),
            opt(e.block_size),
            sizes(&e.nonce_sizes),
            opt(e.tag_size.or(e.output_size)),
            e.security_bits,
            status(e.status),
            e.backends()
                .iter()
                .map(|b| b.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
        if let Some(reason) = &e.status_reason
            && !reasons.iter().any(|(_, r)| r == reason)
        {
            reasons.push((e.primitive.clone(), reason.clone()));
        }
    }
    let _ = writeln!(
        o,
        "\nSizes are in bytes; bits is the security level. Why entries are LEGACY or BROKEN:"
    );
    for (primitive, reason) in reasons {
        let _ = writeln!(o, "  {primitive}: {reason}");
    }
    let m = mcrypt();
    let _ = writeln!(
        o,
        "\nlibmcrypt names (mcrypt:CIPHER:MODE) map as follows; {}.",
        m.note
    );
    let _ = writeln!(
        o,
        "  ciphers: {}",
        m.ciphers
            .iter()
            .map(|(a, b)| format!("{a}->{b}"))
            .collect::<Vec<_>>()
            .join("  ")
    );
    let _ = writeln!(
        o,
        "  modes:   {}",
        m.modes
            .iter()
            .map(|(a, b)| format!("{a}->{b}"))
            .collect::<Vec<_>>()
            .join("  ")
    );
    o
}
