//! The user's data files (`--data-dir`): what loads, apart from the models,
//! which take the built-in data and file texts (`Catalogue::add_file`) and so
//! build for wasm32 without this module (feature `files`).

use std::path::Path;

use crate::catalogue::Catalogue;
use crate::error::LinkError;

impl Catalogue {
    /// The built-in links plus every `links/*.toml` under `dir`.
    pub fn with_dir(dir: Option<&Path>) -> Result<Self, LinkError> {
        let mut cat = Self::builtin()?;
        if let Some(dir) = dir {
            for (origin, text) in read_category(dir, "links")? {
                cat.add_file(&origin, &text)?;
            }
        }
        Ok(cat)
    }
}

/// The `*.toml` files of `dir/<category>`, sorted by name, as (path, text).
/// A missing category folder is not an error: users may override only some categories.
pub fn read_category(dir: &Path, category: &str) -> Result<Vec<(String, String)>, LinkError> {
    let folder = dir.join(category);
    if !dir.is_dir() {
        return Err(LinkError::Data(format!(
            "data directory {} does not exist",
            dir.display()
        )));
    }
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut paths: Vec<_> = std::fs::read_dir(&folder)
        .map_err(|e| LinkError::Data(format!("{}: {e}", folder.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            std::fs::read_to_string(&p)
                .map(|t| (p.display().to_string(), t))
                .map_err(|e| LinkError::Data(format!("{}: {e}", p.display())))
        })
        .collect()
}
