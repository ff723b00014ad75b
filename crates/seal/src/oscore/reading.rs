//! A sensor reading as an OSCORE-protected CoAP POST, built once for every
//! party: the device (firmware `seal-oscore`), `seal`/`send --container
//! oscore` and the cost of the message on a link all write it here.
//!
//! The message is non-confirmable; its message id is the sequence number's
//! low 16 bits and its token the Partial IV, so both are unique under the
//! context. The reading is POSTed to `uri_path` (segments split at '/').

use super::coap::{CoapOption, Message, MessageType, code, option};
use super::{Context, OscoreError, RequestId};

/// The most Uri-Path segments a reading's path may have here.
pub const MAX_PATH_SEGMENTS: usize = 6;

/// Where a reading is POSTed unless the caller says otherwise.
pub const DEFAULT_URI_PATH: &str = "readings";

/// Content-Format 50, application/json (RFC 7252 §12.3): study 003's
/// readings; a raw reading says 42 (application/octet-stream).
pub const JSON: u16 = 50;
pub const OCTETS: u16 = 42;

/// The protected request's length: the unprotected CoAP message (header,
/// token, options, payload) plus the OSCORE option and the tag, at most.
pub fn max_len(ctx: &Context, reading: usize, uri_path: &str) -> usize {
    // Header 4, token 5 (Partial IV), option heads (each at most 3 bytes
    // here), inner code 1, payload marker 2, the OSCORE option (flags,
    // Partial IV, kid context, kid) and the tag.
    let segments = uri_path.split('/').filter(|s| !s.is_empty()).count();
    let kid_context = ctx
        .id_context
        .as_ref()
        .map_or(0, |c| c.as_slice().len() + 1);
    4 + 5
        + 3 * (segments + 2)
        + uri_path.len()
        + 2
        + 1
        + 2
        + 1
        + 5
        + kid_context
        + ctx.sender_id.as_slice().len()
        + reading
        + ctx.alg.tag_len()
}

/// Protects `reading` as a POST to `uri_path` with `sequence` (reserved and
/// persisted by the caller first), into `out`. Returns the message's length
/// and the request's id for its response.
pub fn seal_reading(
    ctx: &Context,
    sequence: u64,
    reading: &[u8],
    uri_path: &str,
    content_format: u16,
    out: &mut [u8],
) -> Result<(usize, RequestId), OscoreError> {
    let piv = super::context::partial_iv(sequence)?;
    let format_bytes = content_format.to_be_bytes();
    let format = &format_bytes[content_format.leading_zeros() as usize / 8..];
    let empty = CoapOption {
        number: option::URI_PATH,
        value: &[],
    };
    let mut options = [empty; MAX_PATH_SEGMENTS + 1];
    let mut n = 0;
    for segment in uri_path.split('/').filter(|s| !s.is_empty()) {
        let slot = options.get_mut(n).filter(|_| n < MAX_PATH_SEGMENTS);
        let slot = slot.ok_or(OscoreError::Malformed("more Uri-Path segments than 6"))?;
        slot.value = segment.as_bytes();
        n += 1;
    }
    options[n] = CoapOption {
        number: option::CONTENT_FORMAT,
        value: format,
    };
    let msg = Message {
        mtype: MessageType::NonConfirmable,
        code: code::POST,
        message_id: sequence as u16,
        token: piv.as_slice(),
        options: &options[..=n],
        payload: reading,
    };
    super::protect_request(ctx, sequence, &msg, out)
}

/// The fixed case a device's OSCORE build and the host both protect, to show
/// they write the same bytes: `seal::reading::known_answer`'s key split into
/// a master secret and salt, fixed ids, sequence number 20. A public test
/// context, never for real messages.
pub mod known_answer {
    use super::super::{Alg, Context, Inputs, OscoreError};
    use crate::reading::known_answer::KEY;

    pub const SENDER_ID: [u8; 1] = [0x25];
    pub const RECIPIENT_ID: [u8; 1] = [0x00];
    pub const SEQUENCE: u64 = 20;

    pub fn context(alg: Alg) -> Result<Context, OscoreError> {
        Context::derive(&Inputs {
            alg,
            master_secret: &KEY[..16],
            master_salt: &KEY[16..24],
            sender_id: &SENDER_ID,
            recipient_id: &RECIPIENT_ID,
            id_context: None,
        })
    }
}
