//! LMS's sizes from RFC 8554's formulas, held to the RFC's own figures:
//! p per Winternitz parameter (Table 1), and the LMS_SHA256_M32_H10 /
//! LMOTS_SHA256_N32_W8 signature and public key MCUboot's LMS carries.

use ciphermeter_cost::firmware_update::{facts, parse_redundancy, signatures};

#[test]
fn lmots_p_is_rfc_8554_table_1() {
    // RFC 8554 §4.1 Table 1, n = 32: W1 p = 265, W2 133, W4 67, W8 34.
    for (w, p) in [(1, 265), (2, 133), (4, 67), (8, 34)] {
        assert_eq!(signatures::lmots_p(32, w), p, "w = {w}");
    }
}

#[test]
fn mcuboot_lms_sizes_from_the_rfc_layouts() {
    let facts = facts::load().unwrap();
    // §4.5: type 4 + C 32 + y 34 × 32 = 1 124.
    assert_eq!(
        signatures::lmots_signature_bytes(&facts.lms),
        4 + 32 + 34 * 32
    );
    // §5.4: q 4 + LM-OTS 1 124 + type 4 + path 10 × 32 = 1 452.
    assert_eq!(signatures::lms_signature_bytes(&facts.lms), 1452);
    // §5.3: type 4 + otstype 4 + I 16 + T[1] 32 = 56.
    assert_eq!(signatures::lms_public_key_bytes(&facts.lms), 56);
    let lms = signatures::all(&facts)
        .into_iter()
        .find(|s| s.signatures_per_key.is_some())
        .unwrap();
    assert_eq!((lms.signature_bytes, lms.public_key_bytes), (1452, 56));
    // h = 10: 2^10 one-time keys (mcu-tools/mcuboot#2707: 1 024 per key).
    assert_eq!(lms.signatures_per_key, Some(1024));
    assert!(
        lms.state.contains("1024 signatures per key"),
        "{}",
        lms.state
    );
}

#[test]
fn redundancy_is_a_whole_percentage_from_0_to_100() {
    assert_eq!(parse_redundancy("10%").unwrap(), 10);
    assert_eq!(parse_redundancy(" 0 ").unwrap(), 0);
    for bad in ["101%", "-5", "ten", "", "10.5%"] {
        let e = parse_redundancy(bad).unwrap_err();
        assert!(
            e.is_invalid() && e.to_string().contains("0 % to 100 %"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_figure_without_its_source_is_refused() {
    let text = include_str!("../../../data/firmware-update.toml");
    assert!(facts::parse("built-in", text).is_ok());
    let line = text
        .lines()
        .find(|l| l.starts_with("header_bytes = { value = 3,"))
        .unwrap();
    let bare = text.replace(line, "header_bytes = { value = 3 }");
    let e = facts::parse("edited", &bare).unwrap_err();
    assert!(e.contains("neither a source nor an estimate"), "{e}");
}
