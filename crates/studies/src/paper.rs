//! The papers' own numbers and statements, transcribed into data/studies/
//! with their sources, and compiled into the binary.

use cost::Error;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub const RF_TRANSMISSION: &str = include_str!("../../../data/studies/000_rf_transmission.json");
pub const SERIALIZATION: &str = include_str!("../../../data/studies/001_serialization.json");
pub const FILE_SIZES: &str = include_str!("../../../data/studies/002_file_sizes.json");
pub const TINY_SECURITY: &str = include_str!("../../../data/studies/003_tiny_security.json");
pub const LORA: &str = include_str!("../../../data/studies/004_lora.json");

/// One statement of a paper, as its data file holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claim {
    pub id: String,
    pub text: String,
    #[serde(rename = "where")]
    pub place: String,
}

/// Parses one study's data file; a broken file is a bug in this build.
pub fn parse<T: DeserializeOwned>(text: &str, study: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| Error::failed(format!("study {study} data: {e}")))
}
