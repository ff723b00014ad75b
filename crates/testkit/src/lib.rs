//! ciphermeter-testkit (dev-only): servers that tests start for themselves on a free
//! loopback port in a temp dir, and that stop when their guard is dropped (also on panic).
//!
//! A test whose server cannot be started fails: a test that passes without
//! running is a defect. Only `CIPHERMETER_SKIP_MISSING_SERVERS=1` lets it pass
//! as skipped, said on stderr; `.ci/run` never sets it.

use std::path::PathBuf;

pub mod c_library;
pub mod chromium;
pub mod mosquitto;
pub mod postgres;
pub mod rabbitmq;

pub use self::mosquitto::Mosquitto;
pub use self::postgres::Postgres;
pub use self::rabbitmq::RabbitMq;

/// The opt-out: set to 1, a missing server skips its test instead of failing it.
pub const SKIP_MISSING: &str = "CIPHERMETER_SKIP_MISSING_SERVERS";

/// A server's programs were not found: fail the test, unless skipping was asked for.
pub(crate) fn missing<T>(why: &str) -> Option<T> {
    if std::env::var(SKIP_MISSING).is_ok_and(|v| v == "1") {
        eprintln!("skipped ({SKIP_MISSING}=1): {why}");
        return None;
    }
    panic!("{why}. This test needs the server; set {SKIP_MISSING}=1 to skip it knowingly");
}

/// `name` in a directory of PATH: servers are found where the user's shell
/// finds them (`scripts/test` puts Debian's PostgreSQL bindir on PATH).
pub(crate) fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
