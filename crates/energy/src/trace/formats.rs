//! The exports, as each vendor writes them:
//! - Nordic Power Profiler Kit II (nRF Connect Power Profiler):
//!   `Timestamp(ms),Current(uA),D0-D7`, the logic lines as 8 characters of 0
//!   and 1, D0 first; no voltage (the kit's supply is the user's setting);
//! - Joulescope (JS110/JS220 CSV): `time,i,v,p,c,j` in s, A, V, W, C, J;
//! - Qoitech Otii (a channel's CSV): `Timestamp (s),Main Current (A)`; the
//!   voltage, where wanted, is another channel's file.
//!
//! A line that does not parse, a time that goes back, a header that is none
//! of these, a row cut short (a truncated file): each is refused with its
//! line number, never skipped.

use super::{Sample, Trace};
use crate::EnergyError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Ppk2,
    Joulescope,
    Otii,
}

impl Format {
    pub fn parse(name: &str) -> Result<Format, EnergyError> {
        match name {
            "ppk2" => Ok(Format::Ppk2),
            "joulescope" => Ok(Format::Joulescope),
            "otii" => Ok(Format::Otii),
            other => Err(EnergyError::Invalid(format!(
                "unknown trace format '{other}': ppk2, joulescope or otii"
            ))),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Ppk2 => "PPK2",
            Format::Joulescope => "Joulescope",
            Format::Otii => "Otii",
        }
    }

    /// The header line the vendor writes, columns as a user sees them.
    fn header(self) -> &'static [&'static str] {
        match self {
            Format::Ppk2 => &["Timestamp(ms)", "Current(uA)", "D0-D7"],
            Format::Joulescope => &["time", "i", "v", "p", "c", "j"],
            Format::Otii => &["Timestamp (s)", "Main Current (A)"],
        }
    }
}

fn bad(line: usize, why: impl std::fmt::Display) -> EnergyError {
    EnergyError::Invalid(format!("line {line}: {why}"))
}

/// The samples of an export's text.
pub fn read(format: Format, text: &str) -> Result<Trace, EnergyError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines
        .next()
        .ok_or_else(|| EnergyError::Invalid("an empty trace".into()))?;
    let columns: Vec<&str> = header.split(',').map(str::trim).collect();
    let want = format.header();
    if !columns.starts_with(want) {
        return Err(bad(
            1,
            format!(
                "not an export of {}: its header is \"{}\"",
                format.name(),
                want.join(",")
            ),
        ));
    }
    let mut samples: Vec<Sample> = Vec::new();
    for (i, line) in lines {
        let n = i + 1;
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() < want.len() {
            return Err(bad(
                n,
                format!(
                    "{} of {} columns (a truncated file?)",
                    cells.len(),
                    want.len()
                ),
            ));
        }
        let number = |k: usize| -> Result<f64, EnergyError> {
            cells[k]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(n, format!("\"{}\" is not a number ({})", cells[k], want[k])))
        };
        let sample = match format {
            Format::Ppk2 => Sample {
                t_s: number(0)? / 1e3,
                current_a: number(1)? * 1e-6,
                voltage_v: None,
                lines: Some(lines_of(cells[2]).ok_or_else(|| {
                    bad(
                        n,
                        format!("\"{}\" is not 8 logic lines of 0 and 1", cells[2]),
                    )
                })?),
            },
            Format::Joulescope => Sample {
                t_s: number(0)?,
                current_a: number(1)?,
                voltage_v: Some(number(2)?),
                lines: None,
            },
            Format::Otii => Sample {
                t_s: number(0)?,
                current_a: number(1)?,
                voltage_v: None,
                lines: None,
            },
        };
        if samples.last().is_some_and(|p| sample.t_s <= p.t_s) {
            return Err(bad(n, "time does not move forward"));
        }
        samples.push(sample);
    }
    if samples.len() < 2 {
        return Err(EnergyError::Invalid(
            "a trace of fewer than 2 samples".into(),
        ));
    }
    Ok(Trace { format, samples })
}

/// D0-D7 as PPK2 writes them ("10000000": D0 high), as bits (bit 0: D0).
fn lines_of(cell: &str) -> Option<u8> {
    if cell.len() != 8 {
        return None;
    }
    cell.chars()
        .enumerate()
        .try_fold(0u8, |bits, (i, c)| match c {
            '0' => Some(bits),
            '1' => Some(bits | 1 << i),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_export_reads_and_a_bad_one_says_where() {
        let t = read(
            Format::Ppk2,
            "Timestamp(ms),Current(uA),D0-D7\n0.0,5.0,00000000\n0.01,4000,10000000\n",
        )
        .unwrap();
        assert_eq!(t.samples[1].lines, Some(1));
        assert!((t.samples[1].current_a - 4e-3).abs() < 1e-12);
        let j = read(
            Format::Joulescope,
            "time,i,v,p,c,j\n0,0.001,3.0,0.003,0,0\n0.001,0.002,3.0,0.006,0,0\n",
        )
        .unwrap();
        assert_eq!(j.samples[1].voltage_v, Some(3.0));
        let e = read(
            Format::Otii,
            "Timestamp (s),Main Current (A)\n0,1e-6\n0.001,x\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: \"x\" is not a number (Main Current (A))"
        );
        let e = read(Format::Otii, "time,i,v,p,c,j\n").unwrap_err();
        assert!(e.to_string().contains("not an export of Otii"), "{e}");
        let e = read(
            Format::Joulescope,
            "time,i,v,p,c,j\n0,0.001,3.0,0.003,0,0\n0.001,0.00",
        )
        .unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }
}
