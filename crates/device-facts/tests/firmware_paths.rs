//! The firmware workspaces reach the host crates from inside their own
//! directory (`firmware/crates`, a symlink to `../crates`): cargo hashes a path
//! dependency's path relative to the workspace root when it lies under it, and
//! the absolute path when not. A `../crates` path made the checkout's location
//! part of symbol hashes, so a clone at another path laid the firmware out
//! differently and `scripts/device-costs --verify` found differences there.

use std::path::{Component, Path};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every `path = "..."` of a manifest's dependency tables, with its key.
fn path_dependencies(manifest: &toml::Table) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut tables: Vec<&toml::Table> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        tables.extend(manifest.get(key).and_then(|v| v.as_table()));
    }
    // [target.'cfg(...)'.dependencies]
    if let Some(targets) = manifest.get("target").and_then(|v| v.as_table()) {
        for t in targets.values().filter_map(|v| v.as_table()) {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                tables.extend(t.get(key).and_then(|v| v.as_table()));
            }
        }
    }
    for table in tables {
        for (name, dep) in table {
            if let Some(path) = dep.get("path").and_then(|p| p.as_str()) {
                found.push((name.clone(), path.to_string()));
            }
        }
    }
    found
}

fn check_workspace(dir: &str) {
    let root = repo().join(dir);
    let text = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let manifest: toml::Table = text.parse().unwrap();
    let deps = path_dependencies(&manifest);
    assert!(!deps.is_empty(), "{dir}/Cargo.toml names no host crate");
    for (name, path) in deps {
        let escapes = Path::new(&path)
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::RootDir));
        assert!(
            !escapes,
            "{dir}: dependency {name} at {path} lies outside the workspace directory: \
             cargo would hash the checkout's absolute path into the firmware"
        );
        assert!(
            root.join(&path).join("Cargo.toml").is_file(),
            "{dir}: dependency {name} at {path} has no manifest"
        );
    }
    let link = std::fs::read_link(root.join("crates"))
        .unwrap_or_else(|e| panic!("{dir}/crates is not a symlink: {e}"));
    assert_eq!(
        link,
        Path::new("../crates"),
        "{dir}/crates points elsewhere"
    );
}

#[test]
fn firmware_reaches_the_host_crates_from_inside_its_workspace() {
    check_workspace("firmware");
}

#[test]
fn the_schc_probe_reaches_them_the_same_way() {
    check_workspace("firmware-schc");
}
