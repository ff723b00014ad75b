//! Who wrote the code a firmware build measures: RustCrypto's crates (the
//! default, and what the sealing core runs), ours in crates/primitives, a
//! C library device teams link (Mbed TLS, Monocypher), compiled from its
//! sources for the target (firmware/build.rs, scripts/fetch-clibs), or an
//! assembly-class crate for one core (`p256-cortex-m4`, `salty`: the Cortex-M4's).

use std::{fmt, str::FromStr};

use serde::{Deserialize, Serialize};

use crate::{FactsError, Target};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Implementation {
    #[serde(rename = "rustcrypto")]
    RustCrypto,
    Ciphermeter,
    #[serde(rename = "mbedtls")]
    MbedTls,
    Monocypher,
    #[serde(rename = "p256-cortex-m4")]
    P256CortexM4,
    Salty,
}

use Implementation::*;

/// The firmware algorithms each implementation other than RustCrypto has
/// (RustCrypto has them all). `firmware/src/algorithms/mod.rs` names the
/// type of each pair; `tests::every_pair_is_picked_in_the_firmware` holds
/// the two lists together.
const OFFERS: &[(Implementation, &[&str])] = &[
    (
        Ciphermeter,
        &[
            "aes-128-ecb",
            "aes-256-ecb",
            "aes-128-ctr",
            "aes-256-ctr",
            "aes-128-gcm",
            "aes-256-gcm",
            "aes-128-ccm",
            "aes-256-ccm",
            "chacha20-poly1305",
            "ascon-aead128",
            "sha3-256",
            "sha3-512",
            "hmac-sha3-256",
            "hmac-sha3-512",
            "x25519",
            "ed25519",
        ],
    ),
    (
        MbedTls,
        &[
            "aes-128-ecb",
            "aes-256-ecb",
            "aes-128-ctr",
            "aes-256-ctr",
            "aes-128-gcm",
            "aes-256-gcm",
            "aes-128-ccm",
            "aes-256-ccm",
            "chacha20-poly1305",
            "sha256",
            "sha512",
            "hmac-sha256",
            "hmac-sha512",
            "p256-ecdh",
            "p256-ecdsa",
        ],
    ),
    (
        Monocypher,
        &[
            "chacha20-poly1305",
            "sha512",
            "hmac-sha512",
            "x25519",
            "ed25519",
        ],
    ),
    // EDHOC's handshake with its P-256 operations from the assembly.
    (P256CortexM4, &["p256-ecdh", "p256-ecdsa", "edhoc-m3-s2"]),
    (Salty, &["x25519", "ed25519"]),
];

/// Study 003's message builds (`message-*`, firmware/src/algorithms/message.rs)
/// an implementation has whole: every primitive of the scheme its own.
/// Measured when asked by name (`reproduce tiny-security --impl`), never
/// by `--impl` alone.
const MESSAGE_OFFERS: &[(Implementation, &[&str])] = &[
    (
        Ciphermeter,
        &[
            "message-aes-128-gcm",
            "message-aes-256-gcm",
            "message-aes-128-eax",
            "message-aes-256-eax",
            "message-hmac-sha3-256",
            "message-hmac-sha3-512",
            "message-etm-aes-128-hmac-sha3-256",
            "message-etm-aes-128-hmac-sha3-512",
            "message-etm-aes-256-hmac-sha3-256",
            "message-etm-aes-256-hmac-sha3-512",
        ],
    ),
    (
        MbedTls,
        &[
            "message-aes-128-gcm",
            "message-aes-256-gcm",
            "message-hmac-sha256",
            "message-hmac-sha512",
            "message-etm-aes-128-hmac-sha256",
            "message-etm-aes-128-hmac-sha512",
            "message-etm-aes-256-hmac-sha256",
            "message-etm-aes-256-hmac-sha512",
        ],
    ),
    (Monocypher, &["message-hmac-sha512"]),
];

