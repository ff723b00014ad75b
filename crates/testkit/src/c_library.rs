//! The C library (crates/seal-ffi) built as docs/c-library.md builds it, in the
//! target dir the build-command tests share, for the tests that link C against
//! it (the OSCORE program on the host, the Cortex-M4 firmware).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the library's release archive with `features`, for `target` (the
/// host's when `None`), with `env` set and nothing else of the build's
/// selection inherited (`CIPHERMETER_SCHEME`, `_OSCORE`, `_BACKEND`); returns
/// the archive's path. A failed build fails the test with cargo's words.
pub fn build(features: &str, target: Option<&str>, env: &[(&str, &str)]) -> PathBuf {
    let target_dir = workspace().join("target/build-commands-test");
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["build", "--release", "-p", "ciphermeter-seal-ffi"])
        .args(["--features", features])
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", &target_dir);
    if let Some(t) = target {
        cargo.args(["--target", t]);
    }
    for var in [
        "CIPHERMETER_SCHEME",
        "CIPHERMETER_OSCORE",
        "CIPHERMETER_BACKEND",
    ] {
        cargo.env_remove(var);
    }
    cargo.envs(env.iter().copied());
    let out = cargo.output().expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target
        .map_or(target_dir.clone(), |t| target_dir.join(t))
        .join("release/libciphermeter_seal_ffi.a")
}

/// crates/seal-ffi/tests/c/oscore_readings.c linked in `dir` against the
/// host build with `oscore`.
pub fn oscore_readings(dir: &Path) -> PathBuf {
    let archive = build("oscore", None, &[]);
    let program = dir.join("oscore_readings");
    let status = Command::new("cc")
        .arg(workspace().join("crates/seal-ffi/tests/c/oscore_readings.c"))
        .arg("-I")
        .arg(workspace().join("crates/seal-ffi/include"))
        .arg(archive)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program)
        .status()
        .expect("cc runs");
    assert!(status.success(), "the C program did not link");
    program
}
