//! Study 003's statements checked against our device-level numbers: the study
//! ran on an ATmega1284P, so this is where its findings are meant to hold.

use mcu::tiny_security::{TinySecurityRow, counts, group_means};

use crate::finding::{Finding, Verdict};
use crate::tiny_security::Paper;

/// Only schemes whose known answers passed count as evidence, and of a
/// scheme with two implementations only the first (ACORN-128: the
/// word-parallel one; the bit-serial one is named beside it).
fn measured(rows: &[TinySecurityRow]) -> Vec<&TinySecurityRow> {
    rows.iter()
        .filter(|r| r.group != "none" && r.kat_passed && r.us_per_byte.is_some() && counts(r))
        .collect()
}

fn get<'a>(rows: &[&'a TinySecurityRow], algorithm: &str) -> Option<&'a TinySecurityRow> {
    rows.iter().copied().find(|r| r.algorithm == algorithm)
}

fn extreme<'a>(
    rows: &[&'a TinySecurityRow],
    key: impl Fn(&TinySecurityRow) -> Option<f64>,
    max: bool,
) -> Option<&'a TinySecurityRow> {
    let keyed = rows.iter().copied().filter_map(|r| key(r).map(|k| (k, r)));
    let pick = |a: &(f64, _), b: &(f64, _)| a.0.total_cmp(&b.0);
    if max {
        keyed.max_by(pick)
    } else {
        keyed.min_by(pick)
    }
    .map(|(_, r)| r)
}

fn verdict(ok: bool) -> Verdict {
    Verdict::from_ok(ok)
}

/// One finding per claim of the study, plus its program-size figures (Fig. 12).
pub fn check(paper: &Paper, rows: &[TinySecurityRow]) -> Vec<Finding> {
    let ok = measured(rows);
    let speed = |alg: &str| get(&ok, alg).and_then(|r| r.us_per_byte);
    let mut out =
        crate::finding::judge_claims(&paper.claims, |id| claim_verdict(id, &ok, &speed, rows));
    out.push(program_size(paper, rows, &ok));
    out
}

