//! The engine builds with no C, and reads no file, opens no socket, starts no
//! thread or process (issue 65): what it needs comes in as values, so it runs
//! in a browser (`wasm32-unknown-unknown`). This lists the packages its wasm32
//! build compiles (`cargo tree`), fails on one that builds C (a `links` key
//! but those in [`LINKS_NOTHING`], `cc`, `cmake`, `pkg-config`, a `-sys` crate), and reads the sources of the
//! workspace's crates among them as that build compiles them (each item's
//! `cfg` judged with the features the build turns on, tests left out), failing
//! on a path into `std::fs`, `std::net`, `std::thread` or `std::process`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use syn::visit::{self, Visit};

const ENGINE: &str = "ciphermeter-cost-engine";
/// The explore page's engine: the cost engine with the sealing core, the
/// WebAssembly the page carries.
const PAGE_ENGINE: &str = "ciphermeter-explore";
const TARGET: &str = "wasm32-unknown-unknown";
const FORBIDDEN: [&str; 4] = ["std::fs", "std::net", "std::thread", "std::process"];
/// Crates that exist to build or link C.
const C_BUILDERS: [&str; 4] = ["cc", "cmake", "pkg-config", "bindgen"];
/// Packages with a `links` key that link nothing, and why.
const LINKS_NOTHING: [(&str, &str); 1] = [(
    "wasm-bindgen-shared",
    "`links` keeps one version in a build; its build script only hashes a schema",
)];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A package the engine's wasm32 build compiles: its name, its directory when
/// it is the workspace's own, and the features the build turns on.
struct Package {
    name: String,
    dir: Option<PathBuf>,
    features: BTreeSet<String>,
}

/// Every package of the engines' wasm32 builds (the cost engine's and the
/// page's, features as one build of both turns them on: a superset of
/// either's), build dependencies included.
fn build_graph() -> Vec<Package> {
    let text = cargo(&[
        "tree",
        "-p",
        ENGINE,
        "-p",
        PAGE_ENGINE,
        "--target",
        TARGET,
        "-e",
        "normal,build",
        "--prefix",
        "none",
        "--format",
        "{p}|{f}",
    ]);
    let mut seen = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (package, features) = line.split_once('|').unwrap_or((line, ""));
        let name = package.split_whitespace().next().unwrap().to_string();
        let dir = package
            .split_once(" (/")
            .map(|(_, rest)| PathBuf::from(format!("/{}", rest.split(')').next().unwrap())));
        let features = features
            .trim()
            .trim_end_matches("(*)")
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
        seen.entry(name.clone()).or_insert(Package {
            name,
            dir,
            features,
        });
    }
    seen.into_values().collect()
}

#[test]
fn no_package_of_the_wasm32_build_compiles_c() {
    let graph = build_graph();
    for name in [
        "ciphermeter-device-facts",
        PAGE_ENGINE,
        "ciphermeter-payload",
    ] {
        assert!(
            graph.iter().any(|p| p.name == name),
            "{name} not in the graph"
        );
    }
    let metadata: serde_json::Value = serde_json::from_str(&cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--filter-platform",
        TARGET,
    ]))
    .unwrap();
    let links: BTreeSet<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["links"].is_null())
        .filter(|p| !LINKS_NOTHING.iter().any(|(n, _)| p["name"] == *n))
        .filter_map(|p| p["name"].as_str())
        .collect();
    let builds_c: Vec<&str> = graph
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| links.contains(n) || C_BUILDERS.contains(n) || n.ends_with("-sys"))
        .collect();
    assert!(
        builds_c.is_empty(),
        "the engine's wasm32 build compiles C through {builds_c:?}: `cargo tree -p {ENGINE} --target {TARGET} -i NAME` shows who brings it"
    );
}

#[test]
fn no_workspace_crate_of_the_wasm32_build_touches_files_sockets_or_threads() {
    let mut found = Vec::new();
    let mut crates = 0;
    for package in build_graph() {
        let Some(dir) = &package.dir else { continue };
        crates += 1;
        let build = Build {
            features: &package.features,
        };
        for (file, path) in build.forbidden_in(&dir.join("src/lib.rs")) {
            found.push(format!("{}: {} ({})", package.name, path, file.display()));
        }
    }
    // The engines, seal, catalogue, link, energy, device-facts, schc, names,
    // primitives, payload.
    assert!(
        crates >= 10,
        "only {crates} of the workspace's crates found"
    );
    assert!(
        found.is_empty(),
        "the engine's wasm32 build reaches:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_what_it_forbids_and_skips_what_the_build_leaves_out() {
    let source = r#"
        use std::{fs, io::Write};
        fn a() { let _ = std::thread::spawn(|| ()); }
        fn b() { println!("{:?}", std::net::Ipv4Addr::LOCALHOST); }
        #[cfg(feature = "files")]
        fn c() { std::fs::read("x").ok(); }
        #[cfg(test)]
        mod tests { fn d() { std::process::exit(0); } }
        #[cfg(not(feature = "files"))]
        fn e() { std::process::id(); }
    "#;
    let file = syn::parse_file(source).unwrap();
    let features = BTreeSet::new();
    let mut check = Check {
        build: Build {
            features: &features,
        },
        found: Vec::new(),
    };
    check.visit_file(&file);
    assert_eq!(
        check.found,
        ["std::fs", "std::thread", "std::net", "std::process"]
    );
}

/// One package's build: what its `cfg`s see.
struct Build<'a> {
    features: &'a BTreeSet<String>,
}

