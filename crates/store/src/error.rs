use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The user named a run that is not in the store.
    #[error("no run with id {0} in the store (see `ciphermeter runs`)")]
    UnknownRun(i64),
    /// The file is not a ciphermeter store, or comes from a newer ciphermeter.
    #[error("{path}: {why}")]
    Incompatible { path: PathBuf, why: String },
    #[error("cannot create the store directory {path}: {source}")]
    Directory {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "no default store location: neither XDG_DATA_HOME nor HOME is set (use --db PATH or --db postgres://...)"
    )]
    NoHome,
    /// A PostgreSQL URL that does not parse, or a server that cannot be reached.
    #[error("{location}: {why}")]
    Connect { location: String, why: String },
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[cfg(feature = "postgres")]
    #[error("PostgreSQL: {}", with_causes(.0))]
    Postgres(#[from] postgres::Error),
    /// A stored value of an unexpected type (a store written by something else).
    #[error("column {index} holds an unexpected value: {value}")]
    Column { index: usize, value: String },
    #[error("stored JSON is unreadable: {0}")]
    Json(#[from] serde_json::Error),
    /// A request the store cannot answer as asked (a percentage out of range,
    /// a gate over two machines' runs).
    #[error("{0}")]
    Usage(String),
}

impl StoreError {
    /// A `postgres://` store asked of a build without PostgreSQL (the ARM board
    /// binaries leave it out): the user's to fix, with another build or a file.
    #[cfg(not(feature = "postgres"))]
    pub(crate) fn no_postgres(location: &crate::Location) -> StoreError {
        StoreError::Connect {
            location: location.to_string(),
            why: "this build has no PostgreSQL support (cargo feature `postgres`; the ARM board binaries are built without it): use --db FILE, or a build with it".into(),
        }
    }

    /// True when the user can fix it (a wrong run id, file or URL); the CLI exits 2 then.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            StoreError::UnknownRun(_)
                | StoreError::Usage(_)
                | StoreError::Incompatible { .. }
                | StoreError::NoHome
                | StoreError::Connect { .. }
        )
    }
}

/// An error and the errors under it, as one line: the PostgreSQL client says only
/// "db error" or "error connecting to server" itself and keeps the reason beneath.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text = format!("{text}: {c}");
        cause = c.source();
    }
    text
}
