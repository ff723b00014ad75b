//! Study 003 at device level, in the cycle-exact simulator (AVR) or QEMU
//! (Cortex-M), from crates/mcu: the study ran on an ATmega1284P, so this is
//! where its findings are meant to hold.

use cost::Error;
use device_facts::Target;
use mcu::tiny_security::{GroupMean, TinySecurityRow};
use serde::{Deserialize, Serialize};

use crate::finding::Finding;
use crate::out;
use crate::tiny_security::Paper;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ran_on: String,
    pub target: Target,
    pub paper: Paper,
    pub rows: Vec<TinySecurityRow>,
    pub groups: Vec<GroupMean>,
    pub findings: Vec<Finding>,
    /// With `--impl`: the study again with each other implementation's code
    /// wherever it has the whole scheme, and the verdicts that flip.
    #[serde(default)]
    pub by_implementation: Vec<ImplementationFindings>,
}

/// Study 003 judged with one implementation's code.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImplementationFindings {
    pub implementation: String,
    /// How many of the study's schemes it sealed with its own code.
    pub own_schemes: usize,
    pub rows: Vec<TinySecurityRow>,
    pub groups: Vec<GroupMean>,
    pub findings: Vec<Finding>,
    /// Each finding whose verdict differs from RustCrypto's, in words.
    pub flips: Vec<String>,
}

pub fn run(target: Target, progress: &mut dyn FnMut(&str)) -> Result<Report, Error> {
    run_with(target, &[], progress)
}

/// The simulation's errors as the domain's: a missing toolchain piece is
/// the user's to install (exit 2), as the CLI maps it.
fn mcu_error(e: mcu::McuError) -> Error {
    match e {
        mcu::McuError::Usage(m) | mcu::McuError::Missing(m) => Error::Invalid(m),
        mcu::McuError::Failed(m) => Error::Failed(m),
    }
}

