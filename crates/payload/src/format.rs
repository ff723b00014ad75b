//! Serialization formats: study 001's four schemes plus the compact binary
//! formats constrained devices use.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::node::Node;
use crate::yaml_flow;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Scheme 1 of study 001: JSON with two-space indentation.
    JsonPretty,
    /// Scheme 2: JSON without white space (also what study 003 seals).
    JsonMin,
    /// Scheme 3: YAML in block style.
    YamlPretty,
    /// Scheme 4: YAML in flow style with no white space YAML does not require.
    YamlMin,
    /// CBOR (RFC 8949).
    Cbor,
    /// MessagePack.
    MsgPack,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::JsonPretty,
        Format::JsonMin,
        Format::YamlPretty,
        Format::YamlMin,
        Format::Cbor,
        Format::MsgPack,
    ];

    /// Study 001's schemes 1–4, in order.
    pub const STUDY_001: [Format; 4] = [
        Format::JsonPretty,
        Format::JsonMin,
        Format::YamlPretty,
        Format::YamlMin,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::JsonPretty => "json-pretty",
            Format::JsonMin => "json",
            Format::YamlPretty => "yaml",
            Format::YamlMin => "yaml-min",
            Format::Cbor => "cbor",
            Format::MsgPack => "msgpack",
        }
    }

    /// Text formats can be printed as they are.
    pub fn is_text(self) -> bool {
        !matches!(self, Format::Cbor | Format::MsgPack)
    }

    pub fn serialize(self, node: &Node) -> Result<Vec<u8>, Error> {
        let err = |detail: String| Error::Serialize {
            format: self.as_str(),
            detail,
        };
        match self {
            Format::JsonPretty => serde_json::to_vec_pretty(node).map_err(|e| err(e.to_string())),
            Format::JsonMin => serde_json::to_vec(node).map_err(|e| err(e.to_string())),
            Format::YamlPretty => serde_saphyr::to_string(node)
                .map(String::into_bytes)
                .map_err(|e| err(e.to_string())),
            Format::YamlMin => yaml_flow::to_string(node)
                .map(String::into_bytes)
                .map_err(err),
            Format::Cbor => {
                let mut out = Vec::new();
                ciborium::into_writer(node, &mut out).map_err(|e| err(e.to_string()))?;
                Ok(out)
            }
            Format::MsgPack => rmp_serde::to_vec(node).map_err(|e| err(e.to_string())),
        }
    }

    pub fn deserialize(self, bytes: &[u8]) -> Result<Node, Error> {
        let err = |detail: String| Error::Parse {
            format: self.as_str(),
            detail,
        };
        match self {
            Format::JsonPretty | Format::JsonMin => {
                serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))
            }
            Format::YamlPretty | Format::YamlMin => {
                serde_saphyr::from_slice(bytes).map_err(|e| err(e.to_string()))
            }
            Format::Cbor => {
                let mut reader = bytes;
                let node: Node =
                    ciborium::from_reader(&mut reader).map_err(|e| err(e.to_string()))?;
                if !reader.is_empty() {
                    return Err(err(format!("{} bytes after the value", reader.len())));
                }
                Ok(node)
            }
            Format::MsgPack => {
                let mut reader = bytes;
                let node: Node =
                    rmp_serde::from_read(&mut reader).map_err(|e| err(e.to_string()))?;
                if !reader.is_empty() {
                    return Err(err(format!("{} bytes after the value", reader.len())));
                }
                Ok(node)
            }
        }
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(text: &str) -> Result<Format, Error> {
        match text.to_ascii_lowercase().as_str() {
            "json-pretty" => Ok(Format::JsonPretty),
            "json" | "json-min" => Ok(Format::JsonMin),
            "yaml" | "yaml-pretty" => Ok(Format::YamlPretty),
            "yaml-min" | "yaml-flow" => Ok(Format::YamlMin),
            "cbor" => Ok(Format::Cbor),
            "msgpack" | "messagepack" => Ok(Format::MsgPack),
            _ => Err(Error::UnknownFormat(text.to_string())),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
