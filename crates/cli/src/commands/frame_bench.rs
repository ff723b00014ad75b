//! `ciphermeter frame-bench`: the whole path a reading takes on a device, timed
//! per message (crates/cost `frame`, which says what each column means).

use clap::Args as ClapArgs;
use cost::frame::{DEFAULT_SCHEMES, GridRequest, json_value, measure_grid, table_text};

use crate::args::{Format, show};
use crate::error::CliError;

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
    format: Format,
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
    show(args.format, || json_value(&rows), || table_text(&rows))
}
