//! Seeded, reproducible payloads: random bytes, study 003's temperature-chain
//! reading, and study 001-sized structured records.

use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::Error;
use crate::format::Format;
use crate::node::Node;

/// Chain lengths of study 003, section 3.4 ("1, 3, 5, 10, 15 and 25 thermometers").
pub const CHAIN_LENGTHS: [usize; 6] = [1, 3, 5, 10, 15, 25];

/// Study 001's four samples as pretty JSON, in KB ("1.5 KB, 2.1 KB, 3.0 KB and 3.5 KB", section IV.A).
pub const RECORD_SIZES: [f64; 4] = [1.5, 2.1, 3.0, 3.5];

/// What to generate, as typed on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum Sample {
    /// `random:N`: N random bytes (no structure; serialization does not apply).
    Random(usize),
    /// `chain:N`: a temperature-chain reading with N thermometers.
    Chain(usize),
    /// `record:KB`: a structured record whose pretty JSON is KB × 1024 bytes.
    Record(f64),
}

impl Sample {
    pub fn parse(text: &str) -> Result<Sample, Error> {
        let bad = || Error::UnknownSample(text.to_string());
        let (kind, arg) = text.split_once(':').ok_or_else(bad)?;
        match kind {
            "random" => arg.parse().map(Sample::Random).map_err(|_| bad()),
            "chain" => match arg.parse::<usize>() {
                Ok(n @ 1..=1000) => Ok(Sample::Chain(n)),
                _ => Err(bad()),
            },
            "record" => match arg.trim_end_matches(['k', 'K', 'b', 'B']).parse::<f64>() {
                Ok(kb) if (0.5..=1024.0).contains(&kb) => Ok(Sample::Record(kb)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }

    /// The structured reading, or `None` for random bytes.
    pub fn record(&self, seed: u64) -> Option<Node> {
        match *self {
            Sample::Random(_) => None,
            Sample::Chain(n) => Some(chain_reading(n, seed)),
            Sample::Record(kb) => Some(sized_record((kb * 1024.0).round() as usize, seed)),
        }
    }

    /// The bytes to seal: random bytes as they are, structured samples serialized in `format`.
    pub fn bytes(&self, format: Format, seed: u64) -> Result<Vec<u8>, Error> {
        match (self, self.record(seed)) {
            (Sample::Random(n), _) => Ok(random_bytes(*n, seed)),
            (_, Some(node)) => format.serialize(&node),
            _ => unreachable!("every structured sample has a record"),
        }
    }
}

impl std::fmt::Display for Sample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sample::Random(n) => write!(f, "random:{n}"),
            Sample::Chain(n) => write!(f, "chain:{n}"),
            Sample::Record(kb) => write!(f, "record:{kb}"),
        }
    }
}

pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; len];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut out);
    out
}

/// A temperature-chain reading shaped as study 003's Appendix A: header keys
/// `t` (Unix time), `id` (logger), `s_t` (sensor type "tc") and `s_d`, one
/// `{d, t}` per thermometer (depth in metres, temperature in °C, one decimal).
pub fn chain_reading(thermometers: usize, seed: u64) -> Node {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let time = 1_555_666_777 + rng.random_range(0..86_400 * 365);
    let logger = rng.random_range(1..10);
    let depths = (0..thermometers)
        .map(|d| {
            // Lake water: 4 °C at depth to about 20 °C at the surface.
            let tenths = rng.random_range(40..=200);
            Node::map([("d", Node::Int(d as i64)), ("t", Node::tenths(tenths))])
        })
        .collect();
    Node::map([
        ("t", Node::Int(time)),
        ("id", Node::text(format!("Logger{logger}"))),
        ("s_t", Node::text("tc")),
        ("s_d", Node::List(depths)),
    ])
}

const SITES: [&str; 6] = [
    "North weir",
    "Pump station 3",
    "Reservoir B",
    "Hangar 12",
    "Greenhouse 2",
    "Substation 7",
];
const KINDS: [&str; 4] = ["flow-meter", "thermostat", "power-meter", "gateway"];

/// One device-status record: the "traditional data commonly used in
/// communication between devices" of study 001 (its samples are not published).
fn device(rng: &mut ChaCha8Rng, index: usize) -> Node {
    let readings = (0..3)
        .map(|i| {
            Node::map([
                ("seq", Node::Int(i)),
                ("value", Node::tenths(rng.random_range(0..10_000))),
                (
                    "unit",
                    Node::text(["kWh", "m3", "degC"][rng.random_range(0..3)]),
                ),
            ])
        })
        .collect();
    Node::map([
        ("id", Node::text(format!("dev-{index:04}"))),
        ("site", Node::text(SITES[rng.random_range(0..SITES.len())])),
        ("type", Node::text(KINDS[rng.random_range(0..KINDS.len())])),
        (
            "firmware",
            Node::text(format!(
                "2.{}.{}",
                rng.random_range(0..9),
                rng.random_range(0..20)
            )),
        ),
        ("online", Node::Bool(rng.random_range(0..10) > 1)),
        ("battery", Node::tenths(rng.random_range(50..1000))),
        (
            "location",
            Node::map([
                (
                    "lat",
                    Node::Float(rng.random_range(-900_000..900_000) as f64 / 10_000.0),
                ),
                (
                    "lon",
                    Node::Float(rng.random_range(-1_800_000..1_800_000) as f64 / 10_000.0),
                ),
            ]),
        ),
        ("readings", Node::List(readings)),
    ])
}

/// A record of device statuses whose pretty JSON is exactly `target` bytes
/// (a trailing `note` of filler text takes up what whole devices cannot).
pub fn sized_record(target: usize, seed: u64) -> Node {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pretty_len = |node: &Node| {
        Format::JsonPretty
            .serialize(node)
            .map(|b| b.len())
            .unwrap_or(usize::MAX)
    };
    let build = |devices: &[Node], note: usize| {
        Node::map([
            ("batch", Node::Int(seed as i64 & 0xFFFF)),
            ("devices", Node::List(devices.to_vec())),
            ("note", Node::text("x".repeat(note))),
        ])
    };
    let mut devices = Vec::new();
    loop {
        let candidate = device(&mut rng, devices.len() + 1);
        devices.push(candidate);
        if pretty_len(&build(&devices, 0)) > target {
            devices.pop();
            break;
        }
    }
    let base = pretty_len(&build(&devices, 0));
    build(&devices, target.saturating_sub(base))
}
