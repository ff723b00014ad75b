//! Errors of the link crate. Every variant stems from what the user asked for.

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    /// A parameter outside what the radio or standard allows.
    #[error("{0}")]
    Invalid(String),
    /// A name not found in the link catalogue.
    #[error("unknown link '{name}'{suggestion}; known: {known}")]
    UnknownLink {
        name: String,
        /// " (did you mean …?)" or "".
        suggestion: String,
        known: String,
    },
    /// A data file that does not parse or lacks a source.
    #[error("{0}")]
    Data(String),
    /// A message to the device that no downlink of the link can carry
    /// (`downlink::cost`), or more downlinks than the link allows.
    #[error("on {link}, {reason}")]
    DownlinkRefused {
        link: String,
        /// The message's bytes (0: a count of downlinks refused).
        bytes: u32,
        reason: String,
    },
}

impl LinkError {
    pub fn invalid(msg: impl Into<String>) -> Self {
        LinkError::Invalid(msg.into())
    }
}
