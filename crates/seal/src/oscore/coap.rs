//! CoAP messages (RFC 7252 §3), written into and read from a caller's
//! buffer: the 4-byte header, the token, the options as deltas, and the
//! payload after its 0xFF marker. Only what OSCORE needs; no retransmission.

use super::OscoreError;
use crate::container::write::Writer;

/// Option numbers this crate names (RFC 7252 §5.10, RFC 8613 §2).
pub mod option {
    pub const URI_HOST: u16 = 3;
    pub const OBSERVE: u16 = 6;
    pub const URI_PORT: u16 = 7;
    pub const OSCORE: u16 = 9;
    pub const URI_PATH: u16 = 11;
    pub const CONTENT_FORMAT: u16 = 12;
    pub const PROXY_URI: u16 = 35;
    pub const PROXY_SCHEME: u16 = 39;
}

/// Codes as their byte: class in the top 3 bits, detail in the low 5.
pub mod code {
    pub const GET: u8 = 0x01;
    pub const POST: u8 = 0x02;
    pub const FETCH: u8 = 0x05;
    pub const CHANGED: u8 = 0x44;
    pub const CONTENT: u8 = 0x45;
    pub const BAD_REQUEST: u8 = 0x80;
    pub const UNAUTHORIZED: u8 = 0x81;
    pub const BAD_OPTION: u8 = 0x82;
}

const VERSION: u8 = 1;
const PAYLOAD_MARKER: u8 = 0xff;
const MAX_TOKEN: usize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageType {
    Confirmable = 0,
    NonConfirmable = 1,
    Acknowledgement = 2,
    Reset = 3,
}

impl MessageType {
    fn from_bits(bits: u8) -> MessageType {
        match bits & 3 {
            0 => MessageType::Confirmable,
            1 => MessageType::NonConfirmable,
            2 => MessageType::Acknowledgement,
            _ => MessageType::Reset,
        }
    }
}

/// One option: its number and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoapOption<'a> {
    pub number: u16,
    pub value: &'a [u8],
}

/// A message to write; `options` in ascending order of number.
#[derive(Clone, Copy, Debug)]
pub struct Message<'a> {
    pub mtype: MessageType,
    pub code: u8,
    pub message_id: u16,
    pub token: &'a [u8],
    pub options: &'a [CoapOption<'a>],
    pub payload: &'a [u8],
}

fn malformed(detail: &'static str) -> OscoreError {
    OscoreError::Malformed(detail)
}

/// The nibble and extension bytes of an option delta or length.
fn nibble(n: usize) -> (u8, usize) {
    match n {
        0..=12 => (n as u8, 0),
        13..=268 => (13, 1),
        _ => (14, 2),
    }
}

fn write_extension(w: &mut Writer<'_>, n: usize) {
    match n {
        0..=12 => {}
        13..=268 => w.byte((n - 13) as u8),
        _ => w.bytes(&((n - 269) as u16).to_be_bytes()),
    }
}

/// Bytes one option takes after the previous option `prev`.
pub fn option_len(prev: u16, number: u16, value: usize) -> usize {
    1 + nibble((number - prev) as usize).1 + nibble(value).1 + value
}

/// Writes one option after the previous option `prev`. An option whose value
/// exceeds 65,804 bytes, or out of order, is the caller's error.
pub fn write_option(w: &mut Writer<'_>, prev: u16, number: u16, value: &[u8]) {
    let delta = (number - prev) as usize;
    let (d, _) = nibble(delta);
    let (l, _) = nibble(value.len());
    w.byte((d << 4) | l);
    write_extension(w, delta);
    write_extension(w, value.len());
    w.bytes(value);
}

/// Bytes `options` take, written in order; an error if they are not ascending.
pub fn options_len<'o>(
    options: impl Iterator<Item = CoapOption<'o>>,
) -> Result<usize, OscoreError> {
    let mut prev = 0;
    let mut n = 0;
    for o in options {
        if o.number < prev {
            return Err(malformed("options out of order"));
        }
        if o.value.len() as u32 > 65_804 {
            return Err(malformed("option value over 65,804 bytes"));
        }
        n += option_len(prev, o.number, o.value.len());
        prev = o.number;
    }
    Ok(n)
}

/// Writes options already checked by [`options_len`].
pub fn write_options<'o>(w: &mut Writer<'_>, options: impl Iterator<Item = CoapOption<'o>>) {
    let mut prev = 0;
    for o in options {
        write_option(w, prev, o.number, o.value);
        prev = o.number;
    }
}

/// The header and token, the part before the options.
pub fn write_head(
    w: &mut Writer<'_>,
    mtype: MessageType,
    code: u8,
    message_id: u16,
    token: &[u8],
) -> Result<(), OscoreError> {
    if token.len() > MAX_TOKEN {
        return Err(malformed("token over 8 bytes"));
    }
    w.byte((VERSION << 6) | ((mtype as u8) << 4) | token.len() as u8);
    w.byte(code);
    w.bytes(&message_id.to_be_bytes());
    w.bytes(token);
    Ok(())
}

