//! `ciphermeter send`: seals readings and sends them to a gateway over a transport.

use clap::Args as ClapArgs;
use seal::host::container::MessageContainer;
use std::io::BufReader;
use std::path::PathBuf;

use crate::args::{Forward, print_sent, stop_flag};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    forward: Forward,
    /// Key file from `keygen` (not needed for --payload plaintext).
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// Generated readings, e.g. chain:10 (study 003's temperature chain).
    #[arg(long, conflicts_with = "input")]
    sample: Option<String>,
    /// How many generated readings to send.
    #[arg(long, default_value_t = 10)]
    count: u64,
    /// Readings from a file, one per line ('-' for standard input; the default without --sample).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Serialization of generated readings (json, cbor, msgpack, ...).
    #[arg(long, default_value = "json")]
    format: String,
    /// Study 000's payload types: plaintext, ciphertext, padded (ciphertext filled to whole radio packets).
    #[arg(long, default_value = "ciphertext")]
    payload: live::PayloadType,
    /// Radio packet size that `padded` fills up to.
    #[arg(long, default_value_t = 12)]
    packet_size: u32,
    /// Do not add "sent_us" to JSON readings (the gateway then stores no latency).
    #[arg(long)]
    no_timestamp: bool,
    /// --container oscore: the Uri-Path each reading is POSTed to.
    #[arg(long, default_value = seal::host::oscore::DEFAULT_URI_PATH)]
    uri_path: String,
    /// --container oscore: run an EDHOC handshake with the gateway first; --key-file is
    /// then the device's EDHOC credentials (keygen --scheme edhoc).
    #[arg(long)]
    edhoc: bool,
    /// The input lines are sealed messages already (e.g. from --save): send them verbatim.
    #[arg(long, conflicts_with = "sample")]
    presealed: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    if let Ok(MessageContainer::Oscore) = crate::args::container(&args.forward.container) {
        return send_oscore(&args);
    }
    if args.edhoc || args.uri_path != seal::host::oscore::DEFAULT_URI_PATH {
        return Err(CliError::usage(
            "--edhoc and --uri-path are for --container oscore",
        ));
    }
    let mut config = args.forward.config()?;
    let key = match &args.key_file {
        Some(p) => Some(seal::SealKey::load(p).map_err(CliError::usage)?),
        None => None,
    };
    let readings = readings(&args)?;
    config.payload = args.payload;
    config.packet = args.packet_size;
    config.timestamp = !args.no_timestamp;
    config.presealed = args.presealed;
    config.check()?;
    let stop = stop_flag()?;
    let report = live::send(&config, key.as_ref(), readings, &stop)?;
    print_sent(&report, &report, &stop)
}

/// `--container oscore --to coap://…`: each reading an OSCORE-protected POST.
fn send_oscore(args: &Args) -> Result<(), CliError> {
    if args.presealed || args.payload != live::PayloadType::Ciphertext {
        return Err(CliError::usage(
            "--container oscore seals every reading itself: no --presealed or --payload",
        ));
    }
    let key_file = args.key_file.as_ref().ok_or_else(|| {
        CliError::usage(
            "--container oscore needs --key-file (a context from keygen --scheme oscore:ALG)",
        )
    })?;
    let mut config = args.forward.coap_config(&args.format, !args.no_timestamp)?;
    config.uri_path.clone_from(&args.uri_path);
    let stop = stop_flag()?;
    let report = if args.edhoc {
        let credentials =
            handshake::credentials::Credentials::load(key_file).map_err(CliError::usage)?;
        let keying = live::coap::Keying::Edhoc(&credentials);
        live::coap::send(&config, keying, readings(args)?, &stop)
    } else {
        let key = seal::host::oscore::OscoreKey::load(key_file).map_err(CliError::usage)?;
        let keying = live::coap::Keying::Context(&key);
        live::coap::send(&config, keying, readings(args)?, &stop)
    }?;
    println!(
        "{}",
        serde_json::to_string(&report).map_err(CliError::failed)?
    );
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(CliError::Interrupted(format!(
            "interrupted after {} messages",
            report.sent
        )));
    }
    if report.acked < report.good {
        return Err(CliError::failed(format!(
            "the gateway confirmed {} of {} requests within --ack-wait",
            report.acked, report.good
        )));
    }
    Ok(())
}

fn readings(args: &Args) -> Result<live::Readings<'static>, CliError> {
    Ok(match (&args.sample, &args.input) {
        (Some(sample), _) => live::Readings::Sample {
            sample: payload::Sample::parse(sample).map_err(CliError::usage)?,
            format: args.format.parse().map_err(CliError::usage)?,
            count: args.count,
            seed: args.forward.seed,
        },
        (None, Some(path)) if path.as_os_str() != "-" => {
            let file = std::fs::File::open(path)
                .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
            live::Readings::Lines(Box::new(BufReader::new(file)))
        }
        _ => live::Readings::Lines(Box::new(BufReader::new(std::io::stdin()))),
    })
}
