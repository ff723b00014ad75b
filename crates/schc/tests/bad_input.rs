//! Bad rules and bad packets are refused with a reason, never a panic and
//! never a wrong message.

use ciphermeter_schc::rules_file::{default_rules, parse};
use ciphermeter_schc::{Direction, SchcError, compress, decompress};

fn refused(text: &str) -> String {
    match parse(text) {
        Err(SchcError::BadRule(why)) => why,
        other => panic!("accepted or refused otherwise: {other:?}"),
    }
}

fn rule(entry: &str) -> String {
    format!(
        r#"{{"ietf-schc:schc": {{"rule": [{{"rule-id-value": 1, "rule-id-length": 8,
            "rule-nature": "ietf-schc:nature-compression", "entry": [{entry}]}}]}}}}"#
    )
}

#[test]
fn bad_rule_files_say_what_is_wrong_and_where() {
    let why = refused("{}");
    assert!(why.contains("ietf-schc:schc"), "{why}");
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-colour", "matching-operator": "mo-ignore", "comp-decomp-action": "cda-value-sent"}"#,
    ));
    assert!(
        why.contains("rule 1: entry 1: unknown field-id \"fid-coap-colour\""),
        "{why}"
    );
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-mid", "matching-operator": "mo-msb", "matching-operator-value": [{"index": 0, "value": "GA=="}], "target-value": [{"index": 0, "value": "AAA="}], "comp-decomp-action": "cda-lsb"}"#,
    ));
    assert!(
        why.contains("MSB longer than the field"),
        "MSB(24) of 16 bits: {why}"
    );
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-code", "matching-operator": "mo-equal", "target-value": [{"index": 0, "value": "AQ=="}], "comp-decomp-action": "cda-mapping-sent"}"#,
    ));
    assert!(
        why.contains("does not go with the matching operator"),
        "{why}"
    );
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-tkl", "matching-operator": "mo-equal", "target-value": [{"index": 0, "value": "EA=="}], "comp-decomp-action": "cda-not-sent"}"#,
    ));
    assert!(why.contains("does not fit 4 bits"), "TKL 16: {why}");
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-type", "colour": 1, "matching-operator": "mo-ignore", "comp-decomp-action": "cda-value-sent"}"#,
    ));
    assert!(why.contains("unknown key \"colour\""), "{why}");
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-tkl", "field-length": 64, "matching-operator": "mo-ignore", "comp-decomp-action": "cda-value-sent"}"#,
    ));
    assert!(why.contains("takes its own length"), "a 64-bit TKL: {why}");
    let why = refused(&rule(
        r#"{"field-id": "fid-coap-option-uri-path", "field-length": "fl-token-length", "matching-operator": "mo-ignore", "comp-decomp-action": "cda-value-sent"}"#,
    ));
    assert!(why.contains("fl-token-length is the token's"), "{why}");
    let two = r#"{"ietf-schc:schc": {"rule": [
        {"rule-id-value": 0, "rule-id-length": 4, "rule-nature": "nature-no-compression"},
        {"rule-id-value": 2, "rule-id-length": 8, "rule-nature": "nature-no-compression"}]}}"#;
    // 0000 starts 0000 0010.
    assert!(
        refused(two).contains("cannot be told apart"),
        "{}",
        refused(two)
    );
}

#[test]
fn bad_compressed_packets_are_refused() {
    let rules = default_rules().unwrap();
    // Rule 200 is nobody's.
    assert_eq!(
        decompress(&rules, &[200, 1, 2], Direction::Up),
        Err(SchcError::UnknownRuleId)
    );
    // Rule 101 with its residue cut short.
    assert!(matches!(
        decompress(&rules, &[101, 0x12], Direction::Up),
        Err(SchcError::Truncated(_))
    ));
    // Not CoAP, and no... rule 22 takes anything whole.
    assert_eq!(
        compress(&rules, b"hello", Direction::Up)
            .unwrap()
            .to_bytes(),
        b"\x16hello"
    );
}

/// Whatever bytes arrive, decompression answers without panicking, and what
/// it answers compresses back to a packet that decompresses the same.
#[test]
fn any_bytes_decompress_to_a_message_or_a_refusal() {
    let rules = default_rules().unwrap();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut opened = 0;
    for _ in 0..20_000 {
        let len = (next() % 40) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if let Some(first) = bytes.first_mut() {
            *first = [101, 102, 103, 22][(next() % 4) as usize];
        }
        for way in [Direction::Up, Direction::Down] {
            if let Ok(message) = decompress(&rules, &bytes, way) {
                opened += 1;
                let again = compress(&rules, &message, way).unwrap();
                assert_eq!(decompress(&rules, &again.to_bytes(), way).unwrap(), message);
            }
        }
    }
    assert!(
        opened > 1000,
        "only {opened} decompressed: the test tests little"
    );
}

/// `--compression schc:RULES` on LoRaWAN: a rule id is the FPort (RFC 9011
/// §5.2), so 8 bits from 1 to 223, and never 20, fragmentation's.
#[test]
fn rule_ids_that_cannot_be_an_fport_are_refused_for_compression() {
    use ciphermeter_schc::rules_file::named;
    assert!(named("schc").is_ok());
    let dir = std::env::temp_dir().join(format!("schc-fport-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (value, bits) in [(20, 8), (0, 8), (224, 8), (5, 4)] {
        let file = dir.join(format!("r{value}-{bits}.json"));
        let text = format!(
            r#"{{"ietf-schc:schc": {{"rule": [{{"rule-id-value": {value}, "rule-id-length": {bits}, "rule-nature": "ietf-schc:nature-no-compression"}}]}}}}"#
        );
        std::fs::write(&file, text).unwrap();
        let err = named(&format!("schc:{}", file.display())).unwrap_err();
        assert!(err.contains("cannot be an FPort"), "{value}/{bits}: {err}");
    }
    assert!(named("zip").unwrap_err().contains("schc:RULES"));
    std::fs::remove_dir_all(&dir).unwrap();
}
