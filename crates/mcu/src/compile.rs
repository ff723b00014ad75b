//! Builds one firmware per algorithm (and the simavr harness).
//!
//! One cargo feature per build keeps failures apart: an algorithm whose crate
//! does not build for a target fails its own build, with the compiler's
//! reason, and the others still run.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{McuError, Target, firmware_dir};

/// Where firmware builds go: CIPHERMETER_FIRMWARE_TARGET_DIR, else
/// `$CARGO_TARGET_DIR/firmware`, else `firmware/target`; cargo's builds in
/// `by-target/TARGET`, the ELF copies in `elf/TARGET`.
pub fn target_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CIPHERMETER_FIRMWARE_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir).join("firmware"),
        None => firmware_dir().join("target"),
    }
}

/// Where cargo builds firmware for `target`: a directory of its own, so two
/// runs (parallel tests, or sweeps of two targets) build for two targets at
/// once; one shared directory made every build wait for cargo's lock.
fn cargo_target_dir(target: Target) -> PathBuf {
    target_dir().join("by-target").join(target.name())
}

/// Serialises build-and-copy between concurrent runs sharing `dir` (cargo's
/// own lock is released before we copy the ELF out).
fn build_lock(dir: &Path) -> Result<File, McuError> {
    std::fs::create_dir_all(dir)?;
    let file = File::create(dir.join("ciphermeter-build.lock"))?;
    file.lock()?;
    Ok(file)
}

/// The cargo features of a build: the algorithm's own feature, or, for a
/// sealing scheme (`aead:aes-128-gcm`), `seal` and the core's features the
/// scheme needs (`Spec::features`), so a scheme id alone selects the build.
pub fn features(target: Target, id: &str) -> Result<String, String> {
    // `sha512@monocypher`: the algorithm's feature and the implementation's.
    let (alg, imp) = crate::implementation::split_build_id(id);
    if !alg.contains(':') {
        return Ok(match imp.feature() {
            Some(feature) => format!("{alg},{feature}"),
            None => alg.to_string(),
        });
    }
    let spec = seal::oscore_build::spec(alg)
        .ok_or_else(|| format!("'{alg}' is not a canonical scheme name"))?;
    // An OSCORE build (`oscore:aes-128-gcm`): its core scheme's code, and OSCORE.
    let mut features = match seal::oscore_build::core_scheme(alg) {
        Some(_) => vec!["seal-oscore".to_string()],
        None => vec!["seal".to_string()],
    };
    for f in spec.features().into_iter().filter(|f| !f.is_empty()) {
        features.push(format!("seal/{f}"));
    }
    // `aead:aes-128-ccm@ciphermeter`: the sealing core with that backend's
    // code (CIPHERMETER_BACKEND, set by `command_with`, picks it).
    if let Some(backend) = sealing_backend(id)?
        && backend != seal::Backend::RustCrypto
    {
        features.push(format!("seal/backend-{}", backend.name()));
    }
    // AVR copies constant tables to its 16 KiB of RAM.
    if target.is_avr() && spec.features().contains(&"in-project") {
        features.push("seal/compact-tables".into());
    }
    Ok(features.join(","))
}

/// The sealing core's backend of a scheme build (`aead:aes-128-ccm@ciphermeter`);
/// none for a primitive's build. An implementation that is no backend of the
/// core, or one without every primitive of the scheme, is refused.
pub fn sealing_backend(id: &str) -> Result<Option<seal::Backend>, String> {
    let (alg, imp) = crate::implementation::split_build_id(id);
    if !alg.contains(':') || seal::oscore_build::spec(alg).is_none() {
        return Ok(None);
    }
    // The registry's mapping and coverage (device-facts `Implementation`).
    let backend = imp.sealing_backend().ok_or_else(|| {
        format!(
            "{} is not a backend of the sealing core yet; its primitives are measured alone",
            imp.label()
        )
    })?;
    if !imp.seals(alg) {
        return Err(format!(
            "{} does not have every primitive of {alg} (it has {})",
            imp.label(),
            backend.summary()
        ));
    }
    Ok(Some(backend))
}

/// The Cargo invocation for one algorithm (or sealing scheme) on one target.
pub fn command(target: Target, feature: &str, sizes: &[usize]) -> Command {
    let features = features(target, feature).unwrap_or_else(|_| feature.to_string());
    command_with(target, feature, &features, sizes)
}

