//! Messages on byte streams (serial, pseudo-terminals, TCP). UDP needs none: one datagram
//! is one message.
//!
//! - `line`: the message, optional spaces, then `\n`. For text containers (`json`, or any
//!   container under a text encoding), which never contain a raw newline. A lost or
//!   corrupted byte costs at most the line it is in; the next `\n` resynchronises.
//! - `len`: the sync byte `0xCE`, the message length as 2 bytes big-endian, the message.
//!   For binary containers. Bytes between frames that are `0x00` are padding and ignored;
//!   any other byte there is garbage, skipped up to the next sync byte.
//!
//! Padding to whole radio packets (study 000's third payload type) adds spaces before
//! the `\n` (line) or `0x00` bytes after the frame (len), so the receiver drops it for free.
//!
//! A partial frame that gets no new byte for the idle time is reported as truncated and
//! dropped; that is how a message cut short by a lost packet leaves the stream.

use std::time::{Duration, Instant};

// The framing itself (which bytes go around a message) is the sealing core's, so a
// device's UART and this host write the same frames.
pub use seal::stream::{FrameError, Framing, MAX_MESSAGE, SYNC};

/// The bytes to write for `message`; with `pad_to`, filled up to a whole number of
/// `pad_to`-byte packets.
pub fn encode(
    message: &[u8],
    framing: Framing,
    pad_to: Option<u32>,
) -> Result<Vec<u8>, FrameError> {
    let frame = framing.frame(message)?;
    let mut out = Vec::with_capacity(message.len() + 16);
    out.extend_from_slice(frame.header());
    out.extend_from_slice(message);
    let framed = out.len() + frame.trailer.len();
    let pad = match pad_to {
        Some(p) if p > 1 => framed.div_ceil(p as usize) * p as usize - framed,
        _ => 0,
    };
    // Padding goes where the receiver drops it for free: spaces before a line's
    // newline, zero bytes after a length-prefixed frame.
    if framing == Framing::Line {
        out.resize(out.len() + pad, b' ');
    }
    out.extend_from_slice(frame.trailer);
    if framing == Framing::Len {
        out.resize(out.len() + pad, 0);
    }
    Ok(out)
}

/// What the deframer found in the stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    Message(Vec<u8>),
    /// Bytes that cannot start a frame (len framing). A len header above the limit is
    /// garbage too: it cannot be told from noise, so the stream resynchronises after it.
    Garbage(usize),
    /// A line longer than the limit (line framing), dropped up to its newline.
    Oversize(usize),
    /// A partial frame that stopped arriving.
    Truncated(usize),
}

/// Splits a byte stream into messages.
pub struct Deframer {
    framing: Framing,
    max: usize,
    idle: Duration,
    buf: Vec<u8>,
    /// Garbage bytes skipped since the last event (len framing).
    skipped: usize,
    last_byte: Option<Instant>,
    /// When the partial frame now waiting began (a stream's frame timeout counts from it).
    partial_since: Option<Instant>,
}

impl Deframer {
    pub fn new(framing: Framing, max_message: usize, idle: Duration) -> Self {
        Deframer {
            framing,
            max: max_message.min(MAX_MESSAGE),
            idle,
            buf: Vec::new(),
            skipped: 0,
            last_byte: None,
            partial_since: None,
        }
    }

    /// Feeds bytes that arrived at `now`; complete frames go to `out`.
    pub fn push(&mut self, bytes: &[u8], now: Instant, out: &mut Vec<Event>) {
        if bytes.is_empty() {
            return;
        }
        self.last_byte = Some(now);
        let before = out.len();
        match self.framing {
            Framing::Line => self.push_lines(bytes, out),
            Framing::Len => {
                self.buf.extend_from_slice(bytes);
                self.drain_len(out);
            }
        }
        // A frame that ended in these bytes makes what is left a new partial frame.
        if !self.is_partial() {
            self.partial_since = None;
        } else if self.partial_since.is_none() || out.len() > before {
            self.partial_since = Some(now);
        }
    }

    fn is_partial(&self) -> bool {
        !self.buf.is_empty() || self.skipped > 0
    }

