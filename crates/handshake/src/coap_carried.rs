//! EDHOC's messages as CoAP carries them (RFC 9528 Appendix A.2): one
//! writer for the live exchange (crates/live `edhoc`, both parties) and for
//! the cost of a CoAP-carried handshake (`handshake edhoc --compression schc`).
//!
//! - Request 1: a confirmable POST to /.well-known/edhoc, payload CBOR `true`
//!   then message_1; its 2.04 carries message_2.
//! - Request 2: the same, payload C_R then message_3; its 2.04 carries message_4.

use seal::oscore::coap::{self, CoapOption, Message, MessageType, code, option};

use crate::edhoc::Transcript;

pub const PATH: [&str; 2] = [".well-known", "edhoc"];
/// CBOR `true`: the request that carries message_1.
pub const FIRST: u8 = 0xf5;
/// The token the live client sends has 4 bytes (random); the cost uses one
/// of that length, so the bytes are the same.
pub const TOKEN_LEN: usize = 4;

/// A request to /.well-known/edhoc.
pub fn request(message_id: u16, token: &[u8], payload: &[u8]) -> Vec<u8> {
    let options = PATH.map(|segment| CoapOption {
        number: option::URI_PATH,
        value: segment.as_bytes(),
    });
    write(&Message {
        mtype: MessageType::Confirmable,
        code: code::POST,
        message_id,
        token,
        options: &options,
        payload,
    })
}

/// An answer to a request with `token`: `code` and `payload`, piggybacked
/// on its ACK (or non-confirmable with its own message id).
pub fn answer(
    mtype: MessageType,
    code: u8,
    message_id: u16,
    token: &[u8],
    payload: &[u8],
) -> Vec<u8> {
    write(&Message {
        mtype,
        code,
        message_id,
        token,
        options: &[],
        payload,
    })
}

fn write(msg: &Message<'_>) -> Vec<u8> {
    let mut out = vec![0u8; msg.payload.len() + msg.token.len() + 64];
    let n = coap::encode(msg, &mut out).expect("room for an EDHOC message in CoAP");
    out.truncate(n);
    out
}

/// The handshake's messages as CoAP carries them, in order: the two
/// requests and their piggybacked 2.04 answers.
pub fn carried(transcript: &Transcript) -> Vec<Vec<u8>> {
    let token = [0x5a; TOKEN_LEN];
    // The initiator's OSCORE Sender ID is C_R (RFC 9528 A.1): its CBOR bytes.
    let c_r = transcript.initiator.sender_id.clone();
    let mut out = Vec::new();
    for (i, (name, _, bytes)) in transcript.messages().into_iter().enumerate() {
        let id = 0x1234 + (i / 2) as u16;
        out.push(match name {
            "message_1" => request(id, &token, &[&[FIRST][..], bytes].concat()),
            "message_3" => request(id, &token, &[&c_r[..], bytes].concat()),
            _ => answer(
                MessageType::Acknowledgement,
                code::CHANGED,
                id,
                &token,
                bytes,
            ),
        });
    }
    out
}