fn command_with(target: Target, feature: &str, features: &str, sizes: &[usize]) -> Command {
    let mut cmd = Command::new("cargo");
    cmd.arg(format!("+{}", target.toolchain()))
        .arg("build")
        .arg("--release");
    if target.is_avr() {
        cmd.arg("-Zbuild-std=core");
    }
    cmd.args([
        "--target",
        target.rust_target(),
        "--features",
        features,
        "--quiet",
        "--color",
        "never",
    ]);
    let (scheme, _) = crate::implementation::split_build_id(feature);
    if scheme.contains(':') {
        // An OSCORE build names its core scheme and its algorithm apart.
        match seal::oscore_build::core_scheme(scheme) {
            Some(core) => {
                cmd.env("CIPHERMETER_SCHEME", core);
                let alg = seal::oscore_build::alg_name(scheme).unwrap_or_default();
                cmd.env("CIPHERMETER_OSCORE", alg)
            }
            None => cmd
                .env("CIPHERMETER_SCHEME", scheme)
                .env_remove("CIPHERMETER_OSCORE"),
        };
        let backend = sealing_backend(feature).ok().flatten();
        cmd.env(
            "CIPHERMETER_BACKEND",
            backend.unwrap_or(seal::Backend::RustCrypto).name(),
        );
    } else {
        cmd.env_remove("CIPHERMETER_SCHEME");
        cmd.env_remove("CIPHERMETER_BACKEND");
        cmd.env_remove("CIPHERMETER_OSCORE");
    }
    cmd.current_dir(firmware_dir())
        .env("CARGO_TARGET_DIR", cargo_target_dir(target))
        .env(
            "CIPHERMETER_SIZES",
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(","),
        );
    // The firmware's own .cargo/config.toml sets target-cpu and link flags;
    // flags or a toolchain pin from the calling environment would override them.
    // RUSTC_BOOTSTRAP makes stable act as nightly, and crates that probe for
    // nightly then compile other code: it moved an AES-128 count by 643.
    for var in UNSET_FOR_FIRMWARE {
        cmd.env_remove(var);
    }
    if let Some((var, flags)) = target.rustflags_env() {
        cmd.env(var, flags);
    }
    cmd
}

/// What a firmware build never takes from the calling environment.
pub(crate) const UNSET_FOR_FIRMWARE: [&str; 7] = [
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "RUSTUP_TOOLCHAIN",
    "CARGO_BUILD_TARGET",
    "RUSTC",
    "RUSTC_BOOTSTRAP",
];

/// Builds `feature` for `target`; returns a private copy of the ELF, or the
/// compiler's reason on failure.
pub fn firmware(target: Target, feature: &str, sizes: &[usize]) -> Result<PathBuf, String> {
    build(target, feature, command(target, feature, sizes), sizes, "")
}

/// The measuring firmware for a board on the desk (`firmware/examples/board`,
/// `mcu --board`): the build of `id` (an algorithm or sealing scheme, with
/// `@IMPL`) with the board's counter, UART and marker pin instead of the
/// simulator's, at the sizes the tables measure (`crate::build_sizes`).
pub fn board(board: device_facts::Board, id: &str, sizes: &[usize]) -> Result<PathBuf, String> {
    let target = board.target();
    let mut command = command_with(target, id, &features(target, id)?, sizes);
    command
        .args(["--example", "board"])
        .env("CIPHERMETER_BOARD", board.name());
    let prefix = format!("board-{board}-");
    build_artifact(target, id, command, sizes, &prefix, "examples/board")
}

/// The sealing device of `device-send` for `scheme` (a canonical scheme name):
/// the `uplink` build, which seals to the UART instead of benchmarking.
pub fn uplink(target: Target, scheme: &str) -> Result<PathBuf, String> {
    let features = format!("uplink,{}", features(target, scheme)?);
    build(
        target,
        scheme,
        command_with(target, scheme, &features, &[16]),
        &[16],
        "uplink-",
    )
}

