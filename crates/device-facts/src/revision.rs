//! The firmware revision a device cost table records: a digest of what can
//! move a count (the firmware's sources, manifest, lock file, build settings,
//! memory maps, the C libraries' adapters and shims, the in-project
//! primitives and the sealing core),
//! with what cannot taken out first: comments and whitespace outside string
//! literals. So a reformat or a reworded comment keeps the revision, and a
//! change of code, a constant or a string changes it (and the tables must be
//! regenerated: `crates/device-facts/tests/table_revisions.rs`).

#[cfg(feature = "files")]
use std::path::{Path, PathBuf};

use crate::FactsError;

/// The digest of the firmware in `firmware` (and the crates it builds
/// from) as `target` builds it: the shared sources, and of the targets'
/// own files only its own (its linker script, and what the build scripts
/// read of its target file), so adding or changing one target moves no
/// other target's revision.
#[cfg(feature = "files")]
pub fn firmware_revision(firmware: &Path, target: crate::Target) -> Result<String, FactsError> {
    let mut files = Vec::new();
    for rel in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        ".cargo",
        "src",
        "simavr-harness",
    ] {
        collect(&firmware.join(rel), &mut files)?;
    }
    // The C libraries' adapters, shims and Mbed TLS configuration; their
    // sources are pinned by version and checksum (scripts/fetch-clibs), not
    // hashed.
    for rel in ["src", "c", "Cargo.toml", "build.rs"] {
        collect(&firmware.join("../crates/clib").join(rel), &mut files)?;
    }
    collect(&firmware.join("../crates/primitives/src"), &mut files)?;
    // Its build script too: it selects the Cortex-M4's assembly (cfg(umaal)).
    for rel in ["Cargo.toml", "build.rs"] {
        collect(&firmware.join("../crates/primitives").join(rel), &mut files)?;
    }
    // The sealing core (not its host part, which no device runs).
    for rel in ["src", "Cargo.toml", "build.rs"] {
        collect(&firmware.join("../crates/seal").join(rel), &mut files)?;
    }
    files.retain(|f| !f.to_string_lossy().contains("/crates/seal/src/host/"));
    // The constant-time check's device side (firmware `ct` feature), which no
    // cost build compiles: its verdicts are revised apart (`ct_revision`).
    files.retain(|f| !f.starts_with(firmware.join(CT_SOURCES)));
    // How every build script reads a target's file.
    let root = firmware.join("..");
    collect(&root.join(BUILD_FACTS), &mut files)?;
    // The target's own: its linker script.
    if let Some(script) = &target.facts().memory.linker_script {
        collect(&root.join(script), &mut files)?;
    }
    let mut revision = digest(firmware, files)?;
    // And what its build scripts read of its file (not its prose, devices or
    // timings, which move no byte of a build).
    let file = root.join(format!("data/targets/{}.toml", target.name()));
    let text = std::fs::read_to_string(&file)
        .map_err(|e| FactsError::Failed(format!("{}: {e}", file.display())))?;
    let read = crate::target::build_facts::read_build_facts(target.name(), &text);
    revision.push_str(&format!("{read:?}"));
    Ok(hex(&sha(revision.as_bytes())[..8]))
}

/// The build scripts' reader of the target files (from the repository's
/// root), which every revision of a build that reads a target file covers.
#[cfg(feature = "files")]
const BUILD_FACTS: &str = "crates/device-facts/src/target/build_facts.rs";

#[cfg(feature = "files")]
fn sha(bytes: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).to_vec()
}

