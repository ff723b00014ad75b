//! Each draft suite's message sizes, derived by hand from the drafts' layouts
//! and FIPS 203/204's sizes alone, against what the module derives from
//! data/handshakes/edhoc-drafts.toml, and against the sizes the drafts state.

use ciphermeter_handshake::edhoc_drafts::{drafts, message_sizes};

fn sizes(name: &str) -> Vec<u32> {
    let suite = drafts().suite(name).unwrap();
    message_sizes(suite)
        .unwrap()
        .iter()
        .map(|m| m.bytes)
        .collect()
}

/// A CBOR bstr's header (RFC 8949 §3.1), written out for each size below.
const H1: u32 = 1; // up to 23 bytes
const H2: u32 = 2; // 24-255
const H3: u32 = 3; // 256-65535

// Field sizes: METHOD, SUITES_I, C_x and ID_CRED_x one byte each (RFC 9528
// §3.3.2, §3.5.3.2); FIPS 203 Table 3 and FIPS 204 Table 2.
const ONE: u32 = 1;
const MLKEM512_EK: u32 = 800;
const MLKEM512_CT: u32 = 768;
const MLKEM1024_EK: u32 = 1568;
const MLKEM1024_CT: u32 = 1568;
const MLDSA44_SIG: u32 = 2420;
const MLDSA87_SIG: u32 = 4627;
const P256: u32 = 32;

#[test]
fn edhoc_psk_with_suite_2_matches_the_drafts_test_vectors() {
    // message_1 = METHOD, SUITES_I, G_X, C_I (draft-ietf-lake-edhoc-psk §5.1).
    let m1 = ONE + ONE + (H2 + P256) + ONE;
    // message_2 = bstr(G_Y || CIPHERTEXT_2A), PLAINTEXT_2A = C_R (§5.2).
    let m2 = H2 + (P256 + ONE);
    // message_3 = bstr(ID_CRED_PSK, bstr(8-byte tag)) (§5.3).
    let m3 = H1 + (ONE + (H1 + 8));
    // message_4 = bstr(8-byte tag) (§5.4, RFC 9528 §5.5).
    let m4 = H1 + 8;
    assert_eq!(sizes("edhoc-psk-s2"), vec![m1, m2, m3, m4]);
    assert_eq!(vec![m1, m2, m3, m4], vec![37, 35, 11, 9]);
    // -08's Appendix B states 37, 35, 13 and 9 bytes: its kid h'0010' is two
    // bytes, a 3-byte bstr where the layout's one-byte kid is one.
    let m3_vectors = H1 + ((H1 + 2) + (H1 + 8));
    let suite = drafts().suite("edhoc-psk-s2").unwrap();
    assert_eq!(suite.stated, vec![m1, m2, m3_vectors, m4]);
}

#[test]
fn post_quantum_psk_sends_the_kem_where_p256_was() {
    let m1 = ONE + ONE + (H3 + MLKEM512_EK) + ONE;
    let m2 = H3 + (MLKEM512_CT + ONE);
    let m3 = H1 + (ONE + (H1 + 16));
    let m4 = H1 + 16;
    assert_eq!(sizes("edhoc-psk-ml-kem-512"), vec![m1, m2, m3, m4]);
    assert_eq!(vec![m1, m2, m3, m4], vec![806, 772, 19, 17]);
}

#[test]
fn method_0_with_ml_kem_512_and_ml_dsa_44_is_6445_bytes() {
    let m1 = ONE + ONE + (H3 + MLKEM512_EK) + ONE;
    // G_Y is the KEM ciphertext (pqsuites §3); PLAINTEXT_2 = C_R, ID_CRED_R, signature.
    let m2 = H3 + (MLKEM512_CT + ONE + ONE + (H3 + MLDSA44_SIG));
    // PLAINTEXT_3 = ID_CRED_I, signature; AES-CCM-16-128-128's 16-byte tag.
    let m3 = H3 + (ONE + (H3 + MLDSA44_SIG) + 16);
    assert_eq!(sizes("edhoc-m0-ml-kem-512+ml-dsa-44"), vec![m1, m2, m3]);
    // The "at least 6.4 KB of handshake".
    assert_eq!(m1 + m2 + m3, 6445);
}

