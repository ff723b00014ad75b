//! Firmware builds shared within one run: `CIPHERMETER_BUILD_CACHE=DIR`.
//!
//! Several test executables build the same firmware: the identity baseline at each
//! set of sizes, a drift sample's scheme. Cargo keeps one fingerprint per feature
//! set, so two builds with the same features and other sizes (an environment
//! variable of the build script) redo the whole LTO link each time they alternate.
//! Within one run the sources do not change, so the same cargo command gives the
//! same ELF: `scripts/test` names a fresh directory for its run and deletes it
//! afterwards. Without the variable nothing is cached.
//!
//! Each lookup appends a line to `DIR/builds.tsv` (`built SECONDS WHAT` or
//! `reused 0 WHAT`), which `scripts/test` sums up.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One build's place in the run's cache.
pub struct Entry {
    dir: PathBuf,
    file: PathBuf,
    what: String,
}

/// The cache entry of `command`, when the run has a cache.
pub fn entry(command: &Command) -> Option<Entry> {
    let dir = PathBuf::from(std::env::var_os("CIPHERMETER_BUILD_CACHE")?);
    let key = key(command);
    Some(Entry {
        file: dir.join(format!("{}.elf", &key[..32])),
        dir,
        what: describe(command),
    })
}

/// Everything that selects what cargo builds: the program, its arguments, its
/// directory and every variable set or removed.
fn key(command: &Command) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let mut part = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    part(command.get_program().as_encoded_bytes());
    for arg in command.get_args() {
        part(arg.as_encoded_bytes());
    }
    if let Some(dir) = command.get_current_dir() {
        part(dir.as_os_str().as_encoded_bytes());
    }
    let mut envs: Vec<_> = command.get_envs().collect();
    envs.sort();
    for (name, value) in envs {
        part(name.as_encoded_bytes());
        // A removed variable differs from an empty one.
        match value {
            Some(v) => part(v.as_encoded_bytes()),
            None => part(b"\0removed"),
        }
    }
    hex::encode(hash.finalize())
}

/// The build in a line: its arguments after `build` and the variables it sets.
fn describe(command: &Command) -> String {
    let mut words: Vec<String> = command
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !["--quiet", "--color", "never", "--release"].contains(&a.as_str()))
        .collect();
    for (name, value) in command.get_envs() {
        if let (Some(v), true) = (value, name != "CARGO_TARGET_DIR") {
            words.push(format!(
                "{}={}",
                name.to_string_lossy(),
                v.to_string_lossy()
            ));
        }
    }
    words.join(" ")
}

impl Entry {
    /// The cached ELF, when this run built it before.
    pub fn get(&self) -> Option<&Path> {
        self.file.is_file().then(|| {
            self.log("reused", 0.0);
            self.file.as_path()
        })
    }

    /// Keeps `built` for the rest of the run (a copy placed by an atomic rename,
    /// so a reader never sees half a file).
    pub fn put(&self, built: &Path, seconds: f64) -> Result<(), String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("build cache: {e}"))?;
        let temp = self
            .file
            .with_extension(format!("{}.tmp", std::process::id()));
        std::fs::copy(built, &temp).map_err(|e| format!("build cache: {e}"))?;
        std::fs::rename(&temp, &self.file).map_err(|e| format!("build cache: {e}"))?;
        self.log("built", seconds);
        Ok(())
    }

    fn log(&self, how: &str, seconds: f64) {
        // The log is a report: a failure to write it must not fail a build.
        let _ = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("builds.tsv"))
            .and_then(|mut f| writeln!(f, "{how}\t{seconds:.1}\t{}", self.what));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cargo(sizes: &str, removed: bool) -> Command {
        let mut c = Command::new("cargo");
        c.args(["build", "--features", "identity"])
            .env("CIPHERMETER_SIZES", sizes);
        if removed {
            c.env_remove("CIPHERMETER_SCHEME");
        } else {
            c.env("CIPHERMETER_SCHEME", "");
        }
        c
    }

    #[test]
    fn the_key_follows_arguments_variables_and_removals() {
        let a = key(&cargo("16", true));
        assert_eq!(a, key(&cargo("16", true)));
        assert_ne!(a, key(&cargo("16,64", true)));
        assert_ne!(a, key(&cargo("16", false)));
        let mut other = cargo("16", true);
        other.arg("--example");
        assert_ne!(a, key(&other));
    }

    #[test]
    fn a_build_is_reused_only_once_it_was_put() {
        let dir = tempfile::tempdir().unwrap();
        let entry = Entry {
            dir: dir.path().join("cache"),
            file: dir.path().join("cache").join("k.elf"),
            what: "identity".into(),
        };
        assert!(entry.get().is_none());
        let built = dir.path().join("built.elf");
        std::fs::write(&built, b"\x7fELF").unwrap();
        entry.put(&built, 1.5).unwrap();
        assert_eq!(std::fs::read(entry.get().unwrap()).unwrap(), b"\x7fELF");
        let log = std::fs::read_to_string(dir.path().join("cache/builds.tsv")).unwrap();
        assert_eq!(log, "built\t1.5\tidentity\nreused\t0.0\tidentity\n");
    }
}
