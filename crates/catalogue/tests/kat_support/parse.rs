//! The line format of `tests/vectors/*.txt` (see tests/vectors/README.md).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One vector line: its fields plus where it came from, for messages.
#[derive(Clone, Debug)]
pub struct Vector {
    pub id: String,
    pub fields: BTreeMap<String, String>,
    /// "file:line", and the `# source:` comment in force.
    pub origin: String,
    pub source: String,
}

impl Vector {
    /// Decoded bytes of a field; a missing field is empty.
    pub fn bytes(&self, name: &str) -> Vec<u8> {
        self.fields.get(name).map_or_else(Vec::new, |v| {
            decode_value(v).unwrap_or_else(|e| panic!("{}: field {name}: {e}", self.origin))
        })
    }

    pub fn has(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

pub fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors")
}

/// Every vector of every `tests/vectors/*.txt` file, in file order.
pub fn load_all() -> Vec<Vector> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors_dir())
        .expect("tests/vectors exists")
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files.iter().flat_map(|f| load_file(f)).collect()
}

pub fn load_file(path: &Path) -> Vec<Vector> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut source = String::new();
    let mut in_source = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(comment) = line.strip_prefix('#') {
            let comment = comment.trim();
            if let Some(s) = comment.strip_prefix("source:") {
                source = s.trim().to_string();
                in_source = true;
            } else if in_source && !comment.is_empty() {
                source.push(' ');
                source.push_str(comment);
            }
            continue;
        }
        in_source = false;
        if line.is_empty() {
            continue;
        }
        let origin = format!("{name}:{}", n + 1);
        let fields = split_fields(line).unwrap_or_else(|e| panic!("{origin}: {e}"));
        let id = fields
            .get("id")
            .unwrap_or_else(|| panic!("{origin}: no id= field"))
            .clone();
        assert!(
            !source.is_empty(),
            "{origin}: vector without a preceding `# source:` line"
        );
        out.push(Vector {
            id,
            fields,
            origin,
            source: source.clone(),
        });
    }
    out
}

/// Splits `a=1 b="x y"+00 c=` into fields.
fn split_fields(line: &str) -> Result<BTreeMap<String, String>, String> {
    let mut fields = BTreeMap::new();
    let mut rest = line;
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or_else(|| format!("expected name=value at '{rest}'"))?;
        let name = rest[..eq].trim().to_string();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("bad field name '{name}'"));
        }
        let mut value = String::new();
        let chars = rest[eq + 1..].char_indices();
        let mut end = rest.len() - eq - 1;
        let mut quoted = false;
        for (i, c) in chars {
            if c == '"' {
                quoted = !quoted;
            } else if c == ' ' && !quoted {
                end = i;
                break;
            }
            value.push(c);
        }
        if quoted {
            return Err(format!("unterminated quote in field {name}"));
        }
        if fields.insert(name.clone(), value).is_some() {
            return Err(format!("field {name} given twice"));
        }
        rest = rest[eq + 1 + end..].trim_start();
    }
    Ok(fields)
}

/// Hex pieces joined by `+`; `XX*N` repeats; `"text"` is ASCII.
pub fn decode_value(value: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut rest = value;
    while !rest.is_empty() {
        let piece;
        if let Some(quoted) = rest.strip_prefix('"') {
            let close = quoted.find('"').ok_or("unterminated quote")?;
            out.extend_from_slice(&quoted.as_bytes()[..close]);
            piece = &quoted[close + 1..];
        } else {
            let end = rest.find('+').unwrap_or(rest.len());
            let hexpart = &rest[..end];
            let (hex_text, count) = match hexpart.split_once('*') {
                Some((h, n)) => (
                    h,
                    n.parse::<usize>()
                        .map_err(|e| format!("repeat count '{n}': {e}"))?,
                ),
                None => (hexpart, 1),
            };
            let bytes = hex::decode(hex_text).map_err(|e| format!("hex '{hex_text}': {e}"))?;
            for _ in 0..count {
                out.extend_from_slice(&bytes);
            }
            piece = &rest[end..];
        }
        rest = piece.strip_prefix('+').unwrap_or(piece);
        if piece.starts_with('+') && rest.is_empty() {
            return Err("trailing '+'".into());
        }
    }
    Ok(out)
}
