//! Reads the host's OSCORE context file (`keygen --scheme oscore:ALG`,
//! format `ciphermeter-oscore-context/1`: crates/seal/src/host/oscore.rs)
//! without an allocator: one flat JSON object of strings, an integer and
//! null, its hex fields decoded into the caller's buffers.

/// The format the host writes (`seal::host::oscore::FORMAT`, which needs std).
pub const FORMAT: &str = "ciphermeter-oscore-context/1";

/// A field's value as the file holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Text(&'a str),
    Int(i64),
    Null,
}

/// The fields of a context file, as text; the hex ones still encoded.
#[derive(Default, Debug)]
pub struct Fields<'a> {
    pub format: Option<&'a str>,
    pub scheme: Option<&'a str>,
    pub alg: Option<i64>,
    pub master_secret: Option<&'a str>,
    pub master_salt: Option<&'a str>,
    pub sender_id: Option<&'a str>,
    pub recipient_id: Option<&'a str>,
    /// Outer None: absent; inner None: `null` (no ID context).
    pub id_context: Option<Option<&'a str>>,
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_space(&mut self) {
        let rest = &self.text[self.at..];
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.skip_space();
        (self.text.as_bytes().get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    /// A string without escapes (the file's values are names and hex).
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = &self.text[self.at..];
        let end = rest.find('"')?;
        let s = &rest[..end];
        if s.contains('\\') {
            return None;
        }
        self.at += end + 1;
        Some(s)
    }

    fn value(&mut self) -> Option<Value<'a>> {
        self.skip_space();
        let rest = &self.text[self.at..];
        if rest.starts_with('"') {
            return self.string().map(Value::Text);
        }
        if let Some(after) = rest.strip_prefix("null") {
            self.at = self.text.len() - after.len();
            return Some(Value::Null);
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len());
        let n = rest[..end].parse().ok()?;
        self.at += end;
        Some(Value::Int(n))
    }
}

/// The fields of `text`; None when it is not one flat JSON object of
/// strings, integers and nulls, or names a field twice or one it does not know.
pub fn parse(text: &str) -> Option<Fields<'_>> {
    let mut c = Cursor { text, at: 0 };
    let mut f = Fields::default();
    c.eat(b'{')?;
    if c.eat(b'}').is_none() {
        loop {
            let name = c.string()?;
            c.eat(b':')?;
            let value = c.value()?;
            let text = |v| match v {
                Value::Text(t) => Some(t),
                _ => None,
            };
            let slot_was_empty = match name {
                "format" => f.format.replace(text(value)?).is_none(),
                "scheme" => f.scheme.replace(text(value)?).is_none(),
                "master_secret" => f.master_secret.replace(text(value)?).is_none(),
                "master_salt" => f.master_salt.replace(text(value)?).is_none(),
                "sender_id" => f.sender_id.replace(text(value)?).is_none(),
                "recipient_id" => f.recipient_id.replace(text(value)?).is_none(),
                "alg" => match value {
                    Value::Int(n) => f.alg.replace(n).is_none(),
                    _ => return None,
                },
                "id_context" => match value {
                    Value::Null => f.id_context.replace(None).is_none(),
                    Value::Text(t) => f.id_context.replace(Some(t)).is_none(),
                    Value::Int(_) => return None,
                },
                _ => return None,
            };
            if !slot_was_empty {
                return None;
            }
            if c.eat(b',').is_none() {
                c.eat(b'}')?;
                break;
            }
        }
    }
    c.skip_space();
    (c.at == text.len()).then_some(f)
}

/// Decodes `hex` into `out`; the bytes written, or None for an odd length,
/// a character that is no hex digit, or more bytes than `out` holds.
pub fn hex<'o>(hex: &str, out: &'o mut [u8]) -> Option<&'o [u8]> {
    let digits = hex.as_bytes();
    if !digits.len().is_multiple_of(2) || digits.len() / 2 > out.len() {
        return None;
    }
    let nibble = |d: u8| (d as char).to_digit(16).map(|v| v as u8);
    for (o, pair) in out.iter_mut().zip(digits.chunks(2)) {
        *o = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(&out[..digits.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pretty_printed_file_is_read_and_a_bad_one_is_not() {
        let f = parse(
            "{\n  \"format\": \"ciphermeter-oscore-context/1\",\n  \"alg\": 10,\n  \
             \"sender_id\": \"25\",\n  \"id_context\": null\n}\n",
        )
        .unwrap();
        assert_eq!(f.format, Some(FORMAT));
        assert_eq!(
            (f.alg, f.sender_id, f.id_context),
            (Some(10), Some("25"), Some(None))
        );
        for bad in [
            "",
            "{",
            "{\"alg\": \"10\"}",
            "{\"alg\": 10, \"alg\": 10}",
            "{\"other\": 1}",
            "{\"sender_id\": \"a\\\"b\"}",
            "{} trailing",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
        let mut out = [0u8; 2];
        assert_eq!(hex("0aFf", &mut out), Some(&[0x0a, 0xff][..]));
        assert_eq!(hex("0a0", &mut out), None);
        assert_eq!(hex("zz", &mut out), None);
        assert_eq!(hex("000000", &mut out), None);
    }
}
