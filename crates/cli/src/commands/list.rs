//! `list`: every catalogue entry with its metadata, backends and status.

use catalogue::{Entry, Kind, Status};
use clap::Args as ClapArgs;
use serde::Serialize;

use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Only this kind: block-mode, stream, aead, hash, mac, asymmetric, baseline.
    #[arg(long)]
    pub kind: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::args::Format,
}

#[derive(Serialize)]
struct Listing<'a> {
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

pub fn run(args: Args) -> Result<(), CliError> {
    let kind = match args.kind.as_deref() {
        None => None,
        Some(text) => Some(Kind::parse(text).ok_or_else(|| {
            CliError::usage(format!(
                "unknown kind '{text}' (known: block-mode, stream, aead, hash, mac, asymmetric, baseline)"
            ))
        })?),
    };
    let entries: Vec<&Entry> = catalogue::catalogue()
        .entries()
        .iter()
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .collect();
    match args.format {
        crate::args::Format::Json => print_json(&entries),
        crate::args::Format::Table => {
            print_table(&entries);
            Ok(())
        }
    }
}

fn mcrypt() -> Mcrypt {
    Mcrypt {
        note: "libmcrypt's cfb/ofb feed back 8 bits and map to cfb8/ofb8; its ncfb/nofb feed back a full block; \
               its ctr counts over the whole block, big-endian; key sizes follow the key given",
        ciphers: catalogue::mcrypt::CIPHERS.to_vec(),
        modes: catalogue::mcrypt::MODES.to_vec(),
    }
}

fn print_json(entries: &[&Entry]) -> Result<(), CliError> {
    let listing = Listing {
        schema: "ciphermeter.list/1",
        entries: entries
            .iter()
            .map(|e| Listed {
                entry: e,
                backends: e.backends().iter().map(|b| b.as_str()).collect(),
            })
            .collect(),
        mcrypt: mcrypt(),
    };
    let text = serde_json::to_string_pretty(&listing).map_err(CliError::failed)?;
    println!("{text}");
    Ok(())
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

fn print_table(entries: &[&Entry]) {
    println!(
        "{:<24} {:<10} {:>7} {:>5} {:>6} {:>4} {:>4}  {:<7} backends",
        "id", "kind", "key", "block", "nonce", "tag", "bits", "status"
    );
    let mut reasons: Vec<(String, String)> = Vec::new();
    for e in entries {
        println!(
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
    println!("\nSizes are in bytes; bits is the security level. Why entries are LEGACY or BROKEN:");
    for (primitive, reason) in reasons {
        println!("  {primitive}: {reason}");
    }
    let m = mcrypt();
    println!(
        "\nlibmcrypt names (mcrypt:CIPHER:MODE) map as follows; {}.",
        m.note
    );
    println!(
        "  ciphers: {}",
        m.ciphers
            .iter()
            .map(|(a, b)| format!("{a}->{b}"))
            .collect::<Vec<_>>()
            .join("  ")
    );
    println!(
        "  modes:   {}",
        m.modes
            .iter()
            .map(|(a, b)| format!("{a}->{b}"))
            .collect::<Vec<_>>()
            .join("  ")
    );
}
