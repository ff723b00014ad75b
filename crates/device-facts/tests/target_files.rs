//! What a target costs in code: the files outside data/ (and its linker
//! script) whose code names it. A target is its file in data/targets/, its
//! linker script and its tables; the code that builds, runs and counts it
//! reads the file (target/build_facts.rs for the build scripts). So this
//! lists, for every target, the non-test code that still names it (its
//! variant, its quoted name, its Rust target's architecture or its linker
//! script, comments left out) and holds each target to at most
//! [`AT_MOST`] such files. Tests may name any target: they are how each is
//! held to its tables.

use std::path::{Path, PathBuf};

use device_facts::Target;

/// The most files outside data/ a target may need besides its linker script.
const AT_MOST: usize = 4;

/// Where the code that builds and runs the targets lives.
const CODE: [&str; 6] = [
    "crates",
    "firmware",
    "firmware-schc",
    "firmware-verify",
    "scripts",
    "fuzz",
];

fn root() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).to_path_buf()
}

#[test]
fn each_target_is_named_by_at_most_four_files_of_code() {
    let root = root();
    let mut files = Vec::new();
    for dir in CODE {
        code_files(&root.join(dir), &mut files);
    }
    let mut over = Vec::new();
    for t in Target::ALL {
        let names = identifiers(t);
        let script = t.facts().memory.linker_script.clone();
        let touched: Vec<String> = files
            .iter()
            .map(|f| {
                f.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|rel| script.as_deref() != Some(rel.as_str()))
            .filter(|rel| {
                let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
                let code = without_comments(rel, &text);
                names.iter().any(|n| names_it(&code, n))
            })
            .collect();
        println!("{t}: {} files: {}", touched.len(), touched.join(", "));
        if touched.len() > AT_MOST {
            over.push(format!("{t} ({})", touched.join(", ")));
        }
    }
    assert!(
        over.is_empty(),
        "a target's build and run settings belong in its file (data/targets/), not in code; \
         these are named by more than {AT_MOST} files of code: {}",
        over.join("; ")
    );
}

/// A test of the scanner: comments and tests do not count, a longer name is not the shorter.
#[test]
fn the_scanner_reads_code_not_comments_or_tests() {
    let rust = "// riscv32imc here\nlet a = 1; /* thumbv7em */\nlet t = \"cortex-m3\";\n#[cfg(test)]\nmod tests { const X: &str = \"cortex-m4\"; }\n";
    let code = without_comments("a.rs", rust);
    assert!(!names_it(&code, "riscv32imc"));
    assert!(!names_it(&code, "thumbv7em"));
    assert!(names_it(&code, "\"cortex-m3\""));
    assert!(!names_it(&code, "\"cortex-m4\""));
    assert!(!names_it("thumbv7em-none-eabihf", "thumbv7m"));
    assert!(!names_it("Target::CortexM33", "Target::CortexM3"));
    assert!(!names_it("riscv32imac", "riscv32imc"));
    let shell = "# cortex-m0plus\necho thumbv6m # a comment\n";
    let code = without_comments("s", shell);
    assert!(names_it(&code, "thumbv6m") && !names_it(&code, "\"cortex-m0plus\""));
}

/// What code names a target by: its variant, its name quoted, its Rust
/// target's architecture (`thumbv7em`; not AVR's bare `avr`, too common a
/// word) and its linker script's file name.
fn identifiers(t: Target) -> Vec<String> {
    let mut names = vec![format!("Target::{t:?}"), format!("\"{t}\"")];
    let arch = t.rust_target().split('-').next().unwrap_or_default();
    if arch.len() > 3 {
        names.push(arch.to_string());
    }
    if let Some(script) = &t.facts().memory.linker_script {
        names.push(script.rsplit('/').next().unwrap_or_default().to_string());
    }
    names
}

/// Whether `code` has `name` not as part of a longer word.
fn names_it(code: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(name).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + name.len()..].chars().next();
        let starts = name.starts_with(word);
        let ends = name.ends_with(word);
        let glued = (starts && before.is_some_and(word)) || (ends && after.is_some_and(word));
        !glued
    })
}

/// The code of a file: Rust and C without comments and without a test
/// module; shell, TOML and linker scripts without `#` or `/* */` comments.
fn without_comments(rel: &str, text: &str) -> String {
    let rust_like = [".rs", ".c", ".h"].iter().any(|e| rel.ends_with(e));
    let text = if rel.ends_with(".rs") {
        text.split("#[cfg(test)]").next().unwrap_or("")
    } else {
        text
    };
    let mut out = String::new();
    let mut rest = text;
    // Block comments first (C, Rust, linker scripts).
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        rest = rest[at..]
            .find("*/")
            .map_or("", |end| &rest[at + end + 2..]);
    }
    out.push_str(rest);
    out.lines()
        .map(|line| {
            // `//` in Rust and C (doc comments too); `#` elsewhere.
            let cut = if rust_like { "//" } else { "#" };
            line.find(cut).map_or(line, |at| &line[..at])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn code_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            // Build output, vendored C, and tests (which may name any target).
            if ![
                "target",
                "vendor",
                "tests",
                "testdata",
                "corpus",
                "artifacts",
            ]
            .contains(&name.as_str())
            {
                code_files(&path, out);
            }
        } else if [".rs", ".c", ".h", ".toml", ".x", ".sh", ".py"]
            .iter()
            .any(|e| name.ends_with(e))
            || path.parent().is_some_and(|p| p.ends_with("scripts"))
        {
            out.push(path);
        }
    }
}
