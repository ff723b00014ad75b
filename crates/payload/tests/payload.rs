//! Generators are reproducible and sized as the studies say; every format and
//! encoding round-trips.

use ciphermeter_payload::{
    CHAIN_LENGTHS, Encoding, Format, Node, RECORD_SIZES, Sample, chain_reading, sized_record,
};
use proptest::prelude::*;

#[test]
fn chain_reading_has_study_003_shape() {
    let node = chain_reading(6, 1);
    let keys: Vec<&str> = match &node {
        Node::Map(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
        _ => panic!("a reading is a map"),
    };
    assert_eq!(keys, ["t", "id", "s_t", "s_d"]);
    assert_eq!(node.get("s_t"), Some(&Node::text("tc")));
    match node.get("s_d") {
        Some(Node::List(items)) => {
            assert_eq!(items.len(), 6);
            for (i, item) in items.iter().enumerate() {
                assert_eq!(item.get("d"), Some(&Node::Int(i as i64)));
            }
        }
        other => panic!("s_d should be a list, got {other:?}"),
    }
}

#[test]
fn chain_sizes_match_study_003() {
    // Study 003, 5.1.1: "Input sizes were approximately 66, 98, 131, 212, 298, 470 bytes".
    let paper = [66, 98, 131, 212, 298, 470];
    for (n, want) in CHAIN_LENGTHS.into_iter().zip(paper) {
        let len = Format::JsonMin
            .serialize(&chain_reading(n, 42))
            .unwrap()
            .len();
        let off = (len as f64 - want as f64).abs() / want as f64;
        assert!(off < 0.10, "chain:{n} is {len} bytes, paper ~{want}");
    }
}

#[test]
fn generators_are_seeded() {
    assert_eq!(chain_reading(10, 5), chain_reading(10, 5));
    assert_ne!(chain_reading(10, 5), chain_reading(10, 6));
    assert_eq!(sized_record(2000, 9), sized_record(2000, 9));
}

#[test]
fn records_are_exactly_study_001_sizes_as_pretty_json() {
    for kb in RECORD_SIZES {
        let target = (kb * 1024.0).round() as usize;
        let bytes = Format::JsonPretty
            .serialize(&sized_record(target, 3))
            .unwrap();
        assert_eq!(bytes.len(), target, "record:{kb}");
    }
}

#[test]
fn study_001_schemes_shrink_in_order() {
    let node = sized_record(3584, 1);
    let sizes: Vec<usize> = Format::STUDY_001
        .iter()
        .map(|f| f.serialize(&node).unwrap().len())
        .collect();
    assert!(
        sizes[1] < sizes[0],
        "minified JSON is smaller than pretty: {sizes:?}"
    );
    assert!(
        sizes[3] < sizes[2],
        "flow YAML is smaller than block YAML: {sizes:?}"
    );
}

#[test]
fn json_min_is_appendix_a_without_white_space() {
    let bytes = Format::JsonMin.serialize(&chain_reading(1, 0)).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    assert!(!text.contains(' ') && !text.contains('\n'));
    assert!(
        text.starts_with("{\"t\":") && text.contains(",\"s_t\":\"tc\",\"s_d\":[{\"d\":0,\"t\":")
    );
}

#[test]
fn every_format_round_trips_every_sample() {
    let samples = [Sample::Chain(1), Sample::Chain(25), Sample::Record(1.5)];
    for sample in samples {
        let node = sample.record(11).unwrap();
        for format in Format::ALL {
            let bytes = format.serialize(&node).unwrap();
            assert_eq!(
                format.deserialize(&bytes).unwrap(),
                node,
                "{format} {sample}"
            );
        }
    }
}

#[test]
fn yaml_min_is_one_line_of_flow_style() {
    let text = String::from_utf8(Format::YamlMin.serialize(&chain_reading(3, 2)).unwrap()).unwrap();
    assert!(
        text.starts_with("{t: ")
            && text.ends_with("]}")
            && !text.contains('\n')
            && !text.contains(", ")
    );
}

#[test]
fn sample_names_parse_and_reject() {
    assert_eq!(Sample::parse("chain:10").unwrap(), Sample::Chain(10));
    assert_eq!(Sample::parse("random:64").unwrap(), Sample::Random(64));
    assert_eq!(Sample::parse("record:2.1").unwrap(), Sample::Record(2.1));
    for bad in [
        "chain",
        "chain:0",
        "chain:x",
        "record:0",
        "nope:3",
        "random:-1",
    ] {
        assert!(Sample::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(
        Sample::Random(16).bytes(Format::JsonMin, 1).unwrap().len(),
        16
    );
}

#[test]
fn encodings_have_known_answers() {
    // RFC 4648 §10 test vectors.
    assert_eq!(Encoding::Base64.encode(b"foob"), b"Zm9vYg==");
    assert_eq!(Encoding::Base64Url.encode(&[0xfb, 0xff]), b"-_8");
    assert_eq!(Encoding::Hex.encode(b"\x01\xab"), b"01ab");
    assert_eq!(Encoding::Raw.encode(b"x"), b"x");
}

#[test]
fn decoding_is_strict() {
    // Hex in either case: what `lorawan decode` and network servers print opens
    // (the bytes are authenticated, not their spelling); odd or non-hex is an error.
    assert_eq!(Encoding::Hex.decode(b"01AB").unwrap(), [0x01, 0xab]);
    assert!(Encoding::Hex.decode(b"01a").is_err());
    assert!(Encoding::Hex.decode(b"01ag").is_err());
    assert!(Encoding::Base64.decode(b"Zm9vYg=").is_err());
    assert!(Encoding::Base64.decode(b"Zm9vYh==").is_err(), "stray bits");
    assert!(
        Encoding::Base64Url.decode(b"Zm9vYg==").is_err(),
        "no padding in base64url"
    );
    assert!(Encoding::Base64.decode(b"Zm9v\nYg==").is_err());
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for format in Format::ALL {
        assert!(format.deserialize(b"\xff\xfe{[").is_err(), "{format}");
    }
    assert!("toml".parse::<Format>().is_err());
    assert!("base32".parse::<Encoding>().is_err());
}

proptest! {
    #[test]
    fn encodings_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        for encoding in Encoding::ALL {
            let text = encoding.encode(&bytes);
            prop_assert_eq!(text.len(), encoding.encoded_len(bytes.len()));
            prop_assert_eq!(encoding.decode(&text).unwrap(), bytes.clone());
        }
    }

    #[test]
    fn odd_strings_survive_yaml_min(s in "\\PC{0,20}", key in "[a-z_]{1,6}") {
        let node = Node::map([(key, Node::Text(s))]);
        let bytes = Format::YamlMin.serialize(&node).unwrap();
        prop_assert_eq!(Format::YamlMin.deserialize(&bytes).unwrap(), node);
    }
}

/// A message printed for a terminal ends its line when it is text, and is
/// read back without that one line ending.
#[test]
fn printed_messages_round_trip_with_their_line_ending() {
    let bytes = [0u8, 0xff, b'\n'];
    let hex = Encoding::Hex.encode_printed(&bytes, false);
    assert_eq!(hex, b"00ff0a\n");
    assert_eq!(Encoding::Hex.decode_printed(hex, false).unwrap(), bytes);
    assert_eq!(
        Encoding::Hex
            .decode_printed(b"00ff0a\r\n".to_vec(), false)
            .unwrap(),
        bytes
    );
    let raw = Encoding::Raw.encode_printed(&bytes, false);
    assert_eq!(raw, bytes, "raw binary gets no line ending");
    assert_eq!(Encoding::Raw.decode_printed(raw, false).unwrap(), bytes);
    let json = Encoding::Raw.encode_printed(b"{}", true);
    assert_eq!(json, b"{}\n");
    assert_eq!(Encoding::Raw.decode_printed(json, true).unwrap(), b"{}");
    assert!(!Encoding::Raw.is_text(false) && Encoding::Base64.is_text(false));
}
