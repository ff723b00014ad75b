//! EDHOC over CoAP (RFC 9528 Appendix A.2) on the live link: `send --edhoc`
//! runs the handshake with the gateway before it seals, and the gateway
//! (`--edhoc`) answers it and keeps the OSCORE context it exports. The
//! credentials files say which method: 3 (static DH, `keygen --scheme edhoc`)
//! or 4 (a pre-shared key, draft-ietf-lake-edhoc-psk, `keygen --scheme
//! edhoc-psk`); both run through `handshake::edhoc_session`'s steps. The CoAP
//! messages are written by `handshake::coap_carried`, which the cost of a
//! CoAP-carried handshake uses too.
//!
//! - Request 1: POST /.well-known/edhoc, payload CBOR `true` then message_1;
//!   the 2.04 carries message_2.
//! - Request 2: POST /.well-known/edhoc, payload C_R then message_3; the 2.04
//!   carries message_4 (the gateway always sends it: key confirmation).
//!
//! Both parties live here, below their users: the device's side ([`establish`]) for
//! `send`'s CoAP client ([`crate::coap`]), the gateway's ([`EdhocServer`]) for its
//! OSCORE contexts ([`crate::verify::oscore`]).
//!
//! Connection identifiers are one-byte CBOR integers (-24..=23), so a gateway
//! holds at most 48 sessions: a new one takes over the oldest identifier.

use std::collections::{HashMap, VecDeque};
use std::net::UdpSocket;
use std::time::{Duration, Instant};

use handshake::coap_carried::{FIRST, PATH, TOKEN_LEN, answer, request};
use handshake::credentials::EdhocKeys;
use handshake::edhoc::{ConnId, Exported, Method};
use handshake::edhoc_session::Answering;
use seal::host::oscore::OscoreKey;
use seal::oscore::Alg;
use seal::oscore::coap::{self, MessageType, code, option};

use crate::coap_wire::code_name;
use crate::error::LiveError;

/// Responders waiting for message_3, at most.
const MAX_PENDING: usize = 48;

/// The OSCORE context a party takes from its side of the handshake.
fn oscore_key(exported: &Exported) -> Result<OscoreKey, LiveError> {
    OscoreKey::from_secrets(
        Alg::from_name(
            handshake::edhoc::Suite::parse(2)
                .expect("suite 2")
                .oscore_alg(),
        )
        .expect("an OSCORE algorithm"),
        &exported.master_secret,
        &exported.master_salt,
        &exported.sender_id,
        &exported.recipient_id,
    )
    .map_err(|e| LiveError::Usage(e.to_string()))
}

/// A one-byte connection identifier: CBOR 0x00..=0x17 or 0x20..=0x37.
fn compact(byte: u8) -> Option<ConnId> {
    matches!(byte, 0x00..=0x17 | 0x20..=0x37)
        .then(|| ConnId::from_slice(&[byte]))
        .flatten()
}

/// Sends one request and waits for its answer's payload (a 2.04), or says why not.
fn exchange(socket: &UdpSocket, bytes: &[u8], token: &[u8]) -> Result<Vec<u8>, LiveError> {
    socket
        .send(bytes)
        .map_err(|e| LiveError::io("coap send", e))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut buf = [0u8; 2048];
    while Instant::now() < deadline {
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let Ok(answer) = coap::parse(&buf[..n]) else {
            continue;
        };
        if answer.token != token {
            continue;
        }
        if answer.code != code::CHANGED {
            return Err(LiveError::Io(format!(
                "the gateway refused the EDHOC handshake: {} {}",
                code_name(answer.code),
                String::from_utf8_lossy(answer.payload)
            )));
        }
        return Ok(answer.payload.to_vec());
    }
    Err(LiveError::Io(
        "no answer to the EDHOC handshake within 10 s".into(),
    ))
}

