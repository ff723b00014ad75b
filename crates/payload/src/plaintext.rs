//! A reading as `seal` takes it and as `open` shows it: a generated sample
//! or a JSON reading serialized in the format asked for (`None`: raw bytes,
//! sealed as they are), and an opened plaintext shown as text. Errors name
//! the flags they concern.

use crate::{Format, Sample};

/// `--serialization`: a format, or `raw` (`None`: the bytes as given).
pub fn serialization(text: &str) -> Result<Option<Format>, String> {
    if text == "raw" {
        return Ok(None);
    }
    text.parse()
        .map(Some)
        .map_err(|e| format!("--serialization: {e}, or raw for bytes as they are"))
}

/// The generated sample `spec` (chain:N, record:KB, random:N) from `seed`,
/// serialized as `format`; random bytes are bytes already, so no format
/// applies, and a structured sample must have one.
pub fn from_sample(spec: &str, seed: u64, format: Option<Format>) -> Result<Vec<u8>, String> {
    let sample = Sample::parse(spec).map_err(|e| format!("--sample: {e}"))?;
    match (sample.record(seed), format) {
        (None, _) => sample
            .bytes(Format::JsonMin, seed)
            .map_err(|e| e.to_string()),
        (Some(_), None) => {
            Err("--serialization raw needs standard input; a sample must be serialized".into())
        }
        (Some(node), Some(f)) => f.serialize(&node).map_err(|e| e.to_string()),
    }
}

/// All of `input`, or `None` when it holds more than `max` bytes (it is
/// read no further than one byte past `max`).
pub fn read_bounded(input: impl std::io::Read, max: usize) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut buf = Vec::new();
    input.take(max as u64 + 1).read_to_end(&mut buf)?;
    Ok((buf.len() <= max).then_some(buf))
}

/// A JSON reading given on input, re-serialized as `format`; `None` keeps
/// the bytes as they are.
pub fn from_input(input: Vec<u8>, format: Option<Format>) -> Result<Vec<u8>, String> {
    let Some(f) = format else {
        return Ok(input);
    };
    let node = Format::JsonMin.deserialize(&input).map_err(|e| {
        format!(
            "standard input is not a JSON reading ({e}); use --serialization raw to seal bytes as they are"
        )
    })?;
    f.serialize(&node).map_err(|e| e.to_string())
}

/// An opened plaintext as `open` prints it: checked to be a reading in
/// `format`, binary formats (cbor, msgpack) shown as a line of JSON, text
/// ones byte for byte; `None` prints the bytes unchecked.
pub fn shown(plaintext: Vec<u8>, format: Option<Format>) -> Result<Vec<u8>, String> {
    let Some(f) = format else {
        return Ok(plaintext);
    };
    let node = f.deserialize(&plaintext).map_err(|e| e.to_string())?;
    if f.is_text() {
        return Ok(plaintext);
    }
    let mut json = Format::JsonMin
        .serialize(&node)
        .map_err(|e| e.to_string())?;
    json.push(b'\n');
    Ok(json)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_bounded_read_takes_up_to_max_and_refuses_more() {
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_bounded(&b"abcd"[..], 3).unwrap(), None);
    }

    use super::*;

    #[test]
    fn raw_is_no_serialization() {
        assert_eq!(serialization("raw").unwrap(), None);
        assert_eq!(serialization("cbor").unwrap(), Some(Format::Cbor));
        assert!(
            serialization("xml")
                .unwrap_err()
                .ends_with(", or raw for bytes as they are")
        );
    }

    #[test]
    fn samples_are_serialized_unless_they_are_bytes() {
        let json = from_sample("chain:3", 1, Some(Format::JsonMin)).unwrap();
        assert!(json.starts_with(b"{"));
        let cbor = from_sample("chain:3", 1, Some(Format::Cbor)).unwrap();
        assert_ne!(cbor, json);
        assert_eq!(from_sample("random:5", 1, None).unwrap().len(), 5);
        let err = from_sample("chain:3", 1, None).unwrap_err();
        assert!(
            err.starts_with("--serialization raw needs standard input"),
            "{err}"
        );
        assert!(
            from_sample("chain", 1, None)
                .unwrap_err()
                .starts_with("--sample: ")
        );
    }

    #[test]
    fn input_is_a_json_reading_or_raw_bytes() {
        let input = br#"{"t":21.5}"#.to_vec();
        assert_eq!(from_input(input.clone(), None).unwrap(), input);
        let cbor = from_input(input.clone(), Some(Format::Cbor)).unwrap();
        assert_eq!(shown(cbor, Some(Format::Cbor)).unwrap(), b"{\"t\":21.5}\n");
        let err = from_input(b"not json".to_vec(), Some(Format::Cbor)).unwrap_err();
        assert!(
            err.starts_with("standard input is not a JSON reading"),
            "{err}"
        );
        assert_eq!(shown(input.clone(), Some(Format::JsonMin)).unwrap(), input);
        assert!(shown(b"\xff".to_vec(), Some(Format::Cbor)).is_err());
        assert_eq!(shown(b"\xff".to_vec(), None).unwrap(), b"\xff");
    }
}
