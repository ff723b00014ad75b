//! SCHC fragmentation in ACK-on-Error mode (RFC 8724 §8.4.3) with the
//! LoRaWAN uplink profile of RFC 9011 §5.6.2: the rule id is the FPort (20),
//! then a window number W (2 bits) and a fragment number FCN (6 bits); tiles
//! of 10 bytes, 63 to a window, numbered 62 down to 0; the last tile travels
//! in the All-1 fragment (FCN 63) after the 32-bit RCS, a CRC32 of the whole
//! SCHC packet and its padding, or, where that would not fit the frame
//! (US915 DR0's 11 bytes), at the end of a regular fragment before an All-1
//! of header and RCS alone (RFC 9011 §5.6.2 allows either). The receiver answers a window with an ACK:
//! W, C = 1 when the packet is whole and its RCS holds, else C = 0 and a
//! bitmap of the window's tiles (1 = received), its trailing 1s dropped
//! (§8.3.2.1). The sender sends again the tiles an ACK says are missing.
//!
//! The SCHC packet (a compressed packet, its rule id inside) is a bit string:
//! its tiles are cut from the bits, and only the fragment that carries the
//! last one is padded.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use crate::bits::{Bits, Reader};
use crate::error::SchcError;

/// An ACK-on-Error profile. [`Profile::RFC9011_UPLINK`] is LoRaWAN's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The fragmentation rule's id: the FPort of every fragment and ACK.
    pub rule_id: u8,
    pub tile_bits: usize,
    pub window_size: usize,
    /// Bits of W and of FCN.
    pub w_bits: usize,
    pub fcn_bits: usize,
}

impl Profile {
    /// RFC 9011 §5.6.2: FPortUp 20, 10-byte tiles, 63 a window, M = 2, N = 6.
    pub const RFC9011_UPLINK: Profile = Profile {
        rule_id: 20,
        tile_bits: 80,
        window_size: 63,
        w_bits: 2,
        fcn_bits: 6,
    };

    fn all_ones(&self) -> u64 {
        (1 << self.fcn_bits) - 1
    }

    fn header_bits(&self) -> usize {
        self.w_bits + self.fcn_bits
    }

    /// The longest SCHC packet the profile carries: every window full.
    pub fn max_packet_bits(&self) -> usize {
        (1 << self.w_bits) * self.window_size * self.tile_bits
    }

    /// The most a receiver holds for one packet in progress, in bits: every
    /// tile of every window, and the All-1's tile with its padding.
    pub fn max_held_bits(&self) -> usize {
        self.max_packet_bits() + self.tile_bits + 7
    }
}

/// One fragment or ACK as LoRaWAN carries it: FPort and FRMPayload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub fport: u8,
    pub payload: Vec<u8>,
}

/// A tile's place: its window and its number there (window_size - 1 down to 0).
type Place = (usize, usize);

/// The tiles of a SCHC packet.
struct Tiles {
    tiles: Vec<Bits>,
}

impl Tiles {
    fn cut(profile: &Profile, packet: &Bits) -> Result<Tiles, SchcError> {
        if packet.is_empty() || packet.len() > profile.max_packet_bits() {
            return Err(SchcError::Unfit(alloc::format!(
                "a SCHC packet of {} bits: fragmentation carries 1 to {}",
                packet.len(),
                profile.max_packet_bits()
            )));
        }
        let tiles = (0..packet.len())
            .step_by(profile.tile_bits)
            .map(|at| packet.slice(at, (at + profile.tile_bits).min(packet.len())))
            .collect();
        Ok(Tiles { tiles })
    }

    fn place(profile: &Profile, index: usize) -> Place {
        (
            index / profile.window_size,
            profile.window_size - 1 - index % profile.window_size,
        )
    }
}

