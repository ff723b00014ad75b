// The source scan behind each crate's wipe test (crates/primitives
// `tests/wipes.rs`, crates/clib `tests/wipes.rs`, crates/seal `src/wipe.rs`):
// every `struct` or `enum` under `src/` whose name or fields name a secret
// (a key, seed, schedule, pad, HMAC or hash state, C context) must be in
// the crate's list of types that wipe on drop (each checked there with a
// `ZeroizeOnDrop` bound) or in its allow-list with the reason; a listed
// type the scan no longer finds fails too, so the lists do not go stale.

use std::fs;
use std::path::Path;

/// Identifier parts that mark a secret.
const SECRET_PARTS: &[&str] = &[
    "key", "secret", "seed", "schedule", "hmac", "ctx", "context", "state", "pad", "cipher",
    "sponge",
];
/// Whole identifiers that mark a secret (round keys, subkeys, tables of them).
const SECRET_WORDS: &[&str] = &[
    "rk", "wk", "ek", "dk", "k", "k1", "k2", "rr", "r", "s", "table",
];

/// (file under the crate, type name) of every secret-looking definition;
/// a type defined in a macro is named by its macro's `$name`.
pub fn secret_looking(crate_dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut files = Vec::new();
    collect(&crate_dir.join("src"), &mut files);
    files.sort();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let rel = file.strip_prefix(crate_dir).unwrap().display().to_string();
        for (name, body) in definitions(&code) {
            if looks_secret(&name) || looks_secret(&body) {
                found.push((rel.clone(), name));
            }
        }
    }
    found
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn looks_secret(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .flat_map(|ident| ident.split('_'))
        .map(str::to_ascii_lowercase)
        .any(|part| {
            SECRET_WORDS.contains(&part.as_str()) || SECRET_PARTS.iter().any(|s| part.contains(s))
        })
}

/// Each `struct`/`enum` definition: its name and its body (fields or variants).
fn definitions(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for keyword in ["struct ", "enum "] {
        let mut from = 0;
        while let Some(at) = code[from..].find(keyword) {
            let start = from + at;
            from = start + keyword.len();
            // A definition: the keyword starts a line's code or follows `pub…`.
            let before = code[..start].trim_end_matches([' ', '\t']);
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let lead = before[line_start..].trim();
            if !(lead.is_empty() || lead.starts_with("pub") || lead.ends_with(']')) {
                continue;
            }
            let name: String = code[from..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                .collect();
            if name.is_empty() {
                continue;
            }
            // The body: the first `{`/`(` after the name to its match, or nothing at `;`.
            let mut i = from + name.len();
            let mut angle = 0i32;
            while i < bytes.len() {
                match bytes[i] {
                    b'<' => angle += 1,
                    b'>' => angle -= 1,
                    b'{' | b'(' if angle <= 0 => break,
                    b';' if angle <= 0 => break,
                    _ => {}
                }
                i += 1;
            }
            let body = if i < bytes.len() && bytes[i] != b';' {
                let (open, close) = if bytes[i] == b'{' {
                    (b'{', b'}')
                } else {
                    (b'(', b')')
                };
                let mut depth = 0;
                let mut j = i;
                while j < bytes.len() {
                    if bytes[j] == open {
                        depth += 1;
                    } else if bytes[j] == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    j += 1;
                }
                code[i..j.min(bytes.len())].to_string()
            } else {
                String::new()
            };
            out.push((name, body));
        }
    }
    out
}

/// Fails unless the scan's finds are exactly `wiped` ∪ `allowed`.
pub fn check(crate_dir: &Path, wiped: &[(&str, &str)], allowed: &[(&str, &str, &str)]) {
    let found = secret_looking(crate_dir);
    let listed = |file: &str, name: &str| {
        wiped.iter().any(|&(f, n)| f == file && n == name)
            || allowed.iter().any(|&(f, n, _)| f == file && n == name)
    };
    let unlisted: Vec<_> = found.iter().filter(|(f, n)| !listed(f, n)).collect();
    assert!(
        unlisted.is_empty(),
        "types that look like they hold secrets, in neither the wiped list nor the allow-list \
         (give them a wipe on drop and list them, or allow them with the reason): {unlisted:?}"
    );
    let stale: Vec<_> = wiped
        .iter()
        .map(|&(f, n)| (f, n))
        .chain(allowed.iter().map(|&(f, n, _)| (f, n)))
        .filter(|(f, n)| !found.iter().any(|(ff, nn)| ff == f && nn == n))
        .collect();
    assert!(
        stale.is_empty(),
        "listed but not found by the scan: {stale:?}"
    );
}
