//! An EDHOC initiator (RFC 9528, method 3, suite 2) for C, over
//! crates/handshake's (`handshake::edhoc::Initiator`, lakers' protocol
//! functions): message_1, message_2 verified against the responder's
//! credential, message_3, then the OSCORE context from the exporter (RFC
//! 9528 Appendix A.1) in a `cm_oscore_context`. Host builds only (feature
//! `edhoc`): crates/handshake needs std and the OS's randomness, and the
//! initiator lives on the heap between calls.

use std::boxed::Box;
use std::vec::Vec;

use handshake::HandshakeError;
use handshake::edhoc::{ConnId, Initiator, InitiatorWaitM4, Party, Suite};
use seal::oscore::{Alg, Context, Inputs};

use crate::oscore::cm_oscore_context;
use crate::{
    CM_ERR_ARGUMENT, CM_ERR_BUFFER, CM_ERR_KEY, CM_ERR_REJECTED, CM_ERR_STATE, CM_OK, bytes,
};

/// An initiator between calls; made by `cm_edhoc_initiator_new`, freed by
/// `cm_edhoc_initiator_free`.
pub struct cm_edhoc_initiator {
    state: State,
}

enum State {
    Start {
        party: Party,
        responder: lakers::Credential,
        c_i: ConnId,
    },
    WaitM2 {
        initiator: Initiator,
        responder: lakers::Credential,
    },
    WaitM3Sent {
        waiting: InitiatorWaitM4,
        message_3: Vec<u8>,
    },
    /// Finished, or failed: a new handshake needs a new initiator.
    Over,
}

fn status(e: HandshakeError) -> i32 {
    match e {
        HandshakeError::Protocol(_) => CM_ERR_REJECTED,
        _ => CM_ERR_KEY,
    }
}

/// Copies `bytes` to `out`, or says how many it needs.
///
/// # Safety
/// `out` points to `out_cap` writable bytes or is null; `out_len` is writable.
unsafe fn give(bytes: &[u8], out: *mut u8, out_cap: usize, out_len: *mut usize) -> i32 {
    // SAFETY: the caller's promise.
    let Some(len) = (unsafe { out_len.as_mut() }) else {
        return CM_ERR_ARGUMENT;
    };
    *len = bytes.len();
    if out.is_null() || out_cap < bytes.len() {
        return CM_ERR_BUFFER;
    }
    // SAFETY: `out` has room, checked above.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), out, bytes.len()) };
    CM_OK
}

/// A new initiator: this device's P-256 private key (32 bytes) and its
/// credential (a CCS), the responder's credential it trusts, and its
/// connection identifier `c_i` (a one-byte CBOR integer: 0x00..=0x17 or
/// 0x20..=0x37), which becomes this device's OSCORE recipient id. `keygen --scheme edhoc` writes these in the
/// device's credentials file (`private_key`, `credential`,
/// `peer_credential`). `CM_ERR_KEY` for a key or credential that does not
/// parse.
///
/// # Safety
/// `private_key` points to 32 readable bytes, the credentials to their
/// lengths; `initiator` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_initiator_new(
    private_key: *const u8,
    credential: *const u8,
    credential_len: usize,
    responder_credential: *const u8,
    responder_credential_len: usize,
    c_i: u8,
    initiator: *mut *mut cm_edhoc_initiator,
) -> i32 {
    // SAFETY: the caller's promises.
    let (key, mine, theirs) = unsafe {
        (
            bytes(private_key, 32),
            bytes(credential, credential_len),
            bytes(responder_credential, responder_credential_len),
        )
    };
    let (Some(key), Some(mine), Some(theirs)) = (key, mine, theirs) else {
        return CM_ERR_ARGUMENT;
    };
    if initiator.is_null() {
        return CM_ERR_ARGUMENT;
    }
    let Some(c_i) = matches!(c_i, 0x00..=0x17 | 0x20..=0x37)
        .then(|| ConnId::from_slice(&[c_i]))
        .flatten()
    else {
        return CM_ERR_ARGUMENT;
    };
    let key: [u8; 32] = key.try_into().expect("32 bytes");
    let party = match Party::from_parts(key, mine) {
        Ok(p) => p,
        Err(e) => return status(e),
    };
    let Ok(responder) = lakers::Credential::parse_ccs(theirs) else {
        return CM_ERR_KEY;
    };
    let state = State::Start {
        party,
        responder,
        c_i,
    };
    // SAFETY: writable, checked above.
    unsafe { *initiator = Box::into_raw(Box::new(cm_edhoc_initiator { state })) };
    CM_OK
}

/// Takes the state out, leaving `Over` (a failed step ends the handshake).
fn take<'a>(initiator: *mut cm_edhoc_initiator) -> Option<(&'a mut cm_edhoc_initiator, State)> {
    // SAFETY: the caller's promise: null or one of cm_edhoc_initiator_new's.
    let i = unsafe { initiator.as_mut() }?;
    let state = core::mem::replace(&mut i.state, State::Over);
    Some((i, state))
}