impl Build<'_> {
    /// Every forbidden path in the modules the build compiles from `root`.
    fn forbidden_in(&self, root: &Path) -> Vec<(PathBuf, String)> {
        let mut out = Vec::new();
        let mut files = vec![root.to_path_buf()];
        while let Some(file) = files.pop() {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let parsed =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let mut check = Check {
                build: Build {
                    features: self.features,
                },
                found: Vec::new(),
            };
            check.visit_file(&parsed);
            out.extend(check.found.into_iter().map(|p| (file.clone(), p)));
            files.extend(self.submodules(&file, &parsed.items));
        }
        out
    }

    /// The files of `items`' `mod NAME;` the build compiles, inline modules followed.
    fn submodules(&self, file: &Path, items: &[syn::Item]) -> Vec<PathBuf> {
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let dir = match stem {
            "lib" | "mod" | "main" => file.parent().unwrap().to_path_buf(),
            _ => file.with_extension(""),
        };
        self.modules_under(&dir, items)
    }

    fn modules_under(&self, dir: &Path, items: &[syn::Item]) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            if !self.keeps(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            match &m.content {
                Some((_, inner)) => out.extend(self.modules_under(&dir.join(&name), inner)),
                None => {
                    let flat = dir.join(format!("{name}.rs"));
                    out.push(match flat.exists() {
                        true => flat,
                        false => dir.join(&name).join("mod.rs"),
                    });
                }
            }
        }
        out
    }

    /// Whether every `#[cfg]` of an item holds in this build.
    fn keeps(&self, attrs: &[syn::Attribute]) -> bool {
        attrs.iter().filter(|a| a.path().is_ident("cfg")).all(|a| {
            match a.parse_args::<syn::Meta>() {
                Ok(meta) => self.holds(&meta),
                Err(_) => true,
            }
        })
    }

    /// A `cfg` predicate on wasm32-unknown-unknown, a debug build, not a test.
    fn holds(&self, meta: &syn::Meta) -> bool {
        let nested = |list: &syn::MetaList| -> Vec<syn::Meta> {
            list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .map(|p| p.into_iter().collect())
            .unwrap_or_default()
        };
        match meta {
            syn::Meta::List(list) if list.path.is_ident("not") => {
                !nested(list).iter().all(|m| self.holds(m))
            }
            syn::Meta::List(list) if list.path.is_ident("all") => {
                nested(list).iter().all(|m| self.holds(m))
            }
            syn::Meta::List(list) if list.path.is_ident("any") => {
                nested(list).iter().any(|m| self.holds(m))
            }
            syn::Meta::NameValue(nv) => {
                let key = nv
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(value),
                    ..
                }) = &nv.value
                else {
                    return false;
                };
                let value = value.value();
                match key.as_str() {
                    "feature" => self.features.contains(&value),
                    "target_arch" => value == "wasm32",
                    "target_family" => value == "wasm",
                    "target_os" => value == "unknown",
                    "target_pointer_width" => value == "32",
                    "target_endian" => value == "little",
                    _ => false,
                }
            }
            syn::Meta::Path(p) => p.is_ident("debug_assertions"),
            _ => false,
        }
    }
}

/// The forbidden paths one file's compiled items name.
struct Check<'a> {
    build: Build<'a>,
    found: Vec<String>,
}

impl Check<'_> {
    fn note(&mut self, path: &str) {
        let path = path.trim_start_matches("::");
        if let Some(f) = FORBIDDEN
            .iter()
            .find(|f| path == **f || path.starts_with(&format!("{f}::")))
        {
            self.found.push(f.to_string());
        }
    }

    fn use_paths(tree: &syn::UseTree, prefix: String, out: &mut Vec<String>) {
        let join = |name: String| match prefix.is_empty() {
            true => name,
            false => format!("{prefix}::{name}"),
        };
        match tree {
            syn::UseTree::Path(p) => Self::use_paths(&p.tree, join(p.ident.to_string()), out),
            syn::UseTree::Name(n) => out.push(join(n.ident.to_string())),
            syn::UseTree::Rename(r) => out.push(join(r.ident.to_string())),
            syn::UseTree::Glob(_) => out.push(prefix),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    Self::use_paths(t, prefix.clone(), out);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Check<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            _ => return visit::visit_item(self, item),
        };
        if self.build.keeps(attrs) {
            visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            _ => return visit::visit_impl_item(self, item),
        };
        if self.build.keeps(attrs) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        Self::use_paths(&item.tree, String::new(), &mut paths);
        for p in paths {
            self.note(&p);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let text = path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        self.note(&text);
        visit::visit_path(self, path);
    }

    /// A macro's arguments are tokens, not paths: read as text.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let text = mac.tokens.to_string().replace(' ', "");
        for f in FORBIDDEN {
            if text.contains(&format!("{f}::")) {
                self.found.push(f.to_string());
            }
        }
        visit::visit_macro(self, mac);
    }
}
