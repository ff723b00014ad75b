//! Every scheme the catalogue can build, in every container, sealed under a
//! fixed key and nonce: the bytes must equal `data/golden.json`, which was
//! written by the catalogue-backed sealing code before the no_std core took
//! over. The core (RustCrypto and in-project ciphers) must seal exactly what
//! the catalogue's backends sealed.
//!
//! This test never writes `data/golden.json`. To regenerate it, run
//! `scripts/regenerate-golden`: it runs this test with
//! `CIPHERMETER_GOLDEN_OUT=NEW_FILE` in a temporary directory (the test then
//! writes what it sealed there, never over an existing file, and compares
//! nothing), prints which `scheme container` lines changed, and replaces the
//! golden file only with `--accept`.

mod common;

use std::collections::BTreeMap;

use ciphermeter_seal::{Container, HostSealer, Scheme};
use common::{key, nonce};
use sha2::{Digest, Sha256};

/// Every AEAD, every MAC, every block mode and stream under EtM with
/// HMAC-SHA-256, a few other EtM MACs, and `enc` with ECB and the baseline.
fn every_scheme() -> Vec<String> {
    let mut out = Vec::new();
    for e in catalogue::catalogue().entries() {
        match e.kind {
            // COSE's short-tag CCM (8-byte tags) seals only as OSCORE's AEAD,
            // in the oscore container (tests/oscore_rfc8613.rs holds it to
            // RFC 8613 Appendix C); every other AEAD seals here.
            catalogue::Kind::Aead if e.tag_size == Some(8) => assert!(
                ciphermeter_seal::oscore::Alg::from_name(&e.id).is_some(),
                "{} has an 8-byte tag and no OSCORE algorithm",
                e.id
            ),
            catalogue::Kind::Aead => out.push(format!("aead:{}", e.id)),
            catalogue::Kind::Mac if e.id != "poly1305" => out.push(format!("hmac:{}", e.id)),
            catalogue::Kind::BlockMode | catalogue::Kind::Stream => {
                out.push(format!("etm:{}+hmac-sha256", e.id))
            }
            _ => {}
        }
    }
    out.extend(
        [
            "etm:aes-128-cbc+hmac-sha3-256",
            "etm:chacha20+cmac-aes-128",
            "etm:aes-256-ctr+hmac-blake2s256",
            "enc:aes-128-ecb",
            "enc:identity",
            "enc:aes-128-ctr",
        ]
        .map(String::from),
    );
    out
}

/// (plaintext, aad) cases: a chain reading, text that JSON must escape, bytes
/// that are not UTF-8, an empty reading, and associated data.
fn cases() -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (
            br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#.to_vec(),
            Vec::new(),
        ),
        (
            "quote \" slash \\ nl \n tab \t ctl \u{1} \u{1f} del \u{7f} é ✓ </"
                .as_bytes()
                .to_vec(),
            b"dev-7".to_vec(),
        ),
        (
            (0u8..=255).rev().step_by(3).collect(),
            b"aad \"x\"".to_vec(),
        ),
        (Vec::new(), Vec::new()),
    ]
}

fn seal_all() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for name in every_scheme() {
        let scheme = Scheme::parse(&name).unwrap();
        let key = key(scheme.name(), 5);
        let mut sealer = HostSealer::new(&key, true).unwrap();
        for container in Container::ALL {
            // One digest over every case's length and bytes keeps the file small.
            let mut all = Vec::new();
            for (plaintext, aad) in cases() {
                let message = sealer
                    .seal(container, &nonce(&key.scheme, 3), &plaintext, &aad)
                    .unwrap_or_else(|e| panic!("{name} {container}: {e}"));
                all.extend_from_slice(&(message.len() as u32).to_be_bytes());
                all.extend_from_slice(&message);
            }
            out.insert(
                format!("{} {container}", scheme.name()),
                hex::encode(Sha256::digest(&all)),
            );
        }
    }
    out
}

#[test]
fn the_core_seals_what_the_catalogue_sealed() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden.json");
    assert!(
        std::env::var_os("CIPHERMETER_WRITE_GOLDEN").is_none(),
        "CIPHERMETER_WRITE_GOLDEN is gone: scripts/regenerate-golden shows the diff and \
         replaces the golden file with --accept"
    );
    let now = seal_all();
    if let Some(out) = std::env::var_os("CIPHERMETER_GOLDEN_OUT") {
        // A new file only: an existing one (the golden file included) is
        // never overwritten here.
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&out)
            .unwrap_or_else(|e| {
                panic!("CIPHERMETER_GOLDEN_OUT must name a new file: {out:?}: {e}")
            });
        std::io::Write::write_all(
            &mut file,
            serde_json::to_string_pretty(&now).unwrap().as_bytes(),
        )
        .unwrap();
        return;
    }
    let golden: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(golden.len(), now.len(), "the set of schemes changed");
    let mut wrong = Vec::new();
    for (case, want) in &golden {
        match now.get(case) {
            Some(got) if got == want => {}
            Some(_) => wrong.push(format!("{case}: different bytes")),
            None => wrong.push(format!("{case}: not sealed any more")),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cases differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
