//! ACK-on-Error fragmentation with RFC 9011's uplink profile: fragments as a
//! LoRaWAN device sends them, tiles lost and asked for again by the ACK's
//! bitmap, and the packet whole once its RCS holds.

use ciphermeter_schc::Bits;
use ciphermeter_schc::fragment::{Ack, Frame, Profile, Received, Receiver, Sender, crc32};

const P: Profile = Profile::RFC9011_UPLINK;

fn packet(bits: usize, seed: u64) -> Bits {
    let mut state = seed | 1;
    let mut b = Bits::new();
    for _ in 0..bits {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        b.push_bit(state & 1 == 1);
    }
    b
}

/// Sends `packet` in `mtu`-byte frames, losing those `lose` picks (by the
/// frame's place in everything sent), until the receiver has it; returns the
/// frames sent and the ACKs the receiver sent.
fn deliver(packet: &Bits, mtu: usize, lose: impl Fn(usize) -> bool) -> (Vec<Frame>, Vec<Ack>) {
    let sender = Sender::new(P, packet, mtu).unwrap();
    let mut receiver = Receiver::new(P);
    let (mut sent, mut acks) = (Vec::new(), Vec::new());
    let mut queue = sender.fragments();
    for _round in 0..50 {
        let mut answer = None;
        for frame in queue.drain(..) {
            assert!(
                frame.payload.len() <= mtu,
                "{} > {mtu}",
                frame.payload.len()
            );
            assert_eq!(frame.fport, 20);
            sent.push(frame.clone());
            if lose(sent.len() - 1) {
                continue;
            }
            match receiver.take(&frame).unwrap() {
                Received::Waiting => {}
                Received::Ask(ack) => answer = Some(ack),
                Received::Whole { packet: whole, ack } => {
                    assert_eq!(whole.as_padded_bytes(), packet.as_padded_bytes());
                    acks.push(ack);
                    return (sent, acks);
                }
            }
        }
        // The receiver's ACK for the burst (a lost All-1 leaves none: the
        // sender's timer sends the All-1 again).
        match answer {
            Some(ack) => {
                let frame = ack.frame(&P);
                assert_eq!(Ack::parse(&P, &frame).unwrap(), ack);
                queue = sender.resend(&ack).unwrap();
                acks.push(ack);
            }
            None => queue = vec![sender.fragments().pop().unwrap()],
        }
    }
    panic!("not delivered in 50 rounds");
}

#[test]
fn without_loss_the_packet_comes_in_full_frames_and_one_ack() {
    // 768 bytes (ML-KEM-512's ciphertext) at EU868 DR0 (51-byte frames):
    // 77 tiles, 5 a fragment, across 2 windows (63 + 14): 13 + 3 regular
    // fragments and the All-1.
    let p = Bits::from_bytes(&[7u8; 768]);
    let (sent, acks) = deliver(&p, 51, |_| false);
    assert_eq!(sent.len(), 13 + 3 + 1, "{}", sent.len());
    assert_eq!(acks, [Ack::Complete { window: 1 }]);
    // The success ACK is one byte after its FPort: W = 1, C = 1.
    assert_eq!(acks[0].frame(&P).payload, [0b0110_0000]);
    // The All-1: header, the RCS (CRC32 of the packet), the last tile (8 bytes).
    let all_one = sent.last().unwrap();
    assert_eq!(all_one.payload[0], 0b0111_1111);
    assert_eq!(all_one.payload[1..5], crc32(&[7u8; 768]).to_be_bytes());
    assert_eq!(all_one.payload.len(), 1 + 4 + 8);
    // Packets of any bit length, up to the profile's 2,520 bytes.
    for bits in [1, 7, 80, 81, 637, 5_040, 20_159, P.max_packet_bits()] {
        let (sent, acks) = deliver(&packet(bits, bits as u64), 242, |_| false);
        assert_eq!(acks.len(), 1, "{bits} bits");
        assert!(!sent.is_empty());
    }
}

