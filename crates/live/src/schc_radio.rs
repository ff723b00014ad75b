//! SCHC over a radio, as RFC 9011 runs it on LoRaWAN: each frame on the byte
//! stream is its FPort, one byte, then its FRMPayload (inside the stream's
//! `len` framing). Uplink, a compressed OSCORE request goes whole (FPort =
//! its rule id, the rest of the packet the payload) when one frame holds it,
//! else in ACK-on-Error fragments of the whole packet (FPort 20); downlink,
//! the receiver's ACKs (FPort 20). The sender is `send --compression schc`
//! ([`crate::sender_options`]); the receiver, one per device, is the serial
//! input's ([`Uplinks`]).

use std::sync::Arc;

pub use link::schc_uplink::Outgoing;
use link::schc_uplink::outgoing;
use schc::fragment::{Ack, Frame, Profile, Received, Receiver};
use schc::{Bits, Direction, RuleSet};

use crate::counters::Reason;

/// RFC 9011's uplink fragmentation profile: FPort 20, 10-byte tiles.
pub const PROFILE: Profile = Profile::RFC9011_UPLINK;
/// RFC 9011 (uplink ACK-on-Error, §5.6): the receiver gives a packet up
/// when no fragment of it arrived for its Inactivity Timer (12 hours
/// recommended; RFC 8724 §8.2.2.4 leaves the value to the profile).
pub const INACTIVITY_TIMER_US: i64 = 12 * 3600 * 1_000_000;
/// RFC 9011 (§5.6): ACK REQs (and All-1s answered with tiles missing)
/// one packet may send before the receiver gives it up (RFC 8724's
/// MAX_ACK_REQUESTS).
pub const MAX_ACK_REQUESTS: u32 = 8;

/// A frame as the stream carries it: FPort, then the payload.
pub fn frame_bytes(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.payload.len() + 1);
    out.push(frame.fport);
    out.extend_from_slice(&frame.payload);
    out
}

/// A frame read back from the stream; an empty one is no frame.
pub fn parse_frame(bytes: &[u8]) -> Option<Frame> {
    let (&fport, payload) = bytes.split_first()?;
    Some(Frame {
        fport,
        payload: payload.to_vec(),
    })
}

/// `message` (an OSCORE request) compressed uplink with `rules`, for frames
/// of `mtu` bytes: one frame, or the fragments' sender (which answers the
/// ACKs), as the cost decides it too (`link::schc_uplink::outgoing`); and
/// the SCHC packet's bytes.
pub fn compress(rules: &RuleSet, message: &[u8], mtu: usize) -> Result<(Outgoing, usize), String> {
    let packet = schc::compress(rules, message, Direction::Up).map_err(|e| e.to_string())?;
    let bytes = packet.bits.as_padded_bytes().len();
    let out = outgoing(&packet.bits, packet.rule_id.len(), mtu).map_err(|e| e.to_string())?;
    Ok((out, bytes))
}

/// What one uplink frame settled at the gateway.
#[derive(Debug, PartialEq)]
pub enum Arrived {
    /// A fragment taken; nothing to answer yet.
    Waiting,
    /// An ACK to send down (tiles missing, or the packet whole), and with a
    /// whole packet the OSCORE request it decompressed to.
    Ack(Frame, Option<Result<Vec<u8>, (Reason, String)>>),
    /// An unfragmented packet, decompressed (or refused).
    Message(Result<Vec<u8>, (Reason, String)>),
}

