//! How a row with a hardware engine doing part of its seal was costed
//! (`engine_cost` costs it; a ranked row carries it).

use serde::{Deserialize, Serialize};

/// How an engine-backed row was costed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineUse {
    /// The engine (`cryptocell-310`).
    pub engine: String,
    pub engine_title: String,
    /// The interface a team reaches it through.
    pub driver: String,
    /// The published figures the engine's time comes from.
    pub sources: Vec<String>,
    /// The engine's cycles for the message (published rates).
    pub engine_cycles: f64,
    /// The measured software around it: the seal path less the primitives
    /// the engine does, with a measured GHASH where it stays software.
    pub software_cycles: f64,
    /// GCM's GHASH in software on an AES-only engine: where the source
    /// published the chip's GCM whole, that figure less the engine's AES
    /// blocks; else the device's measured Mbed TLS GCM less its CTR (the
    /// drivers run Mbed TLS's GHASH). None where the engine does it all.
    pub software_ghash_cycles: Option<f64>,
    /// Whose software surrounds it (the seal path and the primitives taken out).
    pub software_implementation: String,
    /// What the engine cannot do, each with its source.
    pub cannot: Vec<String>,
}

impl EngineUse {
    /// The implementation column's words.
    pub fn label(&self) -> String {
        device_facts::engine::hardware_label(&self.engine_title)
    }

    /// `scheme` as sentences and lists name it with this engine.
    pub fn shown_name(&self, scheme: &str) -> String {
        format!("{scheme} on the {}", self.engine)
    }
}