/// The constant-time check's build (crates/mcu `ct`): a scheme's sealing
/// build with `ct`, which seals on [`crate::ct::RUNS`] secrets instead of
/// measuring costs, or the planted leaks ([`crate::ct::PLANTS`]).
pub fn ct(target: Target, id: &str) -> Result<PathBuf, String> {
    // Buffers for the 40-byte plaintext sealed whole: an EtM message with a
    // 64-byte tag and its scratch room.
    let sizes = [256];
    let features = if id == crate::ct::PLANTS {
        "ct-plants".to_string()
    } else {
        format!("ct,{}", features(target, id)?)
    };
    build(
        target,
        id,
        command_with(target, id, &features, &sizes),
        &sizes,
        "ct-",
    )
}

fn build(
    target: Target,
    feature: &str,
    command: Command,
    sizes: &[usize],
    prefix: &str,
) -> Result<PathBuf, String> {
    build_artifact(
        target,
        feature,
        command,
        sizes,
        prefix,
        "ciphermeter-firmware",
    )
}

/// [`build`] of `artifact`, the path cargo writes under the release
/// directory (`ciphermeter-firmware`, or `examples/board`).
fn build_artifact(
    target: Target,
    feature: &str,
    mut command: Command,
    sizes: &[usize],
    prefix: &str,
    artifact: &str,
) -> Result<PathBuf, String> {
    let cargo_dir = cargo_target_dir(target);
    let _lock = build_lock(&cargo_dir).map_err(|e| e.to_string())?;
    let cached = crate::build_cache::entry(&command);
    let built = match cached.as_ref().and_then(|c| c.get()) {
        Some(elf) => elf.to_path_buf(),
        None => {
            let start = std::time::Instant::now();
            let output = command
                .output()
                .map_err(|e| format!("cannot run cargo: {e}"))?;
            if !output.status.success() {
                return Err(compiler_reason(&String::from_utf8_lossy(&output.stderr)));
            }
            let built =
                cargo_dir
                    .join(target.rust_target())
                    .join("release")
                    .join(if target.is_avr() {
                        format!("{artifact}.elf")
                    } else {
                        artifact.to_string()
                    });
            if let Some(cache) = &cached {
                cache.put(&built, start.elapsed().as_secs_f64())?;
            }
            built
        }
    };
    // One file per feature and sizes, replaced by an atomic rename: a
    // simulator still reading an earlier copy keeps its file, and two
    // builds with other sizes never share one (parallel tests do both).
    let dir = target_dir().join("elf").join(target.name());
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let sizes: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
    let file = feature.replace([':', '+', '@'], "_");
    let copy = dir.join(format!("{prefix}{file}-{}.elf", sizes.join("-")));
    let temp = copy.with_extension(format!("{}.tmp", std::process::id()));
    std::fs::copy(&built, &temp).map_err(|e| format!("cannot copy {}: {e}", built.display()))?;
    std::fs::rename(&temp, &copy).map_err(|e| format!("cannot place {}: {e}", copy.display()))?;
    Ok(copy)
}

/// The first compiler errors with their locations, in a few lines.
pub fn compiler_reason(stderr: &str) -> String {
    let mut keep = Vec::new();
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        if line.starts_with("error") && !line.starts_with("error: could not compile") {
            let mut entry = line.trim().to_string();
            if let Some(next) = lines.peek().filter(|l| l.trim_start().starts_with("-->")) {
                entry.push_str(&format!(" ({})", next.trim().trim_start_matches("--> ")));
            }
            keep.push(entry);
        }
        if keep.len() == 3 {
            break;
        }
    }
    // A C library's build script: the C compiler's errors (as cargo warnings)
    // or the script's own panic (sources missing, no compiler for the target).
    let mut lines = stderr.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(c_error) = line.split_once("cargo:warning=").map(|(_, w)| w.trim())
            && c_error.contains("error")
            && !keep.iter().any(|k: &String| k == c_error)
        {
            keep.push(c_error.to_string());
        }
        if line.contains("panicked at")
            && let Some(why) = lines.peek()
        {
            keep.push(why.trim().to_string());
        }
        if keep.len() >= 4 {
            break;
        }
    }
    keep.retain(|k| !k.starts_with("error: failed to run custom build command"));
    // A failed link says why only in the linker's notes (e.g. flash overflow).
    for line in stderr.lines() {
        let line = line.trim().trim_start_matches("= note:").trim();
        if [
            "overflowed by",
            "will not fit",
            "undefined reference",
            "undefined symbol",
            "relocation truncated",
        ]
        .iter()
        .any(|k| line.contains(k))
        {
            let text = line.rsplit(": ").next().unwrap_or(line).to_string();
            if !keep.contains(&text) {
                keep.push(text);
            }
        }
        if keep.len() == 5 {
            break;
        }
    }
    if keep.is_empty() {
        let tail: Vec<_> = stderr.lines().rev().take(3).collect();
        return tail.into_iter().rev().collect::<Vec<_>>().join(" | ");
    }
    keep.join("; ")
}

