//! `ciphermeter handshake`: what establishing a session key costs on a link
//! (crates/handshake): each message's bytes, frames and time on air.

use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};

use crate::args::{Format, links, show, usage};
use crate::error::CliError;

#[derive(Subcommand)]
pub enum Protocol {
    /// EDHOC (RFC 9528), run for real with lakers; it exports an OSCORE context.
    Edhoc(EdhocArgs),
}

#[derive(ClapArgs)]
pub struct EdhocArgs {
    /// Authentication method: 3 (static DH both ways; lakers implements only this one).
    #[arg(long, default_value_t = 3)]
    method: u8,
    /// Cipher suite: 2 (AES-CCM-16-64-128, SHA-256, P-256).
    #[arg(long, default_value_t = 2)]
    suite: u8,
    /// Link name from the catalogue (`link --list`).
    #[arg(long)]
    link: String,
    /// Leave out the optional message_4 (the responder's key confirmation).
    #[arg(long)]
    no_message_4: bool,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

pub fn run(protocol: Protocol) -> Result<(), CliError> {
    let Protocol::Edhoc(args) = protocol;
    let cat = links(&args.data_dir)?;
    let spec = cat.get(&args.link).map_err(usage)?;
    let cost = handshake::edhoc_on_link(args.method, args.suite, !args.no_message_4, spec)
        .map_err(|e| match e {
            handshake::HandshakeError::Protocol(_) => CliError::failed(e),
            _ => usage(e),
        })?;
    show(
        args.format,
        || serde_json::to_value(&cost).unwrap_or_default(),
        || cost.text(),
    )
}
