#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EnergyError {
    #[error("unknown {kind} '{name}'{suggestion}; known: {known}{hint}")]
    Unknown {
        kind: &'static str,
        name: String,
        /// " (did you mean …?)" or "".
        suggestion: String,
        known: String,
        /// What else helps ("; '…' looks like …"), or "".
        hint: String,
    },
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Data(String),
}

impl From<link::LinkError> for EnergyError {
    fn from(e: link::LinkError) -> Self {
        EnergyError::Data(e.to_string())
    }
}
