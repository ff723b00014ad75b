use thiserror::Error;

#[derive(Debug, Error)]
pub enum LiveError {
    /// Something the user asked for is wrong (endpoint, key file, option values).
    #[error("{0}")]
    Usage(String),
    /// Something this build leaves out (a cargo feature: `postgres`, `mqtt`, `amqp`) was
    /// asked for: the user's to fix with another build, like [`LiveError::Usage`].
    #[error("{0}")]
    NotBuilt(String),
    /// The machine failed: a device, socket or file could not be used.
    #[error("{0}")]
    Io(String),
    /// The gateway's SQLite database failed.
    #[error("database: {0}")]
    Store(#[from] rusqlite::Error),
    /// The gateway's PostgreSQL database failed.
    #[cfg(feature = "postgres")]
    #[error("database: {}", store::error::with_causes(.0))]
    Postgres(#[from] postgres::Error),
}

impl From<serial::SerialError> for LiveError {
    fn from(e: serial::SerialError) -> Self {
        match e {
            serial::SerialError::Usage(m) => LiveError::Usage(m),
            serial::SerialError::Io(m) => LiveError::Io(m),
        }
    }
}

impl LiveError {
    pub fn io(context: impl std::fmt::Display, err: impl std::fmt::Display) -> Self {
        LiveError::Io(format!("{context}: {err}"))
    }

    /// `what` (e.g. `mqtt://…`) needs `support` (e.g. "MQTT"), which this build was made
    /// without (cargo feature `feature`).
    pub fn not_built(what: impl std::fmt::Display, support: &str, feature: &str) -> Self {
        LiveError::NotBuilt(format!(
            "{what}: this build has no {support} support (cargo feature `{feature}`); \
             the ARM board binaries are built without it"
        ))
    }

    /// True when the user can fix it (the CLI exits 2): a wrong request, or one this
    /// build cannot serve.
    pub fn is_usage(&self) -> bool {
        matches!(self, LiveError::Usage(_) | LiveError::NotBuilt(_))
    }
}
