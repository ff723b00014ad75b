//! Generates the message sizes to benchmark (from CIPHERMETER_SIZES), names
//! the study 003 message scheme a `message-*` feature selects, and, for
//! a device target, takes its linker script and board from its file
//! (`target_settings`).

use std::{env, fs, path::PathBuf};

const DEFAULT_SIZES: &str = "16,64,256,1024";

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SIZES");

    let spec = env::var("CIPHERMETER_SIZES").unwrap_or_else(|_| DEFAULT_SIZES.to_string());
    let sizes: Vec<usize> = spec
        .split(',')
        .map(|s| {
            s.trim()
                .parse()
                .expect("CIPHERMETER_SIZES: comma-separated byte counts")
        })
        .collect();
    let max = sizes.iter().copied().max().unwrap_or(0);
    fs::write(
        out.join("sizes.rs"),
        format!("pub const SIZES: &[usize] = &{sizes:?};\npub const MAX_SIZE: usize = {max};\n"),
    )
    .unwrap();

    message_scheme();
    seal_scheme();
    counters();

    target_settings(&out);
}

/// The target's settings from its file (data/targets/NAME.toml, read as
/// crates/device-facts reads it for build scripts): its board's cfg for the
/// platform code, and its linker script. A triple no target builds (the
/// host's known answers) takes neither.
fn target_settings(out: &std::path::Path) {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    for t in build_facts::all_build_facts(&root.join("data/targets")) {
        if let Some(cfg) = t.board_cfg {
            println!("cargo::rustc-check-cfg=cfg({cfg})");
        }
    }
    let Some(target) = build_facts::build_facts_for_this_build(&root) else {
        return;
    };
    if let Some(cfg) = &target.board_cfg {
        println!("cargo:rustc-cfg={cfg}");
    }
    target.place_linker_script(&root, out);
}

#[allow(dead_code)]
mod build_facts {
    include!("../crates/device-facts/src/target/build_facts.rs");
}

/// The `message-*` features are exclusive (one scheme per build). From the one
/// enabled, derive what the code selects on, so no list of features is
/// repeated in the source: `message_path` (any scheme), `message_group`
/// (none, aead, hmac, etm), the HMAC hash of the HMAC and EtM groups
/// `message_mac`, EtM's AES size `etm_aes`, and the scheme id as
/// `CIPHERMETER_MESSAGE_ID`.
fn message_scheme() {
    println!("cargo::rustc-check-cfg=cfg(message_path)");
    println!(
        "cargo::rustc-check-cfg=cfg(message_group, values(\"none\", \"aead\", \"hmac\", \"etm\"))"
    );
    println!("cargo::rustc-check-cfg=cfg(etm_aes, values(\"128\", \"256\"))");
    println!(
        "cargo::rustc-check-cfg=cfg(message_mac, values(\"sha256\", \"sha512\", \"sha3-256\", \"sha3-512\"))"
    );
    // Feature names use only '-', which Cargo turns into '_' in upper case.
    let schemes: Vec<String> = env::vars()
        .filter_map(|(k, _)| {
            k.strip_prefix("CARGO_FEATURE_MESSAGE_")
                .map(|rest| format!("message-{}", rest.to_lowercase().replace('_', "-")))
        })
        .collect();
    let id = match schemes.as_slice() {
        [] => return,
        [one] => one,
        more => panic!("the message-* features are exclusive, one per build; enabled: {more:?}"),
    };
    // Both MAC groups end in `hmac-HASH`: one cfg selects the HMAC for either.
    if let Some((_, mac)) = id.split_once("hmac-") {
        println!("cargo:rustc-cfg=message_mac=\"{mac}\"");
    }
    let group = if id == "message-none" {
        "none"
    } else if let Some(parts) = id.strip_prefix("message-etm-aes-") {
        let (aes, _) = parts
            .split_once("-hmac-")
            .expect("EtM features are message-etm-aes-BITS-hmac-HASH");
        println!("cargo:rustc-cfg=etm_aes=\"{aes}\"");
        "etm"
    } else if id.starts_with("message-hmac-") {
        "hmac"
    } else {
        "aead"
    };
    println!("cargo:rustc-cfg=message_path");
    println!("cargo:rustc-cfg=message_group=\"{group}\"");
    println!("cargo:rustc-env=CIPHERMETER_MESSAGE_ID={id}");
}

