//! The timing classes an executed Cortex-M instruction is put in (crates/mcu
//! `cycles::classify` decides which); the keys of `cortex-m.toml`.

use serde::{Deserialize, Serialize};

/// The timing classes; the names are the keys of `cortex-m.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Alu,
    PcWrite,
    Nop,
    It,
    Mul,
    MulAccumulate,
    MulLong,
    MulLongAccumulate,
    Divide,
    Load,
    LoadPipelined,
    LoadDouble,
    Store,
    StoreDouble,
    LoadMultiple,
    StoreMultiple,
    ToPcExtra,
    BranchTaken,
    BranchNotTaken,
    BranchLink,
    BranchExchange,
    TableBranch,
    Other,
}

impl Class {
    /// The class's key in `cortex-m.toml` (`load_pipelined`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}
