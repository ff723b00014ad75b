//! A bounded writer over a caller's buffer: overflow is remembered and
//! reported once, never a panic.

use crate::error::Error;

pub struct Writer<'a> {
    buf: &'a mut [u8],
    at: usize,
    short: bool,
}

impl<'a> Writer<'a> {
    pub fn new(buf: &'a mut [u8]) -> Writer<'a> {
        Writer {
            buf,
            at: 0,
            short: false,
        }
    }

    pub fn bytes(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.at..self.at + bytes.len()) {
            Some(dst) if !self.short => {
                dst.copy_from_slice(bytes);
                self.at += bytes.len();
            }
            _ => self.short = true,
        }
    }

    pub fn text(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    pub fn byte(&mut self, b: u8) {
        self.bytes(&[b]);
    }

    pub fn position(&self) -> usize {
        self.at
    }

    /// The rest of the buffer, for a field written in place (base64, hex).
    pub fn rest(&mut self) -> &mut [u8] {
        &mut self.buf[self.at..]
    }

    pub fn advance(&mut self, n: usize) {
        if self.at + n > self.buf.len() {
            self.short = true;
        } else {
            self.at += n;
        }
    }

    pub fn short(&mut self) {
        self.short = true;
    }

    /// The length written, or the error if anything did not fit.
    pub fn done(self) -> Result<usize, Error> {
        if self.short {
            Err(Error::BufferTooSmall { need: 0 })
        } else {
            Ok(self.at)
        }
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(w: &mut Writer<'_>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        w.byte(DIGITS[(b >> 4) as usize]);
        w.byte(DIGITS[(b & 15) as usize]);
    }
}
