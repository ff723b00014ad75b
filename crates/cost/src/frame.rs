//! The whole path a reading takes on a device — serialize, seal (fresh nonce
//! each time), frame, encode — timed per message with the measurement engine.
//!
//! Reported per case (`frame-bench`), from one measurement:
//! - µs/message: median time of one full message;
//! - µs/byte: that over the serialized reading's bytes (study 003, Fig. 9);
//! - overhead ratio: message bytes / reading bytes (study 003, Fig. 11);
//! - expansion factor: ciphertext bytes as carried (after base64 in `json`,
//!   after the transport encoding otherwise) / plaintext bytes (study 000, §4.3);
//! - cost per bit: (µs/byte) / bits of security as study 003 scores them (§3.5, Fig. 10).

use std::time::Duration;

use measure::{Config, Measurement, Sampler};
use payload::{Encoding, Format, Node, Sample};
use seal::{
    Container, HostSealer, NoncePolicy, NonceSource, Pattern, RandomNonces, Scheme, SealError,
    SealKey,
};

use seal::host::container::MessageContainer;
use serde_json::json;

use crate::Error;

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
) -> Result<FrameResult, Error> {
    let key = SealKey::generate(scheme.clone(), NoncePolicy::Random)?;
    // Measurement may use legacy schemes (the studies did); the output flags them.
    let mut sealer = HostSealer::new(&key, true)?;
    let nonce_len = scheme.nonce_len();

    // Sizes, outside the timed path.
    let (mut reading, mut message, mut carried, mut appendix_b) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..readings.len() {
        let plaintext = readings.plaintext(i);
        let nonce = RandomNonces.next_nonce(nonce_len)?;
        let sealed = sealer.seal(container, &nonce, &plaintext, b"")?;
        reading += plaintext.len() as f64;
        message += encoding.encode(&sealed).len() as f64;
        carried += carried_len(scheme, container, encoding, &plaintext) as f64;
        appendix_b += appendix_b_len(container, &sealed) as f64;
    }
    let n = readings.len() as f64;

    let mut next = 0usize;
    let measurement = time_sealing(&mut sealer, scheme, container, encoding, config, || {
        let i = next % readings.len();
        next += 1;
        readings.plaintext(i)
    })?;
    Ok(FrameResult {
        measurement,
        reading_bytes: reading / n,
        message_bytes: message / n,
        carried_ciphertext_bytes: carried / n,
        appendix_b_bytes: (container == Container::Json).then_some(appendix_b / n),
    })
}

/// Times sealing the plaintexts `next` yields, each under a fresh random
/// nonce (no nonce repeats under the key) and transport-encoded. A failed
/// seal is an error, never a fast sample.
pub fn time_sealing(
    sealer: &mut HostSealer,
    scheme: &Scheme,
    container: Container,
    encoding: Encoding,
    config: Config,
    next: impl FnMut() -> Vec<u8>,
) -> Result<Measurement, Error> {
    let job = SealJob {
        sealer,
        scheme,
        container,
        encoding,
        next: Box::new(next),
    };
    time_sealings(vec![job], config)?.remove(0)
}

/// One message path to time: its sealer and the plaintexts it seals.
pub struct SealJob<'a> {
    pub sealer: &'a mut HostSealer,
    pub scheme: &'a Scheme,
    pub container: Container,
    pub encoding: Encoding,
    pub next: Box<dyn FnMut() -> Vec<u8> + 'a>,
}

