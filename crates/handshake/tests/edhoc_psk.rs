//! EDHOC-PSK (draft-ietf-lake-edhoc-psk, method 4, suite 2), our own
//! implementation (crate::edhoc_psk), held to the draft's test vectors
//! (Appendix B of -08, the WG text of 2026-06-16) byte for byte: both
//! parties, from the vectors' ephemeral keys, PSK, ID_CRED_PSK, CRED_I and
//! CRED_R, write the vectors' messages and derive its transcript hashes, PRKs
//! and PRK_out/PRK_exporter. Then what no vector shows: a full handshake
//! with fresh keys agrees on one OSCORE context; a bit flipped anywhere in
//! message_2 or message_3 ends the handshake with a clear error; a wrong
//! PSK does too; and the messages are as long as crate::edhoc_drafts
//! derives from the draft's layout.

use ciphermeter_handshake::edhoc::{self, Method, Suite};
use ciphermeter_handshake::edhoc_drafts::{drafts, message_sizes};
use ciphermeter_handshake::edhoc_psk::{ConnId, Initiator, PskCredential, Responder};

fn h(text: &str) -> Vec<u8> {
    hex::decode(text.replace([' ', '\n'], "")).unwrap()
}

fn key(text: &str) -> [u8; 32] {
    h(text).try_into().unwrap()
}

// Appendix B, as the draft prints them.
const X: &str = "09972DFEF1EAAB926EC96E8005FED29F70FFBF4E361C3A061A7ACDB5170C10E5";
const G_X: &str = "7EC68102940602AAB548539BF42A35992D957249EB7F1888406D178A04C912DB";
const MESSAGE_1: &str =
    "040258207EC68102940602AAB548539BF42A35992D957249EB7F1888406D178A04C912DB0A";
const Y: &str = "1E1C8F2DF1AA7110B39F33BA5EA8DCCF31411EB33D4F9A094CF65192D335A7A3";
const TH_2: &str = "5B4834AE630A8A0ED0B0C6F36642604D016478C4BC8187BB764DD40F2BEE3DDE";
const PRK_2E: &str = "D039D6C3CF35ECA0CDF819E32579C77E1F303EFCC436205099 48A9FD47FBD929";
const MESSAGE_2: &str = "5821ED156A6243E0AFEC9EFBAABCE8429D5AD5E4E1C432F76A6EDE8F79247BB97D83E9";
const SALT_4E3M: &str = "EDE07612148319EB725952712A542C2097610A139C4A141C8EC57A5F62E5E9DD";
const PSK: &str = "50930FF462A77A3540CF546325DEA214";
const PRK_4E3M: &str = "C62CC04F55D008CFEB8A681E8463FDDDA2FF6CA84B9ED6116C865CD81E062460";
const TH_3: &str = "386A9D052B255992EEE5FFB594347D327418A2EA5183486C0C9E20426E0BCA2F";
const KID: &str = "0010";
const CRED_I: &str =
    "A2026969 6E697469 61746F72 08A101A3 01040242 00102050 50930FF4 62A77A35 40CF5463 25DEA214";
const CRED_R: &str =
    "A2026972 6573706F 6E646572 08A101A3 01040242 00102050 50930FF4 62A77A35 40CF5463 25DEA214";
const MESSAGE_3: &str = "4C13FC9A0321EBDAB962BFF035";
const TH_4: &str = "BF4429C19BC6097C406B35705A285A16D033C0FCB3EDA6552A2676BB5213C965";
const MESSAGE_4: &str = "4880F14EB9A90F74FF";
const PRK_OUT: &str = "608F6BC188AFEF95EB634C8B323AC23A361CBDA817D1C1A689C723CDA3B592B9";
const PRK_EXPORTER: &str = "4EFF8F02C24F1E42BC15FF1DC6DC4F27A88E7D179E516BD813F8EC4FC691471D";

fn vector_credential() -> PskCredential {
    PskCredential::new(&h(KID), &h(PSK), &h(CRED_I), &h(CRED_R)).unwrap()
}

/// C_I = 10 (0x0A), C_R = 5 (0x05): one-byte CBOR ints.
fn c_i() -> ConnId {
    ConnId::from_slice(&[0x0a]).unwrap()
}

fn c_r() -> ConnId {
    ConnId::from_slice(&[0x05]).unwrap()
}

