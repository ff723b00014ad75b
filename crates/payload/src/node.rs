//! A self-describing value that keeps map entries in their original order, so
//! a reading serializes as `{"t":…,"id":…}` in every format, as written.
//! (serde_json's `Value` sorts keys unless a workspace-wide feature is set.)

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
    List(Vec<Node>),
    /// Entries in insertion order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// Builds a map from `(key, value)` pairs, keeping their order.
    pub fn map<K: Into<String>>(entries: impl IntoIterator<Item = (K, Node)>) -> Node {
        Node::Map(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    pub fn text(s: impl Into<String>) -> Node {
        Node::Text(s.into())
    }

    /// The value under `key` when this is a map.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A number with one decimal, as a thermometer reports it: integral values
    /// become integers (`12`, not `12.0`), as ArduinoJson writes them (study 003, Appendix A).
    pub fn tenths(tenths: i64) -> Node {
        if tenths % 10 == 0 {
            Node::Int(tenths / 10)
        } else {
            Node::Float(tenths as f64 / 10.0)
        }
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Int(i) => s.serialize_i64(*i),
            Node::UInt(u) => s.serialize_u64(*u),
            Node::Float(f) => s.serialize_f64(*f),
            Node::Text(t) => s.serialize_str(t),
            Node::Bytes(b) => s.serialize_bytes(b),
            Node::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Node::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON/YAML/CBOR/MessagePack value")
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        Node::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        // Non-negative integers that fit are `Int`, so every format reads back the same node.
        Ok(i64::try_from(v).map(Node::Int).unwrap_or(Node::UInt(v)))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        i64::try_from(v)
            .map(Node::Int)
            .or_else(|_| u64::try_from(v).map(Node::UInt))
            .map_err(|_| E::custom("integer out of the 64-bit range"))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        self.visit_i128(
            i128::try_from(v).map_err(|_| E::custom("integer out of the 64-bit range"))?,
        )
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Text(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Text(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Bytes(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Node, E> {
        Ok(Node::Bytes(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries: Vec<(String, Node)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<MapKey, Node>()? {
            if entries.iter().any(|(existing, _)| *existing == k.0) {
                return Err(de::Error::custom(format!("duplicate key '{}'", k.0)));
            }
            entries.push((k.0, v));
        }
        Ok(Node::Map(entries))
    }
}

/// Map keys: text, or integers and booleans written as text (YAML and CBOR allow them).
struct MapKey(String);

impl<'de> Deserialize<'de> for MapKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MapKey, D::Error> {
        match Node::deserialize(d)? {
            Node::Text(t) => Ok(MapKey(t)),
            Node::Int(i) => Ok(MapKey(i.to_string())),
            Node::UInt(u) => Ok(MapKey(u.to_string())),
            Node::Bool(b) => Ok(MapKey(b.to_string())),
            other => Err(de::Error::custom(format!(
                "map keys must be text, got {other:?}"
            ))),
        }
    }
}
