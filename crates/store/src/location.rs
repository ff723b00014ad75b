//! The default database path, following the XDG base directory convention:
//! `$XDG_DATA_HOME/ciphermeter/results.sqlite`, else `~/.local/share/ciphermeter/...`.

use std::path::PathBuf;

use crate::StoreError;

pub const FILE_NAME: &str = "results.sqlite";

pub fn default_path() -> Result<PathBuf, StoreError> {
    let non_empty = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    let base = match non_empty("XDG_DATA_HOME").filter(|p| p.is_absolute()) {
        Some(dir) => dir,
        None => non_empty("HOME")
            .ok_or(StoreError::NoHome)?
            .join(".local/share"),
    };
    Ok(base.join("ciphermeter").join(FILE_NAME))
}