/// [`run_with`] as `reproduce tiny-security --target T [--impl LIST]` names
/// the target and the other implementations.
pub fn run_named(
    target: &str,
    others: Option<&str>,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, Error> {
    let target: Target = target.parse()?;
    let others = match others {
        Some(list) => device_facts::implementation::parse_list(list)?,
        None => Vec::new(),
    };
    run_with(target, &others, progress)
}

/// [`run`], and with each of `others` ([`Report::by_implementation`]).
pub fn run_with(
    target: Target,
    others: &[device_facts::Implementation],
    progress: &mut dyn FnMut(&str),
) -> Result<Report, Error> {
    let paper = crate::tiny_security::paper()?;
    let mut per = mcu::tiny_security::reproduce_with(target, others, progress)
        .map_err(mcu_error)?
        .into_iter();
    let (_, rows) = per.next().expect("RustCrypto's comparison comes first");
    let findings = crate::tiny_security_device_claims::check(&paper, &rows);
    let groups = mcu::tiny_security::group_means(&rows);
    let by_implementation = per
        .map(|(imp, rows)| {
            let theirs = crate::tiny_security_device_claims::check(&paper, &rows);
            ImplementationFindings {
                implementation: imp.name().to_string(),
                own_schemes: rows
                    .iter()
                    .filter(|r| r.implementation == imp.name())
                    .count(),
                groups: mcu::tiny_security::group_means(&rows),
                flips: flips(imp, &findings, &theirs),
                findings: theirs,
                rows,
            }
        })
        .collect();
    Ok(Report {
        ran_on: format!(
            "the {} at {} MHz, simulated ({}: {})",
            target.name(),
            target.clock_hz() / 1_000_000,
            if target.is_avr() { "simavr" } else { "QEMU" },
            target.counter()
        ),
        target,
        paper,
        rows,
        groups,
        findings,
        by_implementation,
    })
}

/// The findings whose verdict is not RustCrypto's with `imp`'s code.
fn flips(imp: device_facts::Implementation, base: &[Finding], theirs: &[Finding]) -> Vec<String> {
    theirs
        .iter()
        .filter_map(|f| {
            let was = base.iter().find(|b| b.id == f.id)?;
            (was.verdict != f.verdict).then(|| {
                format!(
                    "\"{}\" ({}): {:?} with RustCrypto, {:?} with {}: {}",
                    f.paper,
                    f.place,
                    was.verdict,
                    f.verdict,
                    imp.label(),
                    f.ours
                )
            })
        })
        .collect()
}

impl Report {
    /// A known answer that failed on the device without a diagnosis.
    pub fn undiagnosed_failure(&self) -> bool {
        self.rows
            .iter()
            .chain(self.by_implementation.iter().flat_map(|v| &v.rows))
            .any(|r| r.error.is_none() && !r.kat_passed)
    }

    /// Fails when a known answer failed on the device without a diagnosis.
    pub fn require_diagnosed(&self) -> Result<(), &'static str> {
        match self.undiagnosed_failure() {
            true => Err("a known-answer check failed on the device; see the kat column"),
            false => Ok(()),
        }
    }

    pub fn text(&self) -> String {
        let num = |v: Option<f64>, digits: usize| v.map_or("-".into(), |v| format!("{v:.digits$}"));
        let mut o = String::new();
        out!(
            o,
            "Study 003 at device level on {:?} (Figures 9, 10 and 12), whole message path per reading",
            self.target
        );
        out!(
            o,
            "{:<26} {:<5} {:>5} {:>10} {:>9} {:>13} {:>12} {:>9} {:>4}",
            "algorithm",
            "group",
            "bits",
            "us/byte",
            "spread",
            "security us/B",
            "us/B per bit",
            "flash +B",
            "kat"
        );
        for r in &self.rows {
            out!(
                o,
                "{:<26} {:<5} {:>5} {:>10} {:>9} {:>13} {:>12} {:>9} {:>4}",
                r.algorithm,
                r.group,
                r.security_bits,
                num(r.us_per_byte, 3),
                num(r.us_per_byte_spread, 3),
                num(r.security_us_per_byte, 3),
                num(r.cost_per_bit, 5),
                r.program_size_bytes.map_or("-".into(), |b| b.to_string()),
                if r.error.is_some() {
                    "n/a"
                } else if r.kat_passed {
                    "ok"
                } else {
                    "FAIL"
                }
            );
            if let Some(e) = &r.error {
                out!(o, "    {}: {e}", r.algorithm);
            }
        }
        out!(
            o,
            "\nGroup means (the study's Figures 9, 10 and 12 compare the groups):"
        );
        for g in &self.groups {
            out!(
                o,
                "  {:<5} {} scheme(s): {} us/byte, {} us/B per bit, flash +{} B",
                g.group,
                g.schemes,
                num(g.us_per_byte, 3),
                num(g.cost_per_bit, 5),
                num(g.program_size_bytes, 0)
            );
        }
        let second: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| !mcu::tiny_security::counts(r))
            .map(|r| r.algorithm.as_str())
            .collect();
        if !second.is_empty() {
            out!(
                o,
                "Second implementations, shown but left out of the means and the findings: {} (ACORN-128 bit-serial; acorn-128-wide is the word-parallel one).",
                second.join(", ")
            );
        }
        if self.rows.iter().any(|r| r.group == "EtM") {
            out!(
                o,
                "EtM is AES-ECB then HMAC of the ciphertext, as the study built it (Appendix C): ECB leaks equal blocks; measured for the reproduction only."
            );
        }
        if let Some(base) = self.rows.iter().find_map(|r| r.baseline_program_bytes) {
            out!(
                o,
                "\nNo-security build: {base} B of flash (the study reports {} B for its Arduino build).",
                self.paper.compile_size_baseline_bytes
            );
        }
        out!(
            o,
            "Times are simulated cycles at the target's clock; flash is over the no-security build."
        );
        out!(
            o,
            "\nThe paper's findings beside ours (the study ran on this microcontroller):"
        );
        o.push_str(&crate::finding::text(&self.findings));
        for view in &self.by_implementation {
            let label = view
                .implementation
                .parse::<device_facts::Implementation>()
                .map_or(view.implementation.clone(), |i| i.label().to_string());
            out!(
                o,
                "\nWith {label} wherever it has the whole scheme ({} of {} schemes; RustCrypto's elsewhere):",
                view.own_schemes,
                mcu::tiny_security::SCHEMES.len()
            );
            for r in view
                .rows
                .iter()
                .filter(|r| r.implementation == view.implementation)
            {
                let rc = self.rows.iter().find(|b| b.algorithm == r.algorithm);
                out!(
                    o,
                    "  {:<26} {} us/byte (RustCrypto {}), flash +{} B (RustCrypto +{} B), kat {}",
                    r.algorithm,
                    num(r.us_per_byte, 3),
                    num(rc.and_then(|b| b.us_per_byte), 3),
                    r.program_size_bytes.map_or("-".into(), |b| b.to_string()),
                    rc.and_then(|b| b.program_size_bytes)
                        .map_or("-".into(), |b| b.to_string()),
                    if r.kat_passed { "ok" } else { "FAIL" }
                );
            }
            if view.flips.is_empty() {
                out!(o, "  No finding's verdict changes with {label}.");
            }
            for flip in &view.flips {
                out!(o, "  FLIPS: {flip}");
            }
        }
        o
    }
}

#[cfg(test)]
mod named_tests {
    #[test]
    fn unknown_targets_and_implementations_are_the_users_to_fix() {
        let run = |t: &str, i: Option<&str>| super::run_named(t, i, &mut |_| {}).err().unwrap();
        assert!(run("z80", None).is_invalid());
        assert!(run("cortex-m4", Some("wolfssl")).is_invalid());
    }
}