/// Message 1 (a fresh ephemeral key, the OS's randomness): the payload of
/// the first POST to /.well-known/edhoc after CBOR `true` (RFC 9528 A.2).
/// `CM_ERR_STATE` once called; `CM_ERR_BUFFER` sets `*out_len` to the size.
///
/// # Safety
/// `initiator` is null or from `cm_edhoc_initiator_new`; `out` points to
/// `out_cap` writable bytes; `out_len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_message_1(
    initiator: *mut cm_edhoc_initiator,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    let Some((i, state)) = take(initiator) else {
        return CM_ERR_ARGUMENT;
    };
    let State::Start {
        party,
        responder,
        c_i,
    } = state
    else {
        i.state = state;
        return CM_ERR_STATE;
    };
    let (started, message_1) = match Initiator::start(&party, c_i, None) {
        Ok(s) => s,
        Err(e) => return status(e),
    };
    // SAFETY: the caller's promises, passed on.
    let given = unsafe { give(&message_1, out, out_cap, out_len) };
    i.state = match given {
        CM_OK => State::WaitM2 {
            initiator: started,
            responder,
        },
        // Nothing was sent: the caller may ask again with room.
        _ => State::Start {
            party,
            responder,
            c_i,
        },
    };
    given
}

/// Verifies message 2 (the 2.04's payload) against the responder's
/// credential and prepares message 3. `CM_ERR_REJECTED` when it does not
/// verify (the handshake is over: start a new initiator); `CM_ERR_STATE`
/// before message 1 or after message 2.
///
/// # Safety
/// As `cm_edhoc_message_1`; `message_2` points to its length.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_process_message_2(
    initiator: *mut cm_edhoc_initiator,
    message_2: *const u8,
    message_2_len: usize,
) -> i32 {
    // SAFETY: the caller's promise.
    let Some(message_2) = (unsafe { bytes(message_2, message_2_len) }) else {
        return CM_ERR_ARGUMENT;
    };
    let Some((i, state)) = take(initiator) else {
        return CM_ERR_ARGUMENT;
    };
    let State::WaitM2 {
        initiator: waiting,
        responder,
    } = state
    else {
        i.state = state;
        return CM_ERR_STATE;
    };
    match waiting.message_3(message_2, &responder) {
        Ok((waiting, message_3)) => {
            i.state = State::WaitM3Sent { waiting, message_3 };
            CM_OK
        }
        Err(e) => status(e),
    }
}

/// Message 3, and the responder's connection identifier C_R as CBOR (1
/// byte), which precedes it in the second POST's payload (RFC 9528 A.2).
///
/// # Safety
/// As `cm_edhoc_message_1`; `c_r` is null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_message_3(
    initiator: *mut cm_edhoc_initiator,
    c_r: *mut u8,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    // SAFETY: the caller's promise.
    let Some(State::WaitM3Sent { waiting, message_3 }) =
        (unsafe { initiator.as_ref() }).map(|i| &i.state)
    else {
        return match initiator.is_null() {
            true => CM_ERR_ARGUMENT,
            false => CM_ERR_STATE,
        };
    };
    let cbor = waiting.c_r_cbor();
    // SAFETY: writable when not null.
    if let (Some(c_r), [byte]) = (unsafe { c_r.as_mut() }, cbor.as_slice()) {
        *c_r = *byte;
    }
    // SAFETY: the caller's promises, passed on.
    unsafe { give(message_3, out, out_cap, out_len) }
}

/// Finishes the handshake, verifying message 4 when the responder sent one
/// (null for none; `ciphermeter gateway --edhoc` always sends it), and
/// derives the OSCORE context of RFC 9528 A.1 into `ctx`: master secret (16
/// bytes) and salt (8) from the exporter, C_R as sender id, C_I as recipient
/// id, suite 2's AES-CCM-16-64-128. Protect readings with
/// `cm_oscore_protect` from sequence number 0: the context is new. The
/// initiator is over afterwards (free it).
///
/// # Safety
/// As `cm_edhoc_message_1`; `message_4` is null or points to its length;
/// `ctx` is a writable struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_oscore_context(
    initiator: *mut cm_edhoc_initiator,
    message_4: *const u8,
    message_4_len: usize,
    ctx: *mut cm_oscore_context,
) -> i32 {
    let message_4 = match message_4.is_null() {
        true => None,
        // SAFETY: the caller's promise.
        false => Some(unsafe { bytes(message_4, message_4_len) }.expect("not null")),
    };
    // SAFETY: the caller's promise.
    let Some(ctx) = (unsafe { ctx.as_mut() }) else {
        return CM_ERR_ARGUMENT;
    };
    let Some((i, state)) = take(initiator) else {
        return CM_ERR_ARGUMENT;
    };
    let State::WaitM3Sent { waiting, .. } = state else {
        i.state = state;
        return CM_ERR_STATE;
    };
    let exported = match waiting.finish(message_4) {
        Ok(e) => e,
        Err(e) => return status(e),
    };
    let Some(alg) = Alg::from_name(Suite::parse(2).expect("suite 2").oscore_alg()) else {
        return CM_ERR_KEY;
    };
    match Context::derive(&Inputs {
        alg,
        master_secret: &exported.master_secret,
        master_salt: &exported.master_salt,
        sender_id: &exported.sender_id,
        recipient_id: &exported.recipient_id,
        id_context: None,
    }) {
        Ok(derived) => {
            ctx.install(derived);
            CM_OK
        }
        Err(_) => CM_ERR_KEY,
    }
}

/// Frees an initiator (its keys are wiped); null is ignored.
///
/// # Safety
/// `initiator` is null or from `cm_edhoc_initiator_new`, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_edhoc_initiator_free(initiator: *mut cm_edhoc_initiator) {
    if !initiator.is_null() {
        // SAFETY: made by Box::into_raw in cm_edhoc_initiator_new.
        drop(unsafe { Box::from_raw(initiator) });
    }
}
