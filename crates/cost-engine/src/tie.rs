//! When the cheapest choices tie, and what decides among them.
//!
//! Energy per message is a model estimate: choices within [`TIE_PERCENT`] of
//! the cheapest (or sharing its rank by the CPU time's uncertainty) tie, and
//! their order by energy means nothing. On LoRaWAN every AEAD with a 16-byte
//! tag and a 12-byte nonce sends the same bytes, so a dozen tie there. Among
//! tied choices these decide, in this order, each keeping the choices it
//! prefers when any has it:
//! 1. **code the device already carries**: a scheme made of a primitive the
//!    link's own stack holds (data/links `stack.carries`: AES-128 in every
//!    LoRaWAN stack, AES-CCM in BLE and 802.15.4), whose code size is paid;
//! 2. **the protocol's standard**: the AEAD the link standardizes (`stack.standard`);
//! 3. **nonce-misuse resistance** (AES-GCM-SIV);
//! 4. **the least energy**.

use link::catalogue::LinkStack;
use serde::{Deserialize, Serialize};

use crate::scheme_cost::SchemeCost;

/// Energies per message within this many percent of the cheapest tie.
pub const TIE_PERCENT: f64 = 1.0;

/// The tied choices and the one picked.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TieGroup {
    /// The tied choices, the picked one first, then by energy.
    pub schemes: Vec<String>,
    /// How far the dearest is above the cheapest, in percent.
    pub within_percent: f64,
    pub chosen: String,
    /// The tie-breaker that decided: `carried code`, `protocol standard`,
    /// `misuse resistance` or `least energy`.
    pub decided_by: String,
    pub sentence: String,
}

/// Whether the scheme `name` (`aead:aes-128-ccm`, `etm:aes-128-ctr+hmac-sha256`)
/// is made of `primitive`: one of its parts is it, or it in a mode.
fn made_of(name: &str, primitive: &str) -> bool {
    name.split([':', '+'])
        .skip(1)
        .any(|part| part == primitive || part.starts_with(&format!("{primitive}-")))
}

/// The cycle model's error on the rows' CPU times, said, where those times
/// are its estimates: a difference inside it is not a difference.
pub fn model_error_said(rows: &[SchemeCost]) -> Option<String> {
    let error = rows.iter().find_map(|c| c.cpu_model_error.as_ref())?;
    Some(format!(
        "the cycle model's error on their CPU times ({})",
        error.describe()
    ))
}

fn misuse_resistant(name: &str) -> bool {
    name.contains("-siv")
}

/// Finds the tie among the first `leaders` of `ranked` (the schemes that
/// may lead: same class, already sorted by energy; `rank_one` says which
/// share the first rank), picks by the tie-breakers and moves the pick first.
pub fn break_tie(
    ranked: &mut [SchemeCost],
    energies_uj: &[f64],
    rank_one: &[bool],
    stack: Option<&LinkStack>,
) -> Option<TieGroup> {
    let best = *energies_uj.first()?;
    let size = energies_uj
        .iter()
        .zip(rank_one)
        .take_while(|(e, one)| **one || **e <= best * (1.0 + TIE_PERCENT / 100.0))
        .count();
    if size < 2 {
        return None;
    }
    let names: Vec<String> = ranked[..size]
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    // As said: a row an engine does part of names it.
    let shown: Vec<String> = ranked[..size].iter().map(|c| c.shown_name()).collect();
    let mut left: Vec<usize> = (0..size).collect();
    let mut decided_by = "least energy";
    let mut reasons = Vec::new();
    let mut narrow =
        |left: &mut Vec<usize>, keep: &dyn Fn(&str) -> bool, by: &'static str, why: String| {
            let kept: Vec<usize> = left.iter().copied().filter(|&i| keep(&names[i])).collect();
            if !kept.is_empty() && kept.len() < left.len() {
                reasons.push(format!("{why}, which {} of them use", kept.len()));
                *left = kept;
                decided_by = by;
            }
        };
    if let Some(s) = stack {
        narrow(
            &mut left,
            &|n| s.carries.iter().any(|p| made_of(n, p)),
            "carried code",
            format!(
                "the link's stack already carries {} ({})",
                s.carries.join(" and "),
                s.source
            ),
        );
        if let Some(standard) = &s.standard {
            narrow(
                &mut left,
                &|n| made_of(n, standard),
                "protocol standard",
                format!("the link's protocol standardizes {standard}"),
            );
        }
    }
    narrow(
        &mut left,
        &|n| misuse_resistant(n),
        "misuse resistance",
        "nonce-misuse resistance".to_string(),
    );
    if left.len() > 1 {
        decided_by = "least energy";
    }
    let chosen = left[0];
    // The pick first, the others in their order by energy.
    ranked[..=chosen].rotate_right(1);
    let mut schemes = vec![shown[chosen].clone()];
    schemes.extend(
        shown
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != chosen)
            .map(|(_, n)| n.clone()),
    );
    let within_percent = (energies_uj[size - 1] / best - 1.0) * 100.0;
    // Beyond TIE_PERCENT only a shared rank ties them: say its cause when
    // it is the cycle model's error.
    let why = match model_error_said(&ranked[..size]) {
        Some(error) if within_percent > TIE_PERCENT => format!("within {error}"),
        _ => "below what the model resolves".to_string(),
    };
    let mut sentence = format!(
        "These {size} tie within {within_percent:.2} % of the least energy per message, {why}: {}.",
        shown.join(", ")
    );
    if reasons.is_empty() {
        sentence.push_str(&format!(
            " No tie-breaker tells them apart, so the least energy picks {}.",
            shown[chosen]
        ));
    } else {
        sentence.push_str(&format!(
            " Among them {}; {} picks {}.",
            reasons.join("; "),
            if decided_by == "least energy" {
                "then the least energy"
            } else {
                "that"
            },
            shown[chosen]
        ));
    }
    Some(TieGroup {
        schemes,
        within_percent,
        chosen: shown[chosen].clone(),
        decided_by: decided_by.to_string(),
        sentence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scheme_is_made_of_its_parts_and_their_modes() {
        assert!(made_of("aead:aes-128-ocb", "aes-128"));
        assert!(made_of("etm:aes-128-ctr+cmac-aes-128", "cmac-aes-128"));
        assert!(made_of("aead:aes-128-ccm", "aes-128-ccm"));
        assert!(!made_of("aead:aes-256-gcm", "aes-128"));
        assert!(!made_of("aead:aes-128-gcm", "aes-128-ccm"));
        assert!(!made_of("aead:chacha20-poly1305", "aes-128"));
        assert!(misuse_resistant("aead:aes-256-gcm-siv"));
    }
}
