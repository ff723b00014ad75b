//! RFC 9529 (Traces of EDHOC), Chapter 3: method 3 (static DH both ways),
//! cipher suite 2, credentials by kid. The values below are the trace's.
//!
//! lakers' initiator offers one cipher suite, so it cannot write the trace's
//! message_1 (which offers suites 6 and 2, after a first attempt with 6):
//! the responder is held to the trace byte for byte (message_2, message_4,
//! PRK_out and the exported OSCORE context), the initiator to message_1 with
//! that one difference, and both to each other in a full handshake.

use ciphermeter_handshake::edhoc::{self, ConnId, Initiator, Method, Party, Responder, Suite};

fn h(text: &str) -> Vec<u8> {
    hex::decode(text).unwrap()
}

fn key(text: &str) -> [u8; 32] {
    h(text).try_into().unwrap()
}

const I: &str = "fb13adeb6518cee5f88417660841142e830a81fe334380a953406a1305e8706b";
const CRED_I: &str = "a2027734322d35302d33312d46462d45462d33372d33322d333908a101a5010202412b2001215820ac75e9ece3e50bfc8ed60399889522405c47bf16df96660a41298cb4307f7eb62258206e5de611388a4b8a8211334ac7d37ecb52a387d257e6db3c2a93df21ff3affc8";
const R: &str = "72cc4761dbd4c78f758931aa589d348d1ef874a7e303ede2f140dcf3e6aa4aac";
const CRED_R: &str = "a2026b6578616d706c652e65647508a101a501020241322001215820bbc34960526ea4d32e940cad2a234148ddc21791a12afbcbac93622046dd44f02258204519e257236b2a0ce2023f0931f1f386ca7afda64fcde0108c224c51eabf6072";
const X: &str = "368ec1f69aeb659ba37d5a8d45b21bdc0299dceaa8ef235f3ca42ce3530f9525";
const G_X: &str = "8af6f430ebe18d34184017a9a11bf511c8dff8f834730b96c1b7c8dbca2fc3b6";
const Y: &str = "e2f4126777205e853b437d6eaca1e1f753cdcc3e2c69fa884b0a1a640977e418";
const MESSAGE_1: &str =
    "0382060258208af6f430ebe18d34184017a9a11bf511c8dff8f834730b96c1b7c8dbca2fc3b637";
const MESSAGE_2: &str =
    "582b419701d7f00a26c2dc587a36dd752549f33763c893422c8ea0f955a13a4ff5d59862a1eef9e0e7e1886fcd";
const MESSAGE_3: &str = "52e562097bc417dd5919485ac7891ffd90a9fc";
const MESSAGE_4: &str = "4828c966b7ca304f83";
const PRK_OUT: &str = "2c71afc1a9338a940bb3529ca734b886f30d1aba0b4dc51beeaeabdfea9ecbf8";
const OSCORE_MASTER_SECRET: &str = "f9868f6a3aca78a05d1485b35030b162";
const OSCORE_MASTER_SALT: &str = "ada24c7dbfc85eeb";

fn c_i() -> ConnId {
    ConnId::from_slice(&[0x37]).unwrap()
}

fn c_r() -> ConnId {
    ConnId::from_slice(&[0x27]).unwrap()
}

#[test]
fn the_responder_writes_the_traces_message_2_and_message_4_and_exports_its_context() {
    let responder = Party::from_parts(key(R), &h(CRED_R)).unwrap();
    let initiator = Party::from_parts(key(I), &h(CRED_I)).unwrap();
    let (waiting, message_2) =
        Responder::answer(&responder, &h(MESSAGE_1), |_| c_r(), Some(&key(Y))).unwrap();
    assert_eq!(hex::encode(&message_2), MESSAGE_2);
    let (exported, message_4) = waiting
        .finish(&h(MESSAGE_3), &[initiator.credential().unwrap()], true)
        .unwrap();
    assert_eq!(hex::encode(message_4.unwrap()), MESSAGE_4);
    assert_eq!(hex::encode(exported.prk_out), PRK_OUT);
    assert_eq!(hex::encode(exported.master_secret), OSCORE_MASTER_SECRET);
    assert_eq!(hex::encode(exported.master_salt), OSCORE_MASTER_SALT);
    // The responder's OSCORE sender id is C_I, its recipient id C_R (A.1).
    assert_eq!(
        (exported.sender_id, exported.recipient_id),
        (vec![0x37], vec![0x27])
    );
}

#[test]
fn a_responder_refuses_a_c_r_equal_to_c_i() {
    let responder = Party::from_parts(key(R), &h(CRED_R)).unwrap();
    let e = Responder::answer(&responder, &h(MESSAGE_1), |c_i| *c_i, None)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("C_R must differ from C_I"), "{e}");
}

