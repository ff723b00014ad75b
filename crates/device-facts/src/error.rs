use thiserror::Error;

/// What reading a device fact can go wrong with. Mapped like `mcu`'s
/// `McuError`: `Usage` is the user's to fix (exit 2), `Failed` is not (exit 1).
#[derive(Debug, Error)]
pub enum FactsError {
    /// The request is wrong (unknown target, implementation or algorithm).
    #[error("{0}")]
    Usage(String),
    /// Something failed that the user did not cause (a shipped file that
    /// does not parse, an I/O error).
    #[error("{0}")]
    Failed(String),
}

impl From<std::io::Error> for FactsError {
    fn from(e: std::io::Error) -> Self {
        FactsError::Failed(format!("I/O error: {e}"))
    }
}
