//! What the probes beside the firmware share (firmware-schc/, firmware-verify/):
//! their build for a target they run on, and the lines they print (`KIND NAME
//! VALUE...`). Each probe's own module runs it and prices its regions.

use std::path::PathBuf;
use std::process::Command;

use crate::{McuError, Target};

/// A probe: its directory beside `firmware/` and its package's name.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    pub dir: &'static str,
    pub package: &'static str,
    /// How its messages name it ("the SCHC probe").
    pub title: &'static str,
    /// The targets its platform code runs on, and how a refusal says so.
    pub runs_on: fn(Target) -> bool,
    pub runs_on_what: &'static str,
}

impl Probe {
    /// Builds the probe for `target` with `features`; the ELF's path.
    pub fn build(&self, target: Target, features: &[&str]) -> Result<PathBuf, McuError> {
        if !(self.runs_on)(target) {
            return Err(McuError::Usage(format!(
                "{} runs on {}, not {target}",
                self.title, self.runs_on_what
            )));
        }
        let dir = crate::compile::target_dir().join(self.dir);
        let mut cmd = Command::new("cargo");
        cmd.arg(format!("+{}", target.toolchain()))
            .args(["build", "--release", "--quiet", "--color", "never"])
            .args(["--target", target.rust_target()])
            .current_dir(crate::firmware_dir().join("..").join(self.dir))
            .env("CARGO_TARGET_DIR", &dir);
        if !features.is_empty() {
            cmd.args(["--features", &features.join(",")]);
        }
        for var in crate::compile::UNSET_FOR_FIRMWARE {
            cmd.env_remove(var);
        }
        if let Some((var, flags)) = target.rustflags_env() {
            cmd.env(var, flags);
        }
        let out = cmd.output()?;
        if !out.status.success() {
            return Err(McuError::Failed(format!(
                "{} does not build for {target}: {}",
                self.title,
                crate::compile::compiler_reason(&String::from_utf8_lossy(&out.stderr))
            )));
        }
        Ok(dir
            .join(target.rust_target())
            .join("release")
            .join(self.package))
    }
}

/// A probe's own lines: `KIND NAME VALUE...`.
pub struct Report {
    title: &'static str,
    lines: Vec<Vec<String>>,
}

impl Report {
    pub fn parse(probe: &Probe, stdout: &str) -> Report {
        let lines = stdout
            .lines()
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect();
        Report {
            title: probe.title,
            lines,
        }
    }

    /// The values of the line `kind name ...`.
    pub fn find(&self, kind: &str, name: &str) -> Result<&[String], McuError> {
        self.lines
            .iter()
            .find(|l| {
                l.first().map(String::as_str) == Some(kind)
                    && l.get(1).map(String::as_str) == Some(name)
            })
            .map(|l| &l[2..])
            .ok_or_else(|| McuError::Failed(format!("{} did not report {kind} {name}", self.title)))
    }

    /// The `i`th value of `kind name ...` as a number.
    pub fn number(&self, kind: &str, name: &str, i: usize) -> Result<u64, McuError> {
        self.find(kind, name)?
            .get(i)
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| {
                McuError::Failed(format!(
                    "{} wrote a {kind} {name} line that is not numbers",
                    self.title
                ))
            })
    }
}
