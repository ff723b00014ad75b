//! Whose code a device should run for a scheme's primitives: of the
//! implementations measured on its core (the device cost table's RustCrypto,
//! ciphermeter, Mbed TLS and Monocypher rows, each with passing known
//! answers), the fastest at the message's length. `recommend` names it per
//! scheme ("use Monocypher's ChaCha20-Poly1305: 1.9× faster than RustCrypto
//! here"). The ranking's CPU time stays the sealing core's measured path,
//! which runs RustCrypto's code, so `recommend`, `energy` and `link` agree.

use device_facts::Implementation;
use device_facts::cost_table::CostTable;
use serde::{Deserialize, Serialize};

/// The choice for one scheme.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImplementationChoice {
    /// The implementation named for the scheme: its primitives' fastest,
    /// or "mixed" when they differ (each is in `parts`).
    pub implementation: String,
    pub parts: Vec<PartChoice>,
    /// "use Monocypher 4's chacha20-poly1305: 1.9× faster than RustCrypto here".
    pub sentence: String,
}

/// One primitive of the scheme.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartChoice {
    /// The firmware algorithm (aes-128-gcm, hmac-sha256).
    pub algorithm: String,
    /// The fastest implementation measured with passing known answers.
    pub implementation: String,
    /// Its count at `bytes` (cycles; Cortex-M: the estimate from the mix);
    /// none where the primitive is measured only inside the scheme's own
    /// sealing build (no firmware build of it alone).
    pub cycles: Option<f64>,
    /// RustCrypto's count there, if measured: what the sealing core runs.
    pub rustcrypto_cycles: Option<f64>,
    /// RustCrypto's count over the chosen one's (1.0: RustCrypto is it).
    pub speedup_over_rustcrypto: Option<f64>,
    /// The length compared at: the plaintext's, in bytes.
    pub compared_at_bytes: usize,
    /// The implementations measured for it here.
    pub implementations_compared: Vec<String>,
}

/// The choice for `scheme` (a canonical name) sealing `bytes` of plaintext,
/// from `table`; none for a name with no primitives.
pub fn choose(table: &CostTable, scheme: &str, bytes: usize) -> Option<ImplementationChoice> {
    let parts: Vec<PartChoice> = device_facts::algorithms::catalogue_ids(scheme)
        .iter()
        .map(|id| part(table, id, bytes))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let first = parts[0].implementation.clone();
    let implementation = if parts.iter().all(|p| p.implementation == first) {
        first
    } else {
        "mixed".to_string()
    };
    let sentence = parts.iter().map(sentence).collect::<Vec<_>>().join("; ");
    Some(ImplementationChoice {
        implementation,
        parts,
        sentence,
    })
}

/// The primitive's fastest implementation; RustCrypto's, the sealing core's,
/// where the table has no build of the primitive alone.
fn part(table: &CostTable, id: &str, bytes: usize) -> PartChoice {
    let operation = device_facts::algorithms::find(id).and_then(|a| a.family.data_operation());
    let measured: Vec<(Implementation, f64)> = Implementation::ALL
        .into_iter()
        .filter_map(|imp| {
            let entry = table.entry_of(id, imp, operation?)?;
            Some((imp, entry.cycles_at(bytes)?))
        })
        .collect();
    // Ties go to RustCrypto, first in the list: the sealing core already runs it.
    let Some(&(best, cycles)) = measured.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else {
        return PartChoice {
            algorithm: id.to_string(),
            implementation: Implementation::RustCrypto.name().to_string(),
            cycles: None,
            rustcrypto_cycles: None,
            speedup_over_rustcrypto: None,
            compared_at_bytes: bytes,
            implementations_compared: vec![Implementation::RustCrypto.name().to_string()],
        };
    };
    let rustcrypto = measured
        .iter()
        .find(|(i, _)| *i == Implementation::RustCrypto)
        .map(|(_, c)| *c);
    PartChoice {
        algorithm: id.to_string(),
        implementation: best.name().to_string(),
        cycles: Some(cycles),
        rustcrypto_cycles: rustcrypto,
        speedup_over_rustcrypto: rustcrypto.map(|r| r / cycles),
        compared_at_bytes: bytes,
        implementations_compared: measured.iter().map(|(i, _)| i.name().to_string()).collect(),
    }
}

