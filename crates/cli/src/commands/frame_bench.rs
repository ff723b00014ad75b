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
use cost::frame::{FrameResult, Readings, config, measure_frame};
use payload::{Encoding, Format, Sample};
use seal::{Container, Scheme};
use serde_json::json;

use crate::args::{container, encoding};
use crate::error::CliError;

const DEFAULT_SCHEMES: &str = "hmac:hmac-sha256,etm:aes-128-cbc+hmac-sha256,aead:aes-128-gcm,aead:aes-256-gcm,aead:chacha20-poly1305,aead:ascon-aead128";

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
    let schemes: Vec<Scheme> = args
        .scheme
        .iter()
        .map(|s| Scheme::parse(s).map_err(|e| CliError::usage(format!("--scheme: {e}"))))
        .collect::<Result<_, _>>()?;
    let samples: Vec<Sample> = args
        .sample
        .iter()
        .map(|s| Sample::parse(s).map_err(|e| CliError::usage(format!("--sample: {e}"))))
        .collect::<Result<_, _>>()?;
    let formats: Vec<Format> = args
        .serialization
        .iter()
        .map(|s| {
            s.parse()
                .map_err(|e| CliError::usage(format!("--serialization: {e}")))
        })
        .collect::<Result<_, _>>()?;
    let containers: Vec<Container> = args
        .container
        .iter()
        .map(|c| container(c))
        .collect::<Result<_, _>>()?;
    let encodings: Vec<Encoding> = args
        .encoding
        .iter()
        .map(|e| encoding(e))
        .collect::<Result<_, _>>()?;
    if args.readings == 0 || args.readings > 100_000 {
        return Err(CliError::usage("--readings must be 1..=100000"));
    }

    let mut rows = Vec::new();
    for sample in &samples {
        for &format in &formats {
            let readings = Readings::generate(
                sample,
                format,
                if args.quick {
                    args.readings.min(8)
                } else {
                    args.readings
                },
            );
            for scheme in &schemes {
                for &container in &containers {
                    for &encoding in &encodings {
                        let r = measure_frame(
                            scheme,
                            container,
                            encoding,
                            &readings,
                            config(args.quick),
                        )?;
                        rows.push(Row {
                            scheme: scheme.clone(),
                            sample: sample.clone(),
                            format,
                            container,
                            encoding,
                            r,
                        });
                    }
                }
            }
        }
    }
    match args.format {
        Output::Table => print_table(&rows),
        Output::Json => print_json(&rows),
    }
    Ok(())
}

struct Row {
    scheme: Scheme,
    sample: Sample,
    format: Format,
    container: Container,
    encoding: Encoding,
    r: FrameResult,
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<34} {:<9} {:<8} {:<6} {:<9} {:>7} {:>7} {:>9} {:>8} {:>7} {:>6} {:>5} {:>10}",
        "scheme",
        "sample",
        "format",
        "cont.",
        "encoding",
        "in B",
        "out B",
        "µs/msg",
        "µs/B",
        "ovh",
        "exp",
        "bits",
        "(µs/B)/bit"
    );
    let mut flagged = Vec::new();
    for row in rows {
        let insecure = row.scheme.insecurity();
        let mark = if insecure.is_empty() { "" } else { " ⚠" };
        if !insecure.is_empty()
            && !flagged
                .iter()
                .any(|(s, _): &(String, _)| s == row.scheme.name())
        {
            flagged.push((row.scheme.name().to_string(), insecure));
        }
        let bits = row.scheme.study003_bits();
        println!(
            "{:<34} {:<9} {:<8} {:<6} {:<9} {:>7.0} {:>7.0} {:>9.2} {:>8.4} {:>7.2} {:>6.2} {:>5} {:>10.2e}{mark}",
            row.scheme.name(),
            row.sample.to_string(),
            row.format.as_str(),
            row.container.as_str(),
            row.encoding.as_str(),
            row.r.reading_bytes,
            row.r.message_bytes,
            row.r.us_per_message(),
            row.r.us_per_byte(),
            row.r.overhead_ratio(),
            row.r.expansion(),
            bits,
            row.r.us_per_byte() / bits.max(1) as f64,
        );
    }
    println!();
    println!(
        "µs/msg: median of the full path (serialize, nonce, seal, frame, encode); ovh = out/in bytes;"
    );
    println!(
        "exp = ciphertext as carried / plaintext (study 000); bits as study 003 scores them (key or digest length)."
    );
    for (scheme, reasons) in flagged {
        println!("⚠ {scheme}: {}", reasons.join("; "));
    }
    if cfg!(debug_assertions) {
        println!("note: this is a debug build; times are far slower than a release build's");
    }
}

fn print_json(rows: &[Row]) {
    let cases: Vec<_> = rows
        .iter()
        .map(|row| {
            let bits = row.scheme.study003_bits();
            json!({
                "scheme": row.scheme.name(),
                "sample": row.sample.to_string(),
                "serialization": row.format.as_str(),
                "container": row.container.as_str(),
                "encoding": row.encoding.as_str(),
                "reading_bytes": row.r.reading_bytes,
                "message_bytes": row.r.message_bytes,
                "us_per_message": row.r.us_per_message(),
                "us_per_message_ci95": [row.r.measurement.ns.ci95_low / 1000.0, row.r.measurement.ns.ci95_high / 1000.0],
                "us_per_byte": row.r.us_per_byte(),
                "overhead_ratio": row.r.overhead_ratio(),
                "expansion_factor": row.r.expansion(),
                "security_bits_study003": bits,
                "cost_per_bit": row.r.us_per_byte() / bits.max(1) as f64,
                "insecure": row.scheme.insecurity(),
            })
        })
        .collect();
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({ "frame_bench": cases }))
            .expect("JSON values serialize")
    );
}