/// One device's uplinks at the gateway: its fragments put together
/// (in memory: a fragment train cut by a restart is sent again by the
/// device, whose ACK never came), packets decompressed.
///
/// RFC 9011 sends no tag with a packet's fragments: a sender starts its next
/// packet only once an ACK says the last one is whole. So ACKs answer only
/// the All-1 and ACK REQs. A packet that a resent tile completes is
/// delivered at once, and the All-1 that ends the same burst gets the ACK.
/// An All-1 of the packet just completed (its RCS), or an ACK REQ right
/// after it, gets that ACK again: the first one may have been lost.
pub struct Uplinks {
    rules: Arc<RuleSet>,
    receiver: Receiver,
    /// No fragment taken since the last packet completed.
    fresh: bool,
    /// The last packet completed: its RCS and the ACK that says so.
    done: Option<([u8; 4], Frame)>,
    /// When the packet in progress last got a fragment (Unix µs).
    last_us: i64,
    /// ACKs the packet in progress asked for with tiles still missing.
    ack_requests: u32,
}

/// What a fragment frame is, from its header (W 2 bits, FCN 6 bits).
enum Kind {
    Regular,
    /// FCN all-1: the last fragment, with the packet's RCS.
    AllOne([u8; 4]),
    /// A header alone: the sender asks where it stands.
    AckRequest,
}

fn no_tile_missing(ack: &Ack) -> bool {
    matches!(ack, Ack::Missing { received, .. } if received.iter().all(|r| *r))
}

fn kind(frame: &Frame) -> Kind {
    let fcn = frame.payload.first().map_or(0, |h| h & 0x3f);
    match (fcn, frame.payload.get(1..5)) {
        (0x3f, Some(rcs)) => Kind::AllOne(rcs.try_into().unwrap_or_default()),
        _ if frame.payload.len() == 1 => Kind::AckRequest,
        _ => Kind::Regular,
    }
}

impl Uplinks {
    pub fn new(rules: Arc<RuleSet>) -> Uplinks {
        Uplinks {
            rules,
            receiver: Receiver::new(PROFILE),
            fresh: true,
            done: None,
            last_us: 0,
            ack_requests: 0,
        }
    }

    /// The packet in progress, given up: the next fragment starts afresh.
    fn abandon(&mut self) {
        self.receiver = Receiver::new(PROFILE);
        self.fresh = true;
        self.ack_requests = 0;
    }

    /// Gives up the packet in progress if no fragment of it arrived for the
    /// Inactivity Timer before `now_us`; says why, once.
    pub fn expire(&mut self, now_us: i64) -> Option<(Reason, String)> {
        if self.fresh || now_us - self.last_us < INACTIVITY_TIMER_US {
            return None;
        }
        self.abandon();
        Some((
            Reason::Incomplete,
            "SCHC packet given up: no fragment for its Inactivity Timer (12 h, RFC 9011)".into(),
        ))
    }

