//! What the store keeps. A [`ResultRow`] indexes one number (its key columns, value
//! and confidence interval) and carries the producing crate's own serde record
//! verbatim in `data`, so nothing a measurement said is lost in storage.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub type RunId = i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Started and not finished: still going, or the process died.
    Running,
    Complete,
    /// Stopped by Ctrl-C; what finished before is kept.
    Interrupted,
    Failed,
    /// Loaded from another machine's JSON.
    Imported,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Complete => "complete",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Failed => "failed",
            RunStatus::Imported => "imported",
        }
    }

    pub fn parse(text: &str) -> Option<RunStatus> {
        [
            RunStatus::Running,
            RunStatus::Complete,
            RunStatus::Interrupted,
            RunStatus::Failed,
            RunStatus::Imported,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a run is, before it has results.
#[derive(Clone, Debug, PartialEq)]
pub struct NewRun {
    /// The command line that made it, e.g. `run --quick`.
    pub command: String,
    /// Host name (or the importing file's host) for listings.
    pub host: String,
    /// "local", or "import:<file name>".
    pub origin: String,
    /// The environment record of the measuring crate, verbatim.
    pub environment: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    pub id: RunId,
    pub started_at: String,
    pub finished_at: Option<String>,
    pub command: String,
    pub host: String,
    pub origin: String,
    pub status: RunStatus,
    pub results: i64,
    pub environment: Value,
}

/// One stored number with the columns that identify it across runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultRow {
    /// Which part of ciphermeter produced it: bench, frame, link, energy, mcu.
    pub section: String,
    /// "host" for this machine, else a device target such as `atmega1284p`.
    pub target: String,
    /// Algorithm or scheme id (catalogue id where there is one).
    pub subject: String,
    /// encrypt, decrypt, hash, mac, seal, message, ...
    pub operation: String,
    pub size_bytes: Option<i64>,
    /// Extra qualifier such as the device and link of an energy figure; "" if none.
    pub context: String,
    pub metric: String,
    pub unit: String,
    pub value: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub samples: Option<i64>,
    /// The producing crate's record, verbatim.
    pub data: Value,
}

/// The columns that say "the same measurement" in two runs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ResultKey {
    pub section: String,
    pub target: String,
    pub subject: String,
    pub operation: String,
    pub size_bytes: Option<i64>,
    pub context: String,
    pub metric: String,
}

impl ResultRow {
    pub fn key(&self) -> ResultKey {
        ResultKey {
            section: self.section.clone(),
            target: self.target.clone(),
            subject: self.subject.clone(),
            operation: self.operation.clone(),
            size_bytes: self.size_bytes,
            context: self.context.clone(),
            metric: self.metric.clone(),
        }
    }
}

impl fmt::Display for ResultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.section, self.subject, self.operation)?;
        if let Some(n) = self.size_bytes {
            write!(f, " {n}B")?;
        }
        if self.target != "host" {
            write!(f, " [{}]", self.target)?;
        }
        if !self.context.is_empty() {
            write!(f, " ({})", self.context)?;
        }
        write!(f, " {}", self.metric)
    }
}

/// A whole table or text a run produced (a reproduction's output), kept for the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    /// "reproduction", "environment-note", ...
    pub kind: String,
    /// Short id, e.g. `lora`.
    pub name: String,
    pub title: String,
    /// JSON when the producer gave JSON, else `{"text": "..."}`.
    pub data: Value,
}
