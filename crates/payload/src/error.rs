use thiserror::Error;

/// Every error here stems from the input or the arguments (CLI exit 2).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error(
        "unknown sample '{0}'; expected random:N, chain:N (N = thermometers) or record:KB (e.g. record:1.5)"
    )]
    UnknownSample(String),
    #[error("unknown format '{0}'; known: json, json-pretty, yaml, yaml-min, cbor, msgpack")]
    UnknownFormat(String),
    #[error("unknown encoding '{0}'; known: raw, hex, base64, base64url")]
    UnknownEncoding(String),
    #[error("{format}: cannot parse input: {detail}")]
    Parse {
        format: &'static str,
        detail: String,
    },
    #[error("{format}: cannot serialize: {detail}")]
    Serialize {
        format: &'static str,
        detail: String,
    },
    #[error("{encoding}: not valid {encoding} text: {detail}")]
    Decode {
        encoding: &'static str,
        detail: String,
    },
}