    /// Takes one uplink frame, arrived at `now_us`. A packet in progress is
    /// one per device (RFC 9011 sends no tag), bounded by the profile
    /// ([`Profile::max_held_bits`]).
    pub fn take(&mut self, frame: &Frame, now_us: i64) -> Arrived {
        if frame.fport != PROFILE.rule_id {
            // A whole packet: its rule id is the FPort.
            let mut packet = Bits::from_uint(u64::from(frame.fport), 8);
            packet.push(&Bits::from_bytes(&frame.payload));
            return Arrived::Message(self.decompress(&packet));
        }
        let kind = kind(frame);
        if self.fresh
            && let Some((rcs, ack)) = &self.done
        {
            match kind {
                Kind::AllOne(r) if r == *rcs => return Arrived::Ack(ack.clone(), None),
                Kind::AckRequest => return Arrived::Ack(ack.clone(), None),
                _ => {}
            }
        }
        if self.fresh {
            self.ack_requests = 0;
        }
        self.fresh = false;
        self.last_us = now_us;
        match self.receiver.take(frame) {
            Ok(Received::Waiting) => Arrived::Waiting,
            // A sender that keeps asking without the tiles coming is given up
            // (RFC 8724's MAX_ACK_REQUESTS); it hears no more ACKs for it.
            Ok(Received::Ask(_)) if self.ack_requests >= MAX_ACK_REQUESTS => {
                self.abandon();
                let why = format!(
                    "SCHC packet given up after {MAX_ACK_REQUESTS} ACK requests with tiles missing (MAX_ACK_REQUESTS, RFC 9011)"
                );
                Arrived::Message(Err((Reason::Incomplete, why)))
            }
            // Every tile there and still not whole: the RCS failed (a tile
            // altered, or a stray fragment taken in). Start afresh; the
            // sender gives this packet up on the ACK.
            Ok(Received::Ask(ack @ Ack::Missing { .. })) if no_tile_missing(&ack) => {
                self.abandon();
                let why = "SCHC packet whose RCS fails with every tile received".to_string();
                Arrived::Ack(ack.frame(&PROFILE), Some(Err((Reason::Tampered, why))))
            }
            Ok(Received::Ask(ack)) => {
                self.ack_requests += 1;
                Arrived::Ack(ack.frame(&PROFILE), None)
            }
            Ok(Received::Whole { packet, ack }) => {
                let message = self.decompress(&packet);
                let rcs = schc::fragment::crc32(packet.as_padded_bytes()).to_be_bytes();
                let ack = ack.frame(&PROFILE);
                self.done = Some((rcs, ack.clone()));
                // The next packet starts afresh.
                self.abandon();
                match kind {
                    Kind::Regular => Arrived::Message(message),
                    _ => Arrived::Ack(ack, Some(message)),
                }
            }
            Err(e) => {
                self.abandon();
                Arrived::Message(Err((Reason::Garbage, format!("SCHC fragment: {e}"))))
            }
        }
    }

    fn decompress(&self, packet: &Bits) -> Result<Vec<u8>, (Reason, String)> {
        schc::decompress(&self.rules, packet.as_padded_bytes(), Direction::Up)
            .map_err(|e| (Reason::Garbage, format!("SCHC: {e}")))
    }
}

/// Whether a fragment asks the receiver for an ACK: the All-1 or an ACK REQ.
pub fn asks_for_ack(frame: &Frame) -> bool {
    !matches!(kind(frame), Kind::Regular)
}

