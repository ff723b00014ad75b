//! Study 003 ("Tiny Security", Söderquist 2019) at device level: each scheme
//! frames a temperature-chain reading (1–25 thermometers, ~66–470 bytes of
//! JSON) into a secured JSON message on the ATmega1284P at 8 MHz.
//! Reports the study's three figures: time per byte (Fig. 9), cost per bit of
//! security (Fig. 10) and program-size contribution (Fig. 12).

use serde::{Deserialize, Serialize};

use crate::{Implementation, McuError, McuResult, Request, Target, algorithms};

/// The study's three groups as the firmware implements them (AEAD, HMAC, and
/// EtM: AES-ECB then HMAC of the ciphertext, separate keys), in the study's
/// Table 1 / Appendix C combinations; the no-security baseline is apart.
pub const SCHEMES: &[(&str, &str)] = &[
    ("message-aes-128-gcm", "AEAD"),
    ("message-aes-256-gcm", "AEAD"),
    ("message-aes-128-eax", "AEAD"),
    ("message-aes-256-eax", "AEAD"),
    ("message-acorn-128-wide", "AEAD"),
    ("message-acorn-128", "AEAD"),
    ("message-hmac-sha256", "HMAC"),
    ("message-hmac-sha512", "HMAC"),
    ("message-hmac-sha3-256", "HMAC"),
    ("message-hmac-sha3-512", "HMAC"),
    ("message-etm-aes-128-hmac-sha256", "EtM"),
    ("message-etm-aes-128-hmac-sha512", "EtM"),
    ("message-etm-aes-128-hmac-sha3-256", "EtM"),
    ("message-etm-aes-128-hmac-sha3-512", "EtM"),
    ("message-etm-aes-256-hmac-sha256", "EtM"),
    ("message-etm-aes-256-hmac-sha512", "EtM"),
    ("message-etm-aes-256-hmac-sha3-256", "EtM"),
    ("message-etm-aes-256-hmac-sha3-512", "EtM"),
];
pub const BASELINE: &str = "message-none";

/// Second implementations of a scheme already in [`SCHEMES`]: measured and
/// shown, but left out of the group means and the claims, which use the
/// first (ACORN-128: the word-parallel one, as the study's library is; the
/// bit-serial one is named beside it).
pub const SECOND_IMPLEMENTATIONS: &[&str] = &["acorn-128"];

