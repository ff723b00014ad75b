//! The data files behind every cost: link catalogue and device, radio and
//! battery profiles, built in, optionally extended from a user directory.

use std::path::{Path, PathBuf};

use crate::Error;

/// The user's data directory: the given one, else `$CIPHERMETER_DATA_DIR`,
/// else none (only the files built into the binary).
pub fn data_dir(given: Option<&Path>) -> Option<PathBuf> {
    given.map(Path::to_path_buf).or_else(|| {
        std::env::var_os(link::DATA_DIR_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    })
}

/// Link and profile errors come from names the user typed or files they wrote.
pub fn links(dir: Option<&Path>) -> Result<link::Catalogue, Error> {
    link::Catalogue::with_dir(data_dir(dir).as_deref()).map_err(Error::invalid)
}

pub fn profiles(dir: Option<&Path>) -> Result<energy::Profiles, Error> {
    energy::Profiles::with_dir(data_dir(dir).as_deref()).map_err(Error::invalid)
}

pub use cost_engine::on_air::ms;
