//! Captures, at build time, what the running binary cannot find out later:
//! the rustc that compiled it, the crypto crates' versions from Cargo.lock,
//! and the git revision (absent outside a git checkout).

use std::path::Path;
use std::process::Command;

/// Crypto crates reached through dependencies, worth naming beside the
/// catalogue's direct ones.
const TRANSITIVE: &[&str] = &[
    "polyval",
    "ghash",
    "universal-hash",
    "curve25519-dalek",
    "cpufeatures",
    "crypto-bigint",
    "elliptic-curve",
    "ecdsa",
    "openssl-sys",
    "keccak",
    "ascon",
];
/// Direct dependencies of the catalogue that do no cryptography.
const NOT_CRYPTO: &[&str] = &[
    "strsim",
    "serde",
    "thiserror",
    "hex",
    "getrandom",
    "zeroize",
    "subtle",
    "ciphermeter-primitives",
    "block-buffer",
    "block-padding",
];

fn main() {
    // perf_event where perf-event2 has bindings (Cargo.toml names the same set).
    println!("cargo::rustc-check-cfg=cfg(perf_event)");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && ["x86_64", "x86", "aarch64", "riscv64"].contains(&arch.as_str()) {
        println!("cargo:rustc-cfg=perf_event");
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest).join("../..");

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=CIPHERMETER_RUSTC_VERSION={version}");

    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    let crates = std::fs::read_to_string(&lock)
        .map(|text| crypto_crates(&text))
        .unwrap_or_default();
    println!("cargo:rustc-env=CIPHERMETER_CRYPTO_CRATES={crates}");

    for watched in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if root.join(watched).exists() {
            println!("cargo:rerun-if-changed={}", root.join(watched).display());
        }
    }
    let revision = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=CIPHERMETER_GIT_REVISION={revision}");
    println!(
        "cargo:rustc-env=CIPHERMETER_PROFILE={}",
        std::env::var("PROFILE").unwrap_or_default()
    );
}

/// "name version;name version;..." for the catalogue's crypto dependencies.
fn crypto_crates(lock_text: &str) -> String {
    let lock: toml::Table = match lock_text.parse() {
        Ok(t) => t,
        Err(_) => return String::new(),
    };
    let packages = lock
        .get("package")
        .and_then(|p| p.as_array())
        .cloned()
        .unwrap_or_default();
    let field =
        |p: &toml::Value, k: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
    let mut wanted: Vec<String> = TRANSITIVE.iter().map(|s| s.to_string()).collect();
    if let Some(cat) = packages
        .iter()
        .find(|p| field(p, "name") == "ciphermeter-catalogue")
    {
        for dep in cat
            .get("dependencies")
            .and_then(|d| d.as_array())
            .into_iter()
            .flatten()
        {
            let name = dep
                .as_str()
                .unwrap_or("")
                .split(' ')
                .next()
                .unwrap_or("")
                .to_string();
            if !NOT_CRYPTO.contains(&name.as_str()) {
                wanted.push(name);
            }
        }
    }
    let mut found: Vec<String> = packages
        .iter()
        .filter(|p| wanted.contains(&field(p, "name")))
        .map(|p| format!("{} {}", field(p, "name"), field(p, "version")))
        .collect();
    found.sort();
    found.dedup();
    found.join(";")
}