/// Firmware algorithms only a C library has here: RustCrypto has every other.
const C_ONLY: &[&str] = &["x25519", "ed25519", "p256-ecdh", "p256-ecdsa"];

impl Implementation {
    pub const ALL: [Implementation; 6] = [
        RustCrypto,
        Ciphermeter,
        MbedTls,
        Monocypher,
        P256CortexM4,
        Salty,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RustCrypto => "rustcrypto",
            Ciphermeter => "ciphermeter",
            MbedTls => "mbedtls",
            Monocypher => "monocypher",
            P256CortexM4 => "p256-cortex-m4",
            Salty => "salty",
        }
    }

    /// How a sentence names it ("use Monocypher's ChaCha20-Poly1305").
    pub fn label(self) -> &'static str {
        match self {
            RustCrypto => "RustCrypto",
            Ciphermeter => "ciphermeter",
            MbedTls => "Mbed TLS 2.28",
            Monocypher => "Monocypher 4",
            P256CortexM4 => "P256-Cortex-M4 (Emill's assembly, p256-cortex-m4-sys 0.1)",
            Salty => "salty 0.3 (Haase's Cortex-M4 field assembly)",
        }
    }

    /// The firmware feature that selects it (none for RustCrypto).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            RustCrypto => None,
            Ciphermeter => Some("impl-ciphermeter"),
            MbedTls => Some("impl-mbedtls"),
            Monocypher => Some("impl-monocypher"),
            P256CortexM4 => Some("impl-p256-cortex-m4"),
            Salty => Some("impl-salty"),
        }
    }

    pub fn is_c(self) -> bool {
        matches!(self, MbedTls | Monocypher)
    }

    /// The sealing core's backend that runs this implementation's code
    /// (crates/seal `backend`); none for one whose primitives are measured
    /// alone only (the C libraries, until their code is a backend).
    pub fn sealing_backend(self) -> Option<seal::Backend> {
        seal::Backend::from_name(self.name())
    }

    /// Whether it has every keyed primitive of the sealing scheme `name`
    /// as a backend of the sealing core ([`seal::Backend::covers`]).
    pub fn seals(self, name: &str) -> bool {
        self.sealing_backend()
            .is_some_and(|backend| seal::oscore_build::covers(backend, name))
    }

    /// Whether this implementation has the firmware algorithm `id` (a
    /// sealing scheme's canonical name: [`Implementation::seals`]).
    pub fn offers(self, id: &str) -> bool {
        if id.contains(':') {
            return self.seals(id);
        }
        match self {
            RustCrypto => !C_ONLY.contains(&id),
            other => OFFERS
                .iter()
                .chain(MESSAGE_OFFERS)
                .any(|(i, ids)| *i == other && ids.contains(&id)),
        }
    }

    /// The algorithms it has, for messages (RustCrypto: the firmware's).
    pub fn offered(self) -> Vec<&'static str> {
        match self {
            RustCrypto => crate::algorithms::ALL
                .iter()
                .map(|a| a.id)
                .filter(|id| self.offers(id))
                .collect(),
            other => OFFERS
                .iter()
                .find(|(i, _)| *i == other)
                .map(|(_, ids)| ids.to_vec())
                .unwrap_or_default(),
        }
    }

    /// Why it cannot be built for `target`, if it cannot: the C libraries
    /// build everywhere (Debian's avr-gcc, arm-none-eabi-gcc and, for
    /// riscv32imc, riscv64-unknown-elf-gcc: firmware/build.rs); the
    /// assembly-class crates are ARMv7E-M code (UMAAL and the DSP
    /// instructions: `dsp` in the target's file), so the Cortex-M4 and the
    /// Cortex-M33 run them. A pair that cannot is named here with its
    /// reason, and its rows say it.
    pub fn unavailable_on(self, target: Target) -> Option<String> {
        match self {
            P256CortexM4 | Salty if !target.has_dsp() => Some(format!(
                "{} is ARMv7E-M assembly (UMAAL); {target} has no such instructions",
                self.label()
            )),
            _ => None,
        }
    }

    /// The implementations that build for `target`.
    pub fn on(target: Target) -> impl Iterator<Item = Implementation> {
        Implementation::ALL
            .into_iter()
            .filter(move |i| i.unavailable_on(target).is_none())
    }

    /// The runner's id of one build: the algorithm, with `@implementation`
    /// unless RustCrypto's (so the RustCrypto builds keep their names).
    pub fn build_id(self, algorithm: &str) -> String {
        match self {
            RustCrypto => algorithm.to_string(),
            other => format!("{algorithm}@{}", other.name()),
        }
    }
}