/// Whether a row counts for the group means and the study's claims.
pub fn counts(row: &TinySecurityRow) -> bool {
    !SECOND_IMPLEMENTATIONS.contains(&row.algorithm.as_str())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TinySecurityRow {
    pub target: Target,
    /// Whose code sealed the message: RustCrypto's unless another
    /// implementation has the whole scheme ([`reproduce_with`]).
    #[serde(default = "crate::implementation::rustcrypto_name")]
    pub implementation: String,
    /// The catalogue id of the security algorithm (e.g. `aes-256-gcm`).
    pub algorithm: String,
    /// AEAD, EtM or HMAC, the study's pattern groups; "none" for the baseline.
    pub group: String,
    pub security_bits: u32,
    /// Mean over the chain lengths of µs per byte of reading (Fig. 9).
    pub us_per_byte: Option<f64>,
    /// Largest minus smallest µs/byte over the chain lengths (the error bars).
    pub us_per_byte_spread: Option<f64>,
    /// Same, minus the no-security baseline at each length: security's own cost.
    pub security_us_per_byte: Option<f64>,
    /// (µs/byte) per bit of security (Fig. 10).
    pub cost_per_bit: Option<f64>,
    /// Flash bytes over the no-security build (Fig. 12).
    pub program_size_bytes: Option<i64>,
    /// Flash bytes of the no-security build itself (the study's 9408 B).
    pub baseline_program_bytes: Option<u64>,
    pub kat_passed: bool,
    pub error: Option<String>,
    /// (reading bytes, µs) per chain length.
    pub points: Vec<(usize, f64)>,
}

/// Runs study 003's comparison on `target` (the study used atmega1284p).
pub fn reproduce(
    target: Target,
    progress: impl FnMut(&str),
) -> Result<Vec<TinySecurityRow>, McuError> {
    let results = measure(target, &[], progress)?;
    Ok(summarise(target, &results))
}

/// The comparison once per implementation: RustCrypto's, then, for each of
/// `others`, the same study with that implementation's code wherever it has
/// the whole scheme (RustCrypto's elsewhere, named per row). Every message
/// build is measured once.
pub fn reproduce_with(
    target: Target,
    others: &[Implementation],
    progress: impl FnMut(&str),
) -> Result<Vec<(Implementation, Vec<TinySecurityRow>)>, McuError> {
    let results = measure(target, others, progress)?;
    let mut out = Vec::new();
    for imp in std::iter::once(Implementation::RustCrypto).chain(
        others
            .iter()
            .copied()
            .filter(|i| *i != Implementation::RustCrypto),
    ) {
        out.push((imp, summarise(target, &with_implementation(&results, imp))));
    }
    Ok(out)
}

fn measure(
    target: Target,
    others: &[Implementation],
    progress: impl FnMut(&str),
) -> Result<Vec<McuResult>, McuError> {
    let mut ids: Vec<String> = vec![BASELINE.to_string()];
    for (id, _) in SCHEMES {
        ids.push(id.to_string());
        for imp in others.iter().filter(|i| **i != Implementation::RustCrypto) {
            if imp.offers(id) {
                ids.push(imp.build_id(id));
            }
        }
    }
    let req = Request {
        target,
        algorithms: ids,
        sizes: vec![16],
    };
    crate::measure(&req, progress)
}

/// RustCrypto's rows with `imp`'s in place of each scheme `imp` measured
/// (RustCrypto: its rows alone).
fn with_implementation(results: &[McuResult], imp: Implementation) -> Vec<McuResult> {
    let theirs = |alg: &str| {
        results
            .iter()
            .any(|r| r.algorithm == alg && r.implementation == imp.name())
    };
    results
        .iter()
        .filter(|r| {
            if r.implementation == imp.name() {
                return true;
            }
            crate::implementation::is_rustcrypto(&r.implementation) && !theirs(&r.algorithm)
        })
        .cloned()
        .collect()
}

/// Turns `seal` rows into the study's figures (pure, for testing).
pub fn summarise(target: Target, results: &[McuResult]) -> Vec<TinySecurityRow> {
    let seal = |id: &str| -> Vec<&McuResult> {
        results
            .iter()
            .filter(|r| r.algorithm == id && r.operation == "seal" && r.is_measurement())
            .collect()
    };
    let base = seal(BASELINE);
    let base_flash = base.first().and_then(|r| r.flash_bytes);
    let mut rows = Vec::new();
    for (id, group) in std::iter::once(&(BASELINE, "none")).chain(SCHEMES.iter()) {
        let bits = algorithms::find(id).map(|a| a.security_bits).unwrap_or(0);
        let algorithm = id.trim_start_matches("message-").to_string();
        let points: Vec<(usize, f64)> =
            seal(id).iter().map(|r| (r.size_bytes, r.time_us)).collect();
        let error = results
            .iter()
            .find(|r| r.algorithm == *id && r.error.is_some())
            .and_then(|r| r.error.clone());
        let kat_passed = results.iter().any(|r| r.algorithm == *id)
            && results
                .iter()
                .filter(|r| r.algorithm == *id)
                .all(|r| r.kat_passed);
        let per_byte: Vec<f64> = points.iter().map(|&(n, us)| us / n as f64).collect();
        let own: Vec<f64> = points
            .iter()
            .filter_map(|&(n, us)| {
                base.iter()
                    .find(|b| b.size_bytes == n)
                    .map(|b| (us - b.time_us) / n as f64)
            })
            .collect();
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let us_per_byte = mean(&per_byte);
        let spread = (!per_byte.is_empty()).then(|| {
            per_byte.iter().cloned().fold(f64::MIN, f64::max)
                - per_byte.iter().cloned().fold(f64::MAX, f64::min)
        });
        let flash = seal(id).first().and_then(|r| r.flash_bytes);
        let implementation = results
            .iter()
            .find(|r| r.algorithm == *id)
            .map_or_else(crate::implementation::rustcrypto_name, |r| {
                r.implementation.clone()
            });
        rows.push(TinySecurityRow {
            target,
            implementation,
            algorithm,
            group: group.to_string(),
            security_bits: bits,
            us_per_byte,
            us_per_byte_spread: spread,
            security_us_per_byte: if *id == BASELINE { None } else { mean(&own) },
            cost_per_bit: us_per_byte.filter(|_| bits > 0).map(|u| u / bits as f64),
            program_size_bytes: flash.zip(base_flash).map(|(f, b)| f as i64 - b as i64),
            baseline_program_bytes: base_flash,
            kat_passed,
            error,
            points,
        });
    }
    rows
}

/// One pattern group's means over its schemes that passed their known answer
/// and were measured: the study's Figures 9, 10 and 12 compare the groups.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupMean {
    pub group: String,
    /// How many of the group's schemes the means cover.
    pub schemes: usize,
    pub us_per_byte: Option<f64>,
    pub cost_per_bit: Option<f64>,
    pub program_size_bytes: Option<f64>,
}

