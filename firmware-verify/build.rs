//! The board's memory map (the firmware's, firmware/memory: the QEMU board
//! that runs the target, Cortex-M or RISC-V), and the vector of the scheme the build verifies:
//! vectors/SCHEME.txt (`name = hex` lines, `#` comments with its source)
//! written as byte constants, so the probe holds it as a device holds an
//! image's key and signature (in flash).

use std::env;
use std::fmt::Write;
use std::fs;
use std::path::PathBuf;

/// The schemes, as the features name them (data/firmware-update.toml's names).
const SCHEMES: [&str; 9] = [
    "ecdsa-p256",
    "ed25519",
    "rsa-2048",
    "rsa-3072",
    "lms-sha256-h10-w8",
    "ml-dsa-44",
    "ml-dsa-65",
    "slh-dsa-sha2-128s",
    "slh-dsa-sha2-128f",
];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=vectors");
    // The target's memory map, from its file (data/targets/NAME.toml): on
    // Cortex-M cortex-m-rt's link.x includes it, on RISC-V it is the whole
    // link script (src/riscv.rs has the start code it places first).
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    match build_facts::build_facts_for_this_build(&root) {
        Some(t) if t.family == "arm" || t.family == "riscv" => t.place_linker_script(&root, &out),
        _ => panic!("this probe runs on the Cortex-M and RISC-V targets only"),
    }

    let chosen: Vec<&str> = SCHEMES
        .into_iter()
        .filter(|s| {
            let var = format!("CARGO_FEATURE_{}", s.to_uppercase().replace('-', "_"));
            env::var_os(var).is_some()
        })
        .collect();
    let [scheme] = chosen.as_slice() else {
        panic!("build one scheme at a time (--features SCHEME), not {chosen:?}");
    };
    let text = fs::read_to_string(format!("vectors/{scheme}.txt")).unwrap();
    let mut code = format!("pub const SCHEME: &str = {scheme:?};\n");
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, hex) = line.split_once('=').expect("a `name = hex` line");
        let hex = hex.trim();
        assert!(
            hex.len() % 2 == 0,
            "{scheme}: {name} has an odd number of digits"
        );
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex digits"))
            .collect();
        writeln!(
            code,
            "pub const {}: [u8; {}] = {:?};",
            name.trim().to_uppercase(),
            bytes.len(),
            bytes
        )
        .unwrap();
    }
    fs::write(out.join("vector.rs"), code).unwrap();
}

#[allow(dead_code)]
mod build_facts {
    include!("../crates/device-facts/src/target/build_facts.rs");
}
