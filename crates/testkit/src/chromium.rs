//! Headless Chromium for the tests that open a page the binary wrote (the run
//! report, the explore page): found on PATH, with a profile of the test's
//! own and nothing that reaches the network.

use std::path::Path;
use std::process::Command;

/// `chromium --headless` with a window of `size` ("1200,4000") and its
/// profile in `profile`; the caller adds `--dump-dom` or `--screenshot` and
/// the URL. A test fails when Chromium is not installed.
pub fn headless(profile: &Path, size: &str) -> Command {
    let browser = ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| crate::on_path(name))
        .expect("chromium is not installed: run scripts/setup (Debian package `chromium`)");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--window-size={size}"))
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}
