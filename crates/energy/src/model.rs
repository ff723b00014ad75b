//! The energy model. Inputs are plain numbers so callers can feed a measured host time,
//! a device-level time, or a user's figure; outputs are joules, each a model estimate.

use link::Micros;

use crate::error::EnergyError;
use crate::profiles::{Battery, Device, Radio};
use crate::protocol::ProtocolCost;

/// 365.25 days, for the yearly self-discharge rate.
const SECONDS_PER_YEAR: f64 = 365.25 * 86_400.0;

/// What one message asks of the device and its radio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MessageLoad {
    /// CPU time to seal the message, in seconds (measured or supplied by the user).
    pub cpu_time_s: f64,
    /// Transmitter-on time.
    pub airtime: Micros,
    /// Receiver-on time (acknowledgements, receive windows).
    pub rx_time: Micros,
    pub tx_power_dbm: i32,
}

/// Energy of one reporting interval, split by cause. Joules; a model estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct EnergyEstimate {
    pub cpu_j: f64,
    pub tx_j: f64,
    pub rx_j: f64,
    pub sleep_j: f64,
    /// The link protocol's costs in this interval (`protocol`): around the
    /// message (CSMA-CA, start-up, a cellular connection) and between
    /// messages (empty connection events, polls, paging); zero without one.
    pub protocol_j: f64,
    /// CPU + TX + RX + protocol: what one message costs, with its link's
    /// upkeep until the next.
    pub message_j: f64,
    /// One message plus sleeping until the next.
    pub interval_j: f64,
    /// Shares of `message_j`.
    pub cpu_share: f64,
    pub radio_share: f64,
    pub protocol_share: f64,
    /// Mean current drawn from the battery over an interval, in µA at the battery voltage.
    pub average_ua: Option<f64>,
    pub battery_days: Option<f64>,
    /// What the battery-life figure rests on when the device's own draw does
    /// not decide it: the cell's self-discharge, or a life past its shelf life.
    pub battery_note: Option<String>,
    pub warnings: Vec<String>,
}

pub fn estimate(
    device: &Device,
    radio: &Radio,
    battery: Option<&Battery>,
    load: &MessageLoad,
    interval_s: f64,
) -> Result<EnergyEstimate, EnergyError> {
    estimate_with(device, radio, battery, load, interval_s, None)
}

