use thiserror::Error;

#[derive(Debug, Error)]
pub enum LiveError {
    /// Something the user asked for is wrong (endpoint, key file, option values).
    #[error("{0}")]
    Usage(String),
    /// The machine failed: a device, socket or file could not be used.
    #[error("{0}")]
    Io(String),
    /// The gateway's SQLite database failed.
    #[error("database: {0}")]
    Store(#[from] rusqlite::Error),
    /// The gateway's PostgreSQL database failed.
    #[error("database: {}", store::error::with_causes(.0))]
    Postgres(#[from] postgres::Error),
}

impl LiveError {
    pub fn io(context: impl std::fmt::Display, err: impl std::fmt::Display) -> Self {
        LiveError::Io(format!("{context}: {err}"))
    }

    pub fn is_usage(&self) -> bool {
        matches!(self, LiveError::Usage(_))
    }
}