#[test]
fn lost_tiles_are_asked_for_by_the_bitmap_and_sent_again() {
    for seed in 1..40u64 {
        let p = packet(8 * (200 + seed as usize * 37), seed);
        // About one frame in five lost, the All-1 and the retransmissions too.
        let (sent, acks) = deliver(&p, 51, |i| {
            (i as u64 * 2654435761 + seed * 97).is_multiple_of(5)
        });
        let first_pass = Sender::new(P, &p, 51).unwrap().fragments().len();
        assert!(sent.len() > first_pass, "seed {seed}: nothing resent");
        assert!(
            matches!(acks.last(), Some(Ack::Complete { .. })),
            "seed {seed}"
        );
    }
}

#[test]
fn acks_drop_their_trailing_ones_and_read_back_whole() {
    let mut received = vec![true; 63];
    received[2] = false;
    let ack = Ack::Missing {
        window: 0,
        received,
    };
    // W = 00, C = 0, then 11011: the rest are 1s, dropped at the byte's end.
    assert_eq!(ack.frame(&P).payload, [0b0001_1011]);
    assert_eq!(Ack::parse(&P, &ack.frame(&P)).unwrap(), ack);
    let mut received = vec![true; 63];
    received[62] = false;
    let ack = Ack::Missing {
        window: 3,
        received,
    };
    assert_eq!(
        ack.frame(&P).payload.len(),
        9,
        "63 bitmap bits after 3: 66 bits"
    );
    assert_eq!(Ack::parse(&P, &ack.frame(&P)).unwrap(), ack);
}

#[test]
fn an_altered_tile_fails_the_rcs_and_the_sender_gives_up() {
    let p = packet(8 * 300, 5);
    let sender = Sender::new(P, &p, 51).unwrap();
    let mut receiver = Receiver::new(P);
    let mut frames = sender.fragments();
    frames[1].payload[3] ^= 0x10;
    let mut answer = None;
    for f in &frames {
        if let Received::Ask(ack) = receiver.take(f).unwrap() {
            answer = Some(ack);
        }
    }
    let ack = answer.expect("the RCS fails");
    assert!(sender.resend(&ack).is_err());
}

#[test]
fn impossible_sizes_are_refused() {
    assert!(Sender::new(P, &Bits::new(), 51).is_err());
    assert!(Sender::new(P, &packet(P.max_packet_bits() + 1, 1), 242).is_err());
    assert!(
        Sender::new(P, &packet(800, 1), 10).is_err(),
        "a 10-byte frame holds no tile"
    );
    let mut receiver = Receiver::new(P);
    assert!(
        receiver
            .take(&Frame {
                fport: 21,
                payload: vec![0]
            })
            .is_err()
    );
    assert!(
        receiver
            .take(&Frame {
                fport: 20,
                payload: vec![]
            })
            .is_err()
    );
}

/// US915 DR0 carries 11 bytes: a header and one tile, but no All-1 with an
/// 8-byte last tile beside its RCS. The last tile then ends a regular
/// fragment and the All-1 is header and RCS alone (RFC 9011 §5.6.2).
#[test]
fn where_the_all_1_has_no_room_the_last_tile_ends_a_regular_fragment() {
    let p = Bits::from_bytes(&[9u8; 38]);
    let (sent, acks) = deliver(&p, 11, |_| false);
    let sizes: Vec<usize> = sent.iter().map(|f| f.payload.len()).collect();
    assert_eq!(sizes, [11, 11, 11, 9, 5]);
    assert_eq!(acks.len(), 1);
    // And when that short regular fragment is lost, it is asked for again:
    // the packet is whole as it arrives (the All-1 already came).
    let (sent, acks) = deliver(&p, 11, |i| i == 3);
    assert_eq!(sent.len(), 5 + 1);
    assert!(
        matches!(acks[..], [Ack::Missing { .. }, Ack::Complete { .. }]),
        "{acks:?}"
    );
}
