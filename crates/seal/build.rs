//! A firmware build seals with one scheme (CIPHERMETER_SCHEME, set by
//! crates/mcu). Then only that scheme's pattern and algorithms are compiled:
//! `cfg(only_scheme)` plus `cfg(only = "…")` for the pattern
//! (`pattern-aead`), the cipher's id and its block cipher (`aes-128-cbc`,
//! `aes-128`) and the MAC's id. The match arms of the other algorithms and
//! patterns are left out, so the code size measured is the scheme's own.
//! Without the variable (every host build) everything is compiled.

fn main() {
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SCHEME");
    println!("cargo::rustc-check-cfg=cfg(only_scheme)");
    println!("cargo::rustc-check-cfg=cfg(only, values(any()))");
    println!("cargo:rerun-if-env-changed=CIPHERMETER_BACKEND");
    println!(
        "cargo::rustc-check-cfg=cfg(backend, values(\"rustcrypto\", \"ciphermeter\", \"mbedtls\", \"monocypher\", \"aws-lc\"))"
    );
    let Ok(name) = std::env::var("CIPHERMETER_SCHEME") else {
        return;
    };
    let Some((pattern, rest)) = name.split_once(':') else {
        return;
    };
    println!("cargo:rustc-cfg=only_scheme");
    // An OSCORE build (crates/mcu, `seal::oscore_build`): its algorithm's
    // variant of the OSCORE context, on this core scheme's code.
    println!("cargo:rerun-if-env-changed=CIPHERMETER_OSCORE");
    if let Ok(alg) = std::env::var("CIPHERMETER_OSCORE") {
        println!("cargo:rustc-cfg=only=\"oscore-{alg}\"");
    }
    // Whose code the one scheme runs (crates/seal `backend`): RustCrypto's
    // unless the firmware build names another.
    let backend = std::env::var("CIPHERMETER_BACKEND").unwrap_or_else(|_| "rustcrypto".into());
    assert!(
        matches!(
            backend.as_str(),
            "rustcrypto" | "ciphermeter" | "mbedtls" | "monocypher"
        ),
        "CIPHERMETER_BACKEND={backend}: the sealing core's backends are rustcrypto, ciphermeter, mbedtls and monocypher"
    );
    println!("cargo:rustc-cfg=backend=\"{backend}\"");
    // The binary container's scheme id, computed here so a device that
    // needs no SHA-256 otherwise does not carry it for four bytes.
    use sha2::Digest;
    let id = sha2::Sha256::digest(name.as_bytes());
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("only_scheme.rs");
    std::fs::write(
        out,
        format!(
            "/// The one scheme this build seals with, and its binary id.\nconst ONLY_NAME: &str = {name:?};\nconst ONLY_ID: [u8; 4] = {:?};\n",
            &id[..4]
        ),
    )
    .unwrap();
    println!("cargo:rustc-cfg=only=\"pattern-{pattern}\"");
    let (cipher, mac) = match pattern {
        "hmac" => (None, Some(rest)),
        "etm" => match rest.split_once('+') {
            Some((c, m)) => (Some(c), Some(m)),
            None => (Some(rest), None),
        },
        _ => (Some(rest), None),
    };
    if let Some(c) = cipher {
        println!("cargo:rustc-cfg=only=\"{c}\"");
        // A block mode's cipher: the id without its mode.
        if let Some((block, _)) = c.rsplit_once('-') {
            println!("cargo:rustc-cfg=only=\"{block}\"");
        }
    }
    if let Some(m) = mac {
        println!("cargo:rustc-cfg=only=\"{m}\"");
    }
}