/// CRC32 (IEEE 802.3, as zlib's `crc32`), RFC 8724 §8.2.3's RCS.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The sender's side of one SCHC packet.
pub struct Sender {
    profile: Profile,
    tiles: Tiles,
    rcs: u32,
    /// Tiles per regular fragment.
    per_fragment: usize,
    /// The last tile rides in the All-1 (else in a regular fragment).
    last_in_all_one: bool,
}

impl Sender {
    /// Cuts `packet` into tiles for frames of at most `mtu` bytes.
    pub fn new(profile: Profile, packet: &Bits, mtu: usize) -> Result<Sender, SchcError> {
        let tiles = Tiles::cut(&profile, packet)?;
        let per_fragment = (mtu * 8).saturating_sub(profile.header_bits()) / profile.tile_bits;
        let last = tiles.tiles.last().map_or(0, Bits::len);
        let last_in_all_one = (profile.header_bits() + 32 + last).div_ceil(8) <= mtu;
        if per_fragment == 0 || (profile.header_bits() + 32).div_ceil(8) > mtu {
            return Err(SchcError::Unfit(alloc::format!(
                "frames of {mtu} bytes cannot carry a tile or an RCS beside their header"
            )));
        }
        Ok(Sender {
            profile,
            rcs: crc32(packet.as_padded_bytes()),
            tiles,
            per_fragment,
            last_in_all_one,
        })
    }

    /// Tiles the packet was cut into.
    pub fn tiles(&self) -> usize {
        self.tiles.tiles.len()
    }

    /// Every fragment of a first pass: regular ones in order (none across a
    /// window's end), then the All-1 with the RCS and the last tile.
    pub fn fragments(&self) -> Vec<Frame> {
        let regular: Vec<usize> = (0..self.regular_tiles()).collect();
        let mut out = self.regular(&regular);
        out.push(self.all_one());
        out
    }

    /// The fragments that send again the tiles `ack` says its window lacks,
    /// then the All-1 again when that window is the last, else an ACK REQ:
    /// either asks for the next ACK. None for an ACK that says the packet is whole. An ACK that
    /// names no tile of ours missing, from a receiver whose RCS failed, means
    /// a tile was altered on the way: an error (the sender aborts).
    pub fn resend(&self, ack: &Ack) -> Result<Vec<Frame>, SchcError> {
        let Ack::Missing { window, received } = ack else {
            return Ok(Vec::new());
        };
        let last = self.tiles.tiles.len() - 1;
        let missing: Vec<usize> = (0..self.regular_tiles())
            .filter(|&i| {
                let (w, n) = Tiles::place(&self.profile, i);
                w == *window
                    && !received
                        .get(self.profile.window_size - 1 - n)
                        .copied()
                        .unwrap_or(true)
            })
            .collect();
        let last_window = Tiles::place(&self.profile, last).0;
        if missing.is_empty() && *window == last_window {
            return Err(SchcError::Inconsistent(
                "the receiver has every tile and its RCS fails: a tile was altered",
            ));
        }
        // Then what asks for the next ACK: the All-1 again in the last
        // window, an ACK REQ (a header alone) before it.
        let mut out = self.regular(&missing);
        out.push(if *window == last_window {
            self.all_one()
        } else {
            self.frame(&self.header(*window, 0))
        });
        Ok(out)
    }

    /// Tiles that travel in regular fragments: all but the last, or all.
    fn regular_tiles(&self) -> usize {
        self.tiles.tiles.len() - usize::from(self.last_in_all_one)
    }

    /// Regular fragments for `tiles` (ascending indexes): runs of consecutive
    /// tiles of one window, at most `per_fragment` a fragment.
    fn regular(&self, tiles: &[usize]) -> Vec<Frame> {
        let mut out = Vec::new();
        let mut run: Vec<usize> = Vec::new();
        let flush = |run: &mut Vec<usize>, out: &mut Vec<Frame>| {
            if let Some(&first) = run.first() {
                let (w, n) = Tiles::place(&self.profile, first);
                let mut bits = self.header(w, n as u64);
                for &i in run.iter() {
                    bits.push(&self.tiles.tiles[i]);
                }
                out.push(self.frame(&bits));
                run.clear();
            }
        };
        for &i in tiles {
            let joins = run.last().is_some_and(|&prev| {
                prev + 1 == i
                    && Tiles::place(&self.profile, prev).0 == Tiles::place(&self.profile, i).0
            });
            if !joins || run.len() == self.per_fragment {
                flush(&mut run, &mut out);
            }
            run.push(i);
        }
        flush(&mut run, &mut out);
        out
    }

