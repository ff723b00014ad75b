//! The `json` container, after study 003's Appendix B:
//! `{"v":1,"scheme":…,"kid":…,"iv":…,"aad":…,"tag":…,"data":…}` with standard
//! padded base64 for `iv`, `tag` and `data`. `hmac` messages carry a UTF-8
//! plaintext readable as `"text"` instead of `"data"`, as the study's HMAC
//! messages did.
//!
//! Written and read without a JSON library: the writer escapes strings as
//! serde_json does (the shortest escapes, `\u00xx` for the other control
//! characters), and the reader accepts exactly what the writer writes, so
//! every message has one spelling.

use base64ct::{Base64, Encoding};

use super::write::{Writer, hex};
use super::{Container, Field, Parsed, SchemeRef, check_len, header_len, write_header};
use crate::engine::{Sealer, Short};
use crate::error::{Error, limits};
use crate::spec::Pattern;

const NAME: &str = "json";

fn malformed(detail: &'static str) -> Error {
    Error::Malformed {
        container: NAME,
        detail,
    }
}

const fn b64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// The escape serde_json writes for a byte, if any.
fn escape(b: u8) -> Option<&'static [u8]> {
    Some(match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        0x08 => b"\\b",
        0x0c => b"\\f",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0..=0x1f => b"\\u00",
        _ => return None,
    })
}

fn escaped_len(s: &[u8]) -> usize {
    s.iter()
        .map(|&b| match escape(b) {
            Some(e) if e == b"\\u00" => 6,
            Some(e) => e.len(),
            None => 1,
        })
        .sum()
}

fn write_escaped(w: &mut Writer<'_>, s: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &b in s {
        match escape(b) {
            Some(e) if e == b"\\u00" => {
                w.bytes(e);
                w.byte(DIGITS[(b >> 4) as usize]);
                w.byte(DIGITS[(b & 15) as usize]);
            }
            Some(e) => w.bytes(e),
            None => w.byte(b),
        }
    }
}

fn write_base64(w: &mut Writer<'_>, bytes: &[u8]) {
    match Base64::encode(bytes, w.rest()) {
        Ok(text) => {
            let n = text.len();
            w.advance(n);
        }
        Err(_) => w.short(),
    }
}

/// Whether the body travels as readable text: `hmac` with a UTF-8 plaintext.
fn readable(sealer: &Sealer, body: &[u8]) -> bool {
    sealer.pattern == Pattern::Hmac && core::str::from_utf8(body).is_ok()
}

pub(super) fn sealed_len(sealer: &Sealer, plaintext: &[u8], aad: &[u8]) -> usize {
    let spec = sealer.spec();
    let mut n = br#"{"v":1,"scheme":"","kid":"","tag":""}"#.len()
        + spec.name.len()
        + 2 * sealer.key_id().len()
        + b64_len(spec.tag_len());
    if spec.nonce_len() > 0 {
        n += br#","iv":"""#.len() + b64_len(spec.nonce_len());
    }
    if !aad.is_empty() {
        n += br#","aad":"""#.len() + escaped_len(aad);
    }
    n += br#","data":"""#.len();
    n + if readable(sealer, plaintext) {
        escaped_len(plaintext)
    } else {
        b64_len(spec.body_len(plaintext.len()))
    }
}

