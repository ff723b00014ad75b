//! Refuses to build a scheme whose implementation leaks its key through
//! timing on the target's core (`ciphermeter ct`), unless the build insists
//! (`CIPHERMETER_ALLOW_LEAKY=1`, as `--allow-leaky` elsewhere). Read from
//! `data/constant-time/leaks.tsv`, which `scripts/ct-sweep` writes from the
//! verdict tables, so the build needs no JSON parser. Shared by build.rs and
//! this crate's tests.

/// The device core a Rust target builds for, as the verdict tables name it.
/// Every AVR is judged by the ATmega1284P's timing, the only one simulated.
pub fn device_target(triple: &str) -> Option<&'static str> {
    match triple {
        "thumbv6m-none-eabi" => Some("cortex-m0plus"),
        "thumbv7m-none-eabi" => Some("cortex-m3"),
        "thumbv7em-none-eabi" | "thumbv7em-none-eabihf" => Some("cortex-m4"),
        "riscv32imc-unknown-none-elf" => Some("riscv32imc"),
        t if t.starts_with("avr") => Some("atmega1284p"),
        _ => None,
    }
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
