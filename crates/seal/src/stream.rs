//! Messages on byte streams (a device's UART, serial lines, pseudo-terminals,
//! TCP): how one message is delimited. UDP needs none: a datagram is a message.
//! The device writes its frames with this code and the host's sender and
//! gateway (crates/live) with the same, so the two cannot drift apart.
//!
//! - `line`: the message then `\n`. For text containers, which never contain a
//!   raw newline; a lost byte costs at most its line.
//! - `len`: the sync byte `0xCE`, the length as 2 bytes big-endian, the message.
//!   For binary containers.

use crate::container::Container;

pub const SYNC: u8 = 0xCE;
/// Largest message either framing carries (the `len` header has 16 bits).
pub const MAX_MESSAGE: usize = u16::MAX as usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    Line,
    Len,
}

/// Why a message cannot be framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    TooLong(usize),
    ContainsNewline,
    Empty,
}

/// What goes around one message: `header`, the message, `trailer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    header: [u8; 3],
    header_len: usize,
    pub trailer: &'static [u8],
}

impl Frame {
    pub fn header(&self) -> &[u8] {
        &self.header[..self.header_len]
    }
}

impl Framing {
    /// Text containers travel one per line; binary ones with a length prefix.
    pub fn for_container(container: Container) -> Framing {
        if container.is_text() {
            Framing::Line
        } else {
            Framing::Len
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Framing::Line => "line",
            Framing::Len => "len",
        }
    }

    pub fn from_name(name: &str) -> Option<Framing> {
        match name {
            "line" => Some(Framing::Line),
            "len" => Some(Framing::Len),
            _ => None,
        }
    }

    /// The bytes before and after `message`, or why it cannot be framed.
    pub fn frame(self, message: &[u8]) -> Result<Frame, FrameError> {
        if message.is_empty() {
            return Err(FrameError::Empty);
        }
        if message.len() > MAX_MESSAGE {
            return Err(FrameError::TooLong(message.len()));
        }
        Ok(match self {
            Framing::Line => {
                if message.contains(&b'\n') {
                    return Err(FrameError::ContainsNewline);
                }
                Frame {
                    header: [0; 3],
                    header_len: 0,
                    trailer: b"\n",
                }
            }
            Framing::Len => {
                let [hi, lo] = (message.len() as u16).to_be_bytes();
                Frame {
                    header: [SYNC, hi, lo],
                    header_len: 3,
                    trailer: b"",
                }
            }
        })
    }
}

impl core::fmt::Display for Framing {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::fmt::Display for FrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FrameError::TooLong(n) => write!(f, "message of {n} bytes exceeds {MAX_MESSAGE}"),
            FrameError::ContainsNewline => {
                f.write_str("line framing needs a message without newline; use --framing len")
            }
            FrameError::Empty => f.write_str("empty message"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_each_way() {
        let f = Framing::Len.frame(&[7u8; 300]).unwrap();
        assert_eq!(f.header(), &[SYNC, 1, 44]);
        assert_eq!(f.trailer, b"");
        let f = Framing::Line.frame(b"{}").unwrap();
        assert_eq!(f.header(), b"");
        assert_eq!(f.trailer, b"\n");
        assert_eq!(
            Framing::Line.frame(b"a\nb"),
            Err(FrameError::ContainsNewline)
        );
        assert_eq!(Framing::Len.frame(b""), Err(FrameError::Empty));
        assert_eq!(
            Framing::for_container(Container::Cose),
            Framing::Len,
            "binary containers are length-prefixed"
        );
    }
}