fn claim_verdict(
    id: &str,
    ok: &[&TinySecurityRow],
    speed: &dyn Fn(&str) -> Option<f64>,
    rows: &[TinySecurityRow],
) -> (Verdict, String) {
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
    match id {
        "aead_fastest" => {
            let means = group_means(rows);
            let mean = |g: &str| {
                means
                    .iter()
                    .find(|m| m.group == g)
                    .and_then(|m| m.us_per_byte)
            };
            let (a, h, e) = (mean("AEAD"), mean("HMAC"), mean("EtM"));
            let fastest_aead = ok
                .iter()
                .filter(|r| r.group == "AEAD")
                .filter_map(|r| r.us_per_byte)
                .min_by(f64::total_cmp);
            let agrees = matches!((a, h, e), (Some(a), Some(h), Some(e)) if a < h && a < e);
            (
                verdict(agrees),
                format!(
                    "group means AEAD {} µs/B, HMAC {}, EtM {}; the fastest AEAD {} µs/B",
                    f(a),
                    f(h),
                    f(e),
                    f(fastest_aead)
                ),
            )
        }
        "acorn_fastest" => {
            let fastest = extreme(ok, |r| r.us_per_byte, false);
            // The bit-serial ACORN is named, not judged (a second implementation).
            let serial = rows
                .iter()
                .find(|r| r.algorithm == "acorn-128" && r.kat_passed)
                .and_then(|r| r.us_per_byte);
            (
                verdict(fastest.is_some_and(|r| r.algorithm == "acorn-128-wide")),
                format!(
                    "fastest here is {} ({} µs/B); ACORN-128 {} µs/B in our word-parallel implementation (32 steps per call, the design of the designers' optimized code and of the Arduino Cryptography Library's the study used), which is judged; our bit-serial ACORN-128 {} µs/B",
                    fastest.map_or("-", |r| r.algorithm.as_str()),
                    f(fastest.and_then(|r| r.us_per_byte)),
                    f(speed("acorn-128-wide")),
                    f(serial)
                ),
            )
        }
        "sha3_512_faster_than_sha512" => {
            let (s512, s3_512) = (speed("hmac-sha512"), speed("hmac-sha3-512"));
            let (s256, s3_256) = (speed("hmac-sha256"), speed("hmac-sha3-256"));
            let agrees = matches!((s512, s3_512, s256, s3_256),
                (Some(a), Some(b), Some(c), Some(d)) if b < a && c < d);
            (
                verdict(agrees),
                format!(
                    "HMAC-SHA3-512 {} vs HMAC-SHA-512 {} µs/B; HMAC-SHA-256 {} vs HMAC-SHA3-256 {}",
                    f(s3_512),
                    f(s512),
                    f(s256),
                    f(s3_256)
                ),
            )
        }
        "aes128_aead_highest_cost_per_bit" => {
            let worst = extreme(ok, |r| r.cost_per_bit, true);
            let aes128 = ok
                .iter()
                .filter(|r| r.algorithm.starts_with("aes-128-"))
                .map(|r| format!("{} {:.2}", r.algorithm, r.cost_per_bit.unwrap_or(f64::NAN)))
                .collect::<Vec<_>>()
                .join(", ");
            (
                verdict(
                    worst.is_some_and(|r| {
                        r.algorithm == "aes-128-gcm" || r.algorithm == "aes-128-eax"
                    }),
                ),
                format!(
                    "highest (µs/B)/bit here is {} ({:.2}); {aes128}",
                    worst.map_or("-", |r| r.algorithm.as_str()),
                    worst.and_then(|r| r.cost_per_bit).unwrap_or(f64::NAN)
                ),
            )
        }
        "hmac_smallest_overhead" => (
            Verdict::NotJudged,
            "message sizes do not depend on the device: see `reproduce tiny-security` on the host"
                .into(),
        ),
        "etm_uses_ecb" => {
            let etm = ok.iter().filter(|r| r.group == "EtM").count();
            (
                verdict(etm > 0),
                format!(
                    "{etm} EtM firmware builds: AES-ECB, then HMAC of the ciphertext under a separate key"
                ),
            )
        }
        _ => (Verdict::NotJudged, "no check for this claim".into()),
    }
}

