//! Operations marked in a trace: where a GPIO line is high (the firmware
//! raises it around each measured operation), or where the current is above
//! a threshold (a trace without logic lines). Each operation's charge is the
//! current summed over its samples, each held until the next (the meters
//! sample evenly, 100 kHz on a PPK2); its energy the same with the voltage.
//! Operations cut by the trace's start or end are left out, and counted.

use super::{Sample, Trace};
use crate::EnergyError;

/// What marks an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marker {
    /// Logic line D0 to D7 high.
    Line(u8),
    /// The current above this many amperes.
    Above(f64),
}

impl Marker {
    /// `D0`..`D7`, or `above:CURRENT` (`above:1mA`, `above:500uA`, `above:0.002A`).
    pub fn parse(text: &str) -> Result<Marker, EnergyError> {
        if let Some(n) = text.strip_prefix('D').and_then(|n| n.parse::<u8>().ok())
            && n < 8
        {
            return Ok(Marker::Line(n));
        }
        if let Some(current) = text.strip_prefix("above:") {
            return current_a(current).map(Marker::Above);
        }
        Err(EnergyError::Invalid(format!(
            "marker '{text}': D0 to D7 (a logic line), or above:CURRENT (such as above:1mA)"
        )))
    }

    fn marks(self, s: &Sample) -> Result<bool, EnergyError> {
        match self {
            Marker::Line(n) => s.lines.map(|l| l >> n & 1 == 1).ok_or_else(|| {
                EnergyError::Invalid(format!(
                    "the trace has no logic lines to read D{n} from: mark operations with above:CURRENT"
                ))
            }),
            Marker::Above(a) => Ok(s.current_a > a),
        }
    }

    pub fn describe(self) -> String {
        match self {
            Marker::Line(n) => format!("D{n} high"),
            Marker::Above(a) => format!("current above {} uA", a * 1e6),
        }
    }
}

/// "1mA", "500uA", "0.002A" as amperes.
fn current_a(text: &str) -> Result<f64, EnergyError> {
    let (number, scale) = [
        ("mA", 1e-3),
        ("uA", 1e-6),
        ("µA", 1e-6),
        ("nA", 1e-9),
        ("A", 1.0),
    ]
    .iter()
    .find_map(|(unit, scale)| text.strip_suffix(unit).map(|n| (n, *scale)))
    .ok_or_else(|| EnergyError::Invalid(format!("'{text}' is no current: give mA, uA, nA or A")))?;
    number
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v * scale)
        .ok_or_else(|| EnergyError::Invalid(format!("'{text}' is no current")))
}

/// Mean, extremes and standard deviation of one figure over the operations.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub stddev: f64,
}

impl Spread {
    fn of(values: &[f64]) -> Spread {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        Spread {
            mean,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            stddev: var.sqrt(),
        }
    }
}

/// What a trace measured: the operations' charge, energy and duration, and
/// the currents during and between them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Measured {
    pub meter: &'static str,
    pub marker: String,
    pub operations: usize,
    /// Operations cut by the trace's start or end, left out.
    pub partial: usize,
    pub charge_uc: Spread,
    pub energy_uj: Spread,
    pub duration_ms: Spread,
    /// The mean current during the operations, and between them.
    pub active_ma: f64,
    pub sleep_ua: f64,
    pub voltage_v: f64,
    /// Whether the voltage is the meter's (Joulescope) or the one given.
    pub voltage_measured: bool,
}

