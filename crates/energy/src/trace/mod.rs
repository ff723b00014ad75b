//! Power-profiler traces (`energy import`): a Nordic PPK2, Joulescope or Otii
//! export read into samples, the operations a GPIO line (or a current
//! threshold) marks found in it, and each operation's charge and energy,
//! with the spread. What it measures is labelled measured, never a model.
//!
//! - [`formats`]: the three exports, each as its vendor writes it.
//! - [`operations`]: marked operations, their charge and energy, and the
//!   currents between them.

pub mod formats;
pub mod operations;

pub use formats::{Format, read};
pub use operations::{Marker, Measured, find};

/// One sample: time, current, and where known the voltage and logic lines.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub t_s: f64,
    pub current_a: f64,
    pub voltage_v: Option<f64>,
    /// Bit i: logic line i (PPK2's D0-D7).
    pub lines: Option<u8>,
}

/// A trace, samples in time order.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub format: Format,
    pub samples: Vec<Sample>,
}

use std::path::Path;

use link::figure::Figure;

use crate::{Device, EnergyError};

/// Reads the trace at `path` in `format` and measures the operations `marker`
/// marks; `voltage_v` where the export has none.
pub fn import(
    format: &str,
    path: &Path,
    marker: &str,
    voltage_v: Option<f64>,
) -> Result<Measured, EnergyError> {
    let format = Format::parse(format)?;
    let marker = Marker::parse(marker)?;
    if voltage_v.is_some_and(|v| !(v.is_finite() && v > 0.0)) {
        return Err(EnergyError::Invalid("--voltage must be above 0 V".into()));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| EnergyError::Invalid(format!("{}: {e}", path.display())))?;
    let trace = read(format, &text)
        .map_err(|e| EnergyError::Invalid(format!("{}: {e}", path.display())))?;
    find(&trace, marker, voltage_v)
}

impl Measured {
    /// What `energy import` prints.
    pub fn text(&self) -> String {
        let row = |name: &str, s: &operations::Spread, unit: &str| {
            format!(
                "{name:<10} {:>12.3} {:>12.3} {:>12.3} {:>12.3}  {unit}\n",
                s.mean, s.min, s.max, s.stddev
            )
        };
        let volts = if self.voltage_measured {
            "measured"
        } else {
            "given"
        };
        format!(
            "{} trace: {} operations marked by {} ({} cut by the trace's ends, left out); \
             {:.3} V ({volts})\n{:<10} {:>12} {:>12} {:>12} {:>12}\n{}{}{}\
             between operations {:.3} uA, during them {:.3} mA (measured)\n",
            self.meter,
            self.operations,
            self.marker,
            self.partial,
            self.voltage_v,
            "per op",
            "mean",
            "min",
            "max",
            "stddev",
            row("charge", &self.charge_uc, "uC"),
            row("energy", &self.energy_uj, "uJ"),
            row("duration", &self.duration_ms, "ms"),
            self.sleep_ua,
            self.active_ma
        )
    }

    /// `base` with its supply, active and sleep currents as this trace
    /// measured them (the energy model multiplies the currents by that
    /// supply), named `name`: a profile `energy` and `recommend` take from a
    /// data directory (`--data-dir`), labelled measured.
    pub fn profile(&self, base: &Device, name: &str, trace: &Path) -> Device {
        let source = |what: &str| {
            format!(
                "measured: {what} in {} ({}, {} operations marked by {}, {:.3} V)",
                trace.display(),
                self.meter,
                self.operations,
                self.marker,
                self.voltage_v
            )
        };
        Device {
            name: name.to_string(),
            title: format!("{} (measured)", base.title),
            voltage_v: Figure::sourced(
                round(self.voltage_v, 1e3),
                &source(match self.voltage_measured {
                    true => "the supply, as the meter measured it",
                    false => "the supply given with the trace",
                }),
            ),
            active_ma: Figure::sourced(
                round(self.active_ma, 1e4),
                &source("mean current during the operations"),
            ),
            sleep_ua: Figure::sourced(
                round(self.sleep_ua, 1e4),
                &source("mean current between the operations"),
            ),
            ..base.clone()
        }
    }
}

/// `energy import` as a user gives it: the trace, its meter and marker, the
/// supply where the export has none, and, to write a measured profile, the
/// catalogued device it is measured from and the data directory it goes to
/// (`DIR/devices/DEVICE-measured.toml`, which `--data-dir DIR` serves).
pub struct Request<'a> {
    pub meter: &'a str,
    pub trace: &'a Path,
    pub marker: &'a str,
    pub voltage_v: Option<f64>,
    pub profile: Option<(&'a Device, &'a Path)>,
}

/// What `energy import` found, and the profile it wrote (named
/// `DEVICE-measured`, so it sits beside the datasheet's).
#[derive(serde::Serialize)]
pub struct Imported {
    #[serde(flatten)]
    pub measured: Measured,
    pub profile: Option<String>,
    pub profile_file: Option<String>,
}

impl Request<'_> {
    pub fn run(&self) -> Result<Imported, EnergyError> {
        let measured = import(self.meter, self.trace, self.marker, self.voltage_v)?;
        let (mut profile, mut profile_file) = (None, None);
        if let Some((base, dir)) = self.profile {
            let name = format!("{}-measured", base.name);
            let devices = dir.join("devices");
            std::fs::create_dir_all(&devices)
                .map_err(|e| EnergyError::Invalid(format!("{}: {e}", devices.display())))?;
            let path = devices.join(format!("{name}.toml"));
            write_profile(&measured.profile(base, &name, self.trace), &path)?;
            profile = Some(name);
            profile_file = Some(path.display().to_string());
        }
        Ok(Imported {
            measured,
            profile,
            profile_file,
        })
    }
}

impl Imported {
    pub fn text(&self) -> String {
        let mut out = self.measured.text();
        if let (Some(name), Some(file)) = (&self.profile, &self.profile_file) {
            out += &format!(
                "wrote {file}: device '{name}', its supply and currents measured (--data-dir with --device {name})\n"
            );
        }
        out
    }
}

/// `x` to 1/`per` of its unit: a profile holds what the meter resolves,
/// not float noise.
fn round(x: f64, per: f64) -> f64 {
    (x * per).round() / per
}

/// Writes `device` as a devices file of a data directory.
pub fn write_profile(device: &Device, path: &Path) -> Result<(), EnergyError> {
    #[derive(serde::Serialize)]
    struct File<'a> {
        device: [&'a Device; 1],
    }
    let text = toml::to_string(&File { device: [device] })
        .map_err(|e| EnergyError::Data(format!("the profile: {e}")))?;
    std::fs::write(path, text).map_err(|e| EnergyError::Invalid(format!("{}: {e}", path.display())))
}
