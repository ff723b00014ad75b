//! RFC 8613 Appendix C: the key derivation vectors (C.1–C.3), the protected
//! requests (C.4–C.6) and responses (C.7, C.8), byte for byte, and their
//! verification, replay and tampering on the recipient's side.

use ciphermeter_seal::oscore::coap::{self, CoapOption, Message, MessageType};
use ciphermeter_seal::oscore::context::info;
use ciphermeter_seal::oscore::{
    Alg, Context, Inputs, OscoreError, ReplayWindow, protect_request, protect_response,
    unprotect_request, unprotect_response,
};

fn h(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

const SECRET: &str = "0102030405060708090a0b0c0d0e0f10";
const SALT: &str = "9e7ca92223786340";
const ID_CONTEXT: &str = "37cbf3210017a2d3";

fn context(salt: &str, sender: &str, recipient: &str, id_context: Option<&str>) -> Context {
    let (secret, salt, sender, recipient) = (h(SECRET), h(salt), h(sender), h(recipient));
    let id_context = id_context.map(h);
    Context::derive(&Inputs {
        alg: Alg::AesCcm16_64_128,
        master_secret: &secret,
        master_salt: &salt,
        sender_id: &sender,
        recipient_id: &recipient,
        id_context: id_context.as_deref(),
    })
    .unwrap()
}

struct Derivation {
    salt: &'static str,
    id_context: Option<&'static str>,
    sender: &'static str,
    recipient: &'static str,
    sender_info: &'static str,
    iv_info: &'static str,
    common_iv: &'static str,
    sender_nonce: &'static str,
    recipient_nonce: &'static str,
}

/// C.1.1, C.2.1, C.3.1 (the clients; the servers are the same with the ids swapped).
const DERIVATIONS: [Derivation; 3] = [
    Derivation {
        salt: SALT,
        id_context: None,
        sender: "",
        recipient: "01",
        sender_info: "8540f60a634b657910",
        iv_info: "8540f60a6249560d",
        common_iv: "4622d4dd6d944168eefb54987c",
        sender_nonce: "4622d4dd6d944168eefb54987c",
        recipient_nonce: "4722d4dd6d944169eefb54987c",
    },
    Derivation {
        salt: "",
        id_context: None,
        sender: "00",
        recipient: "01",
        sender_info: "854100f60a634b657910",
        iv_info: "8540f60a6249560d",
        common_iv: "be35ae297d2dace910c52e99f9",
        sender_nonce: "bf35ae297d2dace910c52e99f9",
        recipient_nonce: "bf35ae297d2dace810c52e99f9",
    },
    Derivation {
        salt: SALT,
        id_context: Some(ID_CONTEXT),
        sender: "",
        recipient: "01",
        sender_info: "85404837cbf3210017a2d30a634b657910",
        iv_info: "85404837cbf3210017a2d30a6249560d",
        common_iv: "2ca58fb85ff1b81c0b7181b85e",
        sender_nonce: "2ca58fb85ff1b81c0b7181b85e",
        recipient_nonce: "2da58fb85ff1b81d0b7181b85e",
    },
];

#[test]
fn c1_to_c3_derive_the_rfcs_info_iv_and_nonces_for_both_parties() {
    for d in &DERIVATIONS {
        let id_context = d.id_context.map(h);
        let mut buf = [0u8; 64];
        let got = info(
            &h(d.sender),
            id_context.as_deref(),
            Alg::AesCcm16_64_128,
            "Key",
            16,
            &mut buf,
        )
        .unwrap();
        assert_eq!(hex::encode(got), d.sender_info);
        let got = info(
            &[],
            id_context.as_deref(),
            Alg::AesCcm16_64_128,
            "IV",
            13,
            &mut buf,
        )
        .unwrap();
        assert_eq!(hex::encode(got), d.iv_info);
        for (ctx, mine, theirs) in [
            (
                context(d.salt, d.sender, d.recipient, d.id_context),
                d.sender_nonce,
                d.recipient_nonce,
            ),
            (
                context(d.salt, d.recipient, d.sender, d.id_context),
                d.recipient_nonce,
                d.sender_nonce,
            ),
        ] {
            assert_eq!(hex::encode(ctx.common_iv.as_slice()), d.common_iv);
            let own = ctx.nonce(ctx.sender_id.as_slice(), &[0]).unwrap();
            let peer = ctx.nonce(ctx.recipient_id.as_slice(), &[0]).unwrap();
            assert_eq!(hex::encode(own.as_slice()), mine);
            assert_eq!(hex::encode(peer.as_slice()), theirs);
        }
    }
}

// The keys themselves show only through what they seal: C.4–C.6 below, where
// one side's sender key must open what the other side's sealed.

struct RequestVector {
    derivation: usize,
    unprotected: &'static str,
    protected: &'static str,
}

/// C.4, C.5, C.6: `GET coap://localhost/tv1` with sequence number 20.
const REQUESTS: [RequestVector; 3] = [
    RequestVector {
        derivation: 0,
        unprotected: "44015d1f00003974396c6f63616c686f737483747631",
        protected: "44025d1f00003974396c6f63616c686f7374620914ff612f1092f1776f1c1668b3825e",
    },
    RequestVector {
        derivation: 1,
        unprotected: "440171c30000b932396c6f63616c686f737483747631",
        protected: "440271c30000b932396c6f63616c686f737463091400ff4ed339a5a379b0b8bc731fffb0",
    },
    RequestVector {
        derivation: 2,
        unprotected: "44012f8eef9bbf7a396c6f63616c686f737483747631",
        protected: "44022f8eef9bbf7a396c6f63616c686f73746b19140837cbf3210017a2d3ff72cd7273fd331ac45cffbe55c3",
    },
];

/// The options of a parsed message, owned.
fn options_of(parsed: &coap::Parsed<'_>) -> Vec<(u16, Vec<u8>)> {
    parsed
        .options()
        .map(|o| o.map(|o| (o.number, o.value.to_vec())))
        .collect::<Result<_, _>>()
        .unwrap()
}

fn protect_unprotected(ctx: &Context, unprotected: &[u8], sequence: u64) -> Vec<u8> {
    let parsed = coap::parse(unprotected).unwrap();
    let owned = options_of(&parsed);
    let options: Vec<CoapOption<'_>> = owned
        .iter()
        .map(|(number, value)| CoapOption {
            number: *number,
            value,
        })
        .collect();
    let msg = Message {
        mtype: parsed.mtype,
        code: parsed.code,
        message_id: parsed.message_id,
        token: parsed.token,
        options: &options,
        payload: parsed.payload,
    };
    let mut out = [0u8; 256];
    let (n, request) = protect_request(ctx, sequence, &msg, &mut out).unwrap();
    assert_eq!(request.partial_iv.as_slice(), &[sequence as u8]);
    out[..n].to_vec()
}

#[test]
fn c4_to_c6_protect_requests_byte_for_byte_and_the_server_opens_them_once() {
    for v in &REQUESTS {
        let d = &DERIVATIONS[v.derivation];
        let client = context(d.salt, d.sender, d.recipient, d.id_context);
        let server = context(d.salt, d.recipient, d.sender, d.id_context);
        let protected = protect_unprotected(&client, &h(v.unprotected), 20);
        assert_eq!(hex::encode(&protected), v.protected);

        let mut window = ReplayWindow::new();
        let mut buf = [0u8; 256];
        let (inner, request, sequence) =
            unprotect_request(&server, &mut window, &protected, &mut buf).unwrap();
        assert_eq!((inner.code, sequence), (coap::code::GET, 20));
        let path: Vec<_> = inner.options().map(|o| o.unwrap()).collect();
        assert_eq!(
            path,
            [CoapOption {
                number: 11,
                value: b"tv1"
            }]
        );
        assert_eq!(request.kid.as_slice(), h(d.sender));

        let mut buf = [0u8; 256];
        assert_eq!(
            unprotect_request(&server, &mut window, &protected, &mut buf).unwrap_err(),
            OscoreError::Replayed { sequence: 20 }
        );
    }
}

#[test]
fn c7_and_c8_protect_responses_byte_for_byte_and_the_client_opens_them() {
    let d = &DERIVATIONS[0];
    let client = context(d.salt, d.sender, d.recipient, d.id_context);
    let server = context(d.salt, d.recipient, d.sender, d.id_context);
    let protected_request = protect_unprotected(&client, &h(REQUESTS[0].unprotected), 20);
    let mut window = ReplayWindow::new();
    let mut buf = [0u8; 256];
    let (_, request, _) =
        unprotect_request(&server, &mut window, &protected_request, &mut buf).unwrap();

    // 2.05 Content "Hello World!", an ACK with the request's id and token.
    let response = h("64455d1f00003974ff48656c6c6f20576f726c6421");
    let response = coap::parse(&response).unwrap();
    let msg = Message {
        mtype: MessageType::Acknowledgement,
        code: response.code,
        message_id: response.message_id,
        token: response.token,
        options: &[],
        payload: response.payload,
    };
    for (sequence, want) in [
        (
            None,
            "64445d1f0000397490ffdbaad1e9a7e7b2a813d3c31524378303cdafae119106",
        ),
        (
            Some(0),
            "64445d1f00003974920100ff4d4c13669384b67354b2b6175ff4b8658c666a6cf88e",
        ),
    ] {
        let mut out = [0u8; 256];
        let n = protect_response(&server, &request, sequence, &msg, &mut out).unwrap();
        assert_eq!(hex::encode(&out[..n]), want, "{sequence:?}");
        let mut buf = [0u8; 256];
        let inner = unprotect_response(&client, &request, &out[..n], &mut buf).unwrap();
        assert_eq!(
            (inner.code, inner.payload),
            (coap::code::CONTENT, &b"Hello World!"[..])
        );
    }
}

#[test]
fn a_flipped_bit_in_the_oscore_option_or_ciphertext_is_refused() {
    let d = &DERIVATIONS[2];
    let client = context(d.salt, d.sender, d.recipient, d.id_context);
    let server = context(d.salt, d.recipient, d.sender, d.id_context);
    let protected = protect_unprotected(&client, &h(REQUESTS[2].unprotected), 20);
    // Header (4), token (4), Uri-Host "localhost" (10): then the OSCORE option.
    let oscore_at = 18;
    for byte in 0..protected.len() {
        for bit in 0..8 {
            let mut tampered = protected.clone();
            tampered[byte] ^= 1 << bit;
            let mut window = ReplayWindow::new();
            let mut buf = [0u8; 256];
            match unprotect_request(&server, &mut window, &tampered, &mut buf) {
                // OSCORE leaves the outer header, token and class U options
                // unprotected (§4.1, §4.2): a flip there may still open, and then
                // to the very same inner request.
                Ok((inner, _, sequence)) => {
                    assert!(byte < oscore_at, "byte {byte} bit {bit} opened");
                    assert_eq!(
                        (inner.code, inner.payload, sequence),
                        (coap::code::GET, &[][..], 20)
                    );
                    assert_eq!(inner.options().count(), 1);
                }
                Err(e) => {
                    assert_ne!(e, OscoreError::Replayed { sequence: 20 });
                    assert!(
                        window.highest().is_none(),
                        "a refused message moved the window"
                    );
                }
            }
        }
    }
}

#[test]
fn unknown_kid_and_context_are_refused_before_decryption() {
    let d = &DERIVATIONS[0];
    let client = context(d.salt, d.sender, d.recipient, d.id_context);
    // A server that expects another client id.
    let other = context(d.salt, d.recipient, "02", d.id_context);
    let protected = protect_unprotected(&client, &h(REQUESTS[0].unprotected), 20);
    let mut buf = [0u8; 256];
    let err =
        unprotect_request(&other, &mut ReplayWindow::new(), &protected, &mut buf).unwrap_err();
    assert_eq!(err, OscoreError::UnknownContext);
    assert_eq!(err.response_code(), coap::code::UNAUTHORIZED);
}

#[test]
fn ids_longer_than_the_nonce_allows_and_equal_ids_are_refused() {
    let secret = h(SECRET);
    let long = [7u8; 8];
    let err = Context::derive(&Inputs {
        alg: Alg::AesCcm16_64_128,
        master_secret: &secret,
        master_salt: &[],
        sender_id: &long,
        recipient_id: &[1],
        id_context: None,
    });
    assert!(err.is_err());
    let err = Context::derive(&Inputs {
        alg: Alg::AesCcm16_64_128,
        master_secret: &secret,
        master_salt: &[],
        sender_id: &[1],
        recipient_id: &[1],
        id_context: None,
    });
    assert!(err.is_err());
}
