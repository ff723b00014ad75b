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
