//! The few CBOR items COSE messages need (RFC 8949), in the shortest form:
//! heads with minimal arguments, as deterministic encoding requires, so one
//! message has one encoding. The reader refuses any other form.

use super::write::Writer;
use crate::error::Error;

pub const UINT: u8 = 0;
pub const NINT: u8 = 1;
pub const BYTES: u8 = 2;
pub const TEXT: u8 = 3;
pub const ARRAY: u8 = 4;
pub const MAP: u8 = 5;
pub const TAG: u8 = 6;

/// Bytes of a head whose argument is `n`.
pub const fn head_len(n: usize) -> usize {
    head_len64(n as u64)
}

const fn head_len64(n: u64) -> usize {
    match n {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

pub fn head(w: &mut Writer<'_>, major: u8, n: usize) {
    let m = major << 5;
    let n = n as u64;
    match n {
        0..=23 => w.byte(m | n as u8),
        24..=0xff => w.bytes(&[m | 24, n as u8]),
        0x100..=0xffff => {
            w.byte(m | 25);
            w.bytes(&(n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            w.byte(m | 26);
            w.bytes(&(n as u32).to_be_bytes());
        }
        _ => {
            w.byte(m | 27);
            w.bytes(&n.to_be_bytes());
        }
    }
}

pub fn bstr(w: &mut Writer<'_>, bytes: &[u8]) {
    head(w, BYTES, bytes.len());
    w.bytes(bytes);
}

pub fn tstr(w: &mut Writer<'_>, text: &str) {
    head(w, TEXT, text.len());
    w.text(text);
}

/// Reads items front to back; every error names the COSE container.
pub struct Reader<'a> {
    pub rest: &'a [u8],
}

const NAME: &str = "cose";

fn malformed(detail: &'static str) -> Error {
    Error::Malformed {
        container: NAME,
        detail,
    }
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], Error> {
        if self.rest.len() < n {
            return Err(Error::Truncated {
                container: NAME,
                field,
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    /// A head: (major type, argument), refusing indefinite and non-shortest forms.
    pub fn head(&mut self, field: &'static str) -> Result<(u8, u64), Error> {
        let first = self.take(1, field)?[0];
        let (major, info) = (first >> 5, first & 31);
        let n = match info {
            0..=23 => return Ok((major, u64::from(info))),
            24 => u64::from(self.take(1, field)?[0]),
            25 => u64::from(u16::from_be_bytes(
                self.take(2, field)?.try_into().expect("2"),
            )),
            26 => u64::from(u32::from_be_bytes(
                self.take(4, field)?.try_into().expect("4"),
            )),
            27 => u64::from_be_bytes(self.take(8, field)?.try_into().expect("8")),
            _ => return Err(malformed("indefinite lengths or reserved CBOR forms")),
        };
        if n > usize::MAX as u64 || head_len64(n) != 1 + (1usize << (info - 24)) {
            return Err(malformed(
                "not in canonical CBOR form (a longer head than needed)",
            ));
        }
        Ok((major, n))
    }

    pub fn expect(&mut self, major: u8, n: u64, what: &'static str) -> Result<(), Error> {
        if self.head(what)? != (major, n) {
            return Err(malformed(what));
        }
        Ok(())
    }

    /// A byte string of at most `max` bytes.
    pub fn bstr(&mut self, field: &'static str, max: usize) -> Result<&'a [u8], Error> {
        let (major, n) = self.head(field)?;
        if major != BYTES {
            return Err(malformed("expected a byte string"));
        }
        if n > max as u64 {
            return Err(Error::Oversize {
                field,
                len: n as usize,
                max,
            });
        }
        self.take(n as usize, field)
    }

    /// The bytes of a text string of known length `n`, UTF-8 checked.
    pub fn text_body(&mut self, n: u64, field: &'static str) -> Result<&'a str, Error> {
        let bytes = self.take(n as usize, field)?;
        core::str::from_utf8(bytes).map_err(|_| malformed("a text string that is not UTF-8"))
    }

    pub fn end(&self) -> Result<(), Error> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(malformed("bytes after the end of the message"))
        }
    }
}
