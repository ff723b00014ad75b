//! What the C library's build knows of the core (build/contents.rs): the
//! features each scheme needs, read from seal's own tables and manifests,
//! and the verdicts it reports, held to the shipped tables.

#[allow(dead_code)]
#[path = "../build/contents.rs"]
mod contents;
#[allow(dead_code)]
#[path = "../build/leaky.rs"]
mod leaky;
#[path = "../src/sealable.rs"]
mod sealable;

use seal::algorithm::{CipherAlg, MacAlg};

const FFI: &str = include_str!("../Cargo.toml");
const SEAL: &str = include_str!("../../seal/Cargo.toml");

#[test]
fn every_family_of_the_core_is_a_feature_of_the_c_library() {
    let families = CipherAlg::every()
        .map(CipherAlg::feature)
        .chain(MacAlg::every().map(MacAlg::feature))
        .filter(|f| !f.is_empty());
    for f in families {
        assert_eq!(
            contents::ffi_feature(FFI, f),
            f,
            "no `{f} = [\"seal/{f}\"]`"
        );
    }
}

#[test]
fn a_feature_brings_what_the_core_says_it_brings() {
    // seal's `ccm = ["dep:ccm", "aes"]`: AES in every block mode comes with CCM.
    let on = contents::seal_features(FFI, SEAL, |f| f == "ccm");
    assert_eq!(on.into_iter().collect::<Vec<_>>(), ["aes", "ccm"]);
    let on = contents::seal_features(FFI, SEAL, |f| f == "backend-mbedtls");
    assert!(on.contains("backend-mbedtls"), "{on:?}");
}

#[test]
fn a_build_of_several_schemes_lists_each_by_rustcrypto_and_refuses_a_backend() {
    let on = contents::seal_features(FFI, SEAL, |f| f == "ccm");
    let built = contents::schemes(None, "rustcrypto", &on, |f| f.to_string()).unwrap();
    let names: Vec<&str> = built.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["aead:aes-128-ccm", "aead:aes-256-ccm"]);
    assert!(built.iter().all(|(_, b)| *b == seal::Backend::RustCrypto));
    let refused = contents::schemes(None, "mbedtls", &on, |f| f.to_string()).unwrap_err();
    assert!(refused.contains("set CIPHERMETER_SCHEME too"), "{refused}");
}

#[test]
fn a_scheme_the_library_never_seals_or_a_backend_without_it_is_refused() {
    let on = contents::seal_features(FFI, SEAL, |_| true);
    let flag = |f: &str| f.to_string();
    for (scheme, backend, why) in [
        (
            "aead:aes-128-ccm",
            "monocypher",
            "has no code for aead:aes-128-ccm",
        ),
        (
            "aead:aes-128-ccm",
            "wolfssl",
            "is no backend of the C library",
        ),
        (
            "aead:aes-128-ccm",
            "aws-lc",
            "is no backend of the C library",
        ),
        (
            "etm:aes-128-cbc+hmac-sha256",
            "rustcrypto",
            "its nonces must be random",
        ),
        ("enc:aes-128-ctr", "rustcrypto", "no authentication"),
        (
            "aead:aes-129-ccm",
            "rustcrypto",
            "is no scheme of the sealing core",
        ),
    ] {
        let refused = contents::schemes(Some(scheme), backend, &on, flag).unwrap_err();
        assert!(refused.contains(why), "{scheme} {backend}: {refused}");
    }
}

#[test]
fn the_verdict_is_the_shipped_tables() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/constant-time");
    let tsv = std::fs::read_to_string(format!("{dir}/leaks.tsv")).unwrap();
    let table = |t: &str| std::fs::read_to_string(format!("{dir}/{t}.json")).ok();
    let avr = table("atmega1284p");
    assert_eq!(
        contents::timing("atmega1284p", avr.as_deref(), "aead:aes-128-ccm", &tsv),
        "constant-time on atmega1284p"
    );
    let (build, place) = leaky::leaks(&tsv, "cortex-m3")
        .next()
        .expect("a leak on the M3");
    assert_eq!(
        contents::timing("cortex-m3", table("cortex-m3").as_deref(), build, &tsv),
        format!("leaks on cortex-m3 ({place})")
    );
    assert_eq!(
        contents::timing("atmega1284p", avr.as_deref(), "aead:no-such", &tsv),
        "not checked on atmega1284p"
    );
}

#[test]
fn an_oscore_build_that_could_not_protect_is_refused_with_the_fix() {
    let ok = |o, s, b| contents::oscore(Some(o), Some(s), b, true);
    assert_eq!(
        ok("aes-ccm-16-64-128", "aead:aes-128-ccm", "rustcrypto"),
        Ok(())
    );
    assert_eq!(
        ok("chacha20-poly1305", "aead:chacha20-poly1305", "ciphermeter"),
        Ok(())
    );
    assert_eq!(
        contents::oscore(None, Some("aead:aes-128-gcm"), "mbedtls", false),
        Ok(())
    );
    for (refused, why) in [
        (
            contents::oscore(None, Some("oscore:aes-128-gcm"), "rustcrypto", true),
            "CIPHERMETER_SCHEME=aead:aes-128-gcm CIPHERMETER_OSCORE=aes-128-gcm",
        ),
        (
            ok("aes-ccm-99", "aead:aes-128-ccm", "rustcrypto"),
            "is no OSCORE build",
        ),
        (
            ok("aes-128-gcm", "aead:aes-128-ccm", "rustcrypto"),
            "set CIPHERMETER_SCHEME=aead:aes-128-gcm",
        ),
        (
            contents::oscore(
                Some("aes-128-gcm"),
                Some("aead:aes-128-gcm"),
                "rustcrypto",
                false,
            ),
            "--features oscore",
        ),
        (
            ok("aes-ccm-16-64-128", "aead:aes-128-ccm", "mbedtls"),
            "CIPHERMETER_BACKEND=rustcrypto",
        ),
    ] {
        let refused = refused.unwrap_err();
        assert!(refused.contains(why), "{refused}");
    }
}
