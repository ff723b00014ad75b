//! Chip families a user may name with `--device` before a profile exists for
//! the chip (data/chips/families.toml): the unknown-device error says which
//! core the family has and which simulated target runs it, or the closest one
//! where none does yet, instead of a look-alike device name (an stm32l562
//! is no stm32l082).

use std::sync::OnceLock;

use serde::Deserialize;

const FILE: &str = include_str!("../../../data/chips/families.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChipFamily {
    /// Matched against the start of a device name, ignoring case, `-` and `_`.
    pub prefix: String,
    pub title: String,
    pub core: String,
    /// The simulated target that runs this core, if one does.
    #[serde(default)]
    pub runs_on: Option<String>,
    /// Where none does: the simulated target closest to it (a stand-in).
    #[serde(default)]
    pub closest: Option<String>,
    pub source: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Families {
    family: Vec<ChipFamily>,
}

/// Every family of the shipped file.
pub fn families() -> &'static [ChipFamily] {
    static PARSED: OnceLock<Vec<ChipFamily>> = OnceLock::new();
    PARSED.get_or_init(|| {
        toml::from_str::<Families>(FILE)
            .map(|f| f.family)
            .unwrap_or_else(|e| panic!("data/chips/families.toml: {e}"))
    })
}

fn squashed(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The family `name` belongs to by its longest matching prefix.
pub fn family_of(name: &str) -> Option<&'static ChipFamily> {
    let name = squashed(name);
    families()
        .iter()
        .map(|f| (squashed(&f.prefix), f))
        .filter(|(prefix, _)| name.starts_with(prefix.as_str()))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, f)| f)
}

/// What the unknown-device error adds for `name`: its family's core and
/// target where the name is a known chip's, and always how to give a device
/// of one's own.
pub fn unknown_device_hint(name: &str) -> String {
    let own = "; for a device of your own, write its profile (docs/devices.md) into \
               DIR/devices/NAME.toml and pass --data-dir DIR";
    let Some(f) = family_of(name) else {
        return own.to_string();
    };
    let target = match (&f.runs_on, &f.closest) {
        (Some(t), _) => format!("the simulated target {t} runs that core"),
        (None, Some(t)) => format!(
            "no simulated target runs that core yet; the closest is {t}, and a profile on it \
             is costed on a stand-in (its rows say so)"
        ),
        (None, None) => "no simulated target runs that core".to_string(),
    };
    format!(
        "; '{name}' looks like a {} ({}; {}): {target}{own}",
        f.title, f.core, f.source
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins_and_spelling_does_not_matter() {
        assert_eq!(family_of("rp2040-xyz").unwrap().prefix, "rp2040");
        assert_eq!(family_of("nRF54L15").unwrap().prefix, "nrf54");
        assert_eq!(family_of("esp32c6").unwrap().prefix, "esp32-c6");
        assert_eq!(family_of("STM32WBA55").unwrap().prefix, "stm32wba");
        assert_eq!(family_of("stm32wb55").unwrap().prefix, "stm32wb");
        assert!(family_of("pdp-11").is_none());
    }

    #[test]
    fn the_hint_names_the_core_the_target_and_the_data_dir() {
        let rp2040 = unknown_device_hint("rp2040-xyz");
        assert!(rp2040.contains("Cortex-M0+"), "{rp2040}");
        assert!(rp2040.contains("cortex-m0plus runs that core"), "{rp2040}");
        assert!(rp2040.contains("--data-dir"), "{rp2040}");
        let rp2350 = unknown_device_hint("rp2350");
        assert!(rp2350.contains("cortex-m33 runs that core"), "{rp2350}");
        assert!(unknown_device_hint("pdp-11").contains("--data-dir"));
    }

    #[test]
    fn every_family_names_a_real_target_and_at_most_one_way() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/targets");
        let targets: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension()? == "toml").then(|| p.file_stem().unwrap().to_string_lossy().into())
            })
            .collect();
        for f in families() {
            assert!(
                f.runs_on.is_none() || f.closest.is_none(),
                "{}: runs_on or closest, not both",
                f.prefix
            );
            for t in f.runs_on.iter().chain(&f.closest) {
                assert!(targets.contains(t), "{}: no target {t}", f.prefix);
            }
            assert!(!f.source.is_empty(), "{}: no source", f.prefix);
        }
    }
}
