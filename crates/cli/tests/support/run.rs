//! Running the CLI as a user runs it: its output when it must succeed.
#![allow(dead_code)]

use assert_cmd::Command;
use serde_json::Value;

/// `ciphermeter`, blind to a `CIPHERMETER_DATA_DIR` in the caller's
/// environment: the shipped data answers.
pub fn cm() -> Command {
    let mut c = Command::cargo_bin("ciphermeter").unwrap();
    c.env_remove("CIPHERMETER_DATA_DIR");
    c
}

/// A command's standard output as JSON; it must succeed (its stderr otherwise).
pub fn json_ok(cmd: &mut Command) -> Value {
    serde_json::from_slice(&stdout_ok(cmd)).unwrap()
}

/// A command's standard output, which must succeed (its stderr otherwise).
pub fn stdout_ok(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A command that must exit 2, saying `why` on stderr.
pub fn refused(cmd: &mut Command, why: &str) {
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(why), "wanted '{why}' in: {err}");
}