    fn all_one(&self) -> Frame {
        let last = self.tiles.tiles.len() - 1;
        let (w, _) = Tiles::place(&self.profile, last);
        let mut bits = self.header(w, self.profile.all_ones());
        bits.push_uint(self.rcs.into(), 32);
        if self.last_in_all_one {
            bits.push(&self.tiles.tiles[last]);
        }
        self.frame(&bits)
    }

    fn header(&self, window: usize, fcn: u64) -> Bits {
        let mut bits = Bits::from_uint(window as u64, self.profile.w_bits);
        bits.push_uint(fcn, self.profile.fcn_bits);
        bits
    }

    fn frame(&self, bits: &Bits) -> Frame {
        Frame {
            fport: self.profile.rule_id,
            payload: bits.as_padded_bytes().to_vec(),
        }
    }
}

/// What a receiver answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ack {
    /// The packet is whole and its RCS holds.
    Complete { window: usize },
    /// `received[i]` for tile window_size - 1 - i of `window`.
    Missing { window: usize, received: Vec<bool> },
}

impl Ack {
    /// The ACK as a frame: W, C, the bitmap without its trailing 1s (kept to
    /// a byte's end), zero padding.
    pub fn frame(&self, profile: &Profile) -> Frame {
        let mut bits = Bits::new();
        match self {
            Ack::Complete { window } => {
                bits.push_uint(*window as u64, profile.w_bits);
                bits.push_bit(true);
            }
            Ack::Missing { window, received } => {
                bits.push_uint(*window as u64, profile.w_bits);
                bits.push_bit(false);
                let keep = received.iter().rposition(|r| !r).map_or(0, |i| i + 1);
                let mut n = keep;
                // Bits the trailing 1s may not drop: up to the byte's end.
                while !(profile.w_bits + 1 + n).is_multiple_of(8) && n < received.len() {
                    n += 1;
                }
                for &r in &received[..n] {
                    bits.push_bit(r);
                }
            }
        }
        Frame {
            fport: profile.rule_id,
            payload: bits.as_padded_bytes().to_vec(),
        }
    }

    /// Reads an ACK frame: the trailing 1s the bitmap dropped come back.
    pub fn parse(profile: &Profile, frame: &Frame) -> Result<Ack, SchcError> {
        if frame.fport != profile.rule_id {
            return Err(SchcError::UnknownRuleId);
        }
        let mut r = Reader::new(&frame.payload);
        let window = r
            .read_uint(profile.w_bits)
            .ok_or(SchcError::Truncated("an ACK"))? as usize;
        let c = r.read_uint(1).ok_or(SchcError::Truncated("an ACK"))?;
        if c == 1 {
            return Ok(Ack::Complete { window });
        }
        let mut received: Vec<bool> = (0..profile.window_size.min(r.remaining()))
            .map(|_| r.read_uint(1) == Some(1))
            .collect();
        received.resize(profile.window_size, true);
        Ok(Ack::Missing { window, received })
    }
}

/// The receiver's side: tiles as they come, in any order. The All-1 and an
/// ACK REQ are answered: an ACK for the first window that lacks tiles, or
/// the packet whole; a regular fragment only when it completes the packet.
pub struct Receiver {
    profile: Profile,
    tiles: BTreeMap<Place, Bits>,
    /// The All-1's window, RCS and last tile.
    last: Option<(usize, u32, Bits)>,
}

