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

use std::time::Duration;

use clap::{Args as ClapArgs, ValueEnum};
use measure::{Config, Measurement, Sampler};
use payload::{Encoding, Format, Node, Sample};
use seal::{Container, NoncePolicy, NonceSource, Pattern, RandomNonces, Scheme, SealKey, Sealer};
use serde_json::json;

use super::seal_io::{container, encoding, seal_err};
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

/// The readings one case cycles through.
pub enum Readings {
    /// Structured readings, serialized inside the timed path.
    Nodes(Vec<Node>, Format),
    /// Bytes sealed as they are (random samples, or pre-serialized readings).
    Bytes(Vec<Vec<u8>>),
}

impl Readings {
    pub fn generate(sample: &Sample, format: Format, count: usize) -> Readings {
        let seeds = 1..=count.max(1) as u64;
        match sample {
            Sample::Random(_) => Readings::Bytes(
                seeds
                    .map(|s| sample.bytes(format, s).expect("random bytes"))
                    .collect(),
            ),
            _ => Readings::Nodes(
                seeds
                    .map(|s| sample.record(s).expect("structured sample"))
                    .collect(),
                format,
            ),
        }
    }

    fn len(&self) -> usize {
        match self {
            Readings::Nodes(n, _) => n.len(),
            Readings::Bytes(b) => b.len(),
        }
    }

    fn plaintext(&self, i: usize) -> Vec<u8> {
        match self {
            Readings::Nodes(nodes, format) => format.serialize(&nodes[i]).unwrap_or_default(),
            Readings::Bytes(bytes) => bytes[i].clone(),
        }
    }
}

/// What one case measured, and the sizes behind its ratios (means over the readings).
pub struct FrameResult {
    pub measurement: Measurement,
    pub reading_bytes: f64,
    pub message_bytes: f64,
    pub carried_ciphertext_bytes: f64,
    /// Size with only study 003's Appendix B fields (`iv`, `tag`, `data`), for the `json` container.
    pub appendix_b_bytes: Option<f64>,
}

impl FrameResult {
    pub fn us_per_message(&self) -> f64 {
        self.measurement.ns.median / 1000.0
    }
    pub fn us_per_byte(&self) -> f64 {
        self.us_per_message() / self.reading_bytes
    }
    pub fn overhead_ratio(&self) -> f64 {
        self.message_bytes / self.reading_bytes
    }
    pub fn expansion(&self) -> f64 {
        self.carried_ciphertext_bytes / self.reading_bytes
    }
}

/// Measures one scheme × container × encoding over `readings`. The key
/// schedule runs once, before timing, as a device keeps its key.
pub fn measure_frame(
    scheme: &Scheme,
    container: Container,
    encoding: Encoding,
    readings: &Readings,
    config: Config,
) -> Result<FrameResult, CliError> {
    let key = SealKey::generate(scheme.clone(), NoncePolicy::Random).map_err(seal_err)?;
    // Measurement may use legacy schemes (the studies did); the output flags them.
    let mut sealer = Sealer::new(&key, true).map_err(seal_err)?;
    let nonce_len = scheme.nonce_len();

    // Sizes, outside the timed path.
    let (mut reading, mut message, mut carried, mut appendix_b) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..readings.len() {
        let plaintext = readings.plaintext(i);
        let nonce = RandomNonces.next_nonce(nonce_len).map_err(seal_err)?;
        let sealed = sealer
            .seal(container, &nonce, &plaintext, b"")
            .map_err(seal_err)?;
        reading += plaintext.len() as f64;
        message += encoding.encode(&sealed).len() as f64;
        carried += carried_len(scheme, container, encoding, &plaintext) as f64;
        appendix_b += appendix_b_len(container, &sealed) as f64;
    }
    let n = readings.len() as f64;

    let mut failure = None;
    let mut next = 0usize;
    let mut sampler = Sampler::new(config, false);
    let measurement = sampler
        .measure(|| {
            let i = next % readings.len();
            next += 1;
            let plaintext = readings.plaintext(i);
            let sealed = RandomNonces
                .next_nonce(nonce_len)
                .and_then(|nonce| sealer.seal(container, &nonce, &plaintext, b""));
            match sealed {
                Ok(bytes) => encoding.encode(&bytes).len(),
                Err(e) => {
                    failure.get_or_insert(e);
                    0
                }
            }
        })
        .map_err(|_| CliError::Interrupted("interrupted while measuring".into()))?;
    if let Some(e) = failure {
        return Err(seal_err(e));
    }
    Ok(FrameResult {
        measurement,
        reading_bytes: reading / n,
        message_bytes: message / n,
        carried_ciphertext_bytes: carried / n,
        appendix_b_bytes: (container == Container::Json).then_some(appendix_b / n),
    })
}

/// Ciphertext bytes as they travel: base64 (or escaped text for hmac) inside `json`,
/// the transport encoding of the raw bytes otherwise.
fn carried_len(
    scheme: &Scheme,
    container: Container,
    encoding: Encoding,
    plaintext: &[u8],
) -> usize {
    let body = scheme.body_len(plaintext.len());
    match container {
        Container::Json => match (scheme.pattern, std::str::from_utf8(plaintext)) {
            (Pattern::Hmac, Ok(text)) => serde_json::to_string(text)
                .map(|s| s.len() - 2)
                .unwrap_or(body),
            _ => Encoding::Base64.encoded_len(body),
        },
        _ => encoding.encoded_len(body),
    }
}

/// The `json` message with only `iv`, `tag` and `data`/`text`: study 003's Appendix B layout.
fn appendix_b_len(container: Container, sealed: &[u8]) -> usize {
    if container != Container::Json {
        return 0;
    }
    let full: serde_json::Value = serde_json::from_slice(sealed).unwrap_or_default();
    let mut slim = serde_json::Map::new();
    for field in ["iv", "tag", "data", "text"] {
        if let Some(v) = full.get(field) {
            slim.insert(field.to_string(), v.clone());
        }
    }
    serde_json::to_vec(&slim).map(|v| v.len()).unwrap_or(0)
}

pub fn config(quick: bool) -> Config {
    if quick {
        Config::quick()
    } else {
        Config::with_time(Duration::from_millis(250))
    }
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
