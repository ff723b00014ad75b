//! `ciphermeter send`: seals readings and sends them to a gateway over a transport.

use clap::Args as ClapArgs;
use live::sender_options::SendOptions;
use std::path::PathBuf;

use crate::args::{print_sent, stop_flag};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    forward: live::sender_options::SenderOptions,
    /// Key file from `keygen` (not needed for --payload plaintext).
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// Generated readings, e.g. chain:10 (study 003's temperature chain).
    #[arg(long, conflicts_with = "input")]
    sample: Option<String>,
    /// How many generated readings to send.
    #[arg(long, default_value_t = SendOptions::default().count)]
    count: u64,
    /// Readings from a file, one per line ('-' for standard input; the default without --sample).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Serialization of generated readings (json, cbor, msgpack, ...).
    #[arg(long, default_value_t = SendOptions::default().format)]
    serialization: String,
    /// Old spelling of --serialization.
    #[arg(long, hide = true, conflicts_with = "serialization")]
    format: Option<String>,
    /// Study 000's payload types: plaintext, ciphertext, padded (ciphertext filled to whole radio packets).
    #[arg(long, default_value = "ciphertext")]
    payload: live::PayloadType,
    /// Radio packet size that `padded` fills up to.
    #[arg(long, default_value_t = SendOptions::default().packet_size)]
    packet_size: u32,
    /// Do not add "sent_us" to JSON readings (the gateway then stores no latency).
    #[arg(long)]
    no_timestamp: bool,
    /// --container oscore: the Uri-Path each reading is POSTed to.
    #[arg(long, default_value_t = SendOptions::default().uri_path)]
    uri_path: String,
    /// --container oscore: run an EDHOC handshake with the gateway first; --key-file is
    /// then the device's EDHOC credentials (keygen --scheme edhoc, or edhoc-psk for a
    /// pre-shared key: the file says which method runs).
    #[arg(long)]
    edhoc: bool,
    /// The input lines are sealed messages already (e.g. from --save): send them verbatim.
    #[arg(long, conflicts_with = "sample")]
    presealed: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let options = SendOptions {
        sender: args.forward,
        key_file: args.key_file,
        sample: args.sample,
        count: args.count,
        input: args.input,
        format: crate::renamed::old(args.format, "--format", "--serialization")
            .unwrap_or(args.serialization),
        payload: args.payload,
        packet_size: args.packet_size,
        timestamp: !args.no_timestamp,
        uri_path: args.uri_path,
        edhoc: args.edhoc,
        presealed: args.presealed,
    };
    let stop = stop_flag()?;
    let sent = options.run(&stop)?;
    print_sent(&sent, sent.sent(), sent.shortfall(), &stop)
}