/// What a fragment settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// More is expected before an ACK.
    Waiting,
    /// Tiles are missing: this ACK asks for them.
    Ask(Ack),
    /// Whole, its RCS holds: the packet, and the ACK that says so.
    Whole { packet: Bits, ack: Ack },
}

impl Receiver {
    pub fn new(profile: Profile) -> Receiver {
        Receiver {
            profile,
            tiles: BTreeMap::new(),
            last: None,
        }
    }

    /// Takes one fragment frame.
    pub fn take(&mut self, frame: &Frame) -> Result<Received, SchcError> {
        if frame.fport != self.profile.rule_id {
            return Err(SchcError::UnknownRuleId);
        }
        let p = self.profile;
        let mut r = Reader::new(&frame.payload);
        let window = r
            .read_uint(p.w_bits)
            .ok_or(SchcError::Truncated("a fragment header"))? as usize;
        let fcn = r
            .read_uint(p.fcn_bits)
            .ok_or(SchcError::Truncated("a fragment header"))?;
        if fcn == p.all_ones() {
            let rcs = r.read_uint(32).ok_or(SchcError::Truncated("an RCS"))? as u32;
            // The last tile and its padding (the RCS covers both), unless a
            // regular fragment carried it.
            let last = r.read(r.remaining()).unwrap_or_default();
            // At most one tile and its padding: what the sender's All-1
            // carries. Anything longer is no fragment, and is not held.
            if last.len() >= p.tile_bits + 8 {
                return Err(SchcError::Unfit(
                    "an All-1 carrying more than one tile".into(),
                ));
            }
            self.last = Some((window, rcs, last));
            return self.settle();
        }
        if r.remaining() < 8 {
            // An ACK REQ (a header alone): the sender asks where it stands.
            return self.settle();
        }
        {
            let mut n = fcn as usize;
            loop {
                // A full tile, or what is left: the last tile and its padding.
                let take = r.remaining().min(p.tile_bits);
                if take < 8 {
                    break;
                }
                self.tiles
                    .insert((window, n), r.read(take).unwrap_or_default());
                if n == 0 {
                    break;
                }
                n -= 1;
            }
        }
        // A regular fragment is answered only when it completes the packet:
        // the All-1 and an ACK REQ are what ask for an ACK (RFC 8724 §8.4.3).
        match self.settle()? {
            whole @ Received::Whole { .. } => Ok(whole),
            _ => Ok(Received::Waiting),
        }
    }

    fn settle(&self) -> Result<Received, SchcError> {
        let Some((last_window, rcs, last)) = &self.last else {
            return Ok(Received::Waiting);
        };
        let p = self.profile;
        let bitmap = |w: usize| -> Vec<bool> {
            (0..p.window_size)
                .map(|i| self.tiles.contains_key(&(w, p.window_size - 1 - i)))
                .collect()
        };
        // Every window before the last one is full.
        for w in 0..*last_window {
            let received = bitmap(w);
            if received.iter().any(|r| !r) {
                return Ok(Received::Ask(Ack::Missing {
                    window: w,
                    received,
                }));
            }
        }
        // The last window's count is not sent: its RCS says whether all came.
        // Tiles and the All-1's last tile with its padding are whole bytes,
        // as the RCS covers them (RFC 8724 §8.2.3).
        let mut ordered: Vec<(&Place, &Bits)> = self
            .tiles
            .iter()
            .filter(|((w, _), _)| w <= last_window)
            .collect();
        ordered.sort_by_key(|((w, n), _)| (*w, core::cmp::Reverse(*n)));
        let mut whole = Bits::new();
        for (_, tile) in ordered {
            whole.push(tile);
        }
        whole.push(last);
        if crc32(whole.as_padded_bytes()) == *rcs {
            return Ok(Received::Whole {
                packet: whole,
                ack: Ack::Complete {
                    window: *last_window,
                },
            });
        }
        Ok(Received::Ask(Ack::Missing {
            window: *last_window,
            received: bitmap(*last_window),
        }))
    }
}
