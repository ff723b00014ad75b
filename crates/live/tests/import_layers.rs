//! crates/live flows one way: each module imports only from layers below its own
//! (DEVELOPERS.md, "crates/live flow"). This reads the crate's sources, takes every
//! `crate::X` a module names outside comments (`use` lines and paths in code alike;
//! `super::` and a module's own files are itself), and fails on a module missing from
//! [`LAYERS`], on more than [`MAX_UPWARD`] imports pointing up, or on any loop.
//!
//! Names lib.rs re-exports (`crate::send`) count as imports of their module.
//! `LAYERS` is the one list: `scripts/live-imports` runs this test and prints its table
//! (`LIVE_IMPORTS_SRC=DIR` reads another copy of `src/`, e.g. an older revision's).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module imports from its own layer (never in a loop)
/// or from layers below.
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["error", "clock"]),
    (
        "formats",
        &[
            "framing",
            "envelope",
            "replay",
            "counters",
            "limits",
            "inject",
            "coap_wire",
            "reassembly",
            "schc_radio",
        ],
    ),
    ("protocols", &["mqtt", "amqp", "edhoc"]),
    ("endpoint", &["endpoint"]),
    ("verify", &["verify"]),
    ("store", &["store"]),
    ("feed", &["feed"]),
    ("config", &["config"]),
    ("pipeline", &["pipeline"]),
    ("inputs", &["input"]),
    ("gateway", &["gateway"]),
    ("sender", &["sender", "radio", "schc_send"]),
    (
        "send clients",
        &["coap", "device", "sender_options", "gateway_options"],
    ),
];

/// Imports pointing up that the crate may keep (none of them in a loop).
const MAX_UPWARD: usize = 2;

fn layer_of(module: &str) -> Option<(usize, &'static str)> {
    LAYERS
        .iter()
        .enumerate()
        .find(|(_, (_, modules))| modules.contains(&module))
        .map(|(i, (name, _))| (i, *name))
}

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to (`input/tcp.rs` is `input`); `None` for lib.rs.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(name) => Some(name.to_string()),
        None => Some(first),
    }
}

/// A line without its `//` comment (`://` in a URL is no comment).
fn code_of(line: &str) -> &str {
    let bytes = line.as_bytes();
    for i in 0..bytes.len().saturating_sub(1) {
        if &bytes[i..i + 2] == b"//" && (i == 0 || bytes[i - 1] != b':') {
            return &line[..i];
        }
    }
    line
}

fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The top-level modules named by `crate::X` (and `crate::{X, Y::…}`) in `code`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let boundary = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let after = &rest[at + "crate::".len()..];
        rest = after;
        if !boundary {
            continue;
        }
        if let Some(group) = after.strip_prefix('{') {
            // The first segment of each item at the group's own depth.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if c.is_whitespace() => {}
                    _ if start && depth == 0 => {
                        start = false;
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            found.push(name.to_string());
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(after);
            if !name.is_empty() {
                found.push(name.to_string());
            }
        }
    }
    found
}

/// Where each module imports each other module: (from, to) → "file:line" list.
type Imports = BTreeMap<(String, String), Vec<String>>;

/// What lib.rs re-exports at the crate's root (`pub use sender::{send, …}`): each name
/// and the module it comes from, so `crate::send` counts as an import of `sender`.
fn root_names(lib_rs: &str) -> BTreeMap<String, String> {
    let code: String = lib_rs.lines().map(|l| format!("{} ", code_of(l))).collect();
    let mut names = BTreeMap::new();
    for statement in code.split(';') {
        let Some(path) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = ident(path.trim()).to_string();
        let items = path.trim()[module.len()..].trim_start_matches("::");
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = match item.split_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => item.trim().rsplit("::").next().unwrap_or(""),
            };
            if !name.is_empty() {
                names.insert(name.to_string(), module.clone());
            }
        }
    }
    names
}

fn imports(src: &Path) -> (BTreeSet<String>, Imports) {
    let mut files = Vec::new();
    sources(src, &mut files);
    let lib_rs = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    let root = root_names(&lib_rs);
    let mut modules = BTreeSet::new();
    let mut edges = Imports::new();
    for file in files {
        let Some(from) = module_of(src, &file) else {
            continue;
        };
        modules.insert(from.clone());
        let text = std::fs::read_to_string(&file).unwrap();
        // `use` groups may span lines: join each statement's lines before reading it.
        let mut statement = String::new();
        let mut first_line = 0;
        for (n, line) in text.lines().enumerate() {
            let code = code_of(line);
            if statement.is_empty() {
                first_line = n + 1;
            }
            statement.push_str(code);
            statement.push(' ');
            let open = statement.matches('{').count() > statement.matches('}').count();
            if open && statement.contains("crate::{") {
                continue;
            }
            for name in crate_paths(&statement) {
                let to = root.get(&name).cloned().unwrap_or(name);
                if to != from {
                    let at = format!("{}:{first_line}", file.strip_prefix(src).unwrap().display());
                    edges.entry((from.clone(), to)).or_default().push(at);
                }
            }
            statement.clear();
        }
    }
    (modules, edges)
}

