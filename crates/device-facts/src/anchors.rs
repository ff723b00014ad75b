//! Published figures our device counts are held to (`data/anchors/`): the
//! best portable code on the same core, cycles per byte, with their sources.

use serde::Deserialize;

use crate::{FactsError, Target};

#[derive(Clone, Debug, Deserialize)]
pub struct Anchors {
    /// What the figures are and whose.
    pub what: String,
    pub source: String,
    pub target: Target,
    pub entries: Vec<Anchor>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Anchor {
    /// As the firmware names it (aes-128-ecb, sha3-256).
    pub algorithm: String,
    /// encrypt, hash or mac, as the device tables name it.
    pub operation: String,
    /// The steady-state rate the source publishes (key setup and
    /// finalization apart): compare with a table entry's fitted slope.
    pub cycles_per_byte: f64,
}

/// rweather's Arduino Cryptography Library on an AVR at 16 MHz
/// (`data/anchors/avr-portable.json`): the ATmega1284P's anchors.
pub fn avr_portable() -> Result<Anchors, FactsError> {
    serde_json::from_str(include_str!("../../../data/anchors/avr-portable.json"))
        .map_err(|e| FactsError::Failed(format!("data/anchors/avr-portable.json: {e}")))
}

/// Published cycles of one operation by one implementation
/// (`data/anchors/cortex-m4-public-key.json`): the public-key code a
/// device table's rows are held to.
#[derive(Clone, Debug, Deserialize)]
pub struct OperationAnchors {
    pub what: String,
    pub target: Target,
    pub entries: Vec<OperationAnchor>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct OperationAnchor {
    /// As the firmware names it (p256-ecdh, x25519).
    pub algorithm: String,
    /// keygen, shared, sign or verify.
    pub operation: String,
    /// Whose rows are held to it (`Implementation::name`).
    pub implementation: String,
    pub cycles: f64,
    /// Where the figure is published, at which commit and line.
    pub source: String,
    /// The ratio the table's estimated cycles are held to; none for a record
    /// our code is only compared with.
    pub within: Option<f64>,
    /// Which way `within` holds: both ways for the code the source measured,
    /// at most for other code held to a published figure.
    #[serde(default)]
    pub bound: Bound,
    /// Why an entry is not held.
    #[serde(default)]
    pub note: Option<String>,
}

/// Which way an anchor's ratio holds.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// 1/within ≤ ours / published ≤ within: the same code as published.
    #[default]
    Either,
    /// ours / published ≤ within: other code, no slower than that.
    AtMost,
}

impl Bound {
    /// Whether `ratio` (ours / published) is held by `within`.
    pub fn holds(self, ratio: f64, within: f64) -> bool {
        match self {
            Bound::Either => (1.0 / within..=within).contains(&ratio),
            Bound::AtMost => ratio <= within,
        }
    }
}

/// Assembly-class elliptic-curve code on the Cortex-M4.
pub fn cortex_m4_public_key() -> Result<OperationAnchors, FactsError> {
    serde_json::from_str(include_str!(
        "../../../data/anchors/cortex-m4-public-key.json"
    ))
    .map_err(|e| FactsError::Failed(format!("data/anchors/cortex-m4-public-key.json: {e}")))
}

/// The anchors published for `target`'s core, if any: those whose file
/// names it as their `target`.
pub fn for_target(target: Target) -> Result<Option<Anchors>, FactsError> {
    let portable = [avr_portable()?];
    Ok(portable.into_iter().find(|a| a.target == target))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_avr_anchors_name_firmware_algorithms() {
        let anchors = super::avr_portable().unwrap();
        assert_eq!(anchors.target, crate::Target::Atmega1284p);
        let sha3 = anchors
            .entries
            .iter()
            .find(|a| a.algorithm == "sha3-256")
            .unwrap();
        assert_eq!(sha3.cycles_per_byte, 971.04);
        for a in &anchors.entries {
            // ChaCha20 and Poly1305 alone are the library's parts, not firmware builds.
            if !["chacha20", "poly1305"].contains(&a.algorithm.as_str()) {
                assert!(
                    crate::algorithms::find(&a.algorithm).is_some(),
                    "{}",
                    a.algorithm
                );
            }
        }
    }
}