#[test]
fn a_flipped_bit_in_message_3_is_refused() {
    let responder = Party::from_parts(key(R), &h(CRED_R)).unwrap();
    let initiator = Party::from_parts(key(I), &h(CRED_I)).unwrap();
    for at in [0, 5, 18] {
        let (waiting, _) =
            Responder::answer(&responder, &h(MESSAGE_1), |_| c_r(), Some(&key(Y))).unwrap();
        let mut message_3 = h(MESSAGE_3);
        message_3[at] ^= 0x04;
        assert!(
            waiting
                .finish(&message_3, &[initiator.credential().unwrap()], true)
                .is_err(),
            "byte {at}"
        );
    }
}

#[test]
fn the_initiator_writes_the_traces_message_1_offering_one_suite() {
    let initiator = Party::from_parts(key(I), &h(CRED_I)).unwrap();
    let (_, message_1) = Initiator::start(&initiator, c_i(), Some(&key(X))).unwrap();
    // The trace offers [6, 2] (82 06 02); one suite is offered as the integer 02.
    let expected = format!("0302{}{}37", "5820", G_X);
    assert_eq!(hex::encode(&message_1), expected);
    assert_eq!(message_1.len(), h(MESSAGE_1).len() - 2);
}

#[test]
fn a_full_handshake_agrees_on_one_oscore_context_with_the_traces_message_sizes() {
    let t = edhoc::run(Method::parse(3).unwrap(), Suite::parse(2).unwrap(), true).unwrap();
    assert_eq!(t.initiator.master_secret, t.responder.master_secret);
    assert_eq!(t.initiator.master_salt, t.responder.master_salt);
    assert_eq!(t.initiator.sender_id, t.responder.recipient_id);
    assert_eq!(t.initiator.recipient_id, t.responder.sender_id);
    let sizes: Vec<usize> = t.messages().iter().map(|(_, _, m)| m.len()).collect();
    assert_eq!(
        sizes,
        [
            h(MESSAGE_1).len() - 2,
            h(MESSAGE_2).len(),
            h(MESSAGE_3).len(),
            h(MESSAGE_4).len()
        ]
    );
    // Fresh ephemeral keys each time: two handshakes never share a secret.
    let again = edhoc::run(Method::parse(3).unwrap(), Suite::parse(2).unwrap(), false).unwrap();
    assert_ne!(again.initiator.master_secret, t.initiator.master_secret);
    assert!(again.message_4.is_none());
}

#[test]
fn methods_and_suites_lakers_lacks_are_refused_with_the_reason() {
    for m in [0, 1, 2] {
        let e = Method::parse(m).unwrap_err().to_string();
        assert!(e.contains("method 3"), "{e}");
    }
    assert!(
        Method::parse(4)
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
    for s in [0, 1, 3, 6, 24] {
        assert!(Suite::parse(s).unwrap_err().to_string().contains("suite 2"));
    }
    assert!(
        Suite::parse(7)
            .unwrap_err()
            .to_string()
            .contains("not registered")
    );
}

/// The handshake the firmware's `edhoc-m3-s2` build runs and measures on
/// each device (the trace's keys, ephemeral keys and connection ids, one
/// offered suite): the host writes the same bytes, which the firmware holds
/// as its known answers (firmware/src/algorithms/edhoc.rs `M1`..`M4`).
#[test]
fn the_device_handshake_is_the_hosts_byte_for_byte() {
    let firmware = include_str!("../../../firmware/src/algorithms/edhoc.rs");
    let initiator = Party::from_parts(key(I), &h(CRED_I)).unwrap();
    let responder = Party::from_parts(key(R), &h(CRED_R)).unwrap();
    let (waiting_m2, m1) = Initiator::start(&initiator, c_i(), Some(&key(X))).unwrap();
    let (waiting_m3, m2) = Responder::answer(&responder, &m1, |_| c_r(), Some(&key(Y))).unwrap();
    let (waiting_m4, m3) = waiting_m2
        .message_3(&m2, &responder.credential().unwrap())
        .unwrap();
    let (r, m4) = waiting_m3
        .finish(&m3, &[initiator.credential().unwrap()], true)
        .unwrap();
    let m4 = m4.unwrap();
    let i = waiting_m4.finish(Some(&m4)).unwrap();
    assert_eq!(i.prk_out, r.prk_out);
    for (name, m) in [("M1", &m1), ("M2", &m2), ("M3", &m3), ("M4", &m4)] {
        let held = firmware_const(firmware, name);
        assert_eq!(held, hex::encode(m), "firmware's {name}");
    }
}

/// The hex of `pub const NAME` in the firmware's source (one or more
/// string pieces inside `hex!(...)`).
fn firmware_const(source: &str, name: &str) -> String {
    let start = source
        .find(&format!("pub const {name}: &[u8] ="))
        .unwrap_or_else(|| panic!("no {name} in the firmware"));
    let rest = &source[start..];
    let body = &rest[rest.find("hex!(").unwrap() + 5..rest.find(");").unwrap()];
    body.split('"').skip(1).step_by(2).collect()
}
