//! A reading as an OSCORE request with RFC 8824 §7.2's inner compression,
//! for every party that seals or opens one with `--compression schc`: the
//! cost of a message (`cost::message`), `send` over a radio
//! (`live::schc_send`) and the gateway (`live::verify::oscore`).
//!
//! With an inner rule in the rule set ([`inner::has_inner_rules`]), the
//! reading's plaintext is compressed, then protected
//! (`seal::host::oscore_plaintext`); the gateway decrypts, then decompresses.
//! Without one, the reading is sealed and opened as RFC 8613 writes it. Either
//! way the outer message is the one the outer rules compress.

use seal::host::oscore::{self as host, OpenedReading, OscoreKey, SealedRequest};
use seal::host::oscore_plaintext as plain;
use seal::oscore::coap::{CoapOption, code, option};
use seal::oscore::reading::MAX_PATH_SEGMENTS;
use seal::oscore::{OscoreError, ReplayWindow};

use crate::coap;
use crate::error::SchcError;
use crate::inner;
use crate::rule::{Direction, RuleSet};

/// The reading's plaintext (RFC 8613 §5.3) as the core's `oscore::reading`
/// writes it: POST, a Uri-Path per segment of `uri_path`, Content-Format,
/// then the reading.
pub fn reading_plaintext(
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
) -> Result<Vec<u8>, SchcError> {
    let format_bytes = content_format.to_be_bytes();
    let format = &format_bytes[content_format.leading_zeros() as usize / 8..];
    let mut options: Vec<CoapOption<'_>> = uri_path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| CoapOption {
            number: option::URI_PATH,
            value: s.as_bytes(),
        })
        .collect();
    if options.len() > MAX_PATH_SEGMENTS {
        return Err(SchcError::Malformed(format!(
            "more Uri-Path segments than {MAX_PATH_SEGMENTS}"
        )));
    }
    options.push(CoapOption {
        number: option::CONTENT_FORMAT,
        value: format,
    });
    coap::write_plaintext(code::POST, &options, reading)
}

/// Seals `reading` as a POST to `uri_path` with `sequence` (reserved by the
/// caller, never used before), its plaintext compressed by the inner rules.
pub fn seal_reading(
    rules: &RuleSet,
    key: &OscoreKey,
    sequence: u64,
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
) -> Result<SealedRequest, String> {
    if !inner::has_inner_rules(rules) {
        return host::seal_request(key, sequence, reading, uri_path, content_format)
            .map_err(|e| e.to_string());
    }
    let plaintext =
        reading_plaintext(reading, uri_path, content_format).map_err(|e| e.to_string())?;
    let compressed = inner::compress(rules, &plaintext, Direction::Up)
        .map_err(|e| format!("the inner message: {e}"))?;
    plain::protect_request_plaintext(key, sequence, &compressed.to_bytes())
        .map_err(|e| host::oscore_err(e).to_string())
}

/// Verifies a request sealed by [`seal_reading`] under the same rules, and
/// the reading it carries. A plaintext that does not decompress is a bad
/// request (RFC 8613 §8.2's 4.00), though its tag verified.
pub fn open_request(
    rules: &RuleSet,
    key: &OscoreKey,
    window: &mut ReplayWindow,
    message: &[u8],
) -> Result<OpenedReading, OscoreError> {
    if !inner::has_inner_rules(rules) {
        return host::open_request(key, window, message);
    }
    let (compressed, id, sequence) = plain::open_request_plaintext(key, window, message)?;
    let plaintext = inner::decompress(rules, &compressed, Direction::Up).map_err(|_| {
        OscoreError::Malformed("the inner message does not decompress with the rules")
    })?;
    plain::opened_reading(message, &plaintext, id, sequence)
}