/// Writes a whole message into `out`; returns its length.
pub fn encode(msg: &Message<'_>, out: &mut [u8]) -> Result<usize, OscoreError> {
    options_len(msg.options.iter().copied())?;
    let mut w = Writer::new(out);
    write_head(&mut w, msg.mtype, msg.code, msg.message_id, msg.token)?;
    write_options(&mut w, msg.options.iter().copied());
    if !msg.payload.is_empty() {
        w.byte(PAYLOAD_MARKER);
        w.bytes(msg.payload);
    }
    w.done().map_err(OscoreError::Core)
}

/// A message read from bytes; its options stay encoded and are read by
/// [`Parsed::options`].
#[derive(Clone, Copy, Debug)]
pub struct Parsed<'a> {
    pub mtype: MessageType,
    pub code: u8,
    pub message_id: u16,
    pub token: &'a [u8],
    /// The encoded options (deltas from 0).
    pub options_raw: &'a [u8],
    pub payload: &'a [u8],
}

impl<'a> Parsed<'a> {
    pub fn options(&self) -> OptionIter<'a> {
        OptionIter {
            rest: self.options_raw,
            prev: 0,
        }
    }
}

/// Reads the options region and the payload that follows it. The region
/// ends at the payload marker or at the end of the bytes.
pub fn split_options(bytes: &[u8]) -> Result<(&[u8], &[u8]), OscoreError> {
    let mut iter = OptionIter {
        rest: bytes,
        prev: 0,
    };
    loop {
        match iter.rest.first() {
            None => return Ok((bytes, &[])),
            Some(&PAYLOAD_MARKER) => {
                let at = bytes.len() - iter.rest.len();
                let payload = &iter.rest[1..];
                if payload.is_empty() {
                    return Err(malformed("payload marker without a payload"));
                }
                return Ok((&bytes[..at], payload));
            }
            Some(_) => {
                iter.next().transpose()?;
            }
        }
    }
}

/// Reads a whole message.
pub fn parse(bytes: &[u8]) -> Result<Parsed<'_>, OscoreError> {
    let (&first, rest) = bytes
        .split_first()
        .ok_or(malformed("shorter than a CoAP header"))?;
    if rest.len() < 3 {
        return Err(malformed("shorter than a CoAP header"));
    }
    if first >> 6 != VERSION {
        return Err(malformed("not CoAP version 1"));
    }
    let tkl = (first & 15) as usize;
    if tkl > MAX_TOKEN {
        return Err(malformed("token length over 8"));
    }
    let token = rest
        .get(3..3 + tkl)
        .ok_or(malformed("ends inside the token"))?;
    let (options_raw, payload) = split_options(&rest[3 + tkl..])?;
    Ok(Parsed {
        mtype: MessageType::from_bits(first >> 4),
        code: rest[0],
        message_id: u16::from_be_bytes([rest[1], rest[2]]),
        token,
        options_raw,
        payload,
    })
}

/// The options of an encoded region, in order.
#[derive(Clone, Debug)]
pub struct OptionIter<'a> {
    rest: &'a [u8],
    prev: u16,
}

impl<'a> OptionIter<'a> {
    /// A delta or length; u32, as 65,535 + 269 exceeds a 16-bit usize (AVR).
    fn extended(&mut self, n: u8) -> Result<u32, OscoreError> {
        let take = |rest: &mut &'a [u8], k: usize| -> Result<&'a [u8], OscoreError> {
            let (head, tail) = rest
                .split_at_checked(k)
                .ok_or(malformed("ends inside an option"))?;
            *rest = tail;
            Ok(head)
        };
        Ok(match n {
            0..=12 => n as u32,
            13 => take(&mut self.rest, 1)?[0] as u32 + 13,
            14 => {
                let b = take(&mut self.rest, 2)?;
                u16::from_be_bytes([b[0], b[1]]) as u32 + 269
            }
            _ => return Err(malformed("reserved option nibble 15")),
        })
    }
}

impl<'a> Iterator for OptionIter<'a> {
    type Item = Result<CoapOption<'a>, OscoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (&first, rest) = self.rest.split_first()?;
        if first == PAYLOAD_MARKER {
            return None;
        }
        self.rest = rest;
        let item = (|| {
            let delta = self.extended(first >> 4)?;
            let len = self.extended(first & 15)?;
            let number = (self.prev as u32 + delta)
                .try_into()
                .map_err(|_| malformed("option number over 65,535"))?;
            let len = usize::try_from(len).map_err(|_| malformed("ends inside an option value"))?;
            let (value, tail) = self
                .rest
                .split_at_checked(len)
                .ok_or(malformed("ends inside an option value"))?;
            self.rest = tail;
            self.prev = number;
            Ok(CoapOption { number, value })
        })();
        if item.is_err() {
            self.rest = &[];
        }
        Some(item)
    }
}
