//! `recommend` as a user runs it says how many messages one key may protect
//! under each AEAD's published limits (draft-irtf-cfrg-aead-limits-11 §6,
//! data/aead-limits.toml), in days at `--interval`, with the source; a
//! `--session-messages` past a row's limit is flagged in JSON and text.

use assert_cmd::Command;
use serde_json::Value;

/// The OSCORE builds on the nRF52840 over EU868 DR3, one reading every 10
/// minutes: AES-CCM-16-64-128 (CCM_8's 64-bit tag), AES-GCM and
/// ChaCha20-Poly1305 side by side.
fn recommend(db: &std::path::Path, extra: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("ciphermeter").unwrap();
    cmd.args([
        "recommend",
        "--device",
        "nrf52840",
        "--link",
        "lorawan-eu868-dr3",
        "--container",
        "oscore",
        "--interval",
        "10m",
        "--db",
        db.to_str().unwrap(),
    ])
    .args(extra);
    cmd
}

fn row<'a>(doc: &'a Value, scheme: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scheme"] == scheme && r["key_establishment"].is_null())
        .unwrap_or_else(|| panic!("no {scheme} row"))
}

/// The draft's bounds, computed here from its text at the row's own sealed
/// length (L = its 16-byte blocks) and TLS 1.3's targets (CA 2^-60, IA 2^-57):
/// GCM's q <= (sqrt(p) * 2^64.5 - 1) / (L + 1) (§6.2.1); CCM_8's q <=
/// sqrt(p) * 2^64 / 2L (§6.4.1, below its integrity limit) and v * 2^64 <=
/// p * 2^127 (§6.5). A session of 10^9 messages passes CCM_8's limit and
/// stays within GCM's; ChaCha20-Poly1305 limits only forgeries (§6.3.2).
#[test]
fn recommend_gives_each_rows_messages_per_key_days_source_and_flags_a_session_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let out = recommend(
        &db,
        &["--session-messages", "1000000000", "--format", "json"],
    )
    .assert()
    .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let blocks = |r: &Value| r["sealed_bytes"].as_u64().unwrap().div_ceil(16) as f64;

    let gcm = row(&doc, "oscore:aes-128-gcm");
    let k = &gcm["key_limit"];
    let q = ((34.5_f64.exp2() - 1.0) / (blocks(gcm) + 1.0)).floor();
    assert_eq!(k["messages_per_key"].as_f64().unwrap(), q, "{k}");
    assert_eq!(k["binding"], "confidentiality");
    assert_eq!(k["blocks_per_message"].as_f64().unwrap(), blocks(gcm));
    let days = k["days_per_key"].as_f64().unwrap();
    assert!((days - q * 600.0 / 86_400.0).abs() < 1e-6 * days, "{k}");
    assert_eq!(k["limit_source"], "draft-irtf-cfrg-aead-limits-11 §6.2");
    assert_eq!(k["session_past_limit"], false, "{k}");
    assert_eq!(k["asked_session_messages"], 1_000_000_000);

    let ccm8 = row(&doc, "oscore:aes-ccm-16-64-128");
    let k = &ccm8["key_limit"];
    let q = (34.0_f64.exp2() / (2.0 * blocks(ccm8))).floor();
    assert_eq!(k["messages_per_key"].as_f64().unwrap(), q, "{k}");
    assert_eq!(k["forgeries_per_key"], 64, "2^-58 * 2^64: {k}");
    assert_eq!(k["session_past_limit"], true, "{q} < 1e9: {k}");
    assert!(
        k["limit_source"]
            .as_str()
            .unwrap()
            .contains("draft-ietf-core-oscore-key-limits"),
        "{k}"
    );

    let chacha = row(&doc, "oscore:chacha20-poly1305");
    let k = &chacha["key_limit"];
    assert!(k["messages_per_key"].is_null(), "{k}");
    assert_eq!(k["session_past_limit"], false);
    // v <= p * 2^103 / (L' + 1) at IA 2^-57 (§6.3.2).
    let v = (46.0_f64.exp2() / (blocks(chacha) + 1.0)).floor();
    assert_eq!(k["forgeries_per_key"].as_f64().unwrap(), v, "{k}");

    // The same run as text: the flagged row is marked with its limit.
    let text = recommend(&db, &["--session-messages", "1000000000", "--top", "30"])
        .assert()
        .success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    let marked = format!("[SESSION PAST KEY LIMIT {q}]");
    let flagged: Vec<&str> = text.lines().filter(|l| l.contains(&marked)).collect();
    assert!(!flagged.is_empty(), "{text}");
    assert!(
        flagged
            .iter()
            .all(|l| l.contains("oscore:aes-ccm-16-64-128")),
        "{flagged:?}"
    );
    assert!(text.contains("Messages one key may protect"), "{text}");
}