/// A build id split back into algorithm and implementation.
pub fn split_build_id(id: &str) -> (&str, Implementation) {
    match id.rsplit_once('@') {
        Some((alg, imp)) => (alg, imp.parse().unwrap_or(RustCrypto)),
        None => (id, RustCrypto),
    }
}

impl fmt::Display for Implementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Implementation {
    type Err = FactsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        Implementation::ALL
            .into_iter()
            .find(|i| i.name() == lower)
            .ok_or_else(|| {
                FactsError::Usage(format!(
                    "unknown implementation '{s}'; known: {}, all",
                    Implementation::ALL.map(|i| i.name()).join(", ")
                ))
            })
    }
}

/// `seal --impl NAME`: a backend of the sealing core, a host-only one
/// (aws-lc) or an implementation of the registry that is one (a hardware
/// engine may be measured before it is); the error lists the backends.
pub fn sealing_backend(name: &str) -> Result<seal::Backend, FactsError> {
    if let Some(b) = seal::Backend::from_name(name).filter(|b| b.host_only()) {
        return Ok(b);
    }
    let names = seal::Backend::ALL.map(|b| b.name());
    let imp: Implementation = name.parse().map_err(|_| {
        FactsError::Usage(format!(
            "--impl {name}: no such backend of the sealing core; the backends are {}{}",
            names.join(", "),
            names::did_you_mean(name, names)
        ))
    })?;
    imp.sealing_backend().ok_or_else(|| {
        FactsError::Usage(format!(
            "--impl {name}: {} is no backend of the sealing core yet; the backends are {}",
            imp.label(),
            names.join(", ")
        ))
    })
}

/// `--impl` as the user wrote it: names, comma separated, or `all`.
pub fn parse_list(spec: &str) -> Result<Vec<Implementation>, FactsError> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if part.eq_ignore_ascii_case("all") {
            return Ok(Implementation::ALL.to_vec());
        }
        let imp: Implementation = part.parse()?;
        if !out.contains(&imp) {
            out.push(imp);
        }
    }
    if out.is_empty() {
        return Err(FactsError::Usage(
            "--impl needs at least one implementation".into(),
        ));
    }
    Ok(out)
}

/// `recommend --impl`: the software implementations a row may be costed
/// with, and whether the device's hardware engines are ranked too. `all`
/// (the default) is every implementation and the engines, `software` every
/// implementation without them, `hardware` adds them to a list of names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub software: Vec<Implementation>,
    pub hardware: bool,
}

pub fn parse_choice(spec: &str) -> Result<Choice, FactsError> {
    let parts: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let is = |p: &&str, word: &str| p.eq_ignore_ascii_case(word);
    let hardware = parts.iter().any(|p| is(p, "hardware") || is(p, "all"));
    let names: Vec<&str> = parts
        .iter()
        .filter(|p| !is(p, "hardware"))
        .copied()
        .collect();
    let software = match names.as_slice() {
        [] if hardware => Vec::new(),
        _ if names.iter().any(|p| is(p, "software")) => Implementation::ALL.to_vec(),
        _ => parse_list(&names.join(",")).map_err(|e| {
            FactsError::Usage(format!("{e}; or software (no hardware engines), hardware"))
        })?,
    };
    Ok(Choice { software, hardware })
}