pub(super) fn seal(
    sealer: &Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    if core::str::from_utf8(aad).is_err() {
        return Err(Error::AadNotText);
    }
    let spec = sealer.spec();
    let kid = sealer.key_id();
    let len = sealed_len(sealer, plaintext, aad);
    let (message, scratch) = out.split_at_mut(len);
    // The header, then the body sealed in place after it.
    let ad_len = header_len(spec.name, kid, aad.len());
    let (ad, work) = scratch.split_at_mut(ad_len);
    let mut h = Writer::new(ad);
    write_header(&mut h, spec.name, kid, aad);
    h.done()?;
    work[..plaintext.len()].copy_from_slice(plaintext);
    let mut tag = [0u8; limits::TAG];
    let body_len = sealer.protect(nonce, ad, work, plaintext.len(), &mut tag)?;
    let body = &work[..body_len];
    let tag = &tag[..spec.tag_len()];

    let mut w = Writer::new(message);
    w.text(r#"{"v":1,"scheme":""#);
    w.text(spec.name);
    w.text(r#"","kid":""#);
    hex(&mut w, kid);
    if !nonce.is_empty() {
        w.text(r#"","iv":""#);
        write_base64(&mut w, nonce);
    }
    if !aad.is_empty() {
        w.text(r#"","aad":""#);
        write_escaped(&mut w, aad);
    }
    w.text(r#"","tag":""#);
    write_base64(&mut w, tag);
    if readable(sealer, body) {
        w.text(r#"","text":""#);
        write_escaped(&mut w, body);
    } else {
        w.text(r#"","data":""#);
        write_base64(&mut w, body);
    }
    w.text(r#""}"#);
    let written = w.done()?;
    debug_assert_eq!(written, len);
    Ok(written)
}

/// Reads the canonical layout front to back.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn literal(&mut self, text: &str, detail: &'static str) -> Result<(), Error> {
        match self.rest.strip_prefix(text.as_bytes()) {
            Some(rest) => {
                self.rest = rest;
                Ok(())
            }
            // The message ends where this field was due: it was cut short.
            None if text.as_bytes().starts_with(self.rest) => Err(Error::Truncated {
                container: NAME,
                field: detail,
            }),
            None => Err(malformed(detail)),
        }
    }

    /// Whether the next field is `text`; a message that ends inside it was
    /// cut short.
    fn starts_with(&self, text: &str) -> Result<bool, Error> {
        if self.rest.len() < text.len() && text.as_bytes().starts_with(self.rest) {
            return Err(Error::Truncated {
                container: NAME,
                field: "a field name",
            });
        }
        Ok(self.rest.starts_with(text.as_bytes()))
    }

    /// A string's contents up to its closing quote, checking that every
    /// escape is the one the writer would use, and that it is UTF-8.
    fn string(&mut self) -> Result<&'a str, Error> {
        let mut i = 0;
        while i < self.rest.len() {
            match self.rest[i] {
                b'"' => {
                    let text = core::str::from_utf8(&self.rest[..i])
                        .map_err(|_| malformed("a string that is not UTF-8"))?;
                    self.rest = &self.rest[i + 1..];
                    return Ok(text);
                }
                b'\\' => i += canonical_escape(&self.rest[i..])?,
                0..=0x1f => return Err(malformed("a control character not escaped")),
                _ => i += 1,
            }
        }
        Err(Error::Truncated {
            container: NAME,
            field: "a string",
        })
    }
}

/// The length of the escape at the start of `s`, if serde_json writes it so.
fn canonical_escape(s: &[u8]) -> Result<usize, Error> {
    let not_canonical = || malformed("not in canonical form (an escape the writer would not use)");
    match s.get(1) {
        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(2),
        Some(b'u') => {
            let digits = s.get(2..6).ok_or_else(not_canonical)?;
            let value = u8::from_str_radix(
                core::str::from_utf8(digits).map_err(|_| not_canonical())?,
                16,
            )
            .map_err(|_| not_canonical())?;
            let lower = digits.iter().all(|d| !d.is_ascii_uppercase());
            if digits.starts_with(b"00") && lower && escape(value) == Some(b"\\u00") {
                Ok(6)
            } else {
                Err(not_canonical())
            }
        }
        _ => Err(not_canonical()),
    }
}

/// Undoes the escapes of a string the reader accepted.
pub(super) fn unescape_into(w: &mut Writer<'_>, text: &str) -> Result<(), Error> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            w.byte(bytes[i]);
            i += 1;
            continue;
        }
        let (value, len) = match bytes[i + 1] {
            b'b' => (0x08, 2),
            b'f' => (0x0c, 2),
            b'n' => (b'\n', 2),
            b'r' => (b'\r', 2),
            b't' => (b'\t', 2),
            b'u' => {
                let hex =
                    core::str::from_utf8(&bytes[i + 2..i + 6]).map_err(|_| malformed("escape"))?;
                (
                    u8::from_str_radix(hex, 16).map_err(|_| malformed("escape"))?,
                    6,
                )
            }
            other => (other, 2),
        };
        w.byte(value);
        i += len;
    }
    Ok(())
}

pub(super) fn decode_base64_into(w: &mut Writer<'_>, text: &str) -> Result<(), Error> {
    let room = w.rest().len();
    match Base64::decode(text, w.rest()) {
        Ok(bytes) => {
            let n = bytes.len();
            w.advance(n);
            Ok(())
        }
        Err(base64ct::Error::InvalidLength) if room < text.len() / 4 * 3 => {
            Err(Error::BufferTooSmall { need: text.len() })
        }
        Err(_) => Err(malformed("\"data\" is not padded base64")),
    }
}

/// Decodes a short base64 field (iv, tag) of at most N bytes.
fn short_base64<const N: usize>(text: &str, field: &'static str) -> Result<Short<N>, Error> {
    let padding = text.bytes().rev().take_while(|&b| b == b'=').count();
    check_len(field, (text.len() / 4 * 3).saturating_sub(padding), N)?;
    let mut buf = [0u8; N];
    let bytes = Base64::decode(text, &mut buf).map_err(|_| match field {
        "iv" => malformed("\"iv\" is not padded base64"),
        _ => malformed("\"tag\" is not padded base64"),
    })?;
    Short::new(bytes, field)
}

fn hex_key_id(text: &str) -> Result<Short<{ limits::KEY_ID }>, Error> {
    check_len("kid", text.len() / 2, limits::KEY_ID)?;
    let lower_hex = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = text.as_bytes();
    if bytes.is_empty() || !bytes.len().is_multiple_of(2) {
        return Err(malformed("\"kid\" must be lower-case hex"));
    }
    let mut out = [0u8; limits::KEY_ID];
    for (i, pair) in bytes.chunks(2).enumerate() {
        match (lower_hex(pair[0]), lower_hex(pair[1])) {
            (Some(h), Some(l)) => out[i] = (h << 4) | l,
            _ => return Err(malformed("\"kid\" must be lower-case hex")),
        }
    }
    Short::new(&out[..bytes.len() / 2], "kid")
}

pub(super) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    let mut r = Reader { rest: bytes };
    r.literal(
        r#"{"v":"#,
        "not a sealed message: expected {\"v\":1,\"scheme\":… in canonical form",
    )?;
    r.literal("1", "unsupported version (expected \"v\":1)")?;
    r.literal(
        r#","scheme":""#,
        "not in canonical form: expected \"scheme\" after \"v\"",
    )?;
    let scheme = r.string()?;
    check_len("scheme", scheme.len(), limits::SCHEME)?;
    r.literal(
        r#","kid":""#,
        "not in canonical form: expected \"kid\" after \"scheme\"",
    )?;
    let key_id = hex_key_id(r.string()?)?;
    let mut nonce = Short::new(&[], "iv")?;
    let iv_present = r.starts_with(r#","iv":""#)?;
    if iv_present {
        r.literal(r#","iv":""#, "iv")?;
        nonce = short_base64(r.string()?, "iv")?;
    }
    let mut aad = "";
    if r.starts_with(r#","aad":""#)? {
        r.literal(r#","aad":""#, "aad")?;
        aad = r.string()?;
        if aad.is_empty() {
            return Err(malformed(
                "not in canonical form: an empty \"aad\" is left out",
            ));
        }
    }
    r.literal(
        r#","tag":""#,
        "not in canonical form: expected \"tag\" after \"kid\", \"iv\" or \"aad\"",
    )?;
    let tag = short_base64(r.string()?, "tag")?;
    let (body, text) = if r.starts_with(r#","data":""#)? {
        r.literal(r#","data":""#, "data")?;
        let data = r.string()?;
        check_len("data", data.len() / 4 * 3, limits::BODY)?;
        (Field::Base64(data), false)
    } else if r.starts_with(r#","text":""#)? {
        r.literal(r#","text":""#, "text")?;
        let text = r.string()?;
        check_len("text", text.len(), limits::BODY)?;
        (Field::Escaped(text), true)
    } else {
        return Err(malformed(
            "expected exactly one of \"data\" or (for hmac) \"text\" after \"tag\"",
        ));
    };
    r.literal("}", "not in canonical form: bytes after the last field")?;
    if !r.rest.is_empty() {
        return Err(malformed(
            "not in canonical form: bytes after the closing brace",
        ));
    }
    Ok(Parsed {
        container: Container::Json,
        scheme: SchemeRef::Name(scheme),
        key_id,
        nonce,
        tag,
        aad: Field::Escaped(aad),
        body,
        iv_present,
        protected: &[],
        mac0: false,
        text,
    })
}

/// What only the key's scheme can tell: whether `iv` and `text` belong.
pub(super) fn check_fields(sealer: &Sealer, parsed: &Parsed<'_>) -> Result<(), Error> {
    if parsed.iv_present != (sealer.spec().nonce_len() > 0) {
        return Err(malformed(
            "\"iv\" must be present exactly when the scheme uses one",
        ));
    }
    if parsed.text && sealer.pattern != Pattern::Hmac {
        return Err(malformed(
            "expected exactly one of \"data\" or (for hmac) \"text\"",
        ));
    }
    Ok(())
}
