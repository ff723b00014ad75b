//! ciphermeter's own OSCORE readings (`seal --container oscore`, `send --to
//! coap://`) and the gateway's answers under the default rules: each
//! compresses by the rule of its partial IV's length and decompresses to the
//! very bytes the gateway opens; what no rule describes goes whole.

use ciphermeter_schc::rules_file::default_rules;
use ciphermeter_schc::{Direction, compress, decompress};
use seal::host::oscore::{OscoreKey, changed_reply, error_reply, open_request, seal_request};
use seal::oscore::context::Alg;
use seal::oscore::replay::ReplayWindow;

/// `packet` compresses under rule `rule` to `bytes` bytes, and back.
fn round_trip(packet: &[u8], way: Direction) -> (u64, usize) {
    let rules = default_rules().unwrap();
    let c = compress(&rules, packet, way).unwrap();
    let back = decompress(&rules, &c.to_bytes(), way).unwrap();
    assert_eq!(hex(&back), hex(packet), "{way:?}");
    (c.rule_id.to_uint().unwrap(), c.after_rule_id().len())
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn readings_and_answers_compress_by_their_partial_iv_and_come_back_whole() {
    let (device, gateway) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
    let reading = br#"{"t":21.5}"#;
    let mut window = ReplayWindow::new();
    for (sequence, rule) in [
        (0, 101),
        (255, 101),
        (256, 102),
        (65_535, 102),
        (65_536, 103),
        (16_777_215, 103),
    ] {
        let request = seal_request(&device, sequence, reading, "readings", 50).unwrap();
        let (id, after) = round_trip(&request.bytes, Direction::Up);
        assert_eq!(id, rule, "sequence {sequence}");
        // The rule id rides in FPort: the header left is the message id (one
        // byte below 256), the token and partial IV, and the 4-byte kid.
        assert!(
            after < request.bytes.len() - 3,
            "{after} of {}",
            request.bytes.len()
        );
        let opened = open_request(&gateway, &mut window, &request.bytes).unwrap();
        let answer = changed_reply(&gateway, &opened, 7).unwrap();
        assert_eq!(round_trip(&answer, Direction::Down).0, rule);
    }
    // Known answer: the 10-byte reading at sequence 0 is a 44-byte request;
    // rule 101 leaves 60 bits of header (message id's low byte, token, partial
    // IV, the kid's size and 4 bytes) before its 31-byte ciphertext: 39 bytes.
    let first = seal_request(&device, 0, reading, "readings", 50).unwrap();
    assert_eq!(
        (first.bytes.len(), round_trip(&first.bytes, Direction::Up)),
        (44, (101, 39))
    );
    // Sequence numbers of 4 bytes and an unprotected error answer have no
    // rule of their own: rule 22 sends them whole.
    let request = seal_request(&device, 1 << 24, reading, "readings", 50).unwrap();
    assert_eq!(
        round_trip(&request.bytes, Direction::Up),
        (22, request.bytes.len())
    );
    let refused = error_reply(&request.bytes, 0x81, "no", 9).unwrap();
    assert_eq!(round_trip(&refused, Direction::Down).0, 22);
}
