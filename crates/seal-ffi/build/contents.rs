//! What a C library build contains, from the sealing core's own tables
//! (`Spec::features`, `Backend::covers`) and the two manifests' feature
//! tables: a library that could not seal its scheme is refused with the flag
//! that fixes it, instead of one whose every `cm_seal` says "not in this
//! build". Shared by build.rs and this crate's tests.

use std::collections::BTreeSet;

use seal::algorithm::{CipherAlg, MacAlg, StreamAlg};
use seal::container::write::Writer;
use seal::{Backend, Spec};

use crate::sealable::refusal;

/// The `[features]` table of a Cargo.toml: each feature and what it turns on.
/// A scan of our two manifests' layout, so the build needs no TOML parser.
pub fn feature_table(manifest: &str) -> Vec<(String, Vec<String>)> {
    let section: String = manifest
        .lines()
        .skip_while(|l| l.trim() != "[features]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    section
        .split(']')
        .filter_map(|entry| {
            let (name, list) = entry.split_once('=')?;
            let list = list.trim().strip_prefix('[')?;
            let items = list
                .split(',')
                .map(|i| i.trim().trim_matches('"').to_string())
                .filter(|i| !i.is_empty())
                .collect();
            Some((name.trim().to_string(), items))
        })
        .collect()
}

/// The sealing core's features on in this build: what the C library's
/// features that are `on` turn on in `seal`, and what those turn on in turn.
pub fn seal_features(
    ffi_manifest: &str,
    seal_manifest: &str,
    on: impl Fn(&str) -> bool,
) -> BTreeSet<String> {
    let mut features: BTreeSet<String> = feature_table(ffi_manifest)
        .into_iter()
        .filter(|(name, _)| on(name))
        .flat_map(|(_, items)| items)
        .filter_map(|i| {
            i.strip_prefix("seal/")
                .or_else(|| i.strip_prefix("seal?/"))
                .map(str::to_string)
        })
        .collect();
    let seal = feature_table(seal_manifest);
    loop {
        let implied: Vec<String> = seal
            .iter()
            .filter(|(name, _)| features.contains(name))
            .flat_map(|(_, items)| items.iter())
            .filter(|i| !i.contains('/') && !i.starts_with("dep:"))
            .filter(|i| !features.contains(*i))
            .cloned()
            .collect();
        if implied.is_empty() {
            return features;
        }
        features.extend(implied);
    }
}

/// The C library's feature that turns on the core's `seal_feature`.
pub fn ffi_feature(ffi_manifest: &str, seal_feature: &str) -> String {
    let wanted = format!("seal/{seal_feature}");
    feature_table(ffi_manifest)
        .into_iter()
        .find(|(_, items)| items.len() == 1 && items[0] == wanted)
        .map_or(wanted, |(name, _)| name)
}

/// A cipher's catalogue id, as scheme names spell it.
fn cipher_id(cipher: CipherAlg) -> String {
    let mut buf = [0u8; 64];
    let mut w = Writer::new(&mut buf);
    cipher.write_id(&mut w);
    let n = w.position();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Every scheme `cm_seal` may seal, in catalogue order.
fn every_sealable() -> Vec<String> {
    let mut names = Vec::new();
    for c in CipherAlg::every() {
        match c {
            CipherAlg::Aead(_) => names.push(format!("aead:{}", cipher_id(c))),
            CipherAlg::Stream(StreamAlg::Identity) => {}
            CipherAlg::Stream(_) => {
                names.extend(MacAlg::every().map(|m| format!("etm:{}+{}", cipher_id(c), m.id())))
            }
            CipherAlg::Block(..) => {}
        }
    }
    names.retain(|n| Spec::parse(n).is_some_and(|s| refusal(&s).is_none()));
    names
}

/// The schemes a build seals and the backend each seals with, or why the
/// build could not seal its one scheme (the message names the fix).
/// `features` are the core's features on; `flag` gives the C library's
/// feature for one of them.
pub fn schemes(
    scheme: Option<&str>,
    backend: &str,
    features: &BTreeSet<String>,
    flag: impl Fn(&str) -> String,
) -> Result<Vec<(String, Backend)>, String> {
    let device_backends = || {
        Backend::ALL
            .iter()
            .filter(|b| !b.host_only())
            .map(|b| b.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(chosen) = Backend::from_name(backend).filter(|b| !b.host_only()) else {
        return Err(format!(
            "CIPHERMETER_BACKEND={backend} is no backend of the C library: {}",
            device_backends()
        ));
    };
    let built = |feature: &str| feature.is_empty() || features.contains(feature);
    let Some(scheme) = scheme else {
        if chosen != Backend::RustCrypto {
            return Err(format!(
                "CIPHERMETER_BACKEND={backend} chooses the code of a one-scheme build; set \
                 CIPHERMETER_SCHEME too (a library of several schemes seals with RustCrypto's)"
            ));
        }
        return Ok(every_sealable()
            .into_iter()
            .filter(|n| Spec::parse(n).is_some_and(|s| s.features().iter().all(|f| built(f))))
            .map(|n| (n, Backend::RustCrypto))
            .collect());
    };
    let Some(spec) = Spec::parse(scheme) else {
        return Err(format!(
            "CIPHERMETER_SCHEME={scheme} is no scheme of the sealing core (named as \
             ciphermeter names them: aead:aes-128-ccm, etm:chacha20+hmac-sha256)"
        ));
    };
    if let Some(why) = refusal(&spec) {
        return Err(format!(
            "CIPHERMETER_SCHEME={scheme}: cm_seal refuses it in every build: {}",
            why.reason()
        ));
    }
    let backend_feature = format!("backend-{}", chosen.name());
    let mut missing: Vec<String> = spec
        .features()
        .into_iter()
        .filter(|f| !built(f))
        .map(str::to_string)
        .collect();
    if chosen != Backend::RustCrypto && !features.contains(&backend_feature) {
        missing.push(backend_feature);
    }
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|f| flag(f)).collect();
        return Err(format!(
            "CIPHERMETER_SCHEME={scheme} CIPHERMETER_BACKEND={backend} needs the sealing core's \
             {} code, which this build leaves out (every cm_seal would return \
             CM_ERR_NOT_BUILT): build with --features {}",
            missing.join(" and "),
            flags.join(",")
        ));
    }
    if !chosen.covers(&spec) {
        return Err(format!(
            "CIPHERMETER_BACKEND={backend} has no code for {scheme}: it has {}; choose \
             another backend (ciphermeter recommend --device D names the fastest) or leave \
             CIPHERMETER_BACKEND unset for RustCrypto's",
            chosen.summary()
        ));
    }
    Ok(vec![(scheme.to_string(), chosen)])
}

/// Whose code and which version: the C libraries' from their sources.
pub fn implementation(backend: Backend, c_version: Option<&str>) -> String {
    let c = |name: &str| match c_version {
        Some(v) => format!("{name} {v}"),
        None => format!("{name} (version unknown)"),
    };
    match backend {
        Backend::RustCrypto => "RustCrypto's crates".into(),
        Backend::Ciphermeter => "ciphermeter's own code (crates/primitives)".into(),
        Backend::Mbedtls => c("Mbed TLS"),
        Backend::Monocypher => c("Monocypher"),
        Backend::AwsLc => c("AWS-LC"),
    }
}

/// The constant-time verdict of build `id` on `target` from its verdict table
/// (`data/constant-time/TARGET.json`, its text) and the leaks' places.
pub fn timing(target: &str, table: Option<&str>, id: &str, tsv: &str) -> String {
    if let Some((_, place)) = crate::leaky::leaks(tsv, target).find(|(b, _)| *b == id) {
        return format!("leaks on {target} ({place})");
    }
    let build_line = format!("\"build\": \"{id}\"");
    let verdict = table.and_then(|t| {
        let mut lines = t
            .lines()
            .skip_while(|l| l.trim().trim_end_matches(',') != build_line);
        lines.next()?;
        lines.find_map(|l| l.trim().strip_prefix("\"verdict\": \""))
    });
    match verdict {
        Some(v) => format!("{} on {target}", v.trim_end_matches(['"', ','])),
        None => format!("not checked on {target}"),
    }
}

/// One line of what the build contains, as `cm_implementation` returns it.
pub fn describe(scheme: &str, implementation: &str, version: &str, timing: &str) -> String {
    format!("{scheme}: {implementation}, ciphermeter-seal-ffi {version}; timing: {timing}")
}

/// Refuses an OSCORE build (`CIPHERMETER_OSCORE=ALG` beside its core scheme,
/// as `seal::oscore_build` pairs them) that could not protect a reading:
/// `cm_oscore_context_*` would return CM_ERR_NOT_BUILT for every context.
pub fn oscore(
    oscore: Option<&str>,
    scheme: Option<&str>,
    backend: &str,
    oscore_built: bool,
) -> Result<(), String> {
    use seal::oscore_build::{PREFIX, core_scheme, covers, names};
    if let Some(alg) = scheme.and_then(|s| s.strip_prefix(PREFIX)) {
        let core = core_scheme(&format!("{PREFIX}{alg}")).unwrap_or("its core scheme");
        return Err(format!(
            "CIPHERMETER_SCHEME={PREFIX}{alg}: an OSCORE build is its core scheme's code with \
             the algorithm beside it: CIPHERMETER_SCHEME={core} CIPHERMETER_OSCORE={alg}"
        ));
    }
    let Some(alg) = oscore else {
        return Ok(());
    };
    let id = format!("{PREFIX}{alg}");
    let Some(core) = core_scheme(&id) else {
        let known: Vec<_> = names().filter_map(|n| n.strip_prefix(PREFIX)).collect();
        return Err(format!(
            "CIPHERMETER_OSCORE={alg} is no OSCORE build: one of {}",
            known.join(", ")
        ));
    };
    if scheme != Some(core) {
        return Err(format!(
            "CIPHERMETER_OSCORE={alg} runs on {core}'s code: set CIPHERMETER_SCHEME={core}"
        ));
    }
    if !oscore_built {
        return Err(format!(
            "CIPHERMETER_OSCORE={alg} needs cm_oscore_*, which this build leaves out: build \
             with --features oscore"
        ));
    }
    let b = Backend::from_name(backend).filter(|b| covers(*b, &id));
    if b.is_none() {
        return Err(format!(
            "{id} is not sealed by {backend}'s code (its 8-byte-tag AES-CCM is RustCrypto's \
             ccm crate's alone): CIPHERMETER_BACKEND=rustcrypto"
        ));
    }
    Ok(())
}
