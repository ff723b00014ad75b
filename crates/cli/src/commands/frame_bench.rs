//! `ciphermeter frame-bench`: the whole path a reading takes on a device —
//! serialize, seal (fresh nonce each time), frame, encode — timed per message
//! with the measurement engine (crates/measure).
//!
//! Reported per case:
//! - µs/message: median time of one full message;
//! - µs/byte: that over the serialized reading's bytes (study 003, Fig. 9);
//! - overhead ratio: message bytes / reading bytes (study 003, Fig. 11);
//! - expansion factor: ciphertext bytes as carried (after base64 in `json`,
//!   after the transport encoding otherwise) / plaintext bytes (study 000, §4.3);
//! - cost per bit: (µs/byte) / bits of security as study 003 scores them (§3.5, Fig. 10).

use clap::{Args as ClapArgs, ValueEnum};
use cost::frame::{DEFAULT_SCHEMES, GridRequest, json_value, measure_grid, table_text};

use crate::error::CliError;

#[derive(Clone, Copy, ValueEnum)]
pub enum Output {
    Table,
    Json,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Schemes, comma-separated or repeated.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_SCHEMES)]
    scheme: Vec<String>,
    /// Readings: chain:N, record:KB, random:N; comma-separated or repeated.
    #[arg(long, value_delimiter = ',', default_value = "chain:10")]
    sample: Vec<String>,
    /// Serializations (json, json-pretty, yaml, yaml-min, cbor, msgpack); comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "json")]
    serialization: Vec<String>,
    /// Containers (json, binary, cose); comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "json")]
    container: Vec<String>,
    /// Transport encodings (raw, hex, base64, base64url); comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "raw")]
    encoding: Vec<String>,
    /// Distinct seeded readings cycled through while timing (the study drew a fresh one per message).
    #[arg(long, default_value_t = 64)]
    readings: usize,
    /// A short run for smoke tests: fewer, shorter samples.
    #[arg(long)]
    quick: bool,
    #[arg(long, value_enum, default_value = "table")]
    format: Output,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let grid = GridRequest {
        schemes: args.scheme,
        samples: args.sample,
        serializations: args.serialization,
        containers: args.container,
        encodings: args.encoding,
        readings: args.readings,
        quick: args.quick,
    };
    let rows = measure_grid(&grid.grid()?)?;
    match args.format {
        Output::Table => print!("{}", table_text(&rows)),
        Output::Json => println!(
            "{}",
            serde_json::to_string_pretty(&json_value(&rows)).map_err(CliError::failed)?
        ),
    }
    Ok(())
}