/// [`estimate`] with the link protocol's costs in the interval
/// (`protocol::cost`): they count in the message's energy, keep the radio
/// from sleeping while busy, and so shorten battery life.
pub fn estimate_with(
    device: &Device,
    radio: &Radio,
    battery: Option<&Battery>,
    load: &MessageLoad,
    interval_s: f64,
    protocol: Option<&ProtocolCost>,
) -> Result<EnergyEstimate, EnergyError> {
    if !(load.cpu_time_s.is_finite() && load.cpu_time_s >= 0.0) {
        return Err(EnergyError::Invalid(
            "CPU time must be zero or positive".into(),
        ));
    }
    if !(interval_s.is_finite() && interval_s > 0.0) {
        return Err(EnergyError::Invalid("the interval must be positive".into()));
    }
    let tx_ma = radio.tx_ma(load.tx_power_dbm)?;
    let busy_s = protocol.map_or(0.0, ProtocolCost::busy_s);
    let active_s = load.cpu_time_s + load.airtime.as_secs() + load.rx_time.as_secs() + busy_s;
    if active_s > interval_s {
        let with = if busy_s > 0.0 {
            format!(", {busy_s:.3} s of it the link protocol's")
        } else {
            String::new()
        };
        return Err(EnergyError::Invalid(format!(
            "the interval ({interval_s} s) is shorter than one message's active time ({active_s:.3} s{with})"
        )));
    }
    let v_dev = device.voltage_v.value;
    let v_radio = radio.voltage_v.value;
    let cpu_j = v_dev * device.active_ma.value * 1e-3 * load.cpu_time_s;
    let tx_j = v_radio * tx_ma.value * 1e-3 * load.airtime.as_secs();
    let rx_j = v_radio * radio.rx_ma.value * 1e-3 * load.rx_time.as_secs();
    let sleep_w = v_dev * device.sleep_ua.value * 1e-6 + v_radio * radio.sleep_ua.value * 1e-6;
    let sleep_j = sleep_w * (interval_s - active_s);
    let protocol_j = protocol.map_or(0.0, ProtocolCost::total_j);
    let message_j = cpu_j + tx_j + rx_j + protocol_j;
    let interval_j = message_j + sleep_j;
    let share = |x: f64| if message_j > 0.0 { x / message_j } else { 0.0 };
    let mut warnings = Vec::new();
    let (mut average_ua, mut battery_days, mut battery_note) = (None, None, None);
    if let Some(b) = battery {
        let usable_j = b.capacity_mah.value * 3.6 * b.voltage_v.value * b.usable_fraction.value;
        // Self-discharge as a steady drain of its yearly share of the charge:
        // a first-order model that keeps a quiet device from outliving its cell.
        let self_w = b
            .self_discharge_per_year
            .as_ref()
            .map_or(0.0, |sd| sd.value * usable_j / SECONDS_PER_YEAR);
        let load_w = interval_j / interval_s;
        let days = usable_j / (load_w + self_w) / 86_400.0;
        battery_days = Some(days);
        battery_note = battery_limit(b, days, load_w, self_w);
        average_ua = Some(interval_j / interval_s / b.voltage_v.value * 1e6);
        if let Some(pulse) = &b.max_pulse_ma
            && tx_ma.value > pulse.value
        {
            warnings.push(format!(
                "{} supplies pulses of about {} mA; the radio draws {} mA when sending: expect brown-outs or a large buffer capacitor",
                b.name, pulse.value, tx_ma.value
            ));
        }
    }
    Ok(EnergyEstimate {
        cpu_j,
        tx_j,
        rx_j,
        sleep_j,
        protocol_j,
        message_j,
        interval_j,
        cpu_share: share(cpu_j),
        radio_share: share(tx_j + rx_j),
        protocol_share: share(protocol_j),
        average_ua,
        battery_days,
        battery_note,
        warnings,
    })
}

/// Says when battery life is bounded by the cell rather than the device:
/// past the cell's shelf life, or drained more by self-discharge than by the device.
fn battery_limit(b: &Battery, days: f64, load_w: f64, self_w: f64) -> Option<String> {
    let years = days / 365.25;
    let mut notes = Vec::new();
    if let Some(shelf) = &b.shelf_life_years
        && years > shelf.value
    {
        notes.push(format!(
            "{years:.1} years is past the {} shelf life of {} years ({}): plan on the shelf life",
            b.name,
            shelf.value,
            shelf.provenance()
        ));
    }
    if self_w > load_w {
        notes.push(format!(
            "the cell's self-discharge ({:.0} % of it) drains more than the device ({:.0} %), so the figure rests on the self-discharge estimate",
            100.0 * self_w / (self_w + load_w),
            100.0 * load_w / (self_w + load_w)
        ));
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// Parses an interval such as "90", "90s", "10m", "1h", "1.5h", "2d" into seconds.
pub fn parse_interval(text: &str) -> Result<f64, EnergyError> {
    let t = text.trim();
    let bad = || {
        EnergyError::Invalid(format!(
            "bad interval '{text}' (examples: 30s, 10m, 1h, 1d)"
        ))
    };
    let (num, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: f64 = num.trim().parse().map_err(|_| bad())?;
    let scale = match unit.trim() {
        "ms" => 1e-3,
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return Err(bad()),
    };
    let s = n * scale;
    if !s.is_finite() || s <= 0.0 {
        return Err(bad());
    }
    Ok(s)
}
