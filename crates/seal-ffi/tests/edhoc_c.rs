//! `cm_edhoc_*` called as C calls them (raw pointers, status codes) against
//! the project's responder (`handshake::edhoc::Responder`, which `ciphermeter
//! gateway --edhoc` runs) under `keygen --scheme edhoc`'s credentials: the
//! session completes, and a reading `cm_oscore_protect` protects under the
//! exported context opens under the responder's. Then the refusals.

use std::ptr::{null, null_mut};

use ciphermeter_seal_ffi::*;
use handshake::credentials::Credentials;
use handshake::edhoc::{ConnId, Responder};
use seal::host::oscore::{OscoreKey, open_request};
use seal::oscore::{Alg, ReplayWindow};

const C_I: u8 = 0x37;

/// The device's credentials file's three fields, as C gets them.
struct Device {
    private_key: Vec<u8>,
    credential: Vec<u8>,
    responder: Vec<u8>,
}

fn pair(dir: &std::path::Path) -> (Device, Credentials) {
    let (dev, gw) = (dir.join("dev.edhoc"), dir.join("gw.edhoc"));
    handshake::credentials::write_pair(&dev, &gw, true).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dev).unwrap()).unwrap();
    let field = |name: &str| hex::decode(doc[name].as_str().unwrap()).unwrap();
    let device = Device {
        private_key: field("private_key"),
        credential: field("credential"),
        responder: field("peer_credential"),
    };
    (device, Credentials::load(&gw).unwrap())
}

fn new_initiator(d: &Device, c_i: u8) -> Result<*mut cm_edhoc_initiator, i32> {
    let mut initiator = null_mut();
    // SAFETY: each pointer to its length.
    let s = unsafe {
        cm_edhoc_initiator_new(
            d.private_key.as_ptr(),
            d.credential.as_ptr(),
            d.credential.len(),
            d.responder.as_ptr(),
            d.responder.len(),
            c_i,
            &mut initiator,
        )
    };
    if s == CM_OK { Ok(initiator) } else { Err(s) }
}

/// A step that writes a message: its status and bytes.
fn out(step: impl FnOnce(*mut u8, usize, *mut usize) -> i32) -> (i32, Vec<u8>) {
    let mut buf = vec![0u8; 1024];
    let mut len = 0usize;
    let s = step(buf.as_mut_ptr(), buf.len(), &mut len);
    buf.truncate(if s == CM_OK { len } else { 0 });
    (s, buf)
}

#[test]
fn a_c_initiator_completes_a_session_and_the_responder_opens_its_reading() {
    let dir = tempfile::tempdir().unwrap();
    let (device, gateway) = pair(dir.path());
    let i = new_initiator(&device, C_I).unwrap();
    // SAFETY, for every call below: `i` is live until freed, buffers as given.
    let (s, message_1) = out(|o, c, l| unsafe { cm_edhoc_message_1(i, o, c, l) });
    assert_eq!(s, CM_OK);
    let c_r = ConnId::from_slice(&[0x05]).unwrap();
    let (responder, message_2) =
        Responder::answer(&gateway.party, &message_1, |_| c_r, None).unwrap();
    let s = unsafe { cm_edhoc_process_message_2(i, message_2.as_ptr(), message_2.len()) };
    assert_eq!(s, CM_OK);
    let mut c_r_byte = 0u8;
    let (s, message_3) = out(|o, c, l| unsafe { cm_edhoc_message_3(i, &mut c_r_byte, o, c, l) });
    assert_eq!((s, c_r_byte), (CM_OK, 0x05));
    let (exported, message_4) = responder
        .finish(&message_3, &gateway.trusted().unwrap(), true)
        .unwrap();
    let message_4 = message_4.unwrap();
    let mut ctx: Box<cm_oscore_context> = Box::new(unsafe { std::mem::zeroed() });
    let s = unsafe { cm_edhoc_oscore_context(i, message_4.as_ptr(), message_4.len(), &mut *ctx) };
    assert_eq!(s, CM_OK);
    // The handshake is over: every step now says so.
    let s = unsafe { cm_edhoc_oscore_context(i, null(), 0, &mut *ctx) };
    assert_eq!(s, CM_ERR_STATE);
    unsafe { cm_edhoc_initiator_free(i) };

    let reading = br#"{"t":1555666777,"id":"Logger1"}"#;
    let (s, message) = out(|o, c, l| unsafe {
        cm_oscore_protect(
            &*ctx,
            0,
            null(),
            50,
            reading.as_ptr(),
            reading.len(),
            o,
            c,
            l,
        )
    });
    assert_eq!(s, CM_OK);
    // The responder's side: its exported context (RFC 9528 A.1), as the gateway keeps it.
    let gw = OscoreKey::from_secrets(
        Alg::AesCcm16_64_128,
        &exported.master_secret,
        &exported.master_salt,
        &exported.sender_id,
        &exported.recipient_id,
    )
    .unwrap();
    assert_eq!(exported.recipient_id, [0x05]);
    let opened = open_request(&gw, &mut ReplayWindow::new(), &message).unwrap();
    assert_eq!(opened.reading, reading);
}

