//! Messages longer than one radio frame, in fragments: LoRaWAN carries at
//! most 51 bytes a frame at EU868 DR0 and has no segmentation of its own. The
//! device (firmware, C library `cm_fragment`) and the host's sender cut a
//! sealed message with this code, the gateway puts it back together
//! (crates/live `reassembly`), and `link` costs these very headers.
//!
//! A message that fits one frame travels whole, with no header. Otherwise
//! each fragment is a 2-byte header and a slice of the message:
//!
//! | byte | bits | content |
//! |---|---|---|
//! | 0 | 7-4 | `1111`: a fragment. No container's message starts so (json `{`, binary `0x01`, COSE `0x84`/`0xD0`-`0xD2`, OSCORE's CoAP `0x40`-`0x7F`) |
//! | 0 | 3-0 | the message's tag: the sender's message count, modulo 16 |
//! | 1 | 7 | set on the last fragment |
//! | 1 | 6-0 | the fragment's index, from 0 |
//!
//! Every fragment but the last carries `frame - 2` bytes of the message, so a
//! message of up to 128 fragments travels (6,272 bytes at DR0). Nothing here
//! authenticates: the reassembled message is opened as any other, so a
//! fragment altered or put in the wrong message fails the tag.

/// Bytes of header on every fragment.
pub const HEADER: usize = 2;
/// Most fragments in one message (a 7-bit index).
pub const MAX_FRAGMENTS: usize = 128;
/// Tags count modulo this.
pub const TAGS: u8 = 16;

const MARK: u8 = 0xF0;
const LAST: u8 = 0x80;

/// Why a message cannot be cut, or bytes are no fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentError {
    /// The frame holds no more than the header.
    FrameTooSmall(usize),
    /// More than [`MAX_FRAGMENTS`] fragments: (the message's length, the frame's).
    TooLong(usize, usize),
    /// No such fragment of this message.
    Index(usize),
    /// The output buffer is smaller than the fragment.
    Buffer(usize),
    /// A fragment's header and body do not agree (an empty body).
    Malformed,
}

impl FragmentError {
    pub fn as_str(self) -> &'static str {
        match self {
            FragmentError::FrameTooSmall(_) => "the frame holds no more than the fragment header",
            FragmentError::TooLong(..) => "the message needs more than 128 fragments",
            FragmentError::Index(_) => "the message has no fragment with that index",
            FragmentError::Buffer(_) => "the output buffer is smaller than the fragment",
            FragmentError::Malformed => "a fragment without a body",
        }
    }
}

impl core::fmt::Display for FragmentError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            FragmentError::FrameTooSmall(frame) => {
                write!(
                    f,
                    "a {frame}-byte frame holds no more than the {HEADER}-byte fragment header"
                )
            }
            FragmentError::TooLong(len, frame) => write!(
                f,
                "{len} B needs more than {MAX_FRAGMENTS} fragments of a {frame}-byte frame"
            ),
            FragmentError::Index(i) => write!(f, "the message has no fragment {i}"),
            FragmentError::Buffer(n) => write!(f, "the fragment needs {n} bytes of buffer"),
            FragmentError::Malformed => f.write_str(self.as_str()),
        }
    }
}

/// How many frames of `frame` bytes a message of `len` bytes takes: 1 when
/// it fits whole.
pub fn count(len: usize, frame: usize) -> Result<usize, FragmentError> {
    if len <= frame {
        return Ok(1);
    }
    if frame <= HEADER {
        return Err(FragmentError::FrameTooSmall(frame));
    }
    let n = len.div_ceil(frame - HEADER);
    if n > MAX_FRAGMENTS {
        return Err(FragmentError::TooLong(len, frame));
    }
    Ok(n)
}

/// The bytes each frame carries for a message of `len` bytes, headers
/// included: what `link` costs.
pub fn frame_sizes(len: usize, frame: usize) -> Result<impl Iterator<Item = usize>, FragmentError> {
    let n = count(len, frame)?;
    let body = frame.saturating_sub(HEADER);
    Ok((0..n).map(move |i| match n {
        1 => len,
        _ if i + 1 < n => frame,
        _ => HEADER + len - body * (n - 1),
    }))
}

