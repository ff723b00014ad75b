//! Where a store lives: a SQLite file (the default, embedded) or a PostgreSQL database
//! named by a `postgres://` URL (a fleet's shared store). The default file follows the
//! XDG base directory convention: `$XDG_DATA_HOME/ciphermeter/results.sqlite`, else
//! `~/.local/share/ciphermeter/...`.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::StoreError;
#[cfg(feature = "postgres")]
use crate::error::with_causes;

pub const FILE_NAME: &str = "results.sqlite";

/// How long connecting to a PostgreSQL server may take unless the URL says otherwise.
#[cfg(feature = "postgres")]
const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    /// A libpq-style URL, `postgres://user@host:port/database`.
    Postgres(String),
}

impl Location {
    /// A command-line `--db` value: a `postgres://` or `postgresql://` URL, else a path.
    pub fn parse(text: &OsStr) -> Location {
        match text.to_str() {
            Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
                Location::Postgres(url.to_string())
            }
            _ => Location::Sqlite(PathBuf::from(text)),
        }
    }
}

impl From<&OsStr> for Location {
    fn from(text: &OsStr) -> Location {
        Location::parse(text)
    }
}

impl From<&str> for Location {
    fn from(text: &str) -> Location {
        Location::parse(text.as_ref())
    }
}

/// A path is always a SQLite file, whatever its text.
impl From<&Path> for Location {
    fn from(path: &Path) -> Location {
        Location::Sqlite(path.to_path_buf())
    }
}

impl From<&PathBuf> for Location {
    fn from(path: &PathBuf) -> Location {
        Location::Sqlite(path.clone())
    }
}

impl From<&Location> for Location {
    fn from(location: &Location) -> Location {
        location.clone()
    }
}

/// The path, or the URL without its password (it goes into logs and listings).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

/// The URL with `***` for a password, in the user part or as a `password=` parameter.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let rest = match rest[..authority_end].rsplit_once('@') {
        Some((user_info, _)) if user_info.contains(':') => {
            let user = user_info.split(':').next().unwrap_or_default();
            format!("{user}:***{}", &rest[user_info.len()..])
        }
        _ => rest.to_string(),
    };
    let Some((path, query)) = rest.split_once('?') else {
        return format!("{scheme}://{rest}");
    };
    let query: Vec<&str> = query
        .split('&')
        .map(|kv| {
            if kv.starts_with("password=") {
                "password=***"
            } else {
                kv
            }
        })
        .collect();
    format!("{scheme}://{path}?{}", query.join("&"))
}

/// Connects to the PostgreSQL database of `url` (no TLS: loopback or a trusted network).
/// A URL that does not parse, or a server that cannot be reached or refuses the login,
/// is the user's to fix.
#[cfg(feature = "postgres")]
pub fn connect_postgres(url: &str) -> Result<postgres::Client, StoreError> {
    let shown = without_password(url);
    let mut config: postgres::Config = url.parse().map_err(|e| StoreError::Connect {
        location: shown.clone(),
        why: format!("not a PostgreSQL URL ({})", with_causes(&e)),
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    config
        .connect(postgres::NoTls)
        .map_err(|e| StoreError::Connect {
            location: shown,
            why: format!("cannot connect ({})", with_causes(&e)),
        })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_postgres_and_everything_else_a_file() {
        let pg = Location::from("postgresql://u@h:5/db");
        assert_eq!(pg, Location::Postgres("postgresql://u@h:5/db".into()));
        assert_eq!(
            Location::from("postgres.sqlite"),
            Location::Sqlite("postgres.sqlite".into())
        );
        assert_eq!(
            Location::from(Path::new("postgres://x")),
            Location::Sqlite("postgres://x".into())
        );
    }

    #[test]
    fn passwords_are_not_shown() {
        let shown = Location::from("postgres://me:s3cret@db.example:5432/r?x=1").to_string();
        assert_eq!(shown, "postgres://me:***@db.example:5432/r?x=1");
        let shown = Location::from("postgres://me@h/r?sslmode=disable&password=pw").to_string();
        assert_eq!(shown, "postgres://me@h/r?sslmode=disable&password=***");
        let plain = "postgres://me@127.0.0.1:5432/r";
        assert_eq!(Location::from(plain).to_string(), plain);
    }
}