/// `ctr_mode`: a CTR build (`aes-*-ctr`, `aes-*-ctr-crate`). `eax_bytewise`:
/// a build that uses the firmware's EAX over the byte-wise counter
/// (`aes-*-eax`, `message-aes-*-eax`; not the `-crate` builds). `rsa`: an
/// RSA build (`rsa-1024`, `rsa-2048`).
fn counters() {
    println!("cargo::rustc-check-cfg=cfg(ctr_mode)");
    println!("cargo::rustc-check-cfg=cfg(eax_bytewise)");
    let on = |f: &str| {
        env::var_os(format!(
            "CARGO_FEATURE_{}",
            f.to_uppercase().replace('-', "_")
        ))
        .is_some()
    };
    let ctr = [
        "aes-128-ctr",
        "aes-256-ctr",
        "aes-128-ctr-crate",
        "aes-256-ctr-crate",
    ];
    if ctr.iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=ctr_mode");
    }
    let eax = [
        "aes-128-eax",
        "aes-256-eax",
        "message-aes-128-eax",
        "message-aes-256-eax",
    ];
    if eax.iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=eax_bytewise");
    }
    println!("cargo::rustc-check-cfg=cfg(public_key)");
    if ["x25519", "ed25519", "p256-ecdh", "p256-ecdsa"]
        .iter()
        .any(|f| on(f))
    {
        println!("cargo:rustc-cfg=public_key");
    }
    println!("cargo::rustc-check-cfg=cfg(rsa)");
    // RSA's 64-bit products from 16-bit halves where the core has no
    // 32x32->64 multiply (src/algorithms/bignum.rs).
    println!("cargo::rustc-check-cfg=cfg(mul_by_halves)");
    let target = env::var("TARGET").unwrap_or_default();
    if target.starts_with("avr") || target.starts_with("thumbv6m") {
        println!("cargo:rustc-cfg=mul_by_halves");
    }
    if ["rsa-1024", "rsa-2048"].iter().any(|f| on(f)) {
        println!("cargo:rustc-cfg=rsa");
    }
}

/// The sealing core's scheme for this build, from CIPHERMETER_SCHEME (a
/// canonical scheme name; crates/mcu sets it and the core's features): the
/// constant `SPEC` in `seal_scheme.rs` and `cfg(seal_path)`. The name is
/// parsed here, on the host, so the device carries no table of names.
fn seal_scheme() {
    use seal::algorithm::CipherAlg;
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SCHEME");
    println!("cargo::rustc-check-cfg=cfg(seal_path)");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("seal_scheme.rs");
    let Ok(name) = env::var("CIPHERMETER_SCHEME") else {
        fs::write(out, "").unwrap();
        return;
    };
    let spec = seal::Spec::parse(&name)
        .unwrap_or_else(|| panic!("CIPHERMETER_SCHEME: '{name}' is not a canonical scheme name"));
    let cipher = match spec.cipher {
        None => "None".to_string(),
        Some(CipherAlg::Block(b, m)) => {
            format!("Some(CipherAlg::Block(BlockAlg::{b:?}, Mode::{m:?}))")
        }
        Some(CipherAlg::Stream(s)) => format!("Some(CipherAlg::Stream(StreamAlg::{s:?}))"),
        Some(CipherAlg::Aead(a)) => format!("Some(CipherAlg::Aead(AeadAlg::{a:?}))"),
    };
    let mac = match spec.mac {
        None => "None".to_string(),
        Some(m) => format!("Some(MacAlg::{m:?})"),
    };
    fs::write(
        &out,
        format!(
            "/// The scheme this build seals with.\npub const SPEC: Spec<'static> = Spec {{ pattern: Pattern::{:?}, cipher: {cipher}, mac: {mac}, name: {name:?} }};\n",
            spec.pattern
        ),
    )
    .unwrap();
    println!("cargo:rustc-cfg=seal_path");
    oscore_alg(&out);
}

/// An OSCORE build's algorithm, from CIPHERMETER_OSCORE (crates/seal
/// `oscore_build`): the constant `OSCORE_ALG` beside `SPEC`.
fn oscore_alg(out: &std::path::Path) {
    println!("cargo:rerun-if-env-changed=CIPHERMETER_OSCORE");
    let Ok(name) = env::var("CIPHERMETER_OSCORE") else {
        return;
    };
    let alg = seal::oscore::Alg::from_name(&name)
        .unwrap_or_else(|| panic!("CIPHERMETER_OSCORE: '{name}' is no OSCORE algorithm"));
    let mut text = fs::read_to_string(out).unwrap();
    text += &format!(
        "/// The OSCORE algorithm this build protects readings with.\npub const OSCORE_ALG: seal::oscore::Alg = seal::oscore::Alg::{alg:?};\n/// The build's name.\npub const OSCORE_NAME: &str = \"oscore:{name}\";\n"
    );
    fs::write(out, text).unwrap();
}