/// The files' paths (from `firmware`) and normalized contents, hashed in order.
#[cfg(feature = "files")]
fn digest(firmware: &Path, mut files: Vec<PathBuf>) -> Result<String, FactsError> {
    use sha2::{Digest, Sha256};
    files.sort();
    let mut hash = Sha256::new();
    for f in &files {
        let rel = f.strip_prefix(firmware).unwrap_or(f);
        hash.update(rel.to_string_lossy().as_bytes());
        hash.update([0]);
        let bytes = std::fs::read(f)?;
        match (syntax(f), std::str::from_utf8(&bytes)) {
            (Some(s), Ok(text)) => hash.update(normalized(text, s).as_bytes()),
            _ => hash.update(&bytes),
        }
        hash.update([0]);
    }
    Ok(hex(&hash.finalize()[..8]))
}

/// The digest of the SCHC CPU probe (firmware-schc/, `data/schc/device-cpu.json`),
/// from the repository's root: its own sources, the SCHC crate, the rules it
/// compresses with, the memory maps it borrows and the sealing core whose
/// CoAP code it runs. Apart from [`firmware_revision`]: the probe moves no
/// device cost table, and a change to crates/schc moves only its own table.
#[cfg(feature = "files")]
pub fn schc_probe_revision(root: &Path) -> Result<String, FactsError> {
    let mut files = Vec::new();
    for rel in ["Cargo.toml", "Cargo.lock", "build.rs", ".cargo", "src"] {
        collect(&root.join("firmware-schc").join(rel), &mut files)?;
    }
    for rel in ["src", "Cargo.toml"] {
        collect(&root.join("crates/schc").join(rel), &mut files)?;
    }
    for rel in ["src", "Cargo.toml", "build.rs"] {
        collect(&root.join("crates/seal").join(rel), &mut files)?;
    }
    files.retain(|f| !f.to_string_lossy().contains("/crates/seal/src/host/"));
    collect(&root.join("data/schc/default-rules.json"), &mut files)?;
    collect(&root.join("firmware/memory"), &mut files)?;
    collect(&root.join(BUILD_FACTS), &mut files)?;
    digest(root, files)
}

/// The digest of the firmware-image verify probe (firmware-verify/,
/// `data/firmware-update/verify-cycles.json`), from the repository's root: its
/// sources, manifest, lock file, vectors and the memory maps it borrows (its
/// vector generator, make-vectors/, moves nothing the vectors do not). Apart
/// from [`firmware_revision`], as the SCHC probe's is: it moves no device
/// cost table.
#[cfg(feature = "files")]
pub fn verify_probe_revision(root: &Path) -> Result<String, FactsError> {
    let mut files = Vec::new();
    for rel in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        ".cargo",
        "src",
        "vectors",
    ] {
        collect(&root.join("firmware-verify").join(rel), &mut files)?;
    }
    collect(&root.join("firmware/memory"), &mut files)?;
    collect(&root.join(BUILD_FACTS), &mut files)?;
    digest(root, files)
}

/// The firmware sources only the constant-time check builds (`ct`).
pub const CT_SOURCES: &str = "src/ct";

/// The digest of the constant-time check's own device code (its firmware
/// sources and its QEMU plugin, `ct-trace`), which a verdict depends on
/// besides the firmware revision.
#[cfg(feature = "files")]
pub fn ct_revision(firmware: &Path) -> Result<String, FactsError> {
    let mut files = Vec::new();
    collect(&firmware.join(CT_SOURCES), &mut files)?;
    collect(&firmware.join("ct-trace"), &mut files)?;
    digest(firmware, files)
}

/// The host-side judge of the constant-time check (crates/mcu `ct`: how the
/// runs' traces are read, compared and priced), from the firmware directory.
pub const JUDGE_SOURCES: &str = "../crates/mcu/src/ct";

