//! Helpers shared by the link and energy commands (`airtime`, `link`, `energy`,
//! `reproduce lora`, `reproduce rf-transmission`): the data directory, ranges, errors.

use std::path::PathBuf;

use crate::error::CliError;

/// The user's data directory: `--data-dir`, else `$CIPHERMETER_DATA_DIR`, else none
/// (only the files built into the binary).
pub fn data_dir(flag: &Option<PathBuf>) -> Option<PathBuf> {
    flag.clone().or_else(|| {
        std::env::var_os(link::DATA_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

pub fn links(flag: &Option<PathBuf>) -> Result<link::Catalogue, CliError> {
    link::Catalogue::with_dir(data_dir(flag).as_deref()).map_err(usage)
}

pub fn profiles(flag: &Option<PathBuf>) -> Result<energy::Profiles, CliError> {
    energy::Profiles::with_dir(data_dir(flag).as_deref()).map_err(usage)
}

/// Link and energy errors all come from what the user typed or the files they wrote.
pub fn usage(e: impl std::fmt::Display) -> CliError {
    CliError::usage(e)
}

/// Parses "N" or an inclusive range "A..B" of non-negative integers up to `max`.
pub fn parse_range(what: &str, text: &str, max: u32) -> Result<Vec<u32>, CliError> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(CliError::usage(format!(
            "{what}: must not be negative (got '{text}')"
        )));
    }
    let one = |s: &str| -> Result<u32, CliError> {
        let s = s.trim();
        if s.starts_with('-') {
            return Err(CliError::usage(format!(
                "{what}: must not be negative (got '{text}')"
            )));
        }
        let n: u64 = s.parse().map_err(|_| {
            CliError::usage(format!(
                "{what}: '{text}' is not a number or a range like 5..12"
            ))
        })?;
        if n > u64::from(max) {
            return Err(CliError::usage(format!(
                "{what}: {n} is above the maximum of {max}"
            )));
        }
        Ok(n as u32)
    };
    match t.split_once("..") {
        Some((a, b)) => {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (one(a)?, one(b)?);
            if a > b {
                return Err(CliError::usage(format!("{what}: empty range {a}..{b}")));
            }
            Ok((a..=b).collect())
        }
        None => Ok(vec![one(t)?]),
    }
}

/// "on"/"off" (also true/false, yes/no).
pub fn parse_switch(what: &str, text: &str) -> Result<bool, CliError> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(CliError::usage(format!(
            "{what}: expected on or off, not '{text}'"
        ))),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
}

/// Prints JSON, mapping the impossible serialisation failure to exit 1.
pub fn print_json(value: &serde_json::Value) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(CliError::failed)?;
    println!("{text}");
    Ok(())
}

/// Milliseconds as a JSON number with microsecond resolution.
pub fn ms(t: link::Micros) -> f64 {
    (t.as_ms() * 1000.0).round() / 1000.0
}
