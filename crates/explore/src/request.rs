//! The page's question as JSON: `recommend`'s flags by their names, with
//! its defaults, turned into the engine's `Request` (which has no serde).
//! Custom device profiles come as the text of a profile file the user picked.

use cost_engine::Error;
use serde::{Deserialize, Serialize};

/// What the page (or its URL fragment) asks. Absent fields take
/// `recommend`'s defaults.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub struct PageRequest {
    pub device: String,
    pub link: String,
    /// `--sample` [chain:10].
    pub sample: Option<String>,
    pub serialization: Option<String>,
    /// `--min-security` [128].
    pub min_security: Option<u32>,
    /// `--need` [confidentiality].
    pub need: Option<String>,
    pub allow_legacy: bool,
    pub allow_leaky: bool,
    /// `--container` [json]: json, binary, cose, oscore or all.
    pub container: Option<String>,
    pub compression: Option<String>,
    /// `--battery` [2xAA].
    pub battery: Option<String>,
    /// `--interval` [10m].
    pub interval: Option<String>,
    /// `--impl` [all].
    #[serde(rename = "impl")]
    pub implementation: Option<String>,
    /// `--session-messages`: refused here (no handshakes in the page).
    pub session_messages: Option<u64>,
    /// Profile files' texts (TOML, `data/devices/`'s format), added over the
    /// shipped profiles.
    pub profiles: Vec<String>,
}

impl PageRequest {
    pub fn parse(json: &str) -> Result<PageRequest, Error> {
        serde_json::from_str(json).map_err(|e| Error::invalid(format!("request: {e}")))
    }

    /// The request as the engine takes it; a bad value is the user's error.
    pub fn engine(&self) -> Result<cost_engine::request::Request, Error> {
        let choice = device_facts::implementation::parse_choice(
            self.implementation.as_deref().unwrap_or("all"),
        )
        .map_err(|e| Error::invalid(format!("--impl: {e}")))?;
        let need = self.need.as_deref().unwrap_or("confidentiality");
        let containers = self.container.as_deref().unwrap_or("json");
        Ok(cost_engine::request::Request {
            device: self.device.clone(),
            link: self.link.clone(),
            payload: self.sample.clone().unwrap_or_else(|| "chain:10".into()),
            serialization: self.serialization.clone(),
            min_security: self.min_security.unwrap_or(128),
            need: need.parse().map_err(Error::invalid)?,
            allow_legacy: self.allow_legacy,
            allow_leaky: self.allow_leaky,
            containers: cost_engine::request::containers(containers).map_err(Error::invalid)?,
            compression: self.compression.clone(),
            battery: self.battery.clone().unwrap_or_else(|| "2xAA".into()),
            interval: self.interval.clone().unwrap_or_else(|| "10m".into()),
            session_messages: self.session_messages,
            implementations: choice.software,
            hardware: choice.hardware,
            protocol: Default::default(),
        })
    }
}