/// The initiator's side over `socket` (connected to the gateway): returns
/// the session's OSCORE context and the bytes both ways.
pub fn establish(
    socket: &UdpSocket,
    credentials: &EdhocKeys,
) -> Result<(OscoreKey, u64), LiveError> {
    let fail = |e: handshake::HandshakeError| LiveError::Io(e.to_string());
    let c_i = compact(rand::random::<u8>() % 24).expect("0..=23 is compact");
    let (initiator, message_1) = credentials.start(c_i).map_err(fail)?;
    let token: [u8; TOKEN_LEN] = rand::random();
    let first_id: u16 = rand::random();
    let mut payload = vec![FIRST];
    payload.extend_from_slice(&message_1);
    let message_2 = exchange(socket, &request(first_id, &token, &payload), &token)?;
    let (waiting, message_3) = initiator.message_3(&message_2).map_err(fail)?;
    let mut payload = waiting.c_r_cbor();
    payload.extend_from_slice(&message_3);
    let message_4 = exchange(
        socket,
        &request(first_id.wrapping_add(1), &token, &payload),
        &token,
    )?;
    let exported = waiting
        .finish((!message_4.is_empty()).then_some(&message_4[..]))
        .map_err(fail)?;
    let bytes = message_1.len() + message_2.len() + message_3.len() + message_4.len();
    Ok((oscore_key(&exported)?, bytes as u64))
}

/// The gateway's side: handshakes in progress and the contexts they gave.
pub struct EdhocServer {
    credentials: EdhocKeys,
    pending: HashMap<u8, Answering>,
    order: VecDeque<u8>,
    next: u8,
}

/// What the gateway does with an EDHOC request.
pub struct Handled {
    /// The answer to send back.
    pub answer: Vec<u8>,
    /// A session established by this request: its context, and a label for the store.
    pub established: Option<(OscoreKey, String)>,
    /// Once the ring holds that context: the session's label.
    pub session: Option<String>,
    /// Why the request was refused (its answer is a 4.00 saying so).
    pub refused: Option<String>,
}

impl EdhocServer {
    pub fn new(credentials: EdhocKeys) -> EdhocServer {
        EdhocServer {
            credentials,
            pending: HashMap::new(),
            order: VecDeque::new(),
            next: rand::random::<u8>() % 48,
        }
    }

    /// The next one-byte C_R, oldest pending handshake dropped to make room.
    fn allocate(
        next: &mut u8,
        pending: &mut HashMap<u8, Answering>,
        order: &mut VecDeque<u8>,
    ) -> u8 {
        *next = (*next + 1) % 48;
        let byte = if *next < 24 {
            *next
        } else {
            0x20 + (*next - 24)
        };
        if pending.remove(&byte).is_some() {
            order.retain(|b| *b != byte);
        }
        while pending.len() >= MAX_PENDING {
            if let Some(old) = order.pop_front() {
                pending.remove(&old);
            }
        }
        byte
    }

    /// `Some` when `bytes` is a request to /.well-known/edhoc, answered here.
    pub fn handle(&mut self, bytes: &[u8], fresh_id: u16) -> Option<Handled> {
        let parsed = coap::parse(bytes).ok()?;
        let mut path = Vec::new();
        for o in parsed.options() {
            let o = o.ok()?;
            if o.number == option::URI_PATH {
                path.push(o.value);
            }
            if o.number == option::OSCORE {
                return None;
            }
        }
        if path != PATH.map(str::as_bytes) {
            return None;
        }
        let confirmable = parsed.mtype == MessageType::Confirmable;
        let (mtype, message_id) = if confirmable {
            (MessageType::Acknowledgement, parsed.message_id)
        } else {
            (MessageType::NonConfirmable, fresh_id)
        };
        let reply =
            |code: u8, payload: &[u8]| answer(mtype, code, message_id, parsed.token, payload);
        let outcome = match parsed.payload.split_first() {
            Some((&FIRST, message_1)) => self.message_1(message_1).map(|m2| (m2, None)),
            Some((&c_r, message_3)) => self
                .message_3(c_r, message_3)
                .map(|(m4, key)| (m4, Some(key))),
            None => Err("an EDHOC request carries a message".to_string()),
        };
        Some(match outcome {
            Ok((payload, established)) => Handled {
                answer: reply(code::CHANGED, &payload),
                established,
                session: None,
                refused: None,
            },
            Err(why) => Handled {
                answer: reply(code::BAD_REQUEST, why.as_bytes()),
                established: None,
                session: None,
                refused: Some(why),
            },
        })
    }

    fn message_1(&mut self, message_1: &[u8]) -> Result<Vec<u8>, String> {
        let EdhocServer {
            credentials,
            pending,
            order,
            next,
        } = self;
        let mut c_r = 0;
        let (responder, message_2) = credentials
            .answer(message_1, |c_i| {
                // Never the initiator's own identifier (RFC 9528 A.1).
                c_r = Self::allocate(next, pending, order);
                if c_i.as_cbor() == [c_r] {
                    c_r = Self::allocate(next, pending, order);
                }
                compact(c_r).expect("allocated compact")
            })
            .map_err(|e| e.to_string())?;
        pending.insert(c_r, responder);
        order.push_back(c_r);
        Ok(message_2)
    }

