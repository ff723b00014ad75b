//! What the commands share: argument types and parsers, standard input and
//! output, and the mapping of library errors onto exit statuses. Commands
//! import this module and the libraries, never one another.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::Args as ClapArgs;
use payload::{Encoding, Format as Serialization};
use store::Store;
use zeroize::Zeroizing;

use crate::error::CliError;

/// The link catalogue with `--data-dir` (or `$CIPHERMETER_DATA_DIR`) applied.
pub fn links(flag: &Option<PathBuf>) -> Result<link::Catalogue, CliError> {
    Ok(cost::data::links(flag.as_deref())?)
}

/// Device, radio and battery profiles with `--data-dir` applied.
pub fn profiles(flag: &Option<PathBuf>) -> Result<energy::Profiles, CliError> {
    Ok(cost::data::profiles(flag.as_deref())?)
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

/// Prints `json()` or `text()`, as `format` asks.
pub fn show(
    format: Format,
    json: impl FnOnce() -> serde_json::Value,
    text: impl FnOnce() -> String,
) -> Result<(), CliError> {
    match format {
        Format::Json => print_json(&json()),
        Format::Table => {
            print!("{}", text());
            Ok(())
        }
    }
}

/// [`show`] for a value that serializes itself.
pub fn show_value(
    format: Format,
    value: &impl serde::Serialize,
    text: impl FnOnce() -> String,
) -> Result<(), CliError> {
    let json = serde_json::to_value(value).map_err(CliError::failed)?;
    show(format, || json, text)
}

#[derive(ClapArgs, Clone, Debug, Default)]
pub struct DbArgs {
    /// Results database, a file or postgres://user@host:port/db [default: $XDG_DATA_HOME/ciphermeter/results.sqlite].
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<store::Location>,
}

impl DbArgs {
    pub fn open(&self) -> Result<Store, CliError> {
        let location = match &self.db {
            Some(l) => l.clone(),
            None => store::Location::Sqlite(store::default_path()?),
        };
        Ok(Store::open(location)?)
    }
}

/// A flag set by SIGINT or SIGTERM, so long-running commands can finish cleanly.
pub fn stop_flag() -> Result<Arc<AtomicBool>, CliError> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, flag.clone())
            .map_err(|e| CliError::failed(format!("cannot handle signals: {e}")))?;
    }
    Ok(flag)
}

/// `--container`: json, binary, cose or oscore.
pub fn encoding(text: &str) -> Result<Encoding, CliError> {
    text.parse()
        .map_err(|e| CliError::usage(format!("--encoding: {e}")))
}

/// `raw` means "the bytes as given"; anything else is a serialization format.
pub fn serialization(text: &str) -> Result<Option<Serialization>, CliError> {
    payload::plaintext::serialization(text).map_err(CliError::Usage)
}

/// Reads all of standard input, refusing more than `max` bytes.
pub fn read_stdin(max: usize, what: &str) -> Result<Vec<u8>, CliError> {
    let too_big = || {
        CliError::usage(format!(
            "{what} on standard input is larger than {max} bytes"
        ))
    };
    payload::plaintext::read_bounded(std::io::stdin().lock(), max)?.ok_or_else(too_big)
}

/// Decodes a hex argument; `what` names it in the error ("--key").
pub fn decode_hex(what: &str, text: &str) -> Result<Zeroizing<Vec<u8>>, CliError> {
    payload::decode_hex(text)
        .map(Zeroizing::new)
        .map_err(|e| CliError::usage(format!("{what}: not valid hex ({e})")))
}

/// The `--input` hex, or every byte of standard input.
pub fn read_input(hex_input: Option<&str>) -> Result<Zeroizing<Vec<u8>>, CliError> {
    match hex_input {
        Some(text) => decode_hex("--input", text),
        None => {
            let mut buf = Zeroizing::new(Vec::new());
            std::io::stdin().read_to_end(&mut buf)?;
            Ok(buf)
        }
    }
}

pub fn write_output(text: &str, path: Option<&PathBuf>) -> Result<(), CliError> {
    match path {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| CliError::failed(format!("cannot write {}: {e}", p.display()))),
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())?;
            out.flush()?;
            Ok(())
        }
    }
}

/// How a message is sent, beyond its size (`link`, `energy`).
#[derive(ClapArgs, Clone, Debug, Default)]
pub struct SendArgs {
    /// Pad the message with zeros to whole frames/packets (study 000's remedy).
    #[arg(long)]
    pub pad_to_packet: bool,
    /// LoRaWAN: MAC commands piggybacked in the first frame's FOpts, as hex (at most 15 B).
    #[arg(long, default_value = "")]
    pub f_opts: String,
}

impl SendArgs {
    pub fn options(&self) -> Result<link::SendOptions, CliError> {
        Ok(cost::link_view::send_options(
            self.pad_to_packet,
            &self.f_opts,
        )?)
    }
}

/// The link protocol's parameters (`energy`, `recommend`).
pub type ProtocolArgs = energy::protocol::Flags;

/// Prints what was sent (`shown`, as JSON) and fails when the run was cut
/// short or `shortfall` says the gateway acknowledged too few.
pub fn print_sent(
    shown: &impl serde::Serialize,
    sent: u64,
    shortfall: Option<String>,
    stop: &AtomicBool,
) -> Result<(), CliError> {
    println!(
        "{}",
        serde_json::to_string(shown).map_err(CliError::failed)?
    );
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(CliError::Interrupted(format!(
            "interrupted after {sent} messages"
        )));
    }
    shortfall.map_or(Ok(()), |why| Err(CliError::failed(why)))
}