/// The build ids (`ID@IMPLEMENTATION`) of `--impl`: each algorithm named
/// (none named: every algorithm a chosen implementation other than
/// RustCrypto has) for each chosen implementation that has it. RustCrypto
/// alone keeps the ids as given (none named: every firmware algorithm and
/// sealing scheme). An algorithm no chosen implementation has is a usage
/// error.
pub fn expand(algorithms: &[String], chosen: &[Implementation]) -> Result<Vec<String>, FactsError> {
    if chosen == [RustCrypto] {
        return Ok(algorithms.to_vec());
    }
    let base: Vec<String> = if algorithms.is_empty() {
        let mut ids: Vec<String> = Vec::new();
        for imp in chosen.iter().filter(|i| **i != RustCrypto) {
            for id in imp.offered() {
                if !ids.iter().any(|i| i == id) {
                    ids.push(id.to_string());
                }
            }
        }
        // In the firmware's order, so each algorithm's rows sit together.
        ids.sort_by_key(|id| crate::algorithms::ALL.iter().position(|a| a.id == id));
        // Then the whole seal path of every scheme a device may be told to
        // use that a chosen backend of the sealing core covers.
        for name in seal::safe_candidates() {
            if chosen.iter().any(|i| *i != RustCrypto && i.seals(&name)) {
                ids.push(name);
            }
        }
        ids
    } else {
        algorithms.iter().map(|a| a.to_ascii_lowercase()).collect()
    };
    let mut out = Vec::new();
    for id in &base {
        let having: Vec<&Implementation> = chosen.iter().filter(|i| i.offers(id)).collect();
        if having.is_empty() {
            let names: Vec<&str> = chosen.iter().map(|i| i.label()).collect();
            return Err(FactsError::Usage(format!(
                "'{id}' has no implementation by {}: {}",
                names.join(" or "),
                chosen
                    .iter()
                    .map(|i| format!("{} has {}", i.label(), i.offered().join(", ")))
                    .collect::<Vec<_>>()
                    .join("; ")
            )));
        }
        for imp in having {
            out.push(imp.build_id(id));
        }
    }
    Ok(out)
}

/// The registry as `mcu --implementations` prints it, one implementation a
/// line: its name, what it is, and the targets it builds for (tab
/// separated). `scripts/device-costs` measures every name but RustCrypto's
/// (whose sweep writes the table afresh) from it, so a new implementation
/// reaches the tables without an edit to the script.
pub fn listing() -> String {
    let mut out = String::new();
    for imp in Implementation::ALL {
        let targets: Vec<&str> = Target::ALL
            .iter()
            .filter(|t| imp.unavailable_on(**t).is_none())
            .map(|t| t.name())
            .collect();
        out.push_str(&format!(
            "{}\t{}\t{}\n",
            imp.name(),
            imp.label(),
            targets.join(",")
        ));
    }
    out
}

pub fn is_rustcrypto(name: &str) -> bool {
    name == RustCrypto.name()
}