/// The digest of the constant-time check's host-side judge
/// ([`JUDGE_SOURCES`]), which a verdict depends on as much as on the device
/// code ([`ct_revision`]): a change to how runs are compared can turn a leak
/// into constant time. Recorded apart from `ct_revision` so that a stale
/// table says which side moved; either needs a re-sweep (`scripts/ct-sweep`),
/// as no trace outlives its run. Comments and formatting do not count, as in
/// [`firmware_revision`]. What only names a place (`elf`'s symbols) is not
/// the judge's: it cannot move a verdict.
#[cfg(feature = "files")]
pub fn judge_revision(firmware: &Path) -> Result<String, FactsError> {
    let mut files = Vec::new();
    collect(&firmware.join(JUDGE_SOURCES), &mut files)?;
    // A judge moved elsewhere must not hash to the digest of nothing.
    if files.is_empty() {
        return Err(FactsError::Failed(format!(
            "no constant-time judge at {}",
            firmware.join(JUDGE_SOURCES).display()
        )));
    }
    digest(firmware, files)
}

/// What in `data/cycle-timings/cortex-m.toml` names or cites and prices
/// nothing: a corrected citation keeps the revision.
const TIMING_PROSE: [&str; 5] = ["core", "manual", "part", "source", "estimate"];

/// The model's arithmetic (`cycle_model::estimate`), which prices the mixes
/// with those figures: a change to a formula is a change of model too.
const MODEL_ARITHMETIC: &str = include_str!("cycle_model/estimate.rs");

/// The digest of the Cortex-M timing model (`data/cycle-timings/cortex-m.toml`'s
/// text) that the cost tables' cycle estimates were priced with: every key
/// and value but the prose ([`TIMING_PROSE`]), keys in order, so comments,
/// layout and citations do not count and any figure does; and the code that
/// prices with them ([`MODEL_ARITHMETIC`]).
pub fn cycle_timings_revision(toml_text: &str) -> Result<String, FactsError> {
    use sha2::{Digest, Sha256};
    fn canonical(value: &toml::Value, out: &mut String) {
        match value {
            toml::Value::Table(t) => {
                let mut keys: Vec<&String> = t
                    .keys()
                    .filter(|k| !TIMING_PROSE.contains(&k.as_str()))
                    .collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    out.push_str(&format!("{k:?}="));
                    canonical(&t[k], out);
                    out.push(',');
                }
                out.push('}');
            }
            toml::Value::Array(a) => {
                out.push('[');
                for v in a {
                    canonical(v, out);
                    out.push(',');
                }
                out.push(']');
            }
            toml::Value::String(s) => out.push_str(&format!("{s:?}")),
            other => out.push_str(&other.to_string()),
        }
    }
    let value: toml::Value = toml::from_str(toml_text)
        .map_err(|e| FactsError::Failed(format!("data/cycle-timings/cortex-m.toml: {e}")))?;
    let mut text = String::new();
    canonical(&value, &mut text);
    // The code before its tests, without comments or indentation.
    let code = MODEL_ARITHMETIC.split("#[cfg(test)]").next().unwrap_or("");
    for line in code.lines().map(str::trim) {
        if !line.is_empty() && !line.starts_with("//") {
            text.push_str(line);
            text.push('\n');
        }
    }
    Ok(hex(&Sha256::digest(text.as_bytes())[..8]))
}

/// How a source file writes its comments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Rust, C, linker scripts: `//` and `/* */`.
    CLike,
    /// TOML: `#`.
    Toml,
}

#[cfg(feature = "files")]
fn syntax(path: &Path) -> Option<Syntax> {
    match path.extension()?.to_str()? {
        "rs" | "c" | "h" | "x" | "ld" => Some(Syntax::CLike),
        "toml" => Some(Syntax::Toml),
        // Cargo.lock and data files: every byte counts.
        _ => None,
    }
}