/// Fig. 12: the security code's share of the program, and the baseline build.
fn program_size(paper: &Paper, rows: &[TinySecurityRow], ok: &[&TinySecurityRow]) -> Finding {
    let sizes: Vec<i64> = ok.iter().filter_map(|r| r.program_size_bytes).collect();
    let (lo, hi) = (sizes.iter().min(), sizes.iter().max());
    let size = |alg: &str| get(ok, alg).and_then(|r| r.program_size_bytes);
    let sha512_more = match (size("hmac-sha512"), size("hmac-sha256")) {
        (Some(a), Some(b)) => format!("{:+}", a - b),
        _ => "-".into(),
    };
    let base = rows.iter().find_map(|r| r.baseline_program_bytes);
    Finding {
        id: "program_size".into(),
        paper: format!(
            "Security adds {} of flash; the no-security build is {} B.",
            paper.compile_size_addition_bytes, paper.compile_size_baseline_bytes
        ),
        place: "5.3, Fig. 12".into(),
        verdict: Verdict::Compare,
        ours: format!(
            "security adds {} to {} B (HMAC-SHA-512 over HMAC-SHA-256: {sha512_more} B); the no-security build is {} B (Rust, no Arduino core)",
            lo.map_or("-".into(), |v| v.to_string()),
            hi.map_or("-".into(), |v| v.to_string()),
            base.map_or("-".into(), |v| v.to_string())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use device_facts::Target;

    fn row(alg: &str, group: &str, us: f64, bits: u32, flash: i64) -> TinySecurityRow {
        TinySecurityRow {
            implementation: "rustcrypto".into(),
            target: Target::Atmega1284p,
            algorithm: alg.into(),
            group: group.into(),
            security_bits: bits,
            us_per_byte: Some(us),
            us_per_byte_spread: Some(0.0),
            security_us_per_byte: Some(us),
            cost_per_bit: Some(us / bits as f64),
            program_size_bytes: Some(flash),
            baseline_program_bytes: Some(6000),
            kat_passed: true,
            error: None,
            points: vec![(100, us * 100.0)],
        }
    }

    fn rows() -> Vec<TinySecurityRow> {
        vec![
            row("aes-128-gcm", "AEAD", 500.0, 128, 20000),
            row("acorn-128-wide", "AEAD", 100.0, 128, 9000),
            row("hmac-sha256", "HMAC", 600.0, 256, 13000),
            row("hmac-sha512", "HMAC", 900.0, 512, 19000),
            row("hmac-sha3-256", "HMAC", 900.0, 256, 8000),
            row("hmac-sha3-512", "HMAC", 800.0, 512, 8100),
            row("etm-aes-128+hmac-sha256", "EtM", 950.0, 256, 30000),
        ]
    }

    fn verdict_of(findings: &[Finding], id: &str) -> &'static str {
        findings
            .iter()
            .find(|f| f.id == id)
            .unwrap()
            .verdict
            .as_str()
    }

    #[test]
    fn the_studys_statements_are_judged_from_the_rows() {
        let paper = crate::tiny_security::paper().unwrap();
        let f = check(&paper, &rows());
        assert_eq!(verdict_of(&f, "acorn_fastest"), "agrees");
        assert_eq!(verdict_of(&f, "sha3_512_faster_than_sha512"), "agrees");
        assert_eq!(verdict_of(&f, "aead_fastest"), "agrees");
        assert_eq!(verdict_of(&f, "aes128_aead_highest_cost_per_bit"), "agrees");
        let size = f.iter().find(|f| f.id == "program_size").unwrap();
        assert!(size.ours.contains("8000 to 30000 B"), "{}", size.ours);
        assert!(size.ours.contains("+6000 B"), "{}", size.ours);
        assert!(size.paper.contains("9408"), "{}", size.paper);
    }

    #[test]
    fn a_failed_known_answer_is_not_evidence() {
        let paper = crate::tiny_security::paper().unwrap();
        let mut rows = rows();
        rows[1].kat_passed = false; // word-parallel ACORN, the fastest, failed its vector
        let f = check(&paper, &rows);
        assert_eq!(verdict_of(&f, "acorn_fastest"), "differs");
        let mut slow = rows.clone();
        slow[1].kat_passed = true;
        slow[1].us_per_byte = Some(5000.0);
        slow[1].cost_per_bit = Some(5000.0 / 128.0);
        let f = check(&paper, &slow);
        assert_eq!(verdict_of(&f, "acorn_fastest"), "differs");
        assert_eq!(
            verdict_of(&f, "aes128_aead_highest_cost_per_bit"),
            "differs"
        );
    }

    /// The bit-serial ACORN is named in the ACORN verdict but judged by
    /// nothing: a slow second implementation changes no verdict.
    #[test]
    fn the_bit_serial_acorn_is_named_not_judged() {
        let paper = crate::tiny_security::paper().unwrap();
        let mut rows = rows();
        rows.push(row("acorn-128", "AEAD", 9000.0, 128, 3000));
        let f = check(&paper, &rows);
        assert_eq!(verdict_of(&f, "acorn_fastest"), "agrees");
        assert_eq!(verdict_of(&f, "aead_fastest"), "agrees");
        assert_eq!(verdict_of(&f, "aes128_aead_highest_cost_per_bit"), "agrees");
        let acorn = f.iter().find(|f| f.id == "acorn_fastest").unwrap();
        assert!(
            acorn.ours.contains("100.0 µs/B in our word-parallel")
                && acorn.ours.contains("bit-serial ACORN-128 9000.0 µs/B"),
            "{}",
            acorn.ours
        );
        let size = f.iter().find(|f| f.id == "program_size").unwrap();
        assert!(size.ours.contains("8000 to 30000 B"), "{}", size.ours);
    }
}