#[test]
fn both_parties_write_the_drafts_test_vectors_byte_for_byte() {
    let cred = vector_credential();
    let (initiator, message_1) = Initiator::start(&cred, c_i(), Some(&key(X))).unwrap();
    assert_eq!(hex::encode_upper(&message_1), MESSAGE_1);
    assert!(MESSAGE_1.contains(G_X));

    let (responder, message_2) = Responder::answer(&message_1, |_| c_r(), Some(&key(Y))).unwrap();
    assert_eq!(hex::encode_upper(&message_2), MESSAGE_2);

    let (waiting, message_3) = initiator.message_3(&message_2).unwrap();
    let s = waiting.key_schedule();
    assert_eq!(s.th_2, key(TH_2));
    assert_eq!(s.prk_2e, key(PRK_2E));
    assert_eq!(s.th_3, key(TH_3));
    assert_eq!(s.salt_4e3m, key(SALT_4E3M));
    assert_eq!(s.prk_4e3m, key(PRK_4E3M));
    assert_eq!(s.th_4, key(TH_4));
    assert_eq!(s.prk_out, key(PRK_OUT));
    assert_eq!(s.prk_exporter, key(PRK_EXPORTER));
    assert_eq!(hex::encode_upper(&message_3), MESSAGE_3);

    let (responder_keys, message_4) = responder.finish(&message_3, &[cred], true).unwrap();
    assert_eq!(hex::encode_upper(message_4.as_ref().unwrap()), MESSAGE_4);
    assert_eq!(responder_keys.prk_out, key(PRK_OUT));

    let initiator_keys = waiting.finish(message_4.as_deref()).unwrap();
    assert_eq!(initiator_keys, {
        let mut mirrored = responder_keys.clone();
        std::mem::swap(&mut mirrored.sender_id, &mut mirrored.recipient_id);
        mirrored
    });
    // RFC 9528 A.1: a party's OSCORE recipient id is its own C_x.
    assert_eq!(initiator_keys.recipient_id, [0x0a]);
    assert_eq!(initiator_keys.sender_id, [0x05]);
}

#[test]
fn a_full_handshake_agrees_on_one_oscore_context() {
    let t = edhoc::run(Method::PSK, Suite::parse(2).unwrap(), true).unwrap();
    assert_eq!(t.method.number(), 4);
    assert_eq!(t.initiator.master_secret, t.responder.master_secret);
    assert_eq!(t.initiator.master_salt, t.responder.master_salt);
    assert_eq!(t.initiator.prk_out, t.responder.prk_out);
    assert_eq!(t.initiator.sender_id, t.responder.recipient_id);
    assert_eq!(t.initiator.recipient_id, t.responder.sender_id);
    assert_ne!(t.initiator.sender_id, t.initiator.recipient_id);
    // Fresh ephemeral keys and PSK each time: two handshakes share no secret.
    let again = edhoc::run(Method::PSK, Suite::parse(2).unwrap(), false).unwrap();
    assert_ne!(again.initiator.master_secret, t.initiator.master_secret);
    assert!(again.message_4.is_none());
}

/// The messages of one handshake under `cred` (the responder holding
/// `held`), or the first error and who raised it.
fn handshake(
    cred: &PskCredential,
    held: &[PskCredential],
    tamper: impl Fn(&str, &mut Vec<u8>),
) -> Result<(), (String, String)> {
    let (initiator, message_1) = Initiator::start(cred, c_i(), None).unwrap();
    let (responder, mut message_2) = Responder::answer(&message_1, |_| c_r(), None).unwrap();
    tamper("message_2", &mut message_2);
    let (waiting, mut message_3) = initiator
        .message_3(&message_2)
        .map_err(|e| ("initiator".into(), e.to_string()))?;
    tamper("message_3", &mut message_3);
    let (_, message_4) = responder
        .finish(&message_3, held, true)
        .map_err(|e| ("responder".into(), e.to_string()))?;
    waiting
        .finish(message_4.as_deref())
        .map_err(|e| ("initiator".into(), e.to_string()))?;
    Ok(())
}

#[test]
fn one_flipped_bit_in_message_2_or_message_3_ends_the_handshake() {
    let cred = PskCredential::generate(&[0x10]).unwrap();
    let held = [cred.clone()];
    handshake(&cred, &held, |_, _| {}).expect("untampered, it completes");
    // message_2 is 35 bytes, message_3 11: one bit of every byte, each position in turn.
    for (which, len) in [("message_2", 35), ("message_3", 11)] {
        for byte in 0..len {
            let bit = byte % 8;
            let flip = |m: &str, msg: &mut Vec<u8>| {
                if m == which {
                    assert_eq!(msg.len(), len);
                    msg[byte] ^= 1 << bit;
                }
            };
            let (who, why) = handshake(&cred, &held, flip)
                .expect_err(&format!("{which} with byte {byte} bit {bit} flipped"));
            // Nothing authenticates message_2 itself (§5.2): its tampering shows
            // where the keys it gave are first used, at message_3, or sooner
            // where it no longer parses (G_Y no curve point, C_R no CBOR).
            assert!(
                why.starts_with("EDHOC: ")
                    && (why.contains("does not verify")
                        || why.contains("not a P-256 point")
                        || why.contains("message_3")
                        || why.contains("message_2")
                        || why.contains("C_R")),
                "{which} byte {byte}: {who}: {why}"
            );
        }
    }
}

