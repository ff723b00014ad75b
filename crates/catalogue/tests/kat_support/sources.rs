//! Vectors kept by the `primitives` crate for the in-project ciphers, read in
//! place (one copy of each vector) and mapped to catalogue ECB/AEAD entries.
//! Their format: blocks of `name = value` lines separated by blank lines,
//! `#` comments, as in crates/primitives/tests/vectors/*.txt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::parse::Vector;

/// A primitives vector file and how a vector's key length names the entry.
struct Mapping {
    file: &'static str,
    entry_for_key_len: fn(usize) -> Option<&'static str>,
}

const MAPPINGS: &[Mapping] = &[
    Mapping {
        file: "clefia.txt",
        entry_for_key_len: |n| (n == 16).then_some("clefia-128-ecb"),
    },
    Mapping {
        file: "present.txt",
        entry_for_key_len: |n| match n {
            10 => Some("present-80-ecb"),
            16 => Some("present-128-ecb"),
            _ => None,
        },
    },
    Mapping {
        file: "piccolo.txt",
        entry_for_key_len: |n| match n {
            10 => Some("piccolo-80-ecb"),
            16 => Some("piccolo-128-ecb"),
            _ => None,
        },
    },
    // libmcrypt's rijndael-256: one entry, key size follows the key.
    Mapping {
        file: "rijndael256.txt",
        entry_for_key_len: |_| Some("rijndael-256-ecb"),
    },
    Mapping {
        file: "twofish.txt",
        entry_for_key_len: |n| match n {
            16 => Some("twofish-128-ecb"),
            24 => Some("twofish-192-ecb"),
            32 => Some("twofish-256-ecb"),
            _ => None,
        },
    },
    // AEADs the primitives crate implements; files appear as it lands them.
    Mapping {
        file: "acorn128.txt",
        entry_for_key_len: |n| (n == 16).then_some("acorn-128"),
    },
    // The word-parallel implementation passes the same vectors.
    Mapping {
        file: "acorn128.txt",
        entry_for_key_len: |n| (n == 16).then_some("acorn-128-wide"),
    },
    Mapping {
        file: "ascon128v12.txt",
        entry_for_key_len: |n| (n == 16).then_some("ascon-128-v1.2"),
    },
];

pub fn primitives_vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../primitives/tests/vectors")
}

/// Names of mapped files that do not exist (yet), for the coverage report.
pub fn missing_files() -> Vec<String> {
    MAPPINGS
        .iter()
        .filter(|m| !primitives_vectors_dir().join(m.file).exists())
        .map(|m| m.file.to_string())
        .collect()
}

/// Every mapped vector of the primitives crate's files that exist.
pub fn load() -> Vec<Vector> {
    let mut out = Vec::new();
    for m in MAPPINGS {
        let path = primitives_vectors_dir().join(m.file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (block, first_line, source) in blocks(&text) {
            let origin = format!("primitives/tests/vectors/{}:{first_line}", m.file);
            let mut fields = BTreeMap::new();
            for (name, value) in block {
                let name = match name.to_ascii_lowercase().as_str() {
                    "key" => "key",
                    "pt" | "plaintext" | "msg" => "pt",
                    "ct" | "ciphertext" => "ct",
                    "nonce" | "iv" => "iv",
                    "ad" | "aad" => "aad",
                    "tag" => "tag",
                    _ => continue, // counters such as `i` or `count`
                };
                fields.insert(name.to_string(), value);
            }
            // A separate tag follows the ciphertext in catalogue output.
            if let Some(tag) = fields.remove("tag") {
                let ct = fields.entry("ct".into()).or_default();
                ct.push_str(&tag);
            }
            let key_len = fields.get("key").map_or(0, |k| k.len() / 2);
            let Some(id) = (m.entry_for_key_len)(key_len) else {
                continue;
            };
            fields.insert("id".into(), id.into());
            out.push(Vector {
                id: id.into(),
                fields,
                origin,
                source: source.clone(),
            });
        }
    }
    out
}

/// `name = value` pairs, first line number, source comment.
type Block = (Vec<(String, String)>, usize, String);

/// Splits a file into blocks of (name, value) pairs, with the first line number
/// of each block and the comment paragraph that precedes it (its source).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    let mut start = 0;
    let mut comment = String::new();
    let mut source = String::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(c) = line.strip_prefix('#') {
            if !current.is_empty() {
                out.push((std::mem::take(&mut current), start, source.clone()));
            }
            comment.push_str(c.trim());
            comment.push(' ');
            continue;
        }
        if !comment.is_empty() {
            source = comment.trim().to_string();
            comment.clear();
        }
        if line.is_empty() {
            if !current.is_empty() {
                out.push((std::mem::take(&mut current), start, source.clone()));
            }
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        if current.is_empty() {
            start = n + 1;
        }
        current.push((name.trim().to_string(), value.trim().to_string()));
    }
    if !current.is_empty() {
        out.push((current, start, source));
    }
    out
}
