//! Running the CLI as a user runs it: its output when it must succeed.
#![allow(dead_code)]

use assert_cmd::Command;

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
