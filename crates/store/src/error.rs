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
    #[error("no default store location: neither XDG_DATA_HOME nor HOME is set (use --db PATH)")]
    NoHome,
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("stored JSON is unreadable: {0}")]
    Json(#[from] serde_json::Error),
}

impl StoreError {
    /// True when the user can fix it (a wrong run id or file); the CLI exits 2 then.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            StoreError::UnknownRun(_) | StoreError::Incompatible { .. } | StoreError::NoHome
        )
    }
}
