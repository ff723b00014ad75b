//! What a device sends before any cryptography touches it: a sensor reading
//! (or random bytes), serialized in some format, later carried by some
//! transport encoding.
//!
//! ```
//! use ciphermeter_payload::{Encoding, Format, Sample};
//! let reading = Sample::parse("chain:3").unwrap().record(7).unwrap();
//! let bytes = Format::JsonMin.serialize(&reading).unwrap();
//! assert!(bytes.starts_with(b"{\"t\":"));
//! let wire = Encoding::Base64.encode(&bytes);
//! assert_eq!(Encoding::Base64.decode(&wire).unwrap(), bytes);
//! ```

mod encoding;
mod error;
mod format;
mod generate;
mod hex_text;
mod node;
pub mod plaintext;
mod yaml_flow;

pub use encoding::Encoding;
pub use error::Error;
pub use format::Format;
pub use generate::{
    CHAIN_LENGTHS, RECORD_SIZES, Sample, chain_reading, random_bytes, sized_record,
};
pub use hex_text::decode_hex;
pub use node::Node;
