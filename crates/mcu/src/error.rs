use thiserror::Error;

#[derive(Debug, Error)]
pub enum McuError {
    /// The request is wrong (unknown target or algorithm, bad sizes).
    #[error("{0}")]
    Usage(String),
    /// A toolchain piece is missing; the message carries the install command.
    #[error("{0}")]
    Missing(String),
    /// Something failed that the user did not cause.
    #[error("{0}")]
    Failed(String),
}

impl From<std::io::Error> for McuError {
    fn from(e: std::io::Error) -> Self {
        McuError::Failed(format!("I/O error: {e}"))
    }
}

/// The facts' errors keep their kind: a usage error stays one (exit 2).
impl From<device_facts::FactsError> for McuError {
    fn from(e: device_facts::FactsError) -> Self {
        match e {
            device_facts::FactsError::Usage(m) => McuError::Usage(m),
            device_facts::FactsError::Failed(m) => McuError::Failed(m),
        }
    }
}
