//! A sealed message compressed with SCHC (`--compression schc`), as the
//! ranking and the views cost it; compressing it is the host's (`cost::message`).

/// Said wherever a compressed message's CPU time is: the device tables time
/// the seal path, not SCHC's compression after it, which the SCHC probe
/// measures apart (crates/mcu `schc_probe`).
pub const SCHC_CPU_NOTE: &str = "; SCHC compression's own CPU is not in it (measured apart on \
     the Cortex-M targets: data/schc/device-cpu.json, docs/schc.md)";

/// What a compressed message's rows say of its compression.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Compression {
    pub scheme: String,
    pub rules: String,
    pub rule_id: u64,
    pub uncompressed_bytes: usize,
    pub compressed_bytes: usize,
}

/// A message compressed with SCHC: the whole packet, rule id first.
#[derive(Clone, Debug)]
pub struct SchcPacket {
    pub packet: schc::Bits,
    pub rule_id: u64,
    pub rule_id_bits: usize,
    /// The rules: `default` (data/schc/default-rules.json) or the file given.
    pub rules: String,
    /// The message's bytes before compression.
    pub uncompressed_bytes: usize,
    /// Its plaintext was compressed too, by the rules' inner rules (RFC 8824 §7.2).
    pub inner: bool,
}

impl SchcPacket {
    /// The packet's bytes, zero-padded (RFC 8724 §9), rule id included.
    pub fn bytes(&self) -> usize {
        self.packet.as_padded_bytes().len()
    }

    /// The `compression` object of `link`, `energy` and `recommend`'s JSON.
    pub fn summary(&self) -> Compression {
        Compression {
            scheme: "schc".into(),
            rules: self.rules.clone(),
            rule_id: self.rule_id,
            uncompressed_bytes: self.uncompressed_bytes,
            compressed_bytes: self.bytes(),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self.summary()).unwrap_or_default()
    }

    /// "rule 101 of the default rules, and its plaintext by their inner rules: 247 → 231 B".
    pub fn describe(&self) -> String {
        let inner = match self.inner {
            true => ", and its plaintext by their inner rules",
            false => "",
        };
        format!(
            "SCHC rule {} of the {} rules{inner}: {} → {} B, the rule id in FPort when one frame carries it",
            self.rule_id,
            self.rules,
            self.uncompressed_bytes,
            self.bytes()
        )
    }
}