/// The operations `marker` marks in `trace`; `voltage_v` where the export
/// has none (the supply the user set).
pub fn find(
    trace: &Trace,
    marker: Marker,
    voltage_v: Option<f64>,
) -> Result<Measured, EnergyError> {
    let s = &trace.samples;
    let measured_v = s.iter().all(|x| x.voltage_v.is_some());
    if !measured_v && voltage_v.is_none() {
        return Err(EnergyError::Invalid(format!(
            "a {} export has no voltage: give --voltage, the supply the device ran on",
            trace.format.name()
        )));
    }
    let volts = |x: &Sample| x.voltage_v.or(voltage_v).unwrap_or(0.0);
    let marked = s
        .iter()
        .map(|x| marker.marks(x))
        .collect::<Result<Vec<bool>, _>>()?;
    // Each sample holds until the next; the last one holds the trace's mean step.
    let step = |i: usize| match s.get(i + 1) {
        Some(next) => next.t_s - s[i].t_s,
        None => (s[i].t_s - s[0].t_s) / (s.len() - 1) as f64,
    };
    let (mut ops, mut partial) = (Vec::new(), 0);
    let (mut between_c, mut between_s) = (0.0, 0.0);
    let mut i = 0;
    while i < s.len() {
        let start = i;
        while i < s.len() && marked[i] == marked[start] {
            i += 1;
        }
        let run = start..i;
        let charge: f64 = run.clone().map(|k| s[k].current_a * step(k)).sum();
        if !marked[start] {
            between_c += charge;
            between_s += run.clone().map(step).sum::<f64>();
        } else if start == 0 || i == s.len() {
            partial += 1;
        } else {
            let energy: f64 = run
                .clone()
                .map(|k| s[k].current_a * volts(&s[k]) * step(k))
                .sum();
            ops.push((charge, energy, s[i].t_s - s[start].t_s));
        }
    }
    if ops.is_empty() {
        return Err(EnergyError::Invalid(format!(
            "no whole operation is marked in the trace ({} never starts and ends inside it)",
            marker.describe()
        )));
    }
    let column = |f: fn(&(f64, f64, f64)) -> f64, scale: f64| {
        Spread::of(&ops.iter().map(|o| f(o) * scale).collect::<Vec<_>>())
    };
    let active_s: f64 = ops.iter().map(|o| o.2).sum();
    let mean_v = s.iter().map(volts).sum::<f64>() / s.len() as f64;
    Ok(Measured {
        meter: trace.format.name(),
        marker: marker.describe(),
        operations: ops.len(),
        partial,
        charge_uc: column(|o| o.0, 1e6),
        energy_uj: column(|o| o.1, 1e6),
        duration_ms: column(|o| o.2, 1e3),
        active_ma: ops.iter().map(|o| o.0).sum::<f64>() / active_s * 1e3,
        sleep_ua: if between_s > 0.0 {
            between_c / between_s * 1e6
        } else {
            0.0
        },
        voltage_v: mean_v,
        voltage_measured: measured_v,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Format;

    /// 10 µs samples: sleep at 5 µA, three 2 ms operations at 4 mA with D0
    /// high, the first cut by the trace's start.
    fn trace() -> Trace {
        let samples = (0..4000)
            .map(|k| {
                let t = k as f64 * 1e-5;
                let on = t < 0.001 || (0.01..0.012).contains(&t) || (0.02..0.022).contains(&t);
                Sample {
                    t_s: t,
                    current_a: if on { 4e-3 } else { 5e-6 },
                    voltage_v: None,
                    lines: Some(u8::from(on)),
                }
            })
            .collect();
        Trace {
            format: Format::Ppk2,
            samples,
        }
    }

    #[test]
    fn marked_operations_have_their_charge_and_the_cut_one_is_left_out() {
        let m = find(&trace(), Marker::Line(0), Some(3.0)).unwrap();
        assert_eq!((m.operations, m.partial), (2, 1));
        assert!((m.charge_uc.mean - 8.0).abs() < 1e-6, "{m:?}");
        assert!((m.energy_uj.mean - 24.0).abs() < 1e-6, "{m:?}");
        assert!((m.duration_ms.mean - 2.0).abs() < 1e-9);
        assert!((m.sleep_ua - 5.0).abs() < 1e-6 && (m.active_ma - 4.0).abs() < 1e-9);
        let by_current = find(&trace(), Marker::parse("above:1mA").unwrap(), Some(3.0)).unwrap();
        assert_eq!(by_current.charge_uc, m.charge_uc);
    }

    #[test]
    fn what_cannot_be_measured_says_why() {
        assert!(
            find(&trace(), Marker::Line(0), None)
                .unwrap_err()
                .to_string()
                .contains("--voltage")
        );
        let unmarked = find(&trace(), Marker::Line(3), Some(3.0)).unwrap_err();
        assert!(
            unmarked.to_string().contains("D3 high never starts"),
            "{unmarked}"
        );
        for bad in ["D8", "above:lots", "above:-1mA", "E0"] {
            assert!(Marker::parse(bad).is_err(), "{bad}");
        }
    }
}
