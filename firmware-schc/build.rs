//! The board's memory map (the firmware's, firmware/memory: the QEMU board
//! that runs the target), and the rules the probe compresses with: the
//! default rules' outer rule 101, inner rule 110 and no-compression rule 22,
//! read from data/schc/default-rules.json by crates/schc here and written as
//! the Rust values that make them, as a device holds its rules (no JSON on
//! the device: its parsed tree alone outgrows the Cortex-M0+'s 32 KiB).

use std::env;
use std::fmt::Write;
use std::fs;
use std::path::PathBuf;

use schc::rule::{Nature, RuleSet};

/// The rules a reading takes at sequence 20 (docs/schc.md), and rule 22.
const RULES: [u64; 3] = [101, 110, 22];

fn bits(b: &schc::Bits) -> String {
    format!("bits(&{:?}, {})", b.as_padded_bytes(), b.len())
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=../data/schc/default-rules.json");
    // The target's memory map, from its file (data/targets/NAME.toml).
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    match build_facts::build_facts_for_this_build(&root) {
        Some(t) if t.family == "arm" => t.place_linker_script(&root, &out),
        _ => panic!("this probe runs on the Cortex-M targets only (cortex-m-rt)"),
    }

    let text = fs::read_to_string("../data/schc/default-rules.json").unwrap();
    let all = schc::rules_file::parse(&text).unwrap();
    let rules: Vec<_> = all
        .rules()
        .iter()
        .filter(|r| RULES.contains(&r.id.to_uint().unwrap()))
        .cloned()
        .collect();
    assert_eq!(
        rules.len(),
        RULES.len(),
        "the default rules lost one of {RULES:?}"
    );
    RuleSet::new(rules.clone()).unwrap();
    let mut code = String::from("vec![\n");
    for rule in &rules {
        let nature = match &rule.nature {
            Nature::NoCompression => "Nature::NoCompression".to_string(),
            Nature::Compression(entries) => {
                let mut s = String::from("Nature::Compression(vec![\n");
                for e in entries {
                    let targets: Vec<String> = e.target.iter().map(bits).collect();
                    writeln!(
                        s,
                        "Entry {{ field: FieldId::{:?}, length: Length::{:?}, position: {}, \
                         direction: Direction::{:?}, target: vec![{}], matching: Matching::{:?}, \
                         action: Action::{:?} }},",
                        e.field,
                        e.length,
                        e.position,
                        e.direction,
                        targets.join(", "),
                        e.matching,
                        e.action
                    )
                    .unwrap();
                }
                s.push_str("])");
                s
            }
        };
        writeln!(code, "Rule {{ id: {}, nature: {nature} }},", bits(&rule.id)).unwrap();
    }
    code.push(']');
    fs::write(out.join("rules.rs"), code).unwrap();
}

#[allow(dead_code)]
mod build_facts {
    include!("../crates/device-facts/src/target/build_facts.rs");
}
