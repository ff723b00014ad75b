//! The C library's build as a user runs it: the two builds that used to make
//! a library whose every `cm_seal` returned CM_ERR_NOT_BUILT now fail with
//! the flag that fixes them, and a right build's `cm_implementation`, called
//! from C, names the code inside (build/contents.rs, run by build.rs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo build --release -p ciphermeter-seal-ffi ARGS` for the host with
/// `env`, in the target dir crates/cli/tests/build_commands_cli.rs uses (the
/// same release dependencies).
fn build(env: &[(&str, &str)], args: &[&str]) -> (Output, PathBuf) {
    let target_dir = workspace().join("target/build-commands-test");
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["build", "--release", "-p", "ciphermeter-seal-ffi"])
        .args(args)
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", &target_dir)
        .env_remove("CIPHERMETER_SCHEME")
        .env_remove("CIPHERMETER_BACKEND")
        .env_remove("CIPHERMETER_ALLOW_LEAKY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (out, target_dir.join("release/libciphermeter_seal_ffi.a"))
}

fn refused(env: &[(&str, &str)], args: &[&str], message: &str) {
    let (out, _) = build(env, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{env:?} built:\n{stderr}");
    assert!(
        stderr.contains(message),
        "{env:?}: no '{message}' in:\n{stderr}"
    );
}

#[test]
fn a_library_that_could_not_seal_is_not_built_and_a_right_one_says_what_seals() {
    refused(
        &[
            ("CIPHERMETER_SCHEME", "aead:aes-128-ccm"),
            ("CIPHERMETER_BACKEND", "mbedtls"),
        ],
        &[],
        "needs the sealing core's backend-mbedtls code, which this build leaves out \
         (every cm_seal would return CM_ERR_NOT_BUILT): build with --features backend-mbedtls",
    );
    refused(
        &[("CIPHERMETER_SCHEME", "aead:aes-256-gcm-siv")],
        &[],
        "needs the sealing core's gcm-siv code, which this build leaves out \
         (every cm_seal would return CM_ERR_NOT_BUILT): build with --features gcm-siv",
    );

    let (out, archive) = build(
        &[("CIPHERMETER_SCHEME", "aead:aes-256-gcm-siv")],
        &["--features", "gcm-siv"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let version = env!("CARGO_PKG_VERSION");
    let said = format!("warning: ciphermeter-seal-ffi@{version}: built: ");
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix(&said))
        .unwrap_or_else(|| panic!("no '{said}' in:\n{stderr}"));
    assert!(
        line.starts_with(&format!(
            "aead:aes-256-gcm-siv: RustCrypto's crates, ciphermeter-seal-ffi {version}; \
             timing: not checked on "
        )) && line.ends_with(" (a host build)"),
        "{line}"
    );

    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("implementation");
    let status = Command::new("cc")
        .arg(workspace().join("crates/seal-ffi/tests/c/implementation.c"))
        .arg("-I")
        .arg(workspace().join("crates/seal-ffi/include"))
        .arg(&archive)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success(), "the C program did not link");
    let out = Command::new(&program)
        .args(["aead:aes-256-gcm-siv", "aead:aes-128-ccm", "aead:no-such"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "aead:aes-256-gcm-siv 0 {line}\n\
             aead:aes-128-ccm -2 the scheme's algorithms are not in this build\n\
             aead:no-such -1 unknown scheme, or one that does not seal\n"
        )
    );
}