    fn message_3(
        &mut self,
        c_r: u8,
        message_3: &[u8],
    ) -> Result<(Vec<u8>, (OscoreKey, String)), String> {
        let responder = self
            .pending
            .remove(&c_r)
            .ok_or_else(|| format!("no EDHOC handshake waits under C_R {c_r:02x}"))?;
        self.order.retain(|b| *b != c_r);
        let (exported, message_4) = responder
            .finish(&self.credentials, message_3, true)
            .map_err(|e| e.to_string())?;
        let key = oscore_key(&exported).map_err(|e| e.to_string())?;
        // The salt is fresh per handshake: the store's replay state is per session.
        let method = match self.credentials.method() {
            Method::PSK => "edhoc-psk",
            _ => "edhoc",
        };
        let label = format!(
            "{method}:{}/{}",
            hex::encode(&exported.recipient_id),
            hex::encode(exported.master_salt)
        );
        Ok((message_4.unwrap_or_default(), (key, label)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use handshake::credentials::Credentials;
    use handshake::psk_credentials::PskCredentials;
    use rand::{RngExt, SeedableRng};

    fn server() -> EdhocServer {
        let (_, gateway) = Credentials::generate_pair().unwrap();
        EdhocServer::new(EdhocKeys::StaticDh(gateway))
    }

    fn psk_server() -> EdhocServer {
        let (_, gateway) = PskCredentials::generate_pair().unwrap();
        EdhocServer::new(EdhocKeys::Psk(gateway))
    }

    #[test]
    fn only_requests_to_well_known_edhoc_are_taken() {
        let mut s = server();
        assert!(s.handle(b"", 1).is_none());
        assert!(s.handle(b"\x40\x02\x00\x01", 1).is_none(), "a POST to /");
        let first = request(7, b"t", &[FIRST, 0x03]);
        let handled = s.handle(&first, 1).expect("an EDHOC request");
        let answer = coap::parse(&handled.answer).unwrap();
        assert_eq!(answer.code, code::BAD_REQUEST);
        assert_eq!((answer.message_id, answer.token), (7, &b"t"[..]));
        assert!(handled.established.is_none());
    }

    #[test]
    fn malformed_handshake_messages_get_4_00_and_never_a_panic() {
        for mut s in [server(), psk_server()] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
            for round in 0..2_000 {
                let len = rng.random_range(0..120);
                let mut payload: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                if round % 2 == 0 && !payload.is_empty() {
                    payload[0] = FIRST;
                }
                let handled = s.handle(&request(round as u16, b"x", &payload), 1).unwrap();
                let code = coap::parse(&handled.answer).unwrap().code;
                assert!(
                    code == code::BAD_REQUEST || code == code::CHANGED,
                    "{payload:02x?}"
                );
                assert!(handled.established.is_none());
            }
            // At most 48 handshakes wait for their message_3, however many start.
            assert!(s.pending.len() <= MAX_PENDING);
        }
    }

    /// One handshake through `s` for `device`; the label of its session, or
    /// the gateway's answer (code and payload) to the request it stopped at.
    fn establish_with(
        s: &mut EdhocServer,
        device: &EdhocKeys,
        mid: u16,
    ) -> Result<String, (u8, String)> {
        let refused = |answer: &[u8]| {
            let a = coap::parse(answer).unwrap();
            (a.code, String::from_utf8_lossy(a.payload).into_owned())
        };
        let c_i = compact(0x05).unwrap();
        let (initiator, message_1) = device.start(c_i).unwrap();
        let mut payload = vec![FIRST];
        payload.extend_from_slice(&message_1);
        let handled = s.handle(&request(mid, b"a", &payload), 1).unwrap();
        if handled.refused.is_some() {
            return Err(refused(&handled.answer));
        }
        let message_2 = coap::parse(&handled.answer).unwrap().payload.to_vec();
        let (waiting, message_3) = initiator.message_3(&message_2).unwrap();
        let mut payload = waiting.c_r_cbor();
        payload.extend_from_slice(&message_3);
        let handled = s.handle(&request(mid + 1, b"a", &payload), 1).unwrap();
        match handled.established {
            Some((_, label)) => Ok(label),
            None => Err(refused(&handled.answer)),
        }
    }

    /// A gateway trusting several devices (`keygen --add-to`) keys each by
    /// the credential its message_3 names; a device it does not trust is refused.
    #[test]
    fn a_gateway_trusting_two_devices_establishes_each_and_refuses_a_third() {
        let (first, mut gateway) = Credentials::generate_pair().unwrap();
        let second = gateway.add_device().unwrap();
        let (stranger, _) = Credentials::generate_pair().unwrap();
        // The stranger trusts some other gateway: give it this one's credential.
        let stranger = Credentials {
            peers: vec![gateway.party.ccs().to_vec()],
            ..stranger
        };
        assert_ne!(first.party.ccs(), second.party.ccs());
        let mut s = EdhocServer::new(EdhocKeys::StaticDh(gateway));
        let a = establish_with(&mut s, &EdhocKeys::StaticDh(first), 1).unwrap();
        let b = establish_with(&mut s, &EdhocKeys::StaticDh(second), 3).unwrap();
        assert_ne!(a, b);
        assert!(establish_with(&mut s, &EdhocKeys::StaticDh(stranger), 5).is_err());
    }

    /// The same with PSKs (`keygen --scheme edhoc-psk --add-to`): each device
    /// under its own kid; a PSK the gateway does not hold is refused at
    /// message_3, and a method-3 device at message_1.
    #[test]
    fn a_psk_gateway_holding_two_devices_keys_establishes_each_and_refuses_others() {
        let (first, mut gateway) = PskCredentials::generate_pair().unwrap();
        let second = gateway.add_device().unwrap();
        let (stranger, _) = PskCredentials::generate_pair().unwrap();
        let mut s = EdhocServer::new(EdhocKeys::Psk(gateway));
        let a = establish_with(&mut s, &EdhocKeys::Psk(first), 1).unwrap();
        let b = establish_with(&mut s, &EdhocKeys::Psk(second), 3).unwrap();
        assert!(a.starts_with("edhoc-psk:") && b.starts_with("edhoc-psk:"));
        assert_ne!(a, b);
        let (code, why) = establish_with(&mut s, &EdhocKeys::Psk(stranger), 5).unwrap_err();
        assert_eq!(code, code::BAD_REQUEST);
        assert!(why.contains("message_3 does not verify"), "{why}");
        let (method_3, _) = Credentials::generate_pair().unwrap();
        let (_, why) = establish_with(&mut s, &EdhocKeys::StaticDh(method_3), 7).unwrap_err();
        assert!(why.contains("METHOD"), "{why}");
    }

    #[test]
    fn a_whole_handshake_through_the_server_keys_both_sides_alike() {
        let (device, gateway) = Credentials::generate_pair().unwrap();
        let (psk_device, psk_gateway) = PskCredentials::generate_pair().unwrap();
        for (device, gateway, prefix) in [
            (
                EdhocKeys::StaticDh(device),
                EdhocKeys::StaticDh(gateway),
                "edhoc:",
            ),
            (
                EdhocKeys::Psk(psk_device),
                EdhocKeys::Psk(psk_gateway),
                "edhoc-psk:",
            ),
        ] {
            let mut s = EdhocServer::new(gateway);
            let c_i = compact(0x05).unwrap();
            let (initiator, message_1) = device.start(c_i).unwrap();
            let mut payload = vec![FIRST];
            payload.extend_from_slice(&message_1);
            let handled = s.handle(&request(1, b"a", &payload), 1).unwrap();
            let message_2 = coap::parse(&handled.answer).unwrap().payload.to_vec();
            let (waiting, message_3) = initiator.message_3(&message_2).unwrap();
            let mut payload = waiting.c_r_cbor();
            payload.extend_from_slice(&message_3);
            let handled = s.handle(&request(2, b"a", &payload), 1).unwrap();
            let (key, label) = handled.established.expect("a session");
            let message_4 = coap::parse(&handled.answer).unwrap().payload.to_vec();
            let exported = waiting.finish(Some(&message_4)).unwrap();
            let mine = oscore_key(&exported).unwrap();
            assert_eq!(mine.sender_id, key.recipient_id);
            assert_eq!(mine.recipient_id, key.sender_id);
            assert!(label.starts_with(prefix), "{label}");
            // message_3 again: its handshake is over, so it is refused.
            let again = s.handle(&request(3, b"a", &payload), 1).unwrap();
            assert_eq!(coap::parse(&again.answer).unwrap().code, code::BAD_REQUEST);
        }
    }
}
