//! Which schemes a request ranks, and why each other is left out: too weak
//! for `--min-security`, refused by `seal` (unless `--allow-legacy`), no
//! energy at the interval, or no seal path of the device's own. The host
//! costs each candidate (sealing it for real: `cost::scheme_cost`); this
//! keeps what ranks, with the device's implementation and engine rows.

use device_facts::cost_table::CostTable;
use device_facts::engine::Engine;
use seal::Scheme;
use seal::host::container::MessageContainer;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::cpu_source::CpuSource;
use crate::device_times::DeviceTimes;
use crate::scheme_cost::{SchemeCost, Setting};

/// What the reading needs besides integrity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Need {
    /// Encryption and authentication (AEAD or encrypt-then-MAC).
    Confidentiality,
    /// Authentication and integrity; plaintext may travel in clear (adds MACs).
    Integrity,
}

impl std::str::FromStr for Need {
    type Err = String;

    fn from_str(text: &str) -> Result<Need, String> {
        match text {
            "confidentiality" => Ok(Need::Confidentiality),
            "integrity" => Ok(Need::Integrity),
            _ => Err(format!(
                "unknown need '{text}'; expected confidentiality or integrity"
            )),
        }
    }
}

/// How an exclusion for want of the device's own seal path begins.
pub const NOT_ON_DEVICE: &str = "not on";
pub const NO_SEAL_PATH: &str = "no seal path measured on";

/// How a sealed reading travels: its container and, for the oscore
/// container, SCHC compression (`--compression`). What `recommend` ranks a
/// scheme in, one row each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wrap {
    pub container: MessageContainer,
    pub compression: Option<String>,
}

impl From<MessageContainer> for Wrap {
    fn from(container: MessageContainer) -> Wrap {
        Wrap {
            container,
            compression: None,
        }
    }
}

impl From<seal::Container> for Wrap {
    fn from(container: seal::Container) -> Wrap {
        MessageContainer::from(container).into()
    }
}

impl Wrap {
    /// The wraps `--container` and `--compression` ask to rank: each
    /// container, and the oscore container compressed too.
    pub fn all(containers: &[MessageContainer], compression: Option<&str>) -> Vec<Wrap> {
        let mut out = Vec::new();
        for &container in containers {
            out.push(container.into());
            if let Some(c) = compression.filter(|_| container.is_oscore()) {
                out.push(Wrap {
                    container,
                    compression: Some(c.to_string()),
                });
            }
        }
        out
    }
}

/// Every scheme the catalogue can build for this need (`seal::sealing_candidates`),
/// then, where confidentiality is asked for, the OSCORE builds (the oscore
/// container's schemes: `seal::oscore_build`).
pub fn candidates(need: Need) -> Vec<String> {
    let mut names = seal::sealing_candidates(need == Need::Integrity);
    if need != Need::Integrity {
        names.extend(seal::oscore_build::names().map(String::from));
    }
    names
}

/// A candidate's scheme: an OSCORE build's (`oscore:ALG`) or the core's.
pub fn parse_scheme(name: &str) -> Result<Scheme, seal::SealError> {
    match seal::oscore_build::core_scheme(name) {
        Some(_) => Scheme::oscore(name),
        None => Scheme::parse(name),
    }
}

/// "rustcrypto, ciphermeter": the implementations a device's rows may use.
pub fn allowed_names(times: Option<&DeviceTimes>) -> String {
    times
        .map(|t| t.allowed().iter().map(|i| i.name()).collect::<Vec<_>>())
        .unwrap_or_default()
        .join(", ")
}

/// What a request asks of every candidate.
pub struct Asked {
    pub min_security: u32,
    pub allow_legacy: bool,
    /// Each container (and compression) a scheme is ranked in ([`Wrap::all`]).
    pub wraps: Vec<Wrap>,
}

/// What the device has: its seal times, the implementations measured on its
/// core (each row's per-primitive choice) and the hardware engines ranked.
pub struct OnDevice<'a> {
    pub times: Option<&'a DeviceTimes>,
    pub implementations: Option<&'a CostTable>,
    pub engines: &'a [Engine],
}

/// The candidates costed: what ranks, what does not and why, and the link
/// costs of messages the interval left without an energy (shorter than their
/// active time), kept to say why if nothing else is ranked.
pub struct Choices {
    pub ranked: Vec<SchemeCost>,
    pub excluded: Vec<(String, String)>,
    pub too_short: Vec<link::LinkCost>,
}

/// `names` costed by `cost` (one row per scheme and wrap) and sorted into
/// [`Choices`]; `progress` hears each scheme that is costed.
pub fn choices(
    names: &[String],
    asked: &Asked,
    on: &OnDevice,
    setting: &Setting,
    progress: &mut dyn FnMut(usize, usize, &str),
    cost: &mut dyn FnMut(&str, Wrap) -> Result<SchemeCost, Error>,
) -> Result<Choices, Error> {
    let mut ranked = Vec::new();
    let mut excluded = Vec::new();
    let mut too_short = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let scheme = match parse_scheme(name) {
            Ok(s) => s,
            Err(e) => {
                excluded.push((name.clone(), format!("cannot be built: {e}")));
                continue;
            }
        };
        if scheme.security_bits() < asked.min_security {
            excluded.push((
                scheme.name().to_string(),
                format!(
                    "{} bits < --min-security {}",
                    scheme.security_bits(),
                    asked.min_security
                ),
            ));
            continue;
        }
        // The rule `seal` applies (legacy or broken parts, a short random nonce…):
        // a scheme `seal` refuses is never ranked among the safe ones.
        let insecurity = scheme.insecurity();
        if !insecurity.is_empty() && !asked.allow_legacy {
            excluded.push((
                scheme.name().to_string(),
                format!("{} (use --allow-legacy)", insecurity.join("; ")),
            ));
            continue;
        }
        progress(i + 1, names.len(), scheme.name());
        // An OSCORE build seals in the oscore container only, and it only them.
        let wraps = asked
            .wraps
            .iter()
            .filter(|w| w.container.is_oscore() == scheme.is_oscore());
        for wrap in wraps {
            let cost = cost(name, wrap.clone());
            // An OSCORE build the device did not measure (no simulated target,
            // or none of `--impl` has it) has no time this host could give.
            let cost = match cost {
                Err(Error::Invalid(why)) if scheme.is_oscore() => {
                    excluded.push((name.clone(), format!("{NO_SEAL_PATH} this device: {why}")));
                    continue;
                }
                other => other?,
            };
            // On a simulated device a scheme is a candidate only with the
            // device's own seal path: one that does not build, fit or pass
            // there (or was never measured with an allowed implementation)
            // is listed apart, never ranked with this host's time.
            if let CpuSource::HostInsteadOfDevice { target, why } = &cost.cpu_source {
                let why = match why {
                    Some(why) => format!("{NOT_ON_DEVICE} {target}: {why}"),
                    None => format!(
                        "{NO_SEAL_PATH} {target} with {} (run scripts/device-costs)",
                        allowed_names(on.times)
                    ),
                };
                excluded.push((cost.name().to_string(), why));
                continue;
            }
            if let Some(gap) = &cost.energy_gap {
                excluded.push((cost.name().to_string(), gap.clone()));
                too_short.extend(cost.link_cost);
                continue;
            }
            // The same message with each engine doing what it can of it.
            ranked.extend(crate::engine_cost::device_rows(
                cost,
                on.implementations,
                on.engines,
                setting,
            )?);
        }
    }
    Ok(Choices {
        ranked,
        excluded,
        too_short,
    })
}