/// Means per group, in the order the groups first appear; the baseline is left out.
pub fn group_means(rows: &[TinySecurityRow]) -> Vec<GroupMean> {
    let mut groups: Vec<&str> = Vec::new();
    for r in rows.iter().filter(|r| r.group != "none") {
        if !groups.contains(&r.group.as_str()) {
            groups.push(&r.group);
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let members: Vec<&TinySecurityRow> = rows
                .iter()
                .filter(|r| r.group == group && r.kat_passed && r.us_per_byte.is_some())
                .filter(|r| counts(r))
                .collect();
            let mean = |f: &dyn Fn(&TinySecurityRow) -> Option<f64>| {
                let v: Vec<f64> = members.iter().filter_map(|r| f(r)).collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            GroupMean {
                group: group.to_string(),
                schemes: members.len(),
                us_per_byte: mean(&|r| r.us_per_byte),
                cost_per_bit: mean(&|r| r.cost_per_bit),
                program_size_bytes: mean(&|r| r.program_size_bytes.map(|b| b as f64)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal(alg: &str, size: usize, us: f64, flash: u64) -> McuResult {
        let mut r = McuResult::failure(Target::Atmega1284p, alg, "seal", "");
        r.error = None;
        r.kat_passed = true;
        r.size_bytes = size;
        r.time_us = us;
        r.flash_bytes = Some(flash);
        r
    }

    #[test]
    fn figures_follow_the_study_definitions() {
        let results = vec![
            seal("message-none", 100, 100.0, 9_000),
            seal("message-none", 200, 200.0, 9_000),
            seal("message-aes-256-gcm", 100, 1_100.0, 17_000),
            seal("message-aes-256-gcm", 200, 2_200.0, 17_000),
        ];
        let rows = summarise(Target::Atmega1284p, &results);
        let gcm = rows.iter().find(|r| r.algorithm == "aes-256-gcm").unwrap();
        assert_eq!(gcm.us_per_byte, Some(11.0));
        assert_eq!(gcm.security_us_per_byte, Some(10.0));
        assert_eq!(gcm.cost_per_bit, Some(11.0 / 256.0));
        assert_eq!(gcm.program_size_bytes, Some(8_000));
        assert!(gcm.kat_passed);
        let missing = rows.iter().find(|r| r.algorithm == "acorn-128").unwrap();
        assert!(!missing.kat_passed && missing.us_per_byte.is_none());
    }

    /// The EtM group is scored by the higher of its two parts (study 003 §3.5)
    /// and averaged as a group of its own, apart from HMAC and AEAD.
    #[test]
    fn etm_is_its_own_group_scored_by_its_stronger_part() {
        let groups: Vec<&str> = SCHEMES.iter().map(|(_, g)| *g).collect();
        assert_eq!(groups.iter().filter(|g| **g == "EtM").count(), 8);
        let bits = |id: &str| algorithms::find(id).unwrap().security_bits;
        assert_eq!(bits("message-etm-aes-128-hmac-sha512"), 512);
        assert_eq!(bits("message-etm-aes-256-hmac-sha256"), 256);
        assert_eq!(bits("message-etm-aes-128-hmac-sha3-256"), 256);
        let results = vec![
            seal("message-none", 100, 100.0, 9_000),
            seal("message-etm-aes-128-hmac-sha512", 100, 2_100.0, 19_000),
            seal("message-etm-aes-256-hmac-sha256", 100, 1_100.0, 15_000),
            seal("message-hmac-sha256", 100, 600.0, 12_000),
            McuResult {
                kat_passed: false,
                ..seal("message-hmac-sha512", 100, 50.0, 12_000)
            },
        ];
        let rows = summarise(Target::Atmega1284p, &results);
        let etm = rows
            .iter()
            .find(|r| r.algorithm == "etm-aes-128-hmac-sha512")
            .unwrap();
        assert_eq!((etm.group.as_str(), etm.security_bits), ("EtM", 512));
        assert_eq!(etm.cost_per_bit, Some(21.0 / 512.0));
        let means = group_means(&rows);
        let order: Vec<&str> = means.iter().map(|g| g.group.as_str()).collect();
        assert_eq!(order, ["AEAD", "HMAC", "EtM"]);
        let etm = means.iter().find(|g| g.group == "EtM").unwrap();
        // Only the two measured EtM schemes count; the six unmeasured do not.
        assert_eq!(etm.schemes, 2);
        assert_eq!(etm.us_per_byte, Some(16.0));
        assert_eq!(etm.program_size_bytes, Some(8_000.0));
        // A scheme that failed its known answer is left out of its group's mean.
        let hmac = means.iter().find(|g| g.group == "HMAC").unwrap();
        assert_eq!((hmac.schemes, hmac.us_per_byte), (1, Some(6.0)));
        let aead = means.iter().find(|g| g.group == "AEAD").unwrap();
        assert_eq!((aead.schemes, aead.us_per_byte), (0, None));
    }

    /// Both ACORN-128 implementations are measured and shown; only the
    /// word-parallel one counts in the AEAD mean.
    #[test]
    fn the_second_acorn_is_shown_but_not_averaged() {
        let results = vec![
            seal("message-none", 100, 100.0, 9_000),
            seal("message-acorn-128-wide", 100, 300.0, 11_000),
            seal("message-acorn-128", 100, 9_100.0, 10_000),
        ];
        let rows = summarise(Target::Atmega1284p, &results);
        for alg in ["acorn-128-wide", "acorn-128"] {
            let r = rows.iter().find(|r| r.algorithm == alg).unwrap();
            assert!(r.kat_passed && r.us_per_byte.is_some(), "{alg}");
        }
        let aead = group_means(&rows)
            .into_iter()
            .find(|g| g.group == "AEAD")
            .unwrap();
        assert_eq!((aead.schemes, aead.us_per_byte), (1, Some(3.0)));
    }

    /// With another implementation, its measurement replaces RustCrypto's
    /// where it has the scheme; the others stay RustCrypto's, named so.
    #[test]
    fn another_implementation_replaces_only_the_schemes_it_has() {
        let mbed = |alg: &str, us: f64| {
            let mut r = seal(alg, 100, us, 14_000);
            r.implementation = "mbedtls".into();
            r
        };
        let results = vec![
            seal("message-none", 100, 100.0, 9_000),
            seal("message-hmac-sha256", 100, 600.0, 12_000),
            seal("message-hmac-sha3-256", 100, 900.0, 12_000),
            mbed("message-hmac-sha256", 400.0),
        ];
        let rc = summarise(
            Target::Atmega1284p,
            &with_implementation(&results, Implementation::RustCrypto),
        );
        let mb = summarise(
            Target::Atmega1284p,
            &with_implementation(&results, Implementation::MbedTls),
        );
        let row = |rows: &[TinySecurityRow], alg: &str| {
            rows.iter().find(|r| r.algorithm == alg).unwrap().clone()
        };
        assert_eq!(row(&rc, "hmac-sha256").us_per_byte, Some(6.0));
        assert_eq!(row(&rc, "hmac-sha256").implementation, "rustcrypto");
        assert_eq!(row(&mb, "hmac-sha256").us_per_byte, Some(4.0));
        assert_eq!(row(&mb, "hmac-sha256").implementation, "mbedtls");
        assert_eq!(row(&mb, "hmac-sha256").program_size_bytes, Some(5_000));
        assert_eq!(row(&mb, "hmac-sha3-256").implementation, "rustcrypto");
        assert_eq!(row(&mb, "hmac-sha3-256").us_per_byte, Some(9.0));
    }
}
