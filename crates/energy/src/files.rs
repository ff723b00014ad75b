//! The user's data files (`--data-dir`): what loads, apart from the model,
//! which takes the built-in profiles and file texts (`Profiles::add_file`) and
//! so builds for wasm32 without this module (feature `files`).

use std::path::Path;

use link::files::read_category;

use crate::{EnergyError, Profiles};

impl Profiles {
    /// Built-in profiles plus `devices/`, `radios/` and `batteries/` `*.toml` under `dir`.
    pub fn with_dir(dir: Option<&Path>) -> Result<Self, EnergyError> {
        let mut p = Self::builtin()?;
        if let Some(dir) = dir {
            for category in ["devices", "radios", "batteries"] {
                for (origin, text) in read_category(dir, category)? {
                    p.add_file(&origin, &text)?;
                }
            }
        }
        Ok(p)
    }
}
