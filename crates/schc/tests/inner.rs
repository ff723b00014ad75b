//! RFC 8824 §7.2's inner compression: the OSCORE plaintext compressed before
//! encryption and decompressed after it, byte for byte as RFC 8824 §7.3
//! prints it, and ciphermeter's own readings under the default rules, sealed
//! and opened through OSCORE.

use ciphermeter_schc::rules_file::{default_rules, load};
use ciphermeter_schc::{Direction, RuleSet, SchcError, inner, oscore};
use seal::host::oscore::{OscoreKey, open_request, seal_request};
use seal::oscore::context::Alg;
use seal::oscore::replay::ReplayWindow;

fn rfc_rules() -> RuleSet {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    load(&dir.join("tests/rules/rfc8824-inner.json")).unwrap()
}

/// `plaintext` compresses to `schc` going `way`, and `schc` back to `plaintext`.
fn both_ways(rules: &RuleSet, plaintext: &str, schc: &str, way: Direction) {
    let plaintext = hex::decode(plaintext).unwrap();
    let compressed = inner::compress(rules, &plaintext, way).unwrap();
    assert_eq!(hex::encode(compressed.to_bytes()), schc, "{way:?}");
    let back = inner::decompress(rules, &hex::decode(schc).unwrap(), way).unwrap();
    assert_eq!(hex::encode(back), hex::encode(&plaintext), "{way:?}");
}

/// RFC 8824 §7.3, Figs. 10 and 11 with the inner rule 0 of its Fig. 9: the
/// GET's 13-byte plaintext (code 1, Uri-Path "temperature") is its rule id
/// alone; the 2.05 Content's 6 bytes (code 69, its payload) are the rule id,
/// the 1-bit mapping index 0 and the payload shifted by it, padded.
#[test]
fn rfc_8824s_inner_plaintexts_compress_to_its_bytes() {
    let rules = rfc_rules();
    both_ways(&rules, "01bb74656d7065726174757265", "00", Direction::Up);
    both_ways(&rules, "45ff32332043", "001919902180", Direction::Down);
    // 2.05 is index 0 of [69, 132]; 4.04 (132) is index 1.
    both_ways(&rules, "84", "0080", Direction::Down);
}

/// The default rules' inner rules: a reading POSTed to "readings" is its
/// rule id (110 for JSON, 111 for octets, 112 for CBOR) and the reading;
/// another path goes whole under rule 22.
#[test]
fn a_readings_plaintext_is_its_inner_rule_id_and_the_reading() {
    let rules = default_rules().unwrap();
    assert!(inner::has_inner_rules(&rules));
    let reading = br#"{"t":21.5}"#;
    for (format, rule) in [(50u16, 0x6e), (42, 0x6f), (60, 0x70)] {
        let plaintext = oscore::reading_plaintext(reading, "readings", format).unwrap();
        // POST, Uri-Path (11) "readings", Content-Format (12), the marker: 13 bytes.
        let head = [&b"\x02\xb8readings\x11"[..], &[format as u8, 0xff]].concat();
        assert_eq!(plaintext, [&head[..], reading].concat());
        let compressed = inner::compress(&rules, &plaintext, Direction::Up).unwrap();
        assert_eq!(compressed.to_bytes(), [&[rule][..], reading].concat());
        let back = inner::decompress(&rules, &compressed.to_bytes(), Direction::Up).unwrap();
        assert_eq!(back, plaintext);
    }
    let other = oscore::reading_plaintext(reading, "elsewhere", 50).unwrap();
    let whole = inner::compress(&rules, &other, Direction::Up).unwrap();
    assert_eq!(whole.to_bytes(), [&[22u8][..], &other].concat());
    assert_eq!(
        inner::decompress(&rules, &whole.to_bytes(), Direction::Up).unwrap(),
        other
    );
    // An outer rule's id inside OSCORE names no plaintext.
    assert!(matches!(
        inner::decompress(&rules, &[101, 0, 0, 0, 0, 0, 0, 0], Direction::Up),
        Err(SchcError::Inconsistent(_) | SchcError::Truncated(_))
    ));
    // Outer rules never match a plaintext, inner rules never a whole message.
    let (device, _) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
    let request = seal_request(&device, 0, reading, "readings", 50).unwrap();
    let outer = ciphermeter_schc::compress(&rules, &request.bytes, Direction::Up).unwrap();
    assert_eq!(outer.rule_id.to_uint(), Some(101));
}

/// A reading sealed with inner compression opens at the gateway to the same
/// reading: 12 bytes fewer than RFC 8613's message, and the outer rules still
/// compress it by its partial IV. Without inner rules, the message is RFC 8613's.
#[test]
fn a_reading_sealed_with_inner_compression_opens_to_the_same_reading() {
    let rules = default_rules().unwrap();
    let reading = br#"{"t":21.5,"seq":7}"#;
    let (device, gateway) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
    let mut window = ReplayWindow::new();
    for sequence in [0u64, 300, 70_000] {
        let sealed =
            oscore::seal_reading(&rules, &device, sequence, reading, "readings", 50).unwrap();
        let plain = seal_request(&device, sequence, reading, "readings", 50).unwrap();
        assert_eq!(sealed.bytes.len() + 12, plain.bytes.len());
        let opened = oscore::open_request(&rules, &gateway, &mut window, &sealed.bytes).unwrap();
        assert_eq!(
            (
                opened.reading.as_slice(),
                opened.uri_path.as_str(),
                opened.sequence
            ),
            (&reading[..], "readings", sequence)
        );
        // RFC 8613's own opening reads the compressed plaintext as no reading.
        let mut other = ReplayWindow::new();
        assert!(
            open_request(&gateway, &mut other, &sealed.bytes)
                .map_or(true, |o| o.reading != reading)
        );
        let outer = ciphermeter_schc::compress(&rules, &sealed.bytes, Direction::Up).unwrap();
        assert!(
            outer
                .rule_id
                .to_uint()
                .is_some_and(|id| (101..=103).contains(&id))
        );
    }
    // A rule set without inner rules seals as RFC 8613 does.
    let outer_only = rfc_rules_without_inner();
    let sealed = oscore::seal_reading(&outer_only, &device, 9, reading, "readings", 50).unwrap();
    let plain = seal_request(&device, 9, reading, "readings", 50).unwrap();
    assert_eq!(sealed.bytes, plain.bytes);
}

fn rfc_rules_without_inner() -> RuleSet {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = load(&dir.join("tests/rules/8824-update-oscore.json")).unwrap();
    assert!(!inner::has_inner_rules(&rules));
    rules
}