    /// When the partial frame now waiting began; `None` between frames.
    pub fn partial_since(&self) -> Option<Instant> {
        self.partial_since
    }

    /// Gives up on the partial frame now waiting (its stream ended or timed out).
    pub fn abandon(&mut self, out: &mut Vec<Event>) {
        if let Some(last) = self.last_byte {
            self.expire(last + self.idle, out);
        }
    }

    fn push_lines(&mut self, mut bytes: &[u8], out: &mut Vec<Event>) {
        while let Some(pos) = bytes.iter().position(|&b| b == b'\n') {
            let (head, rest) = bytes.split_at(pos);
            bytes = &rest[1..];
            if self.skipped > 0 {
                // The end of an overlong line: drop it as one oversize message.
                out.push(Event::Oversize(self.skipped + head.len()));
                self.skipped = 0;
                continue;
            }
            self.buf.extend_from_slice(head);
            let line = std::mem::take(&mut self.buf);
            let end = line
                .iter()
                .rposition(|&b| b != b' ' && b != b'\r')
                .map_or(0, |i| i + 1);
            if end > self.max {
                // A whole overlong line in one read never passed the check below.
                out.push(Event::Oversize(line.len()));
            } else if end > 0 {
                let mut line = line;
                line.truncate(end);
                out.push(Event::Message(line));
            }
        }
        if self.skipped > 0 {
            self.skipped += bytes.len();
        } else {
            self.buf.extend_from_slice(bytes);
            if self.buf.len() > self.max + 64 {
                self.skipped = self.buf.len();
                self.buf.clear();
            }
        }
    }

    fn drain_len(&mut self, out: &mut Vec<Event>) {
        let mut start = 0;
        loop {
            // Skip padding and garbage up to the next sync byte.
            while start < self.buf.len() && self.buf[start] != SYNC {
                if self.buf[start] == 0 && self.skipped == 0 {
                    start += 1;
                    continue;
                }
                self.skipped += 1;
                start += 1;
            }
            let avail = &self.buf[start..];
            if avail.len() < 3 {
                break;
            }
            let len = usize::from(u16::from_be_bytes([avail[1], avail[2]]));
            if len == 0 || len > self.max {
                // Not a real header: treat the sync byte as garbage and look further.
                self.skipped += 1;
                start += 1;
                continue;
            }
            if avail.len() < 3 + len {
                break;
            }
            if self.skipped > 0 {
                out.push(Event::Garbage(self.skipped));
                self.skipped = 0;
            }
            out.push(Event::Message(avail[3..3 + len].to_vec()));
            start += 3 + len;
        }
        self.buf.drain(..start);
    }

    /// When the next idle check is due, if a partial frame is waiting.
    pub fn deadline(&self) -> Option<Instant> {
        if !self.is_partial() {
            return None;
        }
        self.last_byte.map(|t| t + self.idle)
    }

