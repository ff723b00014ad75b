//! Transport encodings applied to a finished message.

use std::fmt;
use std::str::FromStr;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The bytes as they are.
    Raw,
    /// Lower-case hexadecimal: study 000's transport, doubling the size.
    Hex,
    /// RFC 4648 §4 base64 with `=` padding.
    Base64,
    /// RFC 4648 §5 URL-safe base64 without padding (as JOSE and COSE tools use it).
    Base64Url,
}

impl Encoding {
    pub const ALL: [Encoding; 4] = [
        Encoding::Raw,
        Encoding::Hex,
        Encoding::Base64,
        Encoding::Base64Url,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Raw => "raw",
            Encoding::Hex => "hex",
            Encoding::Base64 => "base64",
            Encoding::Base64Url => "base64url",
        }
    }

    pub fn encode(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Encoding::Raw => bytes.to_vec(),
            Encoding::Hex => hex::encode(bytes).into_bytes(),
            Encoding::Base64 => STANDARD.encode(bytes).into_bytes(),
            Encoding::Base64Url => URL_SAFE_NO_PAD.encode(bytes).into_bytes(),
        }
    }

    /// Encoded length of `len` bytes, without encoding them.
    pub fn encoded_len(self, len: usize) -> usize {
        match self {
            Encoding::Raw => len,
            Encoding::Hex => len * 2,
            Encoding::Base64 => len.div_ceil(3) * 4,
            Encoding::Base64Url => (len * 4).div_ceil(3),
        }
    }

    /// Whether a message printed in this encoding is text, and so ends its
    /// line on a terminal: any encoding but raw, or a text container
    /// (`text_container`, json) raw.
    pub fn is_text(self, text_container: bool) -> bool {
        self != Encoding::Raw || text_container
    }

    /// `encode`, a text message ([`Encoding::is_text`]) ending its line.
    pub fn encode_printed(self, bytes: &[u8], text_container: bool) -> Vec<u8> {
        let mut out = self.encode(bytes);
        if self.is_text(text_container) {
            out.push(b'\n');
        }
        out
    }

    /// `decode` of a message as [`Encoding::encode_printed`] printed it: a
    /// text one without the one line ending (LF or CRLF) it was printed with.
    pub fn decode_printed(self, mut text: Vec<u8>, text_container: bool) -> Result<Vec<u8>, Error> {
        if self.is_text(text_container) && text.last() == Some(&b'\n') {
            text.pop();
            if text.last() == Some(&b'\r') {
                text.pop();
            }
        }
        self.decode(&text)
    }

    /// Strict base64 (no white space, no missing or extra padding, no stray
    /// bits); hex in either case, through the one hex decoder.
    pub fn decode(self, text: &[u8]) -> Result<Vec<u8>, Error> {
        let err = |detail: String| Error::Decode {
            encoding: self.as_str(),
            detail,
        };
        match self {
            Encoding::Raw => Ok(text.to_vec()),
            Encoding::Hex => crate::decode_hex(text).map_err(err),
            Encoding::Base64 => STANDARD.decode(text).map_err(|e| err(e.to_string())),
            Encoding::Base64Url => URL_SAFE_NO_PAD.decode(text).map_err(|e| err(e.to_string())),
        }
    }
}

impl FromStr for Encoding {
    type Err = Error;

    fn from_str(text: &str) -> Result<Encoding, Error> {
        match text.to_ascii_lowercase().as_str() {
            "raw" | "binary" => Ok(Encoding::Raw),
            "hex" => Ok(Encoding::Hex),
            "base64" | "b64" => Ok(Encoding::Base64),
            "base64url" | "b64url" => Ok(Encoding::Base64Url),
            _ => Err(Error::UnknownEncoding(text.to_string())),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
