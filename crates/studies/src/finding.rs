//! A paper's statement beside what our numbers say about it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Our numbers support the statement.
    Agrees,
    /// Our numbers contradict it.
    Differs,
    /// A figure to compare, not a yes/no statement.
    Compare,
    /// This run cannot judge it; the reason says where it can be.
    NotJudged,
}

impl Verdict {
    pub fn from_ok(ok: bool) -> Verdict {
        if ok {
            Verdict::Agrees
        } else {
            Verdict::Differs
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
            Verdict::Compare => "compare",
            Verdict::NotJudged => "not judged here",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable id from the study's data file (`aead_fastest`).
    pub id: String,
    /// The paper's words.
    pub paper: String,
    /// Where in the paper (section, figure).
    pub place: String,
    pub verdict: Verdict,
    /// Our figures behind the verdict, and why.
    pub ours: String,
}

/// The text block every study prints under "The paper's findings beside ours".
pub fn text(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "  [{}] {} ({})\n      ours: {}: {}\n",
            f.id, f.paper, f.place, f.verdict, f.ours
        ));
    }
    out
}

/// One finding per claim of a paper, judged by `check` from the claim's id:
/// the one place that pairs a paper's words with our verdict.
pub fn judge_claims(
    claims: &[crate::paper::Claim],
    mut check: impl FnMut(&str) -> (Verdict, String),
) -> Vec<Finding> {
    claims
        .iter()
        .map(|claim| {
            let (verdict, ours) = check(&claim.id);
            Finding {
                id: claim.id.clone(),
                paper: claim.text.clone(),
                place: claim.place.clone(),
                verdict,
                ours,
            }
        })
        .collect()
}
