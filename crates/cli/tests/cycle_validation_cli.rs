//! `mcu --compare data/validation` as a user runs it: the published board
//! figures against the shipped tables' mixes priced on each figure's part
//! (docs/cycle-accuracy.md is its table), the classes fitted per core, and
//! a validation file that names what is not there refused with why.

use std::path::Path;

mod support;
use support::run::{cm, json_ok, refused, stdout_ok};

fn validation_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/validation")
}

#[test]
fn the_folder_prints_the_documents_table_and_a_fit_per_core() {
    let dir = validation_dir();
    let text = String::from_utf8(stdout_ok(cm().args(["mcu", "--compare"]).arg(&dir))).unwrap();
    let doc = include_str!("../../../docs/cycle-accuracy.md");
    let start = doc.find("| core | figure |").unwrap();
    let end = doc
        .find("<!-- mcu --compare data/validation: end -->")
        .unwrap();
    assert!(
        text.starts_with(doc[start..end].trim_end()),
        "the CLI prints the doc's table first"
    );
    for core in ["cortex-m0plus", "cortex-m3", "cortex-m4"] {
        assert!(
            text.contains(&format!("Cycles per class on the {core}")),
            "{core}"
        );
    }
    let v = json_ok(
        cm().args(["mcu", "--format", "json", "--compare"])
            .arg(&dir),
    );
    let figures = v["figures"].as_array().unwrap();
    assert!(figures.len() >= 20);
    let keygen = figures
        .iter()
        .find(|f| f["id"] == "emill-p256-keygen")
        .unwrap();
    assert_eq!(keygen["priced_on"], "nrf52840");
    assert!(keygen["ratio"].as_f64().unwrap() > 0.5);
    assert_eq!(v["fits"].as_array().unwrap().len(), 3);
}

#[test]
fn a_figure_of_an_entry_or_part_that_does_not_exist_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = |body: &str| {
        let p = tmp.path().join("mine.toml");
        std::fs::write(&p, body).unwrap();
        p
    };
    let figure = |part: &str, entry: &str| {
        format!(
            "[[figure]]\nid = \"mine\"\ncore = \"cortex-m4\"\nboard = \"b\"\npart = \"{part}\"\n\
             published_cycles = 1000\nsource = \"s\"\nours = {{ entry = \"{entry}\", length = 1024 }}\n"
        )
    };
    let ok = file(&figure("nrf52840", "sha256 / mbedtls / hash"));
    json_ok(cm().args(["mcu", "--format", "json", "--compare"]).arg(&ok));
    let p = file(&figure("pdp-11", "sha256 / mbedtls / hash"));
    refused(
        cm().args(["mcu", "--compare"]).arg(&p),
        "part pdp-11 is not in parts.toml",
    );
    let p = file(&figure("nrf52840", "sha256 / nobody / hash"));
    refused(
        cm().args(["mcu", "--compare"]).arg(&p),
        "has no entry sha256 / nobody / hash",
    );
    let p = file(&figure("nrf52840", "sha256 / mbedtls / hash").replace("1024", "77"));
    refused(
        cm().args(["mcu", "--compare"]).arg(&p),
        "no instruction mix at 77 bytes",
    );
    let p = file("what = \"nothing\"\n");
    refused(
        cm().args(["mcu", "--compare"]).arg(&p),
        "no [[figure]] to compare",
    );
    refused(
        cm().args(["mcu", "--compare"])
            .arg(tmp.path().join("absent.toml")),
        "absent.toml",
    );
}
