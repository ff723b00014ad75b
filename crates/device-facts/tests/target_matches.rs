//! No code outside the target module (crates/device-facts/src/target.rs and
//! target/) should decide by a target's name: it asks the target's file
//! (data/targets/) instead, so that a new target is a file and not an edit
//! in every crate. This counts what still does, file by file: a target's
//! variant (`Target::CortexM4`) or name (`"cortex-m4"`) in a match arm or a
//! `matches!`, or compared with `==`/`!=`, in code that is not a test. The
//! count may only fall, and the list says where the rest are.

use std::path::{Path, PathBuf};

use device_facts::Target;

/// Where target names are still matched on, and why each is left.
const REMAINING: &[(&str, usize)] = &[];

#[test]
fn target_names_are_matched_only_where_listed() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel.starts_with("crates/device-facts/src/target") || rel.contains("/tests/") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let n = name_matches(code);
        if n > 0 {
            found.push((rel, n));
        }
    }
    found.sort();
    let mut listed: Vec<(String, usize)> =
        REMAINING.iter().map(|(f, n)| (f.to_string(), *n)).collect();
    listed.sort();
    assert_eq!(
        found, listed,
        "target names matched outside crates/device-facts/src/target: ask the target's \
         file (data/targets/) instead; where one has gone, lower REMAINING"
    );
}

/// A test of the scanner itself.
#[test]
fn the_scanner_sees_arms_comparisons_and_matches() {
    let code = r#"
        match t { Target::CortexM3 | Target::CortexM4 => 1, _ => 0 }
        if t == device_facts::Target::Riscv32imc {}
        matches!(t, Target::Atmega1284p)
        match name { "cortex-m0plus" => 1, _ => 0 }
        let all = Target::ALL; let x = f(Target::CortexM4); t.has_dsp();
    "#;
    assert_eq!(name_matches(code), 5);
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// How many times `code` names a target in a pattern or a comparison.
fn name_matches(code: &str) -> usize {
    let mut names: Vec<String> = Vec::new();
    for t in Target::ALL {
        names.push(format!("Target::{t:?}"));
        names.push(format!("\"{t}\""));
    }
    let mut count = 0;
    for name in &names {
        for (at, _) in code.match_indices(name.as_str()) {
            let end = at + name.len();
            // A longer variant (`Target::CortexM3` in `Target::CortexM33`).
            if code[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let before =
                code[..at].trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
            let before = before.trim_end();
            let after = code[end..].trim_start();
            let pattern_next = after.starts_with("=>")
                || (after.starts_with('|') && !after.starts_with("||"))
                || after.starts_with("if ");
            let compared = before.ends_with("==")
                || before.ends_with("!=")
                || after.starts_with("==")
                || after.starts_with("!=");
            let pattern_prev = (before.ends_with('|') && !before.ends_with("||"))
                || before
                    .rsplit_once("matches!(")
                    .is_some_and(|(_, args)| !args.contains(')') && args.trim_end().ends_with(','));
            if pattern_next || compared || pattern_prev {
                count += 1;
            }
        }
    }
    count
}
