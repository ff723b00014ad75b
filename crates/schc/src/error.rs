//! What can go wrong, each said so that a user can act on it.

use alloc::string::String;
use core::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchcError {
    /// A rule that cannot be carried out, with why.
    BadRule(String),
    /// The packet is not a CoAP message this crate compresses.
    Malformed(String),
    /// No rule matches the packet, and the set has no no-compression rule.
    NoRule,
    /// A compressed packet whose rule id no rule has.
    UnknownRuleId,
    /// A compressed packet that ends inside its residue.
    Truncated(&'static str),
    /// Decompressed fields that make no CoAP message, with why.
    Inconsistent(&'static str),
    /// A packet fragmentation cannot carry in these frames, with why.
    Unfit(String),
}

impl fmt::Display for SchcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchcError::BadRule(why) => write!(f, "bad SCHC rule: {why}"),
            SchcError::Malformed(why) => write!(f, "not a CoAP message SCHC compresses: {why}"),
            SchcError::NoRule => f.write_str(
                "no SCHC rule matches the packet, and the rule set has no no-compression rule",
            ),
            SchcError::UnknownRuleId => f.write_str("a compressed packet with an unknown rule id"),
            SchcError::Truncated(what) => write!(f, "a compressed packet that ends inside {what}"),
            SchcError::Inconsistent(why) => {
                write!(f, "the decompressed fields make no CoAP message: {why}")
            }
            SchcError::Unfit(why) => write!(f, "SCHC fragmentation: {why}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SchcError {}
