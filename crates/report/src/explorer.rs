//! `ciphermeter explore`'s page: one self-contained HTML file holding the
//! engine (crates/explore built for wasm32, base64 in a script element),
//! the form and the drawing (`explorer/page.html`, `explorer/page.js`, plain
//! JavaScript). It opens from disk and fetches nothing; `run`'s report
//! embeds the same page.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use cost::Error;

use crate::html;

const TEMPLATE: &str = include_str!("explorer/page.html");
const BODY: &str = include_str!("explorer/body.html");
const SCRIPT: &str = include_str!("explorer/page.js");

/// The page around `wasm` (the explore engine's WebAssembly).
pub fn page(wasm: &[u8]) -> String {
    TEMPLATE
        .replace("{STYLE}", html::STYLE)
        .replace("{BODY}", &section(wasm))
}

/// The explorer as a part of another page (the run report's section): its
/// form, answer, style and scripts, every id prefixed `ex-`.
pub fn section(wasm: &[u8]) -> String {
    let packed = gzip(wasm);
    let encoded = base64::engine::general_purpose::STANDARD.encode(&packed);
    BODY.replace("{VERSION}", env!("CARGO_PKG_VERSION"))
        .replace("{WASM_BYTES}", &wasm.len().to_string())
        .replace("{PACKED_BYTES}", &packed.len().to_string())
        .replace("{SCRIPT}", SCRIPT)
        .replace("{WASM}", &encoded)
}

/// `bytes` gzipped: the engine is mostly the shipped tables' text, which
/// packs about tenfold; the page unpacks it with the browser's own
/// `DecompressionStream`.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut packer = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    packer
        .write_all(bytes)
        .and_then(|()| packer.finish())
        .expect("gzip into memory cannot fail")
}

/// The engine's WebAssembly: `CIPHERMETER_EXPLORE_WASM` names a built file;
/// otherwise cargo builds crates/explore (profile `explore`) in this
/// checkout, in a target dir of its own (`target/explore`), so a build
/// running beside it does not wait on its lock; cargo makes it only once.
pub fn wasm() -> Result<Vec<u8>, Error> {
    if let Some(path) = std::env::var_os("CIPHERMETER_EXPLORE_WASM") {
        return read(Path::new(&path));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("explore");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let args = [
        "build",
        "--quiet",
        "--profile",
        "explore",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "ciphermeter-explore",
    ];
    let out = Command::new(&cargo)
        .args(args)
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .map_err(|e| Error::failed(format!("the explore engine's build: {e}")))?;
    if !out.status.success() {
        return Err(Error::failed(format!(
            "`cargo {}` failed (`rustup target add wasm32-unknown-unknown`, or set CIPHERMETER_EXPLORE_WASM): {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    read(&target.join("wasm32-unknown-unknown/explore/explore.wasm"))
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::failed(format!("{}: {e}", path.display())))
}

/// Writes the page to `path`; returns its size in bytes.
pub fn write(path: &Path) -> Result<usize, Error> {
    let page = page(&wasm()?);
    std::fs::write(path, &page).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
    Ok(page.len())
}
