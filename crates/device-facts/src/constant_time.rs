//! Constant-time verdicts (`ciphermeter ct`, crates/mcu `ct`): what the
//! check found per build and target, and the verdicts shipped in
//! `data/constant-time/` (`scripts/ct-sweep`), which `recommend` reads so it
//! never ranks a build that leaks on the user's device unless asked.

use serde::{Deserialize, Serialize};

use crate::{FactsError, Target};

/// What differed between two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Difference {
    /// A branch went another way: the instructions that ran differ.
    Branch,
    /// The same instructions took other cycles.
    Cycles,
    /// The same instruction read or wrote another address.
    DataAddress,
    /// An instruction whose time depends on its operands (UDIV on the M3
    /// and M4, UMULL on the M3, DIV on RISC-V) took operands of another size.
    OperandLatency,
    /// An instruction of an IT block (Cortex-M3, M4) ran in one run and was
    /// skipped in another, on the same instruction addresses.
    ConditionalExecution,
}

impl Difference {
    pub fn describe(self) -> &'static str {
        match self {
            Difference::Branch => "a branch that depends on the secret",
            Difference::Cycles => "the same instructions in other cycles",
            Difference::DataAddress => "a data address that depends on the secret",
            Difference::OperandLatency => {
                "an instruction whose time follows the secret through its operands"
            }
            Difference::ConditionalExecution => "conditional execution that depends on the secret",
        }
    }
}

/// Where two runs first part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub what: Difference,
    /// The instruction that decided (the branch, or the load or store).
    pub address: u32,
    /// The function holding it (the ELF's symbols), if any does.
    pub function: Option<String>,
    /// The functions that called it there, innermost first, as far as the
    /// region's path shows them: where the function is a helper (a division
    /// routine, `memcmp`), the code that leaks is among them.
    pub called_from: Vec<String>,
    /// The two runs that differ (0 is the all-zero secret).
    pub runs: [usize; 2],
    /// The variable-latency instruction's mnemonic (UDIV), where that is what was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// Its cycles in the two runs under the core's model, where the core's
    /// maker publishes one (crates/mcu `ct::latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<[u32; 2]>,
}

impl Place {
    /// `branch at 0x1a2 in f (called from g)`.
    pub fn describe(&self) -> String {
        let mut s = self.what.describe().to_string();
        match (&self.instruction, self.latency) {
            (Some(insn), Some([a, b])) => s.push_str(&format!(" ({insn}: {a} vs {b} cycles)")),
            (Some(insn), None) => s.push_str(&format!(" ({insn})")),
            _ => {}
        }
        s.push_str(&format!(" at {:#x}", self.address));
        if let Some(f) = &self.function {
            s.push_str(&format!(" in {f}"));
        }
        if !self.called_from.is_empty() {
            s.push_str(&format!(" (called from {})", self.called_from.join(" ← ")));
        }
        s
    }

    /// Whether `name` is the function or its caller (a test's planted function).
    pub fn names(&self, name: &str) -> bool {
        self.function
            .iter()
            .chain(&self.called_from)
            .any(|f| f.ends_with(name))
    }
}

/// One verdict per build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    ConstantTime,
    Leaks,
    NotChecked,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::ConstantTime => "constant-time",
            Verdict::Leaks => "leaks",
            Verdict::NotChecked => "not checked",
        }
    }
}

/// One operation's runs, judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    pub name: String,
    pub verdict: Verdict,
    /// The fewest and most cycles (AVR) or instructions (QEMU) of a run.
    pub spread: [u64; 2],
    /// The fewest and most cycles a run spent in variable-latency
    /// instructions under the core's model, where any ran and it is published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variable_cycles: Option<[u64; 2]>,
    /// Each run's, in order (run 0: all-zero secrets, run 1: all-one).
    pub counts: Vec<u64>,
    /// The leak, where it is.
    pub leak: Option<Place>,
    /// What differs and is no timing leak under the model: on AVR, a branch
    /// whose two ways take the same cycles, and a secret data address (the
    /// core has no cache).
    pub warnings: Vec<Place>,
}

/// The check of one build on one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub target: Target,
    /// The scheme build (`aead:aes-128-ccm@ciphermeter`) or [`PLANTS`].
    pub build: String,
    pub verdict: Verdict,
    /// What the verdict holds under.
    pub model: String,
    /// Why it could not be checked.
    pub reason: Option<String>,
    /// The seed the secrets were drawn from (`--seed` reproduces them).
    pub seed: String,
    pub runs: usize,
    pub unit: String,
    pub operations: Vec<Operation>,
}

impl Report {
    /// Where the build first leaks: `ct-seal: a branch ... in f (called from g)`.
    pub fn first_leak(&self) -> Option<String> {
        self.operations
            .iter()
            .find_map(|o| Some(format!("{}: {}", o.name, o.leak.as_ref()?.describe())))
    }
}

/// The verdicts of one target, as `scripts/ct-sweep` writes them
/// (`data/constant-time/TARGET.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictTable {
    pub target: Target,
    /// The firmware the verdicts were found on ([`crate::revision::firmware_revision`]),
    /// the check's own device code ([`crate::revision::ct_revision`]) and its
    /// host-side judge ([`crate::revision::judge_revision`]).
    pub firmware_revision: String,
    pub ct_revision: String,
    /// Empty in a table from before the judge was revised, which is stale;
    /// it still reads, so a re-sweep keeps its proven leaks (`ct::check_all`).
    #[serde(default)]
    pub judge_revision: String,
    /// The command that regenerates this table.
    pub regenerate: String,
    pub reports: Vec<Report>,
}

impl VerdictTable {
    /// The verdict on `build` (`aead:aes-128-ccm@ciphermeter`; RustCrypto's
    /// without a suffix).
    pub fn report(&self, build: &str) -> Option<&Report> {
        self.reports.iter().find(|r| r.build == build)
    }
}

/// The verdicts shipped for `target`, if the sweep has run for it.
pub fn shipped(target: Target) -> Result<Option<VerdictTable>, FactsError> {
    let text = target.shipped_verdicts();
    if text.trim().is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|e| FactsError::Failed(format!("data/constant-time/{}.json: {e}", target.name())))
}

/// Refuses to build `build` for `target` when its shipped verdict there is
/// that it leaks, unless `allow_leaky` (`--allow-leaky`), as a legacy scheme
/// is refused for sealing: a device should not be handed code that gives its
/// key away. A build without a verdict is let through.
pub fn refuse_leaky(target: Target, build: &str, allow_leaky: bool) -> Result<(), FactsError> {
    let Some(table) = shipped(target)? else {
        return Ok(());
    };
    match table.report(build) {
        Some(r) if r.verdict == Verdict::Leaks && !allow_leaky => {
            let at = r.first_leak().unwrap_or_default();
            Err(FactsError::Usage(format!(
                "{build}'s timing leaks the key on {target} (ciphermeter ct, seed {}): {at}; \
                 choose another implementation (recommend names one), or --allow-leaky",
                r.seed
            )))
        }
        _ => Ok(()),
    }
}