    /// Drops a partial frame that has not grown for the idle time.
    pub fn expire(&mut self, now: Instant, out: &mut Vec<Event>) {
        let Some(deadline) = self.deadline() else {
            return;
        };
        if now < deadline {
            return;
        }
        if self.skipped > 0 {
            out.push(match self.framing {
                Framing::Line => Event::Oversize(self.skipped),
                Framing::Len => Event::Garbage(self.skipped),
            });
            self.skipped = 0;
        }
        let partial = self.buf.len();
        self.buf.clear();
        self.partial_since = None;
        if partial > 0 {
            out.push(Event::Truncated(partial));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deframe(framing: Framing, chunks: &[&[u8]]) -> Vec<Event> {
        let mut d = Deframer::new(framing, 1000, Duration::from_millis(50));
        let mut out = Vec::new();
        let t = Instant::now();
        for c in chunks {
            d.push(c, t, &mut out);
        }
        d.expire(t + Duration::from_secs(1), &mut out);
        out
    }

    #[test]
    fn line_round_trip_with_padding_to_packets() {
        let framed = encode(b"{\"a\":1}", Framing::Line, Some(12)).unwrap();
        assert_eq!(framed, b"{\"a\":1}    \n");
        let framed2 = encode(b"abc", Framing::Line, None).unwrap();
        assert_eq!(framed2, b"abc\n");
        let all = [framed.as_slice(), framed2.as_slice()].concat();
        // Byte by byte, as a serial port may deliver it.
        let chunks: Vec<&[u8]> = all.chunks(1).collect();
        assert_eq!(
            deframe(Framing::Line, &chunks),
            vec![
                Event::Message(b"{\"a\":1}".to_vec()),
                Event::Message(b"abc".to_vec())
            ]
        );
    }

    #[test]
    fn len_round_trip_with_padding_and_garbage() {
        let a = encode(b"hello", Framing::Len, Some(12)).unwrap();
        assert_eq!(a.len(), 12);
        assert_eq!(&a[..8], &[SYNC, 0, 5, b'h', b'e', b'l', b'l', b'o']);
        assert!(a[8..].iter().all(|&b| b == 0));
        let b = encode(&[7u8; 300], Framing::Len, None).unwrap();
        assert_eq!(&b[..3], &[SYNC, 1, 44]);
        let stream = [a.as_slice(), b"xyz", b.as_slice()].concat();
        let chunks: Vec<&[u8]> = stream.chunks(5).collect();
        assert_eq!(
            deframe(Framing::Len, &chunks),
            vec![
                Event::Message(b"hello".to_vec()),
                Event::Garbage(3),
                Event::Message(vec![7u8; 300])
            ]
        );
    }

    #[test]
    fn partial_frames_expire_as_truncated() {
        let framed = encode(b"0123456789", Framing::Len, None).unwrap();
        assert_eq!(
            deframe(Framing::Len, &[&framed[..7]]),
            vec![Event::Truncated(7)]
        );
        assert_eq!(
            deframe(Framing::Line, &[b"partial line"]),
            vec![Event::Truncated(12)]
        );
    }

    #[test]
    fn a_partial_frame_knows_when_it_began_and_can_be_abandoned() {
        let mut d = Deframer::new(Framing::Line, 1000, Duration::from_secs(60));
        let mut out = Vec::new();
        let t0 = Instant::now();
        d.push(b"par", t0, &mut out);
        let t1 = t0 + Duration::from_millis(10);
        // More bytes of the same frame keep its start…
        d.push(b"tial", t1, &mut out);
        assert_eq!(d.partial_since(), Some(t0));
        // …a frame that ends makes the rest a new one.
        d.push(b"\nne", t1, &mut out);
        assert_eq!(d.partial_since(), Some(t1));
        d.push(b"w\n", t1, &mut out);
        assert_eq!(d.partial_since(), None);
        d.push(b"cut", t1, &mut out);
        d.abandon(&mut out);
        assert_eq!(
            out,
            vec![
                Event::Message(b"partial".to_vec()),
                Event::Message(b"new".to_vec()),
                Event::Truncated(3)
            ]
        );
        assert_eq!(d.partial_since(), None);
    }

    #[test]
    fn oversize_lines_are_oversize_and_bad_headers_garbage() {
        let long = vec![b'x'; 2000];
        let out = deframe(Framing::Line, &[&long, b"\nok\n"]);
        assert_eq!(
            out,
            vec![Event::Oversize(2000), Event::Message(b"ok".to_vec())]
        );
        assert_eq!(
            deframe(Framing::Line, &[&long]),
            vec![Event::Oversize(2000)]
        );
        // A sync byte claiming 60000 bytes (over the 1000 limit) is skipped.
        let ok = encode(b"ok", Framing::Len, None).unwrap();
        let out = deframe(Framing::Len, &[&[SYNC, 0xEA, 0x60], &ok]);
        assert_eq!(out, vec![Event::Garbage(3), Event::Message(b"ok".to_vec())]);
    }

    #[test]
    fn refuses_what_it_cannot_frame() {
        assert_eq!(
            encode(b"a\nb", Framing::Line, None),
            Err(FrameError::ContainsNewline)
        );
        assert_eq!(encode(b"", Framing::Len, None), Err(FrameError::Empty));
        assert_eq!(
            encode(&vec![1u8; 70_000], Framing::Len, None),
            Err(FrameError::TooLong(70_000))
        );
    }
}
