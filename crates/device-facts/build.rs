//! The targets are the files of `data/targets/`: this lists the folder and
//! writes `targets.rs` (included by `src/target.rs`) with one `Target`
//! variant per file, `Target::ALL` in file-name order, and each file's text
//! with the target's shipped tables (`data/device-costs/NAME.json`,
//! `data/constant-time/NAME.json`, empty when there is none yet). So a new
//! target needs no code edit here; its facts are parsed and checked at run
//! time (`target::facts`).

use std::{env, fmt::Write, fs, path::Path};

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let data = Path::new(&manifest).join("../../data");
    let targets = data.join("targets");
    for dir in ["targets", "device-costs", "constant-time"] {
        println!("cargo:rerun-if-changed={}", data.join(dir).display());
    }
    let mut names: Vec<String> = fs::read_dir(&targets)
        .unwrap_or_else(|e| panic!("{}: {e}", targets.display()))
        .map(|entry| entry.expect("a readable data/targets entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no data/targets/*.toml");

    let mut out = String::new();
    out.push_str(
        "/// A simulated device target: one per `data/targets/NAME.toml`, named \
         there (serialized as NAME).\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]\n\
         pub enum Target {\n",
    );
    for name in &names {
        let valid = name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        assert!(
            valid && name.starts_with(|c: char| c.is_ascii_lowercase()),
            "data/targets/{name}.toml: a target's name is lowercase letters, digits and '-'"
        );
        // The file's summary as the variant's doc (a line scan: the file is
        // parsed at run time, and its tests name a bad one).
        let text = fs::read_to_string(targets.join(format!("{name}.toml"))).unwrap();
        let summary = text
            .lines()
            .find_map(|l| l.strip_prefix("summary = "))
            .map_or("", |s| s.trim().trim_matches('"'));
        writeln!(
            out,
            "    #[doc = {:?}]\n    #[serde(rename = \"{name}\")]\n    {},",
            format!("{summary} (data/targets/{name}.toml)"),
            variant(name)
        )
        .unwrap();
    }
    out.push_str("}\n\nimpl Target {\n");
    writeln!(
        out,
        "    /// Every target, in the order of their files' names.\n    \
         pub const ALL: [Target; {}] = [{}];",
        names.len(),
        names
            .iter()
            .map(|n| format!("Target::{}", variant(n)))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
    out.push_str(
        "}\n\n/// Each target's files, in `Target::ALL`'s order: a static, so the tables\n/// (megabytes of text) are in the binary once, not once per codegen unit that\n/// reads a `const` (ten copies each in the explore page's WebAssembly).\npub(super) static FILES: [Files; ",
    );
    writeln!(out, "{}] = [", names.len()).unwrap();
    for name in &names {
        let file = |dir: &str| {
            let path = data.join(dir).join(format!("{name}.json"));
            if path.exists() {
                format!("include_str!({:?})", path.display().to_string())
            } else {
                "\"\"".to_string()
            }
        };
        writeln!(
            out,
            "    Files {{ name: {name:?}, facts: include_str!({:?}), cost_table: {}, verdicts: {} }},",
            targets.join(format!("{name}.toml")).display().to_string(),
            file("device-costs"),
            file("constant-time"),
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("targets.rs");
    fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}

/// `cortex-m0plus` → `CortexM0plus`: each '-'-separated part capitalized.
fn variant(name: &str) -> String {
    name.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}