/// Compiles the simavr harness (C: libsimavr's API) if it is missing or stale.
pub fn harness() -> Result<PathBuf, McuError> {
    c_tool(
        "simavr-harness/harness.c",
        "cm-simavr",
        &["-O2", "-Wall"],
        &["-lsimavr", "-lelf"],
        "the simavr harness",
    )
}

/// Compiles the constant-time check's QEMU plugin (`ct-trace/qemu-plugin.c`)
/// if it is missing or stale.
pub fn qemu_plugin() -> Result<PathBuf, McuError> {
    c_tool(
        "ct-trace/qemu-plugin.c",
        "cm-ct-trace.so",
        &["-shared", "-fPIC", "-O2", "-Wall", "-Werror"],
        &[],
        "the constant-time check's QEMU plugin",
    )
}

/// Compiles the cycle estimate's QEMU plugin (`cycle-trace/flash-loads.c`,
/// which counts each region's reads from flash) if it is missing or stale.
pub fn flash_loads_plugin() -> Result<PathBuf, McuError> {
    c_tool(
        "cycle-trace/flash-loads.c",
        "cm-flash-loads.so",
        &["-shared", "-fPIC", "-O2", "-Wall", "-Werror"],
        &[],
        "the cycle estimate's flash-loads QEMU plugin",
    )
}

/// Compiles one C source of the firmware directory into the target dir.
fn c_tool(
    source: &str,
    output: &str,
    flags: &[&str],
    libraries: &[&str],
    what: &str,
) -> Result<PathBuf, McuError> {
    let _lock = build_lock(&target_dir())?;
    let source = firmware_dir().join(source);
    let binary = target_dir().join(output);
    if is_fresh(&binary, &source) {
        return Ok(binary);
    }
    let out = Command::new("cc")
        .args(flags)
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .args(libraries)
        .output()
        .map_err(|e| McuError::Failed(format!("cannot run cc for {what}: {e}")))?;
    if !out.status.success() {
        return Err(McuError::Failed(format!(
            "{what} does not compile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(binary)
}

fn is_fresh(binary: &Path, source: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    matches!((modified(binary), modified(source)), (Some(b), Some(s)) if b >= s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A caller's flags, toolchain pin or nightly switch never reach the
    /// firmware's compiler: each would move the counts.
    #[test]
    fn firmware_builds_unset_the_callers_compiler_settings() {
        let cmd = command(Target::CortexM4, "aes-128-ecb", &[16]);
        let removed: Vec<_> = cmd
            .get_envs()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect();
        for var in ["RUSTFLAGS", "RUSTUP_TOOLCHAIN", "RUSTC", "RUSTC_BOOTSTRAP"] {
            assert!(
                removed.iter().any(|r| r == var),
                "{var} not unset: {removed:?}"
            );
        }
    }

    #[test]
    fn compiler_reason_keeps_errors_and_locations() {
        let stderr = "warning: x\nerror[E0599]: no method named `permute_12`\n   --> src/asconcore.rs:128:20\n\
                      error: could not compile `ascon-aead128`\n";
        assert_eq!(
            compiler_reason(stderr),
            "error[E0599]: no method named `permute_12` (src/asconcore.rs:128:20)"
        );
        let link = "error: linking with `avr-gcc` failed: exit status: 1\n  = note: /usr/bin/ld: x.elf section `.text' will \
                    not fit in region `text'\n          /usr/bin/ld: region `text' overflowed by 114694 bytes\n";
        assert_eq!(
            compiler_reason(link),
            "error: linking with `avr-gcc` failed: exit status: 1; x.elf section `.text' will not fit in region `text'; \
             region `text' overflowed by 114694 bytes"
        );
    }
}