#[test]
fn method_0_with_suite_tbd3() {
    let m1 = ONE + ONE + (H3 + MLKEM1024_EK) + ONE;
    let m2 = H3 + (MLKEM1024_CT + ONE + ONE + (H3 + MLDSA87_SIG));
    let m3 = H3 + (ONE + (H3 + MLDSA87_SIG) + 16);
    assert_eq!(sizes("edhoc-m0-ml-kem-1024+ml-dsa-87"), vec![m1, m2, m3]);
}

#[test]
fn pq_edhoc_ikr_carries_a_second_ciphertext_in_message_1() {
    // message_1 = METHOD, SUITES_I, kem.pk_eph, kem.ct_R, C_I (papon §2.2.1 Figure 1).
    let m1 = ONE + ONE + (H3 + MLKEM512_EK) + (H3 + MLKEM512_CT) + ONE;
    // message_2 = kem.ct_eph || Enc(C_R, ID_CRED_R, MAC_2 of 16 bytes).
    let m2 = H3 + (MLKEM512_CT + ONE + ONE + (H1 + 16));
    let m3 = H3 + (ONE + (H3 + MLDSA44_SIG) + 16);
    assert_eq!(sizes("pq-edhoc-ikr-ml-kem-512+ml-dsa-44"), vec![m1, m2, m3]);
}

/// draft-spm-lake-pqsuites Figure 1 states ML-KEM's ciphertext lengths; the
/// KEM module's sizes (`handshake kem`) are the data file's.
#[test]
fn primitive_sizes_agree_with_pqsuites_figure_1_and_the_kem_module() {
    let d = drafts();
    let ct = |n: &str| {
        d.primitive
            .iter()
            .find(|p| p.name == n)
            .and_then(|p| p.ciphertext)
            .unwrap()
    };
    assert_eq!(
        (ct("ml-kem-512"), ct("ml-kem-768"), ct("ml-kem-1024")),
        (768, 1088, 1568)
    );
    for name in ["ml-kem-512", "ml-kem-768", "ml-kem-1024"] {
        let k = ciphermeter_handshake::Kem::parse(name).unwrap();
        let p = d.primitive.iter().find(|p| p.name == name).unwrap();
        assert_eq!(
            (k.encapsulation_key_bytes, k.ciphertext_bytes),
            (p.public_key, ct(name))
        );
    }
    let signed = ciphermeter_handshake::KemSetup::parse("ml-kem-512+ml-dsa-44").unwrap();
    let sig = d.primitive.iter().find(|p| p.name == "ml-dsa-44").unwrap();
    assert_eq!(
        signed.message_bytes(),
        ct("ml-kem-512") + sig.signature.unwrap()
    );
}

/// On EU868 DR0 the device's messages go in 2-byte-header fragments of
/// 51-byte frames, and the responder's message_2 needs a class-A downlink per
/// 49 bytes, which the link model refuses to cost.
#[test]
fn method_0_on_dr0_needs_65_downlinks_and_is_refused() {
    let cat = link::Catalogue::builtin().unwrap();
    let dr0 = cat.get("lorawan-eu868-dr0").unwrap();
    let suite = drafts().suite("edhoc-m0-ml-kem-512+ml-dsa-44").unwrap();
    let row = ciphermeter_handshake::edhoc_drafts::row(suite, dr0).unwrap();
    assert_eq!(row.bytes, 6445);
    assert_eq!(
        row.uplink_frames,
        Some(806u32.div_ceil(49) + 2443u32.div_ceil(49))
    );
    assert_eq!(row.downlinks, Some(3196u32.div_ceil(49)));
    assert!(
        row.refused.as_deref().unwrap().contains("message_2"),
        "{row:?}"
    );
    assert!(row.duty_cycle_h.unwrap() > 1.0, "{row:?}");
    // On BLE it runs: the central sends message_2 as the device sends, the
    // link model cutting it into the link's own frames.
    let ble = cat.get("ble-1m-251").unwrap();
    let row = ciphermeter_handshake::edhoc_drafts::row(suite, ble).unwrap();
    assert!(row.refused.is_none(), "{row:?}");
    let capacity = link::downlink::frame_capacity(ble).unwrap();
    assert_eq!(row.downlinks, Some(3196u32.div_ceil(capacity)));
}
