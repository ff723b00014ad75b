//! Refuses a C library build that could not seal its one scheme (its
//! family's or backend's code left out: build/contents.rs) or whose scheme
//! leaks on its target's core (build/leaky.rs); writes what the build
//! contains for `cm_implementation` and says it in warnings.

#[path = "build/contents.rs"]
mod contents;
#[path = "build/leaky.rs"]
mod leaky;
#[path = "src/sealable.rs"]
mod sealable;

use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let root = manifest.join("../..");
    let table = root.join("data/constant-time/leaks.tsv");
    let seal_manifest = root.join("crates/seal/Cargo.toml");
    for path in [&table, &seal_manifest, &root.join("data/constant-time")] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!("cargo:rerun-if-changed={}", leaky::TARGETS);
    for var in [
        "CIPHERMETER_SCHEME",
        "CIPHERMETER_OSCORE",
        "CIPHERMETER_BACKEND",
        "CIPHERMETER_ALLOW_LEAKY",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
    };
    let tsv = read(&table);
    let ffi_manifest = read(&manifest.join("Cargo.toml"));
    let triple = std::env::var("TARGET").expect("cargo sets it");
    // Empty is unset, as the core's build script reads it.
    let scheme = std::env::var("CIPHERMETER_SCHEME")
        .ok()
        .filter(|s| !s.is_empty());
    let backend = std::env::var("CIPHERMETER_BACKEND").unwrap_or_else(|_| "rustcrypto".into());
    let allow = std::env::var("CIPHERMETER_ALLOW_LEAKY").is_ok_and(|v| v == "1");

    let features = contents::seal_features(&ffi_manifest, &read(&seal_manifest), |f| {
        let var = format!("CARGO_FEATURE_{}", f.to_uppercase().replace('-', "_"));
        std::env::var_os(var).is_some()
    });
    let flag = |f: &str| contents::ffi_feature(&ffi_manifest, f);
    let oscore = std::env::var("CIPHERMETER_OSCORE")
        .ok()
        .filter(|s| !s.is_empty());
    let oscore_built = std::env::var_os("CARGO_FEATURE_OSCORE").is_some();
    let schemes = contents::oscore(oscore.as_deref(), scheme.as_deref(), &backend, oscore_built);
    let schemes = schemes
        .and_then(|()| contents::schemes(scheme.as_deref(), &backend, &features, flag))
        .and_then(|s| {
            let warnings = leaky::check(&tsv, &triple, scheme.as_deref(), &backend, allow)?;
            Ok((s, warnings))
        });
    let (schemes, warnings) = schemes.unwrap_or_else(|refusal| {
        eprintln!("error: {refusal}");
        std::process::exit(2);
    });
    for w in warnings {
        println!("cargo:warning={w}");
    }

    let target = leaky::device_target(&triple);
    let verdicts = target.as_ref().and_then(|t| {
        std::fs::read_to_string(root.join(format!("data/constant-time/{t}.json"))).ok()
    });
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets it");
    let mut lines = Vec::new();
    for (name, b) in &schemes {
        let timing = match &target {
            Some(t) => contents::timing(
                t,
                verdicts.as_deref(),
                &leaky::build_id(name, b.name()),
                &tsv,
            ),
            None => format!("not checked on {triple} (a host build)"),
        };
        let implementation = contents::implementation(*b, c_version(&root, *b).as_deref());
        lines.push((
            name,
            contents::describe(name, &implementation, &version, &timing),
        ));
    }
    // Said where a C library is built (release, as docs/c-library.md builds
    // it), not on every debug build of the workspace that compiles this crate.
    if std::env::var("PROFILE").as_deref() == Ok("release") {
        for (_, line) in &lines {
            println!("cargo:warning=built: {line}");
        }
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let rows: String = lines
        .iter()
        .map(|(name, line)| format!("    ({name:?}, c{line:?}),\n"))
        .collect();
    std::fs::write(
        out.join("contents.rs"),
        format!("/// Each scheme this build seals and its implementation.\nconst CONTENTS: &[(&str, &core::ffi::CStr)] = &[\n{rows}];\n"),
    )
    .expect("OUT_DIR is writable");
    let comment: String = lines.iter().map(|(_, l)| format!(" *   {l}\n")).collect();
    std::fs::write(
        out.join("ciphermeter_seal_build.h"),
        format!(
            "/* What this build of ciphermeter-seal-ffi for {triple} contains\n * (cm_implementation says the same):\n{comment} */\n"
        ),
    )
    .expect("OUT_DIR is writable");
}

/// A C backend's version, from the sources crates/clib compiles
/// (scripts/fetch-clibs puts them in crates/clib/vendor/).
fn c_version(root: &Path, backend: seal::Backend) -> Option<String> {
    type Find = fn(&str) -> Option<String>;
    let (prefix, file, find): (&str, &str, Find) = match backend {
        seal::Backend::Mbedtls => (
            "mbedtls-sys-auto-",
            "vendor/include/mbedtls/version.h",
            |t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("#define MBEDTLS_VERSION_STRING "))
                    .map(|v| v.trim().trim_matches('"').to_string())
            },
        ),
        // Its changelog opens with the version it is.
        seal::Backend::Monocypher => ("monocypher-sys-", "Monocypher/CHANGELOG.md", |t| {
            t.lines().next().map(|v| v.trim().to_string())
        }),
        _ => return None,
    };
    let vendor = root.join("crates/clib/vendor");
    let dir = std::fs::read_dir(&vendor).ok()?.flatten().find(|e| {
        e.file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(prefix))
    })?;
    find(&std::fs::read_to_string(dir.path().join(file)).ok()?)
}