/// `text` without comments, without whitespace outside string literals and
/// without trailing commas before a closing bracket.
/// Strings ("…", with escapes) are kept byte for byte; a Rust or C character
/// literal ('"', '\'') does not open one.
pub fn normalized(text: &str, syntax: Syntax) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '"' => {
                // A string literal, copied with its escapes.
                out.push(c);
                i += 1;
                while i < chars.len() {
                    out.push(chars[i]);
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    if chars[i - 1] == '"' {
                        break;
                    }
                }
            }
            '\'' if syntax == Syntax::CLike => {
                // 'x' or '\x' (a character literal) is copied whole; a lone
                // quote (a Rust lifetime) is just a character.
                let end = match (next, chars.get(i + 2), chars.get(i + 3)) {
                    (Some('\\'), Some(_), Some('\'')) => Some(i + 4),
                    (Some(_), Some('\''), _) => Some(i + 3),
                    _ => None,
                };
                let end = end.unwrap_or(i + 1);
                out.extend(&chars[i..end]);
                i = end;
            }
            '/' if syntax == Syntax::CLike && next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if syntax == Syntax::CLike && next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '#' if syntax == Syntax::Toml => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            c if c.is_whitespace() => i += 1,
            // A trailing comma before a closing bracket is a formatter's
            // choice (rustfmt adds one when it splits a list).
            ')' | ']' | '}' => {
                if out.ends_with(',') {
                    out.pop();
                }
                out.push(c);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(feature = "files")]
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), FactsError> {
    if path.is_file() {
        out.push(path.to_path_buf());
    } else if path.is_dir() {
        for e in std::fs::read_dir(path)? {
            collect(&e?.path(), out)?;
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = r#"
/// Seals one reading.
fn seal(buf: &mut [u8]) -> usize { // the whole path
    let quote = b'"'; /* a byte */ let url = "https://x.test/ a  b";
    buf[0] = quote; 'outer: loop { break 'outer; }
    42
}
"#;

    #[test]
    fn a_reformat_or_a_comment_keeps_the_digest() {
        let reformatted = "fn seal(\n    buf: &mut [u8],\n) -> usize {\n    let quote = b'\"';\n    let url = \"https://x.test/ a  b\";\n    buf[0] = quote;\n    'outer: loop {\n        break 'outer;\n    }\n    42 // the answer\n}\n";
        assert_eq!(
            normalized(CODE, Syntax::CLike),
            normalized(reformatted, Syntax::CLike)
        );
    }

    #[test]
    fn code_constants_and_strings_change_it() {
        let base = normalized(CODE, Syntax::CLike);
        for changed in [
            CODE.replace("42", "43"),
            CODE.replace("a  b", "a b"),
            CODE.replace("buf[0]", "buf[1]"),
            CODE.replace("b'\"'", "b'\\''"),
        ] {
            assert_ne!(normalized(&changed, Syntax::CLike), base, "{changed}");
        }
    }

    #[test]
    fn a_timing_figure_moves_the_cycle_timings_revision_and_prose_does_not() {
        let base = "# why\n[m4.cycles]\nalu = { low = 1, high = 1, source = \"TRM 3-1\" }\n\
                    [m4.board]\npart = \"x\"\nclock_hz = 64_000_000\n";
        let rev = |t: &str| cycle_timings_revision(t).unwrap();
        let same = base
            .replace("TRM 3-1", "TRM Table 3-1")
            .replace("# why", "# because")
            .replace("part = \"x\"", "part = \"y\"");
        assert_eq!(rev(base), rev(&same));
        for changed in [
            base.replace("high = 1", "high = 2"),
            base.replace("64_000_000", "48_000_000"),
            base.replace("alu", "load"),
        ] {
            assert_ne!(rev(base), rev(&changed), "{changed}");
        }
        assert!(cycle_timings_revision("alu = {").is_err());
    }

    #[test]
    fn toml_comments_go_and_values_stay() {
        let a = "[features]\n# why\nseal = [\"dep:seal\"] # the core\n";
        let b = "[features]\nseal = [ \"dep:seal\" ]\n";
        assert_eq!(normalized(a, Syntax::Toml), normalized(b, Syntax::Toml));
        assert_ne!(
            normalized(a, Syntax::Toml),
            normalized(&a.replace("dep:seal", "dep:seal2"), Syntax::Toml)
        );
    }
}