pub fn rustcrypto_name() -> String {
    RustCrypto.name().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `seal --impl`: every registry implementation that is a sealing
    /// backend by its name; anything else refused with the backends listed.
    #[test]
    fn sealing_backends_are_named_or_listed() {
        assert_eq!(
            sealing_backend("rustcrypto").unwrap(),
            seal::Backend::RustCrypto
        );
        assert_eq!(
            sealing_backend("ciphermeter").unwrap().name(),
            "ciphermeter"
        );
        let err = sealing_backend("wolfssl").unwrap_err().to_string();
        assert!(
            err.starts_with(
                "--impl wolfssl: no such backend of the sealing core; the backends are rustcrypto"
            ),
            "{err}"
        );
    }

    /// Every pair offered here is named in the firmware's `pick!` for that
    /// algorithm, so the runner never asks for a build that cannot compile.
    #[test]
    fn every_pair_is_picked_in_the_firmware() {
        let source =
            std::fs::read_to_string(crate::firmware_dir().join("src/algorithms/mod.rs")).unwrap();
        for (imp, ids) in OFFERS {
            for id in *ids {
                // Each `#[cfg(feature = ID)]` item up to the next; one of them is the call.
                let marker = format!("#[cfg(feature = \"{id}\")]");
                let picked = source.match_indices(&marker).any(|(at, _)| {
                    let call = &source[at..];
                    let end = call[1..].find("#[cfg(").map_or(call.len(), |e| e + 1);
                    call[..end].contains(&format!("{}:", imp.name().replace('-', "_")))
                });
                assert!(source.contains(&marker), "{id} has no firmware call");
                assert!(
                    picked,
                    "{id} offers {imp} but its firmware call does not pick it"
                );
            }
        }
    }

    /// The firmware's `all-IMPL` feature lists what `OFFERS` lists.
    #[test]
    fn the_firmware_test_lists_are_the_offers() {
        let manifest = std::fs::read_to_string(crate::firmware_dir().join("Cargo.toml")).unwrap();
        for (imp, ids) in OFFERS {
            let start = manifest
                .find(&format!("\nall-{} = [", imp.name()))
                .unwrap_or_else(|| panic!("no all-{imp} feature"));
            let list = &manifest[start..];
            let list = &list[..list.find(']').unwrap()];
            let listed: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
            assert_eq!(listed, *ids, "all-{imp}");
        }
    }

    /// Every portable implementation builds for every target, the C
    /// libraries on riscv32imc included (riscv64-unknown-elf-gcc): the
    /// runner measures them instead of writing a refusal row. The Cortex-M4
    /// assembly builds on the cores with UMAAL alone (the M4 and the M33 with
    /// its DSP extension), and says why elsewhere.
    #[test]
    fn every_portable_implementation_builds_on_every_target() {
        let umaal = [Target::CortexM4, Target::CortexM33];
        for imp in Implementation::ALL {
            for target in Target::ALL {
                let why = imp.unavailable_on(target);
                if matches!(imp, P256CortexM4 | Salty) && !umaal.contains(&target) {
                    assert!(
                        why.is_some_and(|w| w.contains("UMAAL")),
                        "{imp} on {target}"
                    );
                } else {
                    assert_eq!(why, None, "{imp} on {target:?}");
                }
            }
        }
    }

    #[test]
    fn software_leaves_the_engines_out_and_hardware_adds_them() {
        let all = parse_choice("all").unwrap();
        assert!(all.hardware && all.software.len() == Implementation::ALL.len());
        let software = parse_choice("software").unwrap();
        assert!(!software.hardware && software.software.len() == Implementation::ALL.len());
        assert_eq!(
            parse_choice("mbedtls,hardware").unwrap(),
            Choice {
                software: vec![MbedTls],
                hardware: true
            }
        );
        assert!(!parse_choice("mbedtls").unwrap().hardware);
        assert!(matches!(parse_choice("hardwre"), Err(FactsError::Usage(_))));
    }

    #[test]
    fn names_parse_and_all_means_all() {
        assert_eq!(parse_list("all").unwrap().len(), Implementation::ALL.len());
        assert_eq!(split_build_id("x25519@salty"), ("x25519", Salty));
        assert_eq!(
            "P256-Cortex-M4".parse::<Implementation>().unwrap(),
            P256CortexM4
        );
        assert_eq!(
            parse_list("MbedTLS,monocypher").unwrap(),
            [MbedTls, Monocypher]
        );
        assert!(matches!(parse_list("openssl"), Err(FactsError::Usage(_))));
        assert_eq!(split_build_id("sha512@monocypher"), ("sha512", Monocypher));
        assert_eq!(split_build_id("sha512"), ("sha512", RustCrypto));
        assert_eq!(MbedTls.build_id("sha256"), "sha256@mbedtls");
    }
}