#[test]
fn a_forged_message_2_ends_the_handshake_and_bad_input_gets_status_codes() {
    let dir = tempfile::tempdir().unwrap();
    let (device, gateway) = pair(dir.path());
    let i = new_initiator(&device, C_I).unwrap();
    // SAFETY, for every call below: `i` is live until freed, buffers as given.
    unsafe {
        // Out of order: no message 2 yet.
        assert_eq!(
            cm_edhoc_process_message_2(i, b"x".as_ptr(), 1),
            CM_ERR_STATE
        );
        let (s, _) = out(|o, c, l| cm_edhoc_message_3(i, null_mut(), o, c, l));
        assert_eq!(s, CM_ERR_STATE);
        // Too small a buffer: the size needed, and message 1 may be asked again.
        let mut need = 0usize;
        let mut small = [0u8; 4];
        assert_eq!(
            cm_edhoc_message_1(i, small.as_mut_ptr(), 4, &mut need),
            CM_ERR_BUFFER
        );
        assert!(need > 4);
        let (s, message_1) = out(|o, c, l| cm_edhoc_message_1(i, o, c, l));
        assert_eq!((s, message_1.len()), (CM_OK, need));
        let (s, _) = out(|o, c, l| cm_edhoc_message_1(i, o, c, l));
        assert_eq!(s, CM_ERR_STATE);
        let c_r = ConnId::from_slice(&[0x05]).unwrap();
        let (_, mut message_2) =
            Responder::answer(&gateway.party, &message_1, |_| c_r, None).unwrap();
        let last = message_2.len() - 1;
        message_2[last] ^= 1;
        assert_eq!(
            cm_edhoc_process_message_2(i, message_2.as_ptr(), message_2.len()),
            CM_ERR_REJECTED
        );
        assert_eq!(
            cm_edhoc_process_message_2(i, message_2.as_ptr(), message_2.len()),
            CM_ERR_STATE
        );
        cm_edhoc_initiator_free(i);
        cm_edhoc_initiator_free(null_mut());
        assert_eq!(
            cm_edhoc_message_1(null_mut(), null_mut(), 0, null_mut()),
            CM_ERR_ARGUMENT
        );
    }
    // A C_I that is no one-byte CBOR integer, a credential that does not parse.
    assert_eq!(new_initiator(&device, 0x18).unwrap_err(), CM_ERR_ARGUMENT);
    let broken = Device {
        responder: vec![0xa1],
        ..device
    };
    assert_eq!(new_initiator(&broken, C_I).unwrap_err(), CM_ERR_KEY);
    // SAFETY: a null key is refused, not read.
    let s = unsafe { cm_edhoc_initiator_new(null(), null(), 0, null(), 0, C_I, &mut null_mut()) };
    assert_eq!(s, CM_ERR_ARGUMENT);
}