/// Times several message paths with their samples interleaved in rounds
/// (`Sampler::measure_interleaved`), so a drift of the machine hits all
/// schemes alike. Each job's measurement, or the error its seal failed with;
/// an interruption is the outer error.
pub fn time_sealings(
    mut jobs: Vec<SealJob>,
    config: Config,
) -> Result<Vec<Result<Measurement, Error>>, Error> {
    let mut failures: Vec<Option<SealError>> = jobs.iter().map(|_| None).collect();
    let mut ops: Vec<Box<dyn FnMut() + '_>> = jobs
        .iter_mut()
        .zip(failures.iter_mut())
        .map(|(job, failure)| {
            let nonce_len = job.scheme.nonce_len();
            Box::new(move || {
                let plaintext = (job.next)();
                let sealed = RandomNonces
                    .next_nonce(nonce_len)
                    .and_then(|nonce| job.sealer.seal(job.container, &nonce, &plaintext, b""));
                match sealed {
                    Ok(bytes) => {
                        std::hint::black_box(job.encoding.encode(&bytes));
                    }
                    Err(e) => {
                        failure.get_or_insert(e);
                    }
                }
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = ops.iter_mut().map(|op| &mut **op as _).collect();
    let measured = Sampler::new(config, false)
        .measure_interleaved(&mut refs)
        .map_err(|_| Error::interrupted())?;
    drop(refs);
    drop(ops);
    Ok(measured
        .into_iter()
        .zip(failures)
        .map(|(m, failure)| match failure {
            Some(e) => Err(e.into()),
            None => Ok(m),
        })
        .collect())
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

/// Every scheme × sample × serialization × container × encoding `frame-bench` measures.
pub struct Grid {
    pub schemes: Vec<Scheme>,
    pub samples: Vec<Sample>,
    pub formats: Vec<Format>,
    pub containers: Vec<Container>,
    pub encodings: Vec<Encoding>,
    /// Distinct seeded readings cycled through while timing.
    pub readings: usize,
    pub quick: bool,
}

/// `frame-bench`'s schemes when none are given.
pub const DEFAULT_SCHEMES: &str = "hmac:hmac-sha256,etm:aes-128-cbc+hmac-sha256,aead:aes-128-gcm,aead:aes-256-gcm,aead:chacha20-poly1305,aead:ascon-aead128";

/// `frame-bench`'s lists as typed, one name per item.
#[derive(Clone, Debug, Default)]
pub struct GridRequest {
    pub schemes: Vec<String>,
    pub samples: Vec<String>,
    pub serializations: Vec<String>,
    pub containers: Vec<String>,
    pub encodings: Vec<String>,
    pub readings: usize,
    pub quick: bool,
}

impl GridRequest {
    /// The grid; an error names the flag of the first name that is wrong.
    /// `quick` cycles through at most 8 readings.
    pub fn grid(&self) -> Result<Grid, Error> {
        fn each<T, E: std::fmt::Display>(
            names: &[String],
            flag: &str,
            parse: impl Fn(&str) -> Result<T, E>,
        ) -> Result<Vec<T>, Error> {
            let named = |e: E| match flag {
                "" => Error::invalid(e),
                _ => Error::invalid(format!("{flag}: {e}")),
            };
            names.iter().map(|n| parse(n).map_err(named)).collect()
        }
        let schemes = each(&self.schemes, "--scheme", Scheme::parse)?;
        let samples = each(&self.samples, "--sample", Sample::parse)?;
        let formats = each(
            &self.serializations,
            "--serialization",
            str::parse::<Format>,
        )?;
        let containers = each(&self.containers, "", |c| {
            c.parse::<MessageContainer>()?.require_sealed()
        })?;
        let encodings = each(&self.encodings, "--encoding", str::parse::<Encoding>)?;
        if self.readings == 0 || self.readings > 100_000 {
            return Err(Error::invalid("--readings must be 1..=100000"));
        }
        Ok(Grid {
            schemes,
            samples,
            formats,
            containers,
            encodings,
            readings: if self.quick {
                self.readings.min(8)
            } else {
                self.readings
            },
            quick: self.quick,
        })
    }
}

/// One measured case of the grid.
pub struct Row {
    pub scheme: Scheme,
    pub sample: Sample,
    pub format: Format,
    pub container: Container,
    pub encoding: Encoding,
    pub r: FrameResult,
}

pub fn measure_grid(g: &Grid) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for sample in &g.samples {
        for &format in &g.formats {
            let readings = Readings::generate(sample, format, g.readings);
            for scheme in &g.schemes {
                for &container in &g.containers {
                    for &encoding in &g.encodings {
                        let r =
                            measure_frame(scheme, container, encoding, &readings, config(g.quick))?;
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
    Ok(rows)
}

pub fn table_text(rows: &[Row]) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
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
        let _ = writeln!(
            o,
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
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "µs/msg: median of the full path (serialize, nonce, seal, frame, encode); ovh = out/in bytes;"
    );
    let _ = writeln!(
        o,
        "exp = ciphertext as carried / plaintext (study 000); bits as study 003 scores them (key or digest length)."
    );
    for (scheme, reasons) in flagged {
        let _ = writeln!(o, "⚠ {scheme}: {}", reasons.join("; "));
    }
    if cfg!(debug_assertions) {
        let _ = writeln!(
            o,
            "note: this is a debug build; times are far slower than a release build's"
        );
    }
    o
}

pub fn json_value(rows: &[Row]) -> serde_json::Value {
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
    json!({ "frame_bench": cases })
}

#[cfg(test)]
mod grid_tests {
    use super::*;

    fn request() -> GridRequest {
        let one = |s: &str| vec![s.to_string()];
        GridRequest {
            schemes: DEFAULT_SCHEMES.split(',').map(String::from).collect(),
            samples: one("chain:10"),
            serializations: one("json"),
            containers: vec!["json".into(), "bin".into()],
            encodings: one("raw"),
            readings: 64,
            quick: true,
        }
    }

    #[test]
    fn a_request_becomes_a_grid_or_names_the_flag_it_refuses() {
        let grid = request().grid().unwrap();
        assert_eq!(grid.schemes.len(), 6);
        assert_eq!(grid.containers, [Container::Json, Container::Binary]);
        assert_eq!(grid.readings, 8, "quick cycles through at most 8");
        let err = |r: GridRequest| r.grid().err().unwrap().to_string();
        let sample = GridRequest {
            samples: vec!["chain".into()],
            ..request()
        };
        assert!(err(sample).starts_with("--sample: "));
        let oscore = GridRequest {
            containers: vec!["oscore".into()],
            ..request()
        };
        assert!(err(oscore).starts_with("--container: unknown container 'oscore'"));
        let encoding = GridRequest {
            encodings: vec!["base32".into()],
            ..request()
        };
        assert!(err(encoding).starts_with("--encoding: "));
        let none = GridRequest {
            readings: 0,
            ..request()
        };
        assert_eq!(err(none), "--readings must be 1..=100000");
    }
}
