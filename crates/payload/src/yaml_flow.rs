//! Minified YAML: one line in flow style, `{t: 1555666777,id: Logger1,s_d: [{d: 0,t: 12.5}]}`.
//! YAML needs the space after a mapping colon (`a:1` is one plain scalar) but
//! not after commas; strings a plain scalar cannot carry are double-quoted
//! with JSON escapes, which YAML double-quoted scalars accept.

use crate::node::Node;

pub fn to_string(node: &Node) -> Result<String, String> {
    let mut out = String::new();
    write(node, &mut out)?;
    Ok(out)
}

fn write(node: &Node, out: &mut String) -> Result<(), String> {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Int(i) => out.push_str(&i.to_string()),
        Node::UInt(u) => out.push_str(&u.to_string()),
        Node::Float(f) => {
            if !f.is_finite() {
                return Err(format!("{f} has no portable YAML spelling"));
            }
            out.push_str(&serde_json::to_string(f).map_err(|e| e.to_string())?);
        }
        Node::Text(t) => scalar(t, out),
        Node::Bytes(_) => {
            return Err("byte strings have no YAML form here; use cbor or msgpack".into());
        }
        Node::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out)?;
            }
            out.push(']');
        }
        Node::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                scalar(k, out);
                out.push_str(": ");
                write(v, out)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Words YAML 1.1 or 1.2 readers would take for something other than text.
const RESERVED: [&str; 22] = [
    "null", "~", "true", "false", "yes", "no", "on", "off", "y", "n", ".nan", ".inf", "-.inf",
    "+.inf", ".NaN", ".Inf", "-.Inf", "=", "<<", "Null", "True", "False",
];

fn scalar(text: &str, out: &mut String) {
    if plain_is_safe(text) {
        out.push_str(text);
    } else {
        // A JSON string literal is a valid YAML double-quoted scalar.
        out.push_str(&serde_json::to_string(text).expect("strings always serialize"));
    }
}

/// Conservative: letters, digits and `_-./@` only, starting with a letter or
/// `_`, not a reserved word and not number-like.
fn plain_is_safe(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphabetic() || first == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./@".contains(c))
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_reading_layout() {
        let node = Node::map([
            ("t", Node::Int(1555666777)),
            ("id", Node::text("Logger1")),
            (
                "s_d",
                Node::List(vec![Node::map([
                    ("d", Node::Int(0)),
                    ("t", Node::Float(12.5)),
                ])]),
            ),
        ]);
        assert_eq!(
            to_string(&node).unwrap(),
            "{t: 1555666777,id: Logger1,s_d: [{d: 0,t: 12.5}]}"
        );
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        for (text, want) in [
            ("yes", "\"yes\""),
            ("12", "\"12\""),
            ("a b", "\"a b\""),
            ("", "\"\""),
            ("a,b", "\"a,b\""),
        ] {
            let mut out = String::new();
            scalar(text, &mut out);
            assert_eq!(out, want);
        }
    }
}