#[test]
fn a_wrong_psk_is_refused_at_message_3() {
    let cred = PskCredential::generate(&[0x10]).unwrap();
    // The responder holds another key under the same kid.
    let other = PskCredential::generate(&[0x10]).unwrap();
    assert_ne!(cred.psk(), other.psk());
    let (who, why) = handshake(&cred, &[other], |_, _| {}).unwrap_err();
    assert_eq!(who, "responder");
    assert!(why.contains("message_3 does not verify"), "{why}");
    // And no key under the kid the initiator names.
    let stranger = PskCredential::generate(&[0x11]).unwrap();
    let (_, why) = handshake(&cred, &[stranger], |_, _| {}).unwrap_err();
    assert!(why.contains("does not hold"), "{why}");
}

#[test]
fn malformed_inputs_are_refused_and_never_panic() {
    let cred = PskCredential::generate(&[0x10]).unwrap();
    let (_, message_1) = Initiator::start(&cred, c_i(), None).unwrap();
    // A method-3 message_1, a suite other than 2, EAD_1, truncation.
    let mut m3 = message_1.clone();
    m3[0] = 3;
    let mut suite = message_1.clone();
    suite[1] = 6;
    let mut ead = message_1.clone();
    ead.push(0x01);
    for (bad, says) in [
        (m3, "METHOD"),
        (suite, "suite 6"),
        (ead, "EAD_1"),
        (message_1[..20].to_vec(), "cut short"),
        (vec![], "empty"),
    ] {
        let e = Responder::answer(&bad, |_| c_r(), None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(says), "{e}");
    }
    // Every prefix of a message, and random bytes, at each step.
    let (initiator, message_1) = Initiator::start(&cred, c_i(), None).unwrap();
    let (responder, message_2) = Responder::answer(&message_1, |_| c_r(), None).unwrap();
    for n in 0..message_2.len() {
        let (i, _) = Initiator::start(&cred, c_i(), None).unwrap();
        assert!(i.message_3(&message_2[..n]).is_err());
    }
    let (waiting, message_3) = initiator.message_3(&message_2).unwrap();
    let _ = waiting;
    for n in 0..message_3.len() {
        let (r, _) = Responder::answer(&message_1, |_| c_r(), None).unwrap();
        assert!(
            r.finish(&message_3[..n], std::slice::from_ref(&cred), true)
                .is_err()
        );
    }
    // Longer than a keystream covers (RFC 9528 Appendix G): refused, not a panic.
    let mut long = vec![0x59, 0x23, 0x28];
    long.extend(vec![0u8; 9000]);
    let (i, _) = Initiator::start(&cred, c_i(), None).unwrap();
    let e = i.message_3(&long).err().unwrap().to_string();
    assert!(e.contains("longer than"), "{e}");
    let (r, _) = Responder::answer(&message_1, |_| c_r(), None).unwrap();
    let e = r
        .finish(&long, std::slice::from_ref(&cred), true)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("longer than"), "{e}");
    assert!(responder.finish(&message_3, &[cred], true).is_ok());
}

#[test]
fn equal_connection_identifiers_are_refused() {
    let cred = PskCredential::generate(&[0x10]).unwrap();
    let (_, message_1) = Initiator::start(&cred, c_i(), None).unwrap();
    let e = Responder::answer(&message_1, |c| *c, None).err().unwrap();
    assert!(e.to_string().contains("C_R must differ from C_I"));
}

#[test]
fn credentials_are_checked() {
    let psk = [7u8; 16];
    for (kid, psk, i, r, says) in [
        (
            &[1u8][..],
            &psk[..8],
            &b"i"[..],
            &b"r"[..],
            "PSK of 8 bytes",
        ),
        (&[][..], &psk[..], &b"i"[..], &b"r"[..], "kid of 0 bytes"),
        (&[1u8][..], &psk[..], &b"same"[..], &b"same"[..], "differ"),
    ] {
        let e = PskCredential::new(kid, psk, i, r).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

/// (d): the real messages are as long as crate::edhoc_drafts derives from
/// the draft's layout (§5.1-5.4: one-byte C_x and kid), and the vectors'
/// message_3 is two bytes longer for its two-byte kid h'0010'.
#[test]
fn the_messages_are_as_long_as_the_drafts_layout_says() {
    let t = edhoc::run(Method::PSK, Suite::parse(2).unwrap(), true).unwrap();
    let real: Vec<u32> = t
        .messages()
        .iter()
        .map(|(_, _, m)| m.len() as u32)
        .collect();
    let suite = drafts().suite("edhoc-psk-s2").unwrap();
    let derived: Vec<u32> = message_sizes(suite)
        .unwrap()
        .iter()
        .map(|m| m.bytes)
        .collect();
    assert_eq!(real, derived);
    assert_eq!(real, [37, 35, 11, 9]);
    let vectors = [MESSAGE_1, MESSAGE_2, MESSAGE_3, MESSAGE_4].map(|m| h(m).len() as u32);
    assert_eq!(vectors, [37, 35, 13, 9]);
    assert_eq!(suite.stated, vectors);
}
