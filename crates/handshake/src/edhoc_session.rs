//! One party's EDHOC handshake of either method, as the live device
//! (`send --edhoc`) and gateway (`gateway --edhoc`) run it over CoAP: the
//! credentials file decides the method ([`EdhocKeys`]): 3 (static DH) with
//! lakers ([`crate::edhoc`]), or 4 (a PSK) with [`crate::edhoc_psk`]. The
//! steps are the same for both, so the CoAP carriage (crates/live `edhoc`)
//! is written once.

use crate::credentials::EdhocKeys;
use crate::edhoc::{self, ConnId, Exported};
use crate::edhoc_psk;
use crate::error::HandshakeError;

/// The initiator between message_1 and message_2.
pub enum Started {
    StaticDh(Box<(edhoc::Initiator, lakers::Credential)>),
    Psk(edhoc_psk::Initiator),
}

/// The initiator after message_3.
pub enum Finishing {
    StaticDh(edhoc::InitiatorWaitM4),
    Psk(edhoc_psk::InitiatorWaitM4),
}

/// The responder between message_2 and message_3.
pub enum Answering {
    StaticDh(edhoc::Responder),
    Psk(edhoc_psk::Responder),
}

impl EdhocKeys {
    /// The initiator's first step under C_I: message_1.
    pub fn start(&self, c_i: ConnId) -> Result<(Started, Vec<u8>), HandshakeError> {
        match self {
            EdhocKeys::StaticDh(c) => {
                let peer = c.peer_credential()?;
                let (i, m1) = edhoc::Initiator::start(&c.party, c_i, None)?;
                Ok((Started::StaticDh(Box::new((i, peer))), m1))
            }
            EdhocKeys::Psk(c) => {
                let (i, m1) = edhoc_psk::Initiator::start(c.initiator()?, c_i, None)?;
                Ok((Started::Psk(i), m1))
            }
        }
    }

    /// The responder's answer to message_1: message_2, under the C_R
    /// `choose_c_r` picks once it knows C_I.
    pub fn answer(
        &self,
        message_1: &[u8],
        choose_c_r: impl FnOnce(&ConnId) -> ConnId,
    ) -> Result<(Answering, Vec<u8>), HandshakeError> {
        match self {
            EdhocKeys::StaticDh(c) => {
                let (r, m2) = edhoc::Responder::answer(&c.party, message_1, choose_c_r, None)?;
                Ok((Answering::StaticDh(r), m2))
            }
            EdhocKeys::Psk(_) => {
                let (r, m2) = edhoc_psk::Responder::answer(message_1, choose_c_r, None)?;
                Ok((Answering::Psk(r), m2))
            }
        }
    }
}

impl Started {
    /// Reads message_2 and writes message_3.
    pub fn message_3(self, message_2: &[u8]) -> Result<(Finishing, Vec<u8>), HandshakeError> {
        match self {
            Started::StaticDh(started) => {
                let (i, peer) = *started;
                let (w, m3) = i.message_3(message_2, &peer)?;
                Ok((Finishing::StaticDh(w), m3))
            }
            Started::Psk(i) => {
                let (w, m3) = i.message_3(message_2)?;
                Ok((Finishing::Psk(w), m3))
            }
        }
    }
}

impl Finishing {
    /// C_R as CBOR: what prefixes message_3 in a CoAP request (RFC 9528 A.2).
    pub fn c_r_cbor(&self) -> Vec<u8> {
        match self {
            Finishing::StaticDh(w) => w.c_r_cbor(),
            Finishing::Psk(w) => w.c_r_cbor(),
        }
    }

    /// Finishes, verifying message_4 when the responder sent one.
    pub fn finish(self, message_4: Option<&[u8]>) -> Result<Exported, HandshakeError> {
        match self {
            Finishing::StaticDh(w) => w.finish(message_4),
            Finishing::Psk(w) => w.finish(message_4),
        }
    }
}

impl Answering {
    /// Verifies message_3 against what `keys` trusts (method 3: the
    /// credentials; 4: the PSKs); with `send_message_4`, returns message_4 too.
    pub fn finish(
        self,
        keys: &EdhocKeys,
        message_3: &[u8],
        send_message_4: bool,
    ) -> Result<(Exported, Option<Vec<u8>>), HandshakeError> {
        match (self, keys) {
            (Answering::StaticDh(r), EdhocKeys::StaticDh(c)) => {
                r.finish(message_3, &c.trusted()?, send_message_4)
            }
            (Answering::Psk(r), EdhocKeys::Psk(c)) => r.finish(message_3, &c.psks, send_message_4),
            _ => Err(HandshakeError::Usage(
                "a handshake finishes under the credentials it started with".into(),
            )),
        }
    }
}
