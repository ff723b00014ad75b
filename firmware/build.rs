//! Generates the message sizes to benchmark (from CIPHERMETER_SIZES) and, for
//! Cortex-M, picks the memory map of the QEMU board that runs the target.

use std::{env, fs, path::PathBuf};

const DEFAULT_SIZES: &str = "16,64,256,1024";

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=CIPHERMETER_SIZES");
    println!("cargo:rerun-if-changed=memory");

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

    let target = env::var("TARGET").unwrap();
    let board = if target.starts_with("thumbv6m") {
        Some("microbit")
    } else if target.starts_with("thumbv7") {
        Some("mps2")
    } else {
        None
    };
    println!("cargo::rustc-check-cfg=cfg(board_microbit)");
    if board == Some("microbit") {
        println!("cargo:rustc-cfg=board_microbit");
    }
    if let Some(board) = board {
        fs::copy(format!("memory/{board}.x"), out.join("memory.x")).unwrap();
        println!("cargo:rustc-link-search={}", out.display());
    }
}
