//! The whole path a reading takes on a device — serialize, seal (fresh nonce
//! each time), frame, encode — timed per message with the measurement engine.
//!
//! From one measurement come study 003's µs/byte (Fig. 9), overhead ratio
//! (Fig. 11) and cost per bit (Fig. 10), and study 000's expansion factor.

use std::time::Duration;

use measure::{Config, Measurement, Sampler};
use payload::{Encoding, Format, Node, Sample};
use seal::{Container, NoncePolicy, NonceSource, Pattern, RandomNonces, Scheme, SealKey, Sealer};

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
    let mut sealer = Sealer::new(&key, true)?;
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
        .map_err(|_| Error::interrupted())?;
    if let Some(e) = failure {
        return Err(e.into());
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
