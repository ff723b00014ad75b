//! `ciphermeter send`: seals readings and sends them to a gateway over a transport.

use std::io::BufReader;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args as ClapArgs;

use crate::args::{live_error, stop_flag};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Where to send: serial:/dev/ttyUSB0@115200, pty:/dev/pts/N, udp://HOST:PORT, tcp://HOST:PORT, mqtt://HOST:PORT/TOPIC.
    #[arg(long)]
    to: String,
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
    /// Message container: json, binary or cose.
    #[arg(long, default_value = "json")]
    container: String,
    /// Framing on byte streams: line or len (default: line for json, len otherwise).
    #[arg(long)]
    framing: Option<live::Framing>,
    /// Messages per second (default: as fast as possible).
    #[arg(long)]
    rate: Option<f64>,
    /// Mix in bad messages to test a gateway, e.g. tampered=10%,replayed=5%,truncated=5%.
    #[arg(long, default_value = "")]
    inject: String,
    /// Seed for generated readings and for --inject.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Do not add "sent_us" to JSON readings (the gateway then stores no latency).
    #[arg(long)]
    no_timestamp: bool,
    /// The input lines are sealed messages already (e.g. from --save): send them verbatim.
    #[arg(long, conflicts_with = "sample")]
    presealed: bool,
    /// Append each message sent to this file (one per line, hex for binary containers).
    #[arg(long)]
    save: Option<PathBuf>,
    /// MQTT: wrap each message as a network server's uplink: chirpstack, tts or raw.
    #[arg(long, default_value = "raw")]
    envelope: live::Envelope,
    /// TCP, MQTT: seconds to wait at the end for the gateway's (broker's) acknowledgements.
    #[arg(long, default_value_t = 5.0)]
    ack_wait: f64,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let to: live::Endpoint = args.to.parse().map_err(live_error)?;
    let container = crate::args::container(&args.container)?;
    let framing = args
        .framing
        .unwrap_or(live::Framing::for_container(container));
    let inject: live::inject::Mix = args.inject.parse().map_err(CliError::usage)?;
    if args.ack_wait.is_nan() || args.ack_wait < 0.0 || args.ack_wait.is_infinite() {
        return Err(CliError::usage("--ack-wait must be a number of seconds"));
    }
    let key = match &args.key_file {
        Some(p) => Some(seal::SealKey::load(p).map_err(CliError::usage)?),
        None => None,
    };
    let readings = match (&args.sample, &args.input) {
        (Some(sample), _) => live::Readings::Sample {
            sample: payload::Sample::parse(sample).map_err(CliError::usage)?,
            format: args.format.parse().map_err(CliError::usage)?,
            count: args.count,
            seed: args.seed,
        },
        (None, Some(path)) if path.as_os_str() != "-" => {
            let file = std::fs::File::open(path)
                .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
            live::Readings::Lines(Box::new(BufReader::new(file)))
        }
        _ => live::Readings::Lines(Box::new(BufReader::new(std::io::stdin()))),
    };
    let config = live::SendConfig {
        to,
        framing,
        container,
        payload: args.payload,
        packet: args.packet_size,
        rate: args.rate,
        inject,
        seed: args.seed,
        timestamp: !args.no_timestamp,
        ack_wait: Duration::from_secs_f64(args.ack_wait),
        presealed: args.presealed,
        save: args.save,
        envelope: args.envelope,
    };
    config.check().map_err(live_error)?;
    let stop = stop_flag()?;
    let report = live::send(&config, key.as_ref(), readings, &stop).map_err(live_error)?;
    println!(
        "{}",
        serde_json::to_string(&report).map_err(CliError::failed)?
    );
    if stop.load(Ordering::Relaxed) {
        return Err(CliError::Interrupted(format!(
            "interrupted after {} messages",
            report.sent
        )));
    }
    if let Some(acked) = report.acked.filter(|a| *a < report.sent) {
        return Err(CliError::failed(format!(
            "the gateway acknowledged {acked} of {} messages",
            report.sent
        )));
    }
    Ok(())
}
