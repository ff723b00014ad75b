//! A number read from a data file, together with where it comes from.
//!
//! Every figure must carry either `source` (a datasheet, standard or paper, with the table
//! or section) or `estimate` (why it is a guess). Loading fails otherwise, so a figure
//! without provenance never reaches a result.

use serde::{Deserialize, Serialize};

use crate::error::LinkError;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure<T> {
    pub value: T,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Present when the value is an estimate: says what it rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<String>,
}

impl<T> Figure<T> {
    pub fn sourced(value: T, source: &str) -> Self {
        Figure {
            value,
            source: Some(source.into()),
            estimate: None,
        }
    }

    pub fn is_estimate(&self) -> bool {
        self.estimate.is_some()
    }

    /// Fails unless the figure says where it comes from.
    pub fn check(&self, owner: &str, field: &str) -> Result<(), LinkError> {
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|t| t.trim().is_empty());
        if blank(&self.source) && blank(&self.estimate) {
            return Err(LinkError::Data(format!(
                "{owner}: figure '{field}' has neither a source nor an estimate label"
            )));
        }
        Ok(())
    }

    /// "source: …" or "estimate: …", for reports.
    pub fn provenance(&self) -> String {
        match (&self.source, &self.estimate) {
            (_, Some(e)) => format!("estimate: {e}"),
            (Some(s), None) => s.clone(),
            (None, None) => "no source".into(),
        }
    }
}

/// Parses TOML text, naming the file in the error.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    origin: &str,
    text: &str,
) -> Result<T, LinkError> {
    toml::from_str(text).map_err(|e| LinkError::Data(format!("{origin}: {e}")))
}
