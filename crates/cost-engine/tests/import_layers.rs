//! The engine's modules import one way (issue 65: crates/cost's ranking had a
//! five-file loop, `ranking ↔ session ↔ scheme_cost ↔ engine_cost ↔ tie`): each
//! module names only modules of lower rows (`crate::X` outside comments, in `use`
//! lines and code alike; `crate::Error` is `error`'s). The rows are lib.rs's table.

use std::path::Path;

/// Lowest first; a module imports only from rows below its own.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &[
        "cpu_source",
        "schc_packet",
        "session_share",
        "implementation_choice",
        "engine_use",
        "key_limits",
    ],
    &["on_air", "device_times", "message", "tag_or_session"],
    &["scheme_cost", "duty_cycle"],
    &["engine_cost", "tie", "build_commands"],
    &["ranking", "choices"],
    &["request", "frame_fit"],
    &["rank"],
    &["summary"],
    &["render"],
];

fn row(module: &str) -> Option<usize> {
    LAYERS.iter().position(|r| r.contains(&module))
}

/// The modules `text` names as `crate::X`, comments left out.
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(match name.as_str() {
                "Error" => "error".to_string(),
                _ => name,
            });
        }
    }
    out
}

/// Every import that does not point down: `(module, imported)`.
fn upward(modules: &[(String, String)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (module, text) in modules {
        let own = row(module).unwrap_or_else(|| panic!("module {module} has no row in LAYERS"));
        for imported in imports(text) {
            match row(&imported) {
                Some(r) if r < own => {}
                _ => out.push((module.clone(), imported)),
            }
        }
    }
    out
}

#[test]
fn every_module_imports_only_from_lower_rows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        if name != "lib" {
            modules.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    assert!(modules.len() >= 10, "the sources were not found");
    let up = upward(&modules);
    assert!(up.is_empty(), "imports that do not point down: {up:?}");
}

#[test]
fn an_import_up_or_across_fails() {
    let modules = [
        ("tie".to_string(), "use crate::ranking::order;".to_string()),
        (
            "on_air".to_string(),
            "// crate::ranking in a comment\nuse crate::Error;".to_string(),
        ),
        (
            "engine_cost".to_string(),
            "crate::tie::break_tie(x)".to_string(),
        ),
    ];
    assert_eq!(
        upward(&modules),
        [
            ("tie".to_string(), "ranking".to_string()),
            ("engine_cost".to_string(), "tie".to_string())
        ]
    );
}