/// The modules that import each other, pair by pair.
fn pairs(edges: &Imports) -> Vec<(String, String)> {
    edges
        .keys()
        .filter(|(a, b)| a < b && edges.contains_key(&(b.clone(), a.clone())))
        .cloned()
        .collect()
}

/// The loops of the import graph as groups of modules that each reach every other
/// one (strongly connected components of more than one module).
fn loops(edges: &Imports) -> Vec<BTreeSet<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
    }
    let reach = |start: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start];
        while let Some(at) = todo.pop() {
            for &to in next.get(at).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(to) {
                    todo.push(to);
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&str, BTreeSet<&str>> = next.keys().map(|&m| (m, reach(m))).collect();
    let mut groups: BTreeSet<BTreeSet<String>> = BTreeSet::new();
    for (&m, from_m) in &reached {
        let group: BTreeSet<String> = from_m
            .iter()
            .filter(|&&o| o == m || reached.get(o).is_some_and(|r| r.contains(m)))
            .map(|o| o.to_string())
            .collect();
        if group.len() > 1 {
            groups.insert(group);
        }
    }
    groups.into_iter().collect()
}

#[test]
fn live_imports_point_down() {
    let src = std::env::var_os("LIVE_IMPORTS_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let (modules, edges) = imports(&src);
    let mut problems = Vec::new();

    println!("crates/live imports, by layer ({}):", src.display());
    for (i, (layer, names)) in LAYERS.iter().enumerate() {
        for name in names.iter().filter(|m| modules.contains(**m)) {
            let to: Vec<&str> = edges
                .keys()
                .filter(|(from, _)| from == name)
                .map(|(_, to)| to.as_str())
                .collect();
            let to = if to.is_empty() {
                "-".to_string()
            } else {
                to.join(" ")
            };
            println!("  {i:>2} {layer:<13} {name:<15} -> {to}");
        }
    }
    for m in &modules {
        if layer_of(m).is_none() {
            problems.push(format!("module `{m}` has no layer: add it to LAYERS"));
        }
    }

    for ((from, to), at) in &edges {
        if !modules.contains(to) {
            problems.push(format!(
                "{from} names crate::{to} ({}), neither a module nor a re-export of lib.rs",
                at.join(", ")
            ));
        }
    }

    let mut upward = Vec::new();
    for ((from, to), at) in &edges {
        let (Some((lf, nf)), Some((lt, nt))) = (layer_of(from), layer_of(to)) else {
            continue;
        };
        if lt > lf {
            upward.push(format!(
                "{from} ({lf} {nf}) -> {to} ({lt} {nt}) at {}",
                at.join(", ")
            ));
        }
    }
    println!(
        "imports pointing up: {} (at most {MAX_UPWARD})",
        upward.len()
    );
    for u in &upward {
        println!("  {u}");
    }
    if upward.len() > MAX_UPWARD {
        problems.push(format!(
            "{} imports point up, more than {MAX_UPWARD}",
            upward.len()
        ));
    }

    let pairs = pairs(&edges);
    println!("pairs importing each other: {}", pairs.len());
    for (a, b) in &pairs {
        println!("  {a} <-> {b}");
    }
    let loops = loops(&edges);
    println!("loops: {}", loops.len());
    for l in &loops {
        let names: Vec<&str> = l.iter().map(String::as_str).collect();
        println!(
            "  {} modules reach each other: {}",
            l.len(),
            names.join(" ")
        );
    }
    if !loops.is_empty() {
        problems.push(format!(
            "{} import loops ({} pairs importing each other)",
            loops.len(),
            pairs.len()
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("; "));
}

#[test]
fn the_reader_finds_what_a_module_names() {
    assert_eq!(
        crate_paths("use crate::a::B; let x = crate::c::d(); my_crate::e"),
        ["a", "c"]
    );
    assert_eq!(
        crate_paths("use crate::{a, b::{C, D}, e::F};"),
        ["a", "b", "e"]
    );
    assert_eq!(
        code_of("let u = \"mqtt://h\"; // crate::x"),
        "let u = \"mqtt://h\"; "
    );
    let root = root_names(
        "pub mod a; // pub use x::Y;\npub use a::{B, c as D};\npub use e::f::G;\npub use h::I as J;",
    );
    let modules: Vec<(&str, &str)> = root.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(modules, [("B", "a"), ("D", "a"), ("G", "e"), ("J", "h")]);
    let mut edges = Imports::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "c")] {
        edges.insert((a.into(), b.into()), Vec::new());
    }
    let group = |l: &[&str]| l.iter().map(|m| m.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(loops(&edges), [group(&["a", "b", "c", "d"])]);
    assert_eq!(pairs(&edges), [("c".to_string(), "d".to_string())]);
    edges.remove(&("c".to_string(), "a".to_string()));
    assert_eq!(loops(&edges), [group(&["c", "d"])]);
}