fn sentence(p: &PartChoice) -> String {
    let imp: Implementation = p
        .implementation
        .parse()
        .unwrap_or(Implementation::RustCrypto);
    let others = p.implementations_compared.len().saturating_sub(1);
    match (imp, p.speedup_over_rustcrypto) {
        (Implementation::RustCrypto, _) if p.cycles.is_none() => format!(
            "{}: RustCrypto's, the sealing core's (measured inside the scheme's own build only)",
            p.algorithm
        ),
        (Implementation::RustCrypto, _) if others == 0 => format!(
            "{}: RustCrypto's, the only implementation measured here",
            p.algorithm
        ),
        (Implementation::RustCrypto, _) => format!(
            "{}: RustCrypto's (the sealing core's) is the fastest of {} measured here",
            p.algorithm,
            p.implementations_compared.len()
        ),
        (_, Some(x)) => format!(
            "use {}'s {}: {x:.1}× faster than RustCrypto here",
            imp.label(),
            p.algorithm
        ),
        (_, None) => format!(
            "use {}'s {}: RustCrypto's does not run here",
            imp.label(),
            p.algorithm
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use device_facts::cost_table::{Entry, Fit};

    fn entry(alg: &str, imp: &str, op: &str, per_byte: u64) -> Entry {
        let points: Vec<(usize, u64)> = [16, 1024]
            .iter()
            .map(|&n| (n, 100 + per_byte * n as u64))
            .collect();
        Entry {
            algorithm: alg.into(),
            implementation: imp.into(),
            operation: op.into(),
            fit: Fit::through(&points),
            points,
            cycle_estimates: Vec::new(),
            mixes: Vec::new(),
            estimate_fit: None,
            code_size_bytes: Some(1000),
            stack_bytes: Some(100),
            ram_bytes: None,
            known_answers: 1,
            error: None,
        }
    }

    fn table(entries: Vec<Entry>) -> CostTable {
        CostTable {
            format: device_facts::cost_table::FORMAT.into(),
            target: device_facts::Target::Atmega1284p,
            counter: "cycles".into(),
            clock_hz: 8_000_000,
            firmware_revision: "test".into(),
            cycle_timings_revision: None,
            environment: serde_json::Value::Null,
            regenerate: String::new(),
            measured_on: None,
            entries,
        }
    }

    #[test]
    fn the_fastest_measured_implementation_is_named_with_its_speedup() {
        let t = table(vec![
            entry("chacha20-poly1305", "rustcrypto", "encrypt", 1590),
            entry("chacha20-poly1305", "monocypher", "encrypt", 800),
            entry("chacha20-poly1305", "mbedtls", "encrypt", 900),
        ]);
        let c = choose(&t, "aead:chacha20-poly1305", 64).unwrap();
        assert_eq!(c.implementation, "monocypher");
        let p = &c.parts[0];
        assert_eq!(
            p.implementations_compared,
            ["rustcrypto", "mbedtls", "monocypher"]
        );
        let want = (100.0 + 1590.0 * 64.0) / (100.0 + 800.0 * 64.0);
        assert!((p.speedup_over_rustcrypto.unwrap() - want).abs() < 1e-9);
        assert!(
            c.sentence
                .starts_with("use Monocypher 4's chacha20-poly1305: 2.0× faster"),
            "{}",
            c.sentence
        );
    }

    #[test]
    fn a_failed_or_missing_implementation_is_never_chosen_and_rustcrypto_wins_ties() {
        let mut failed = entry("hmac-sha256", "mbedtls", "failure", 1);
        failed.error = Some("known-answer test FAILED".into());
        failed.points.clear();
        failed.fit = None;
        let t = table(vec![
            entry("aes-128-cbc", "rustcrypto", "encrypt", 500),
            entry("hmac-sha256", "rustcrypto", "mac", 700),
            failed,
        ]);
        let c = choose(&t, "etm:aes-128-cbc+hmac-sha256", 48).unwrap();
        assert_eq!(c.implementation, "rustcrypto");
        assert_eq!(c.parts.len(), 2);
        assert!(
            c.sentence.contains("the only implementation measured here"),
            "{}",
            c.sentence
        );
        let tie = table(vec![
            entry("sha256", "rustcrypto", "hash", 700),
            entry("sha256", "mbedtls", "hash", 700),
            entry("hmac-sha256", "rustcrypto", "mac", 700),
            entry("hmac-sha256", "mbedtls", "mac", 700),
        ]);
        let c = choose(&tie, "hmac:hmac-sha256", 48).unwrap();
        assert_eq!(c.parts[0].implementation, "rustcrypto");
        assert!(c.sentence.contains("fastest of 2"), "{}", c.sentence);
        // A primitive with no build of its own: the sealing core's, named.
        let c = choose(&table(Vec::new()), "aead:aes-128-ocb", 48).unwrap();
        assert_eq!(
            (c.implementation.as_str(), c.parts[0].cycles),
            ("rustcrypto", None)
        );
        assert!(c.sentence.contains("the sealing core's"), "{}", c.sentence);
    }
}