/// An ACK frame read back by the sender.
pub fn parse_ack(frame: &Frame) -> Result<Ack, String> {
    if frame.fport != PROFILE.rule_id {
        return Err(format!("a downlink on FPort {}, not an ACK", frame.fport));
    }
    Ack::parse(&PROFILE, frame).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Arc<RuleSet> {
        Arc::new(schc::rules_file::default_rules().unwrap())
    }

    /// A CoAP POST as `seal --container oscore` writes one (ver 1, NON, TKL 1,
    /// POST, mid 0x0014, token 0x14, an OSCORE option, the ciphertext).
    fn request(payload: usize) -> Vec<u8> {
        let mut m = vec![0x51, 0x02, 0x00, 0x14, 0x14, 0x93, 0x09, 0x14, 0x25, 0xff];
        m.extend((0..payload).map(|i| i as u8));
        m
    }

    #[test]
    fn a_small_request_goes_whole_and_a_large_one_in_fragments_and_both_come_back() {
        let rules = rules();
        for (len, whole) in [(20, true), (200, false)] {
            let message = request(len);
            let mut gateway = Uplinks::new(rules.clone());
            let got = match compress(&rules, &message, 51).unwrap().0 {
                Outgoing::Whole(frame) => {
                    assert!(whole);
                    assert_ne!(frame.fport, PROFILE.rule_id);
                    let frame = parse_frame(&frame_bytes(&frame)).unwrap();
                    match gateway.take(&frame, 0) {
                        Arrived::Message(m) => m.unwrap(),
                        other => panic!("{other:?}"),
                    }
                }
                Outgoing::Fragments(sender) => {
                    assert!(!whole);
                    let mut got = None;
                    for f in sender.fragments() {
                        if let Arrived::Ack(ack, Some(m)) = gateway.take(&f, 0) {
                            assert_eq!(parse_ack(&ack).unwrap(), Ack::Complete { window: 0 });
                            got = Some(m.unwrap());
                        }
                    }
                    got.expect("the All-1 completes it")
                }
            };
            assert_eq!(got, message);
        }
    }

    #[test]
    fn a_lost_fragment_is_asked_for_and_unknown_rules_are_refused() {
        let rules = rules();
        let message = request(200);
        let Outgoing::Fragments(sender) = compress(&rules, &message, 51).unwrap().0 else {
            panic!("fragments expected");
        };
        let mut gateway = Uplinks::new(rules.clone());
        let frames = sender.fragments();
        let mut ack = None;
        for f in frames.iter().skip(1) {
            if let Arrived::Ack(a, m) = gateway.take(f, 0) {
                assert!(m.is_none());
                ack = Some(parse_ack(&a).unwrap());
            }
        }
        let again = sender.resend(&ack.expect("the All-1 asks")).unwrap();
        // The resent tile completes the packet; the All-1 after it gets the ACK.
        let (last, tiles) = again.split_last().unwrap();
        let mut whole = None;
        for f in tiles {
            if let Arrived::Message(m) = gateway.take(f, 0) {
                whole = Some(m.unwrap());
            }
        }
        assert_eq!(whole.unwrap(), message);
        let complete = |arrived| match arrived {
            Arrived::Ack(a, None) => parse_ack(&a).unwrap() == Ack::Complete { window: 0 },
            _ => false,
        };
        assert!(complete(gateway.take(last, 0)));
        // An All-1 sent again (its ACK lost) is answered again, not taken as a new packet.
        assert!(complete(gateway.take(last, 0)));
        let unknown = Frame {
            fport: 200,
            payload: vec![1, 2, 3],
        };
        assert!(matches!(
            gateway.take(&unknown, 0),
            Arrived::Message(Err(_))
        ));
        assert!(parse_frame(&[]).is_none());
        assert!(parse_ack(&unknown).is_err());
    }

    #[test]
    fn a_packet_is_given_up_after_its_inactivity_timer_or_max_ack_requests() {
        let rules = rules();
        let Outgoing::Fragments(sender) = compress(&rules, &request(200), 51).unwrap().0 else {
            panic!("fragments expected");
        };
        let frames = sender.fragments();
        let (all_one, tiles) = frames.split_last().unwrap();
        // The first tile lost: each All-1 asks for it again.
        let mut gateway = Uplinks::new(rules.clone());
        for f in &tiles[1..] {
            assert_eq!(gateway.take(f, 0), Arrived::Waiting);
        }
        for _ in 0..MAX_ACK_REQUESTS {
            assert!(matches!(gateway.take(all_one, 0), Arrived::Ack(_, None)));
        }
        match gateway.take(all_one, 0) {
            Arrived::Message(Err((Reason::Incomplete, why))) => {
                assert!(why.contains("MAX_ACK_REQUESTS"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        // Given up: the packet starts afresh, and completes when whole.
        let mut got = None;
        for f in &frames {
            if let Arrived::Ack(_, Some(m)) = gateway.take(f, 1) {
                got = Some(m.unwrap());
            }
        }
        assert_eq!(got.unwrap(), request(200));

        // Idle past the timer: given up once, and only while in progress.
        let mut gateway = Uplinks::new(rules);
        assert_eq!(gateway.expire(INACTIVITY_TIMER_US * 2), None);
        assert_eq!(gateway.take(&tiles[0], 5), Arrived::Waiting);
        assert_eq!(gateway.expire(5 + INACTIVITY_TIMER_US - 1), None);
        let (reason, _) = gateway.expire(5 + INACTIVITY_TIMER_US).unwrap();
        assert_eq!(reason, Reason::Incomplete);
        assert_eq!(gateway.expire(5 + 2 * INACTIVITY_TIMER_US), None);
    }
}