/// Without `--session-messages` the answer still says how many messages one
/// session may protect for the winner and how often a handshake is due.
#[test]
fn without_a_session_length_the_winner_says_when_a_handshake_is_due() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let out = recommend(&db, &[]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("Session lifetime of "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("one key may protect"), "{line}");
    assert!(line.contains("a handshake is due at least every"), "{line}");
    assert!(line.contains("at one message every 600 s"), "{line}");
    assert!(!line.contains("PASSES"), "{line}");
}

/// CCM_8's 8-byte-shorter tag against AES-GCM's in OSCORE (data/aead-limits.toml
/// `full_tag`), each at its best ranked row, derived here from the rows alone:
/// the bytes and µJ the short tag saves a message; each one's session (its key
/// limit, or the asked 10^9 messages where shorter); the handshake energy at
/// which the two break even (saved / (1/session_short - 1/session_full)); and
/// with the session's own handshake (its share times its messages), the
/// cheaper of message + handshake / session.
#[test]
fn a_shorter_tag_is_weighed_against_the_longer_session_it_gives_up() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("results.sqlite");
    let n = 1_000_000_000_u64;
    let out = recommend(
        &db,
        &["--session-messages", &n.to_string(), "--format", "json"],
    )
    .assert()
    .success();
    let doc: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let (short, full) = (
        row(&doc, "oscore:aes-ccm-16-64-128"),
        row(&doc, "oscore:aes-128-gcm"),
    );
    let weighed = doc["tag_or_session"].as_array().unwrap();
    assert_eq!(weighed.len(), 1, "{weighed:?}");
    let t = &weighed[0];
    assert_eq!(t["short_tag"], "oscore:aes-ccm-16-64-128");
    assert_eq!(t["full_tag"], "oscore:aes-128-gcm");
    assert_eq!(t["container"], "oscore");
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v}"));
    assert_eq!(f(t, "saved_bytes"), 8.0, "{t}");
    let saved = f(full, "message_uj") - f(short, "message_uj");
    assert!((f(t, "saved_uj_per_message") - saved).abs() < 1e-9, "{t}");
    assert!(saved > 0.0, "{t}");
    // CCM_8's limit is under 10^9 messages; GCM's is over it, so 10^9 stands.
    let short_session = f(&short["key_limit"], "messages_per_key");
    assert!(short_session < n as f64, "{short}");
    assert!(
        f(&full["key_limit"], "messages_per_key") > n as f64,
        "{full}"
    );
    assert_eq!(f(t, "short_tag_session"), short_session);
    assert_eq!(f(t, "full_tag_session"), n as f64);
    let break_even = saved / (1.0 / short_session - 1.0 / n as f64);
    assert!(
        (f(t, "break_even_handshake_uj") / break_even - 1.0).abs() < 1e-9,
        "{t}: {break_even}"
    );
    let keyed = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key_establishment"].is_string())
        .expect("a session keyed by a handshake");
    let handshake = f(keyed, "handshake_share_uj") * f(keyed, "session_messages");
    assert!((f(t, "handshake_uj") / handshake - 1.0).abs() < 1e-9, "{t}");
    let cheaper = match f(short, "message_uj") + handshake / short_session
        <= f(full, "message_uj") + handshake / n as f64
    {
        true => "oscore:aes-ccm-16-64-128",
        false => "oscore:aes-128-gcm",
    };
    assert_eq!(t["cheaper"], cheaper, "{t}");

    let text = recommend(&db, &["--session-messages", &n.to_string()])
        .assert()
        .success();
    let text = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("Shorter tag or longer session (oscore): "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&format!("{cheaper} is cheaper")), "{line}");
    assert!(line.contains("saves 8 B"), "{line}");
}