/// Frame `index` of `message` cut for frames of `frame` bytes, with message
/// tag `tag` (mod 16), written to `out`: its length. The message whole when
/// it fits one frame.
pub fn write(
    message: &[u8],
    frame: usize,
    tag: u8,
    index: usize,
    out: &mut [u8],
) -> Result<usize, FragmentError> {
    let n = count(message.len(), frame)?;
    if index >= n {
        return Err(FragmentError::Index(index));
    }
    let part = if n == 1 {
        message
    } else {
        let body = frame - HEADER;
        &message[index * body..message.len().min((index + 1) * body)]
    };
    let header = if n == 1 { 0 } else { HEADER };
    let len = header + part.len();
    let out = out.get_mut(..len).ok_or(FragmentError::Buffer(len))?;
    if n > 1 {
        out[0] = MARK | (tag % TAGS);
        out[1] = index as u8 | if index + 1 == n { LAST } else { 0 };
    }
    out[header..].copy_from_slice(part);
    Ok(len)
}

/// Whether `bytes` are a fragment rather than a whole message.
pub fn is_fragment(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|b| b & MARK == MARK)
}

/// One fragment read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment<'a> {
    pub tag: u8,
    pub index: u8,
    pub last: bool,
    pub body: &'a [u8],
}

/// Reads a fragment; `None` when the bytes are a whole message.
pub fn parse(bytes: &[u8]) -> Option<Result<Fragment<'_>, FragmentError>> {
    if !is_fragment(bytes) {
        return None;
    }
    Some(match bytes {
        [first, second, body @ ..] if !body.is_empty() => Ok(Fragment {
            tag: first & !MARK,
            index: second & !LAST,
            last: second & LAST != 0,
            body,
        }),
        _ => Err(FragmentError::Malformed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(message: &[u8], frame: usize, tag: u8) -> ([[u8; 64]; 8], [usize; 8], usize) {
        let n = count(message.len(), frame).unwrap();
        let mut out = [[0u8; 64]; 8];
        let mut lens = [0usize; 8];
        for i in 0..n {
            lens[i] = write(message, frame, tag, i, &mut out[i]).unwrap();
        }
        (out, lens, n)
    }

    #[test]
    fn a_message_that_fits_travels_whole() {
        let m = [0x01u8; 51];
        let (out, lens, n) = cut(&m, 51, 3);
        assert_eq!((n, lens[0]), (1, 51));
        assert_eq!(&out[0][..51], &m[..]);
        assert!(!is_fragment(&out[0][..51]) && parse(&m).is_none());
        assert_eq!(frame_sizes(51, 51).unwrap().collect::<Vec<_>>(), [51]);
    }

    #[test]
    fn a_112_byte_message_at_dr0_takes_three_frames_and_comes_back() {
        // A 46-byte-overhead AEAD's 112-byte message at EU868 DR0 (51-byte frames).
        let m: [u8; 112] = core::array::from_fn(|i| i as u8);
        let (out, lens, n) = cut(&m, 51, 17);
        assert_eq!((n, &lens[..3]), (3, &[51, 51, 16][..]));
        assert_eq!(
            frame_sizes(112, 51).unwrap().collect::<Vec<_>>(),
            [51, 51, 16]
        );
        let mut back = [0u8; 112];
        let mut at = 0;
        for i in 0..n {
            let f = parse(&out[i][..lens[i]]).unwrap().unwrap();
            assert_eq!(
                (f.tag, f.index as usize, f.last),
                (1, i, i == 2),
                "tag 17 is 1 mod 16"
            );
            back[at..at + f.body.len()].copy_from_slice(f.body);
            at += f.body.len();
        }
        assert_eq!((at, back), (112, m));
    }

    #[test]
    fn no_container_starts_like_a_fragment() {
        for first in [b'{', 0x01, 0x84, 0xD0, 0xD1, 0xD2, 0x40, 0x58, 0x7F] {
            assert!(!is_fragment(&[first, 0, 0]), "{first:#x}");
        }
    }

    #[test]
    fn impossible_cuts_and_bad_fragments_are_errors() {
        assert_eq!(count(10, 2), Err(FragmentError::FrameTooSmall(2)));
        assert_eq!(
            count(129 * 49 + 1, 51),
            Err(FragmentError::TooLong(6322, 51))
        );
        assert_eq!(count(128 * 49, 51), Ok(128));
        let mut out = [0u8; 64];
        assert_eq!(
            write(&[1; 112], 51, 0, 3, &mut out),
            Err(FragmentError::Index(3))
        );
        assert_eq!(
            write(&[1; 112], 51, 0, 0, &mut out[..50]),
            Err(FragmentError::Buffer(51))
        );
        assert_eq!(parse(&[0xF1, 0x80]), Some(Err(FragmentError::Malformed)));
        assert_eq!(parse(&[0xF1]), Some(Err(FragmentError::Malformed)));
    }
}
