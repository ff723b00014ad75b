//! Refuses to build a scheme whose implementation leaks its key through
//! timing on the target's core (`ciphermeter ct`), unless the build insists
//! (`CIPHERMETER_ALLOW_LEAKY=1`, as `--allow-leaky` elsewhere). Read from
//! `data/constant-time/leaks.tsv`, which `scripts/ct-sweep` writes from the
//! verdict tables, so the build needs no JSON parser. Shared by build.rs and
//! this crate's tests.

/// Where the targets' files are (data/targets/NAME.toml).
pub const TARGETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/targets");

/// The device core a Rust target builds for, as the verdict tables name it:
/// the target whose file's `rust_target` has the triple's architecture, so
/// `thumbv7em-none-eabi` is judged as the Cortex-M4's `thumbv7em-none-eabihf`
/// and every AVR by the ATmega1284P's timing, the only one simulated. A
/// line scan, so the build needs no TOML parser.
pub fn device_target(triple: &str) -> Option<String> {
    let arch = |t: &str| t.split('-').next().unwrap_or(t).to_string();
    let mut files: Vec<_> = std::fs::read_dir(TARGETS)
        .unwrap_or_else(|e| panic!("cannot read {TARGETS}: {e}"))
        .map(|entry| entry.expect("a readable data/targets entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files.into_iter().find_map(|path| {
        let text = std::fs::read_to_string(&path).ok()?;
        let rust = text
            .lines()
            .find_map(|l| l.strip_prefix("rust_target = "))?
            .trim()
            .trim_matches('"');
        let name = path.file_stem()?.to_str()?.to_string();
        (arch(rust) == arch(triple)).then_some(name)
    })
}

/// The build id the verdicts name: the scheme, `@backend` unless RustCrypto's.
pub fn build_id(scheme: &str, backend: &str) -> String {
    if backend == "rustcrypto" {
        scheme.to_string()
    } else {
        format!("{scheme}@{backend}")
    }
}

/// The leaks on `target`: (build, where it leaks).
pub fn leaks<'a>(tsv: &'a str, target: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
    tsv.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.splitn(3, '\t');
            Some((cols.next()?, cols.next()?, cols.next().unwrap_or("")))
        })
        .filter(move |(t, _, _)| *t == target)
        .map(|(_, build, place)| (build, place))
}

/// The build's verdict. One scheme that leaks is refused (`Err`, the
/// message); a library of several schemes is built, with a warning for each
/// of its backend's builds that leaks on the target (`Ok`, the warnings).
pub fn check(
    tsv: &str,
    triple: &str,
    scheme: Option<&str>,
    backend: &str,
    allow: bool,
) -> Result<Vec<String>, String> {
    let Some(target) = device_target(triple) else {
        return Ok(Vec::new());
    };
    let target = target.as_str();
    if let Some(scheme) = scheme {
        let id = build_id(scheme, backend);
        return match leaks(tsv, target).find(|(b, _)| *b == id) {
            Some((_, place)) if !allow => Err(format!(
                "{id}'s timing leaks the key on {target} (ciphermeter ct): {place}; choose \
                 another implementation (ciphermeter recommend names one), or build with \
                 CIPHERMETER_ALLOW_LEAKY=1"
            )),
            Some((_, place)) => Ok(vec![format!(
                "{id} leaks on {target}, built as CIPHERMETER_ALLOW_LEAKY asks: {place}"
            )]),
            None => Ok(Vec::new()),
        };
    }
    let ours = |b: &str| match b.split_once('@') {
        Some((_, imp)) => imp == backend,
        None => backend == "rustcrypto",
    };
    Ok(leaks(tsv, target)
        .filter(|(b, _)| ours(b))
        .map(|(b, place)| {
            format!("{b} leaks on {target} (ciphermeter ct): {place}; cm_seal it only knowing so")
        })
        .collect())
}
