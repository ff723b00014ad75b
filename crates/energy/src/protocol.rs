//! What a link's protocol costs the radio around and between messages, at a
//! message interval: a BLE connection's empty events, an 802.15.4 MAC's
//! CSMA-CA and radio start-up per frame and a sleepy end device's polls, a
//! cellular modem's connection, RRC inactivity, paging and periodic TAUs.
//!
//! The figures are the link's `[link.protocol]` (`link::protocol`), each with
//! its source, and the radio's currents, crystal start-up and ramp-up (each
//! radio wake: a BLE event, a poll, a frame); a user's flags
//! ([`Overrides`]) replace the stack defaults. [`cost`] is the one place they
//! are priced; `estimate_with` adds the result to a message's energy, and
//! [`average_ua`] gives a link's mean current at an interval (for tests held
//! to published measurements).

use link::LinkSpec;
use link::protocol::{BleAdvertising, BleConnection, Cellular, Mac802154, ProtocolSpec};
use serde::Serialize;

use crate::error::EnergyError;
use crate::model::parse_interval;
use crate::profiles::Radio;

/// A user's protocol parameters (flags); `None` keeps the link's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `--conn-interval`: BLE connection interval, s.
    pub conn_interval_s: Option<f64>,
    /// `--peripheral-latency`: BLE connection events a peripheral may skip.
    pub peripheral_latency: Option<u32>,
    /// `--adv-interval`: BLE advertising interval, s.
    pub adv_interval_s: Option<f64>,
    /// `--poll-period`: an 802.15.4 sleepy end device's data poll period, s.
    pub poll_period_s: Option<f64>,
    /// `--psm TAU,ACTIVE` (`Some(Some(..))`) or `--psm off` (`Some(None)`).
    pub psm: Option<Option<Psm>>,
    /// `--edrx CYCLE` (`Some(Some(s))`) or `--edrx off` (`Some(None)`).
    pub edrx_s: Option<Option<f64>>,
    /// `--rrc-inactivity`: the network's RRC inactivity timer, s.
    pub rrc_inactivity_s: Option<f64>,
}

/// PSM timers: T3412 extended (periodic TAU) and T3324 (active time), s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Psm {
    pub tau_s: f64,
    pub active_s: f64,
}

/// The flags as typed (`energy`, `recommend`): each replaces the stack
/// default in the link's data (docs/flags.md).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Flags {
    /// BLE connection interval, 7.5ms to 4s in 1.25ms steps [default: the link's, Zephyr's 50ms].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "DURATION", allow_hyphen_values = true)
    )]
    pub conn_interval: Option<String>,
    /// BLE connection events the peripheral may skip with nothing to send, 0 to 499 [default: 0].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "N", allow_hyphen_values = true)
    )]
    pub peripheral_latency: Option<String>,
    /// BLE advertising interval (ble-adv-1m), 20ms to 10.24s in 0.625ms steps [default: Zephyr's 100ms].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "DURATION", allow_hyphen_values = true)
    )]
    pub adv_interval: Option<String>,
    /// 802.15.4/Thread sleepy end device's poll period [default: the link's, OpenThread's 236s].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "DURATION", allow_hyphen_values = true)
    )]
    pub poll_period: Option<String>,
    /// LTE-M/NB-IoT PSM timers TAU,ACTIVE (T3412 extended, T3324; e.g. 2h,6s), or off.
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "TAU,ACTIVE", allow_hyphen_values = true)
    )]
    pub psm: Option<String>,
    /// LTE-M/NB-IoT eDRX cycle (5.12s to 10485.76s), or off [default: off].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "CYCLE", allow_hyphen_values = true)
    )]
    pub edrx: Option<String>,
    /// LTE-M/NB-IoT: the network's RRC inactivity timer, connected after the data [default: the link's, 10s].
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "DURATION", allow_hyphen_values = true)
    )]
    pub rrc_inactivity: Option<String>,
}

/// BLE: 7.5 ms to 4 s in steps of 1.25 ms (Core 5.3 Vol 6 Part B §4.5.1).
const CONN_INTERVAL_STEP_S: f64 = 0.00125;
const CONN_INTERVAL_MIN_S: f64 = 0.0075;
const CONN_INTERVAL_MAX_S: f64 = 4.0;
/// connPeripheralLatency at most 499, and (1 + latency) × interval under half
/// the largest supervision timeout, 32 s (Core 5.3 Vol 6 Part B §4.5.1–4.5.2).
const LATENCY_MAX: u32 = 499;
const SKIPPED_SPAN_MAX_S: f64 = 16.0;
/// Legacy advertising: advInterval 20 ms to 10.24 s in 0.625 ms steps (Core
/// 5.3 Vol 6 Part B §4.4.2.2.1).
const ADV_STEP_S: f64 = 0.000625;
const ADV_MIN_S: f64 = 0.020;
const ADV_MAX_S: f64 = 10.24;
/// OpenThread's poll period: OPENTHREAD_CONFIG_MAC_MINIMUM_POLL_PERIOD (10 ms)
/// to (1 << 26) - 1 ms (`otLinkSetPollPeriod`).
const POLL_MIN_S: f64 = 0.010;
const POLL_MAX_S: f64 = 67_108.863;
/// 3GPP TS 24.008 §10.5.7.4a / §10.5.7.3: T3412 extended up to 320 h × 31,
/// T3324 up to 31 × 6 min.
const TAU_MAX_S: f64 = 320.0 * 3600.0 * 31.0;
const ACTIVE_MAX_S: f64 = 31.0 * 360.0;
/// 3GPP TS 24.008 §10.5.5.32: eDRX cycles from 5.12 s (LTE-M) to 10485.76 s (NB-IoT).
const EDRX_MIN_S: f64 = 5.12;
const EDRX_MAX_S: f64 = 10_485.76;
/// The RRC inactivity timer is the network's setting, not a 3GPP field with a
/// range; past an hour the modem is simply connected, which these links do not model.
const RRC_INACTIVITY_MAX_S: f64 = 3600.0;

fn invalid(msg: String) -> EnergyError {
    EnergyError::Invalid(msg)
}

fn duration(flag: &str, text: &str) -> Result<f64, EnergyError> {
    parse_interval(text).map_err(|_| {
        invalid(format!(
            "{flag}: '{text}' is not a duration (examples: 50ms, 1s, 4m, 2h)"
        ))
    })
}

/// A duration BLE counts in whole steps of `step` from `min` to `max`,
/// rounded to its step; outside or between steps, `what` says what is valid.
fn stepped(
    flag: &str,
    text: &str,
    (min, max, step): (f64, f64, f64),
    what: &str,
) -> Result<f64, EnergyError> {
    let s = duration(flag, text)?;
    let steps = s / step;
    if !(min - 1e-9..=max + 1e-9).contains(&s) || (steps - steps.round()).abs() > 1e-6 {
        return Err(invalid(format!("{flag}: {text} is not {what}")));
    }
    Ok(steps.round() * step)
}

impl Overrides {
    /// Parses and range-checks the flags; bad values are the user's fault.
    pub fn from_flags(f: &Flags) -> Result<Overrides, EnergyError> {
        let mut o = Overrides::default();
        if let Some(t) = f.conn_interval.as_deref() {
            let range = (
                CONN_INTERVAL_MIN_S,
                CONN_INTERVAL_MAX_S,
                CONN_INTERVAL_STEP_S,
            );
            let what = "a BLE connection interval (7.5ms to 4s in steps of 1.25ms)";
            o.conn_interval_s = Some(stepped("--conn-interval", t, range, what)?);
        }
        if let Some(t) = f.peripheral_latency.as_deref() {
            let n: u32 = t.trim().parse().map_err(|_| {
                invalid(format!(
                    "--peripheral-latency: '{t}' is not a count of connection events (0 to {LATENCY_MAX})"
                ))
            })?;
            if n > LATENCY_MAX {
                return Err(invalid(format!(
                    "--peripheral-latency: {n} is above {LATENCY_MAX}, the largest the Bluetooth Core allows"
                )));
            }
            o.peripheral_latency = Some(n);
        }
        if let Some(t) = f.adv_interval.as_deref() {
            let range = (ADV_MIN_S, ADV_MAX_S, ADV_STEP_S);
            let what = "a BLE advertising interval (20ms to 10.24s in steps of 0.625ms)";
            o.adv_interval_s = Some(stepped("--adv-interval", t, range, what)?);
        }
        if let Some(t) = f.poll_period.as_deref() {
            let s = duration("--poll-period", t)?;
            if !(POLL_MIN_S..=POLL_MAX_S).contains(&s) {
                return Err(invalid(format!(
                    "--poll-period: {t} is outside OpenThread's poll periods (10ms to about 18.6h)"
                )));
            }
            o.poll_period_s = Some(s);
        }
        if let Some(t) = f.psm.as_deref() {
            o.psm = Some(if t.trim() == "off" {
                None
            } else {
                let (tau, active) = t.split_once(',').ok_or_else(|| {
                    invalid(format!(
                        "--psm: '{t}' is not TAU,ACTIVE (e.g. 1h,1m: T3412 extended, then T3324) or off"
                    ))
                })?;
                let tau_s = duration("--psm", tau.trim())?;
                let active_s = duration("--psm", active.trim())?;
                if tau_s > TAU_MAX_S || active_s > ACTIVE_MAX_S || active_s >= tau_s {
                    return Err(invalid(format!(
                        "--psm: {t}: the active time (T3324, at most 186m) must be shorter than the TAU period (T3412 extended, at most 9920h)"
                    )));
                }
                Some(Psm { tau_s, active_s })
            });
        }
        if let Some(t) = f.edrx.as_deref() {
            o.edrx_s = Some(if t.trim() == "off" {
                None
            } else {
                let s = duration("--edrx", t)?;
                if !(EDRX_MIN_S - 1e-9..=EDRX_MAX_S + 1e-9).contains(&s) {
                    return Err(invalid(format!(
                        "--edrx: {t} is outside 3GPP's eDRX cycles (5.12s to 10485.76s) or off"
                    )));
                }
                Some(s)
            });
        }
        if let Some(t) = f.rrc_inactivity.as_deref() {
            let s = duration("--rrc-inactivity", t)?;
            if !(s > 0.0 && s <= RRC_INACTIVITY_MAX_S) {
                return Err(invalid(format!(
                    "--rrc-inactivity: {t} is not an RRC inactivity timer (above 0, at most 1h)"
                )));
            }
            o.rrc_inactivity_s = Some(s);
        }
        Ok(o)
    }

    fn named(&self) -> Vec<(&'static str, &'static str)> {
        let mut v = Vec::new();
        if self.conn_interval_s.is_some() {
            v.push(("--conn-interval", "ble-connection"));
        }
        if self.peripheral_latency.is_some() {
            v.push(("--peripheral-latency", "ble-connection"));
        }
        if self.adv_interval_s.is_some() {
            v.push(("--adv-interval", "ble-advertising"));
        }
        if self.poll_period_s.is_some() {
            v.push(("--poll-period", "ieee802154"));
        }
        if self.psm.is_some() {
            v.push(("--psm", "cellular"));
        }
        if self.edrx_s.is_some() {
            v.push(("--edrx", "cellular"));
        }
        if self.rrc_inactivity_s.is_some() {
            v.push(("--rrc-inactivity", "cellular"));
        }
        v
    }

    /// Refuses a flag the link's protocol has no use for.
    pub fn check_applies(&self, link: &LinkSpec) -> Result<(), EnergyError> {
        let kind = link.protocol.as_ref().map(ProtocolSpec::kind);
        for (flag, wants) in self.named() {
            if kind != Some(wants) {
                let what = match wants {
                    "ble-connection" => "a BLE connection (ble-1m-*, ble-2m-*)",
                    "ble-advertising" => "BLE advertising (ble-adv-1m)",
                    "ieee802154" => "an 802.15.4 link (ieee802154, thread)",
                    _ => "a cellular link (ltem, nbiot)",
                };
                return Err(invalid(format!(
                    "{flag} sets a parameter of {what}; {} is {}",
                    link.name,
                    match kind {
                        Some(k) => format!("a {k} link"),
                        None => format!("a {} link with no protocol costs modelled", link.kind()),
                    }
                )));
            }
        }
        Ok(())
    }
}

/// One parameter the cost used: its value and where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Parameter {
    #[serde(rename = "parameter")]
    pub name: &'static str,
    #[serde(rename = "parameter_value")]
    pub value: f64,
    #[serde(rename = "parameter_unit")]
    pub unit: &'static str,
    /// The data file's provenance, or the flag that set it.
    #[serde(rename = "parameter_source")]
    pub from: String,
}

/// One kind of protocol activity in an interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Item {
    #[serde(rename = "activity")]
    pub what: String,
    /// How many per message interval (may be fractional: a mean).
    #[serde(rename = "per_interval")]
    pub count: f64,
    pub each_uj: f64,
    #[serde(rename = "activity_uj")]
    pub uj: f64,
    /// Whether it is around the message (per frame, per connection) rather
    /// than between messages.
    #[serde(rename = "around_message")]
    pub with_message: bool,
}

/// What the protocol costs in one message interval, as a model estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProtocolCost {
    #[serde(rename = "protocol_kind")]
    pub kind: &'static str,
    /// Around the message: CSMA-CA, start-up, the cellular connection, µJ.
    #[serde(rename = "around_message_uj")]
    pub message_uj: f64,
    /// Between messages: empty connection events, polls, paging, TAUs, µJ.
    #[serde(rename = "between_messages_uj")]
    pub idle_uj: f64,
    /// Time in the interval the radio is busy with these (not asleep), ms.
    pub busy_ms: f64,
    #[serde(rename = "activities")]
    pub items: Vec<Item>,
    #[serde(rename = "protocol_parameters")]
    pub parameters: Vec<Parameter>,
}

impl ProtocolCost {
    /// Everything in the interval, J.
    pub fn total_j(&self) -> f64 {
        (self.message_uj + self.idle_uj) * 1e-6
    }

    /// Radio-busy time in the interval, s.
    pub fn busy_s(&self) -> f64 {
        self.busy_ms * 1e-3
    }
}

struct Acc {
    items: Vec<Item>,
    parameters: Vec<Parameter>,
    busy_s: f64,
}

impl Acc {
    fn item(
        &mut self,
        what: String,
        count: f64,
        each_j: f64,
        busy_each_s: f64,
        with_message: bool,
    ) {
        self.busy_s += count * busy_each_s;
        self.items.push(Item {
            what,
            count,
            each_uj: each_j * 1e6,
            uj: count * each_j * 1e6,
            with_message,
        });
    }

    fn param(&mut self, name: &'static str, value: f64, unit: &'static str, from: String) {
        self.parameters.push(Parameter {
            name,
            value,
            unit,
            from,
        });
    }

    fn done(self, kind: &'static str) -> ProtocolCost {
        let sum = |m: bool| {
            self.items
                .iter()
                .filter(|i| i.with_message == m)
                .map(|i| i.uj)
                .fold(0.0, |a, b| a + b)
        };
        ProtocolCost {
            kind,
            message_uj: sum(true),
            idle_uj: sum(false),
            busy_ms: self.busy_s * 1e3,
            items: self.items,
            parameters: self.parameters,
        }
    }
}

/// Where a parameter came from: the flag, or the data file's figure.
fn from(flag: Option<&str>, provenance: String) -> String {
    match flag {
        Some(f) => format!("set by {f}"),
        None => provenance,
    }
}

/// The protocol's cost in one interval of `interval_s` for a message of
/// `frames` frames whose own radio time is `message_s`; `None` for a link
/// without `[link.protocol]`.
pub fn cost(
    link: &LinkSpec,
    radio: &Radio,
    frames: u32,
    message_s: f64,
    interval_s: f64,
    o: &Overrides,
) -> Result<Option<ProtocolCost>, EnergyError> {
    o.check_applies(link)?;
    let Some(spec) = &link.protocol else {
        return Ok(None);
    };
    let tx_ma = radio.tx_ma(link.tx_power_dbm)?.value;
    let power = Power {
        v: radio.voltage_v.value,
        tx_ma,
        rx_ma: radio.rx_ma.value,
    };
    let mut acc = Acc {
        items: Vec::new(),
        parameters: Vec::new(),
        busy_s: 0.0,
    };
    match spec {
        ProtocolSpec::BleConnection(b) => {
            let ramp = ramp_up_s(radio, link)?;
            let (wake, crystal) = crystal_wake(radio, link)?;
            ble(&mut acc, b, power, ramp, wake, frames, interval_s, o)?;
            acc.parameters.push(crystal);
        }
        ProtocolSpec::BleAdvertising(a) => {
            let ramp = ramp_up_s(radio, link)?;
            let (wake, crystal) = crystal_wake(radio, link)?;
            let reps = link
                .framed
                .as_ref()
                .map_or(1, |f| f.repetitions.value.max(1));
            let shape = Broadcast {
                ramp_s: ramp,
                wake,
                channels: reps,
                frames,
                airtime_s: message_s,
            };
            advertising(&mut acc, a, power, shape, interval_s, o);
            acc.parameters.push(crystal);
        }
        ProtocolSpec::Ieee802154(m) => {
            let ramp = ramp_up_s(radio, link)?;
            let (wake, crystal) = crystal_wake(radio, link)?;
            let framed = link.framed.as_ref().ok_or_else(|| {
                EnergyError::Data(format!(
                    "link '{}': an 802.15.4 protocol needs [link.framed]",
                    link.name
                ))
            })?;
            mac802154(
                &mut acc, m, framed, power, ramp, wake, frames, interval_s, o,
            );
            acc.parameters.push(crystal);
        }
        ProtocolSpec::Cellular(c) => cellular(&mut acc, c, power, message_s, interval_s, o),
    }
    Ok(Some(acc.done(spec.kind())))
}

/// A link's mean current over an interval from its protocol alone, µA at the
/// radio's voltage (no message, no sleep floor): for comparisons with
/// published event currents.
pub fn average_ua(
    link: &LinkSpec,
    radio: &Radio,
    frames: u32,
    interval_s: f64,
    o: &Overrides,
) -> Result<Option<f64>, EnergyError> {
    Ok(cost(link, radio, frames, 0.0, interval_s, o)?
        .map(|c| c.total_j() / interval_s / radio.voltage_v.value * 1e6))
}

#[derive(Clone, Copy)]
struct Power {
    v: f64,
    tx_ma: f64,
    rx_ma: f64,
}

impl Power {
    fn tx_j(&self, s: f64) -> f64 {
        self.v * self.tx_ma * 1e-3 * s
    }
    fn rx_j(&self, s: f64) -> f64 {
        self.v * self.rx_ma * 1e-3 * s
    }
}

fn ramp_up_s(radio: &Radio, link: &LinkSpec) -> Result<f64, EnergyError> {
    radio
        .ramp_up_us
        .as_ref()
        .map(|r| r.value * 1e-6)
        .ok_or_else(|| {
            EnergyError::Data(format!(
                "radio '{}' has no ramp_up_us, which link '{}''s protocol needs",
                radio.name, link.name
            ))
        })
}

/// The high-frequency crystal's start-up before one radio wake: its time and
/// its energy (start-up time × start-up current × the radio's voltage). It
/// precedes the radio's own ramp-up, which is counted apart.
#[derive(Clone, Copy)]
struct Wake {
    s: f64,
    j: f64,
}

/// The radio's crystal start-up and the parameter that shows it; a protocol
/// that wakes the radio needs it.
fn crystal_wake(radio: &Radio, link: &LinkSpec) -> Result<(Wake, Parameter), EnergyError> {
    let (Some(us), Some(ma)) = (&radio.xo_startup_us, &radio.xo_startup_ma) else {
        return Err(EnergyError::Data(format!(
            "radio '{}' has no xo_startup_us and xo_startup_ma (its crystal's start-up before each radio wake), which link '{}''s protocol needs",
            radio.name, link.name
        )));
    };
    let shown = Parameter {
        name: "crystal_start_up",
        value: us.value,
        unit: "us",
        from: format!(
            "{} at {} mA ({})",
            us.provenance(),
            ma.value,
            ma.provenance()
        ),
    };
    let s = us.value * 1e-6;
    let wake = Wake {
        s,
        j: radio.voltage_v.value * ma.value * 1e-3 * s,
    };
    Ok((wake, shown))
}

#[allow(clippy::too_many_arguments)]
fn ble(
    acc: &mut Acc,
    b: &BleConnection,
    p: Power,
    ramp_s: f64,
    wake: Wake,
    frames: u32,
    interval_s: f64,
    o: &Overrides,
) -> Result<(), EnergyError> {
    let ci = o.conn_interval_s.unwrap_or(b.conn_interval_ms.value * 1e-3);
    let latency = o.peripheral_latency.unwrap_or(b.peripheral_latency.value);
    acc.param(
        "conn_interval",
        ci * 1e3,
        "ms",
        from(
            o.conn_interval_s.map(|_| "--conn-interval"),
            b.conn_interval_ms.provenance(),
        ),
    );
    acc.param(
        "peripheral_latency",
        f64::from(latency),
        "events",
        from(
            o.peripheral_latency.map(|_| "--peripheral-latency"),
            b.peripheral_latency.provenance(),
        ),
    );
    let span = ci * f64::from(1 + latency);
    if span > SKIPPED_SPAN_MAX_S {
        return Err(invalid(format!(
            "a connection interval of {} ms with peripheral latency {latency} leaves {span:.2} s between events; the supervision timeout (at most 32 s) must be more than twice that",
            ci * 1e3
        )));
    }
    let widening = b.sleep_clock_ppm.value * 1e-6 * span;
    let empty = b.empty_pdu_us.value * 1e-6;
    // The peripheral listens first: start-up, the widened window and its
    // margin, the central's empty PDU; then answers with its own after T_IFS.
    let rx_s = ramp_s + widening + b.window_margin_us.value * 1e-6 + empty;
    let tx_s = ramp_s + empty;
    let event_j = wake.j + p.rx_j(rx_s) + p.tx_j(tx_s);
    let events = (interval_s / span - f64::from(frames)).max(0.0);
    acc.item(
        format!(
            "empty connection events (one per {:.2} ms{})",
            span * 1e3,
            if latency > 0 {
                format!(", interval × (1 + latency {latency})")
            } else {
                String::new()
            }
        ),
        events,
        event_j,
        wake.s + rx_s + tx_s,
        false,
    );
    acc.item(
        "crystal and radio start-up before each data frame and its answer".into(),
        f64::from(frames),
        wake.j + p.tx_j(ramp_s) + p.rx_j(ramp_s),
        wake.s + 2.0 * ramp_s,
        true,
    );
    Ok(())
}

/// What one advertised message looks like on air.
struct Broadcast {
    ramp_s: f64,
    /// The crystal's start-up, once an event.
    wake: Wake,
    /// Primary channels each PDU goes out on (the link's repetitions).
    channels: u32,
    frames: u32,
    /// The message's airtime, every channel's PDU (an advertiser does not listen).
    airtime_s: f64,
}

/// Advertising: every event sends the reading's PDU once per channel, each
/// after a ramp-up; those that carry a new reading are the message's own
/// airtime, the rest repeat it until the next.
fn advertising(
    acc: &mut Acc,
    a: &BleAdvertising,
    p: Power,
    b: Broadcast,
    interval_s: f64,
    o: &Overrides,
) {
    let adv = o.adv_interval_s.unwrap_or(a.adv_interval_ms.value * 1e-3);
    acc.param(
        "adv_interval",
        adv * 1e3,
        "ms",
        from(
            o.adv_interval_s.map(|_| "--adv-interval"),
            a.adv_interval_ms.provenance(),
        ),
    );
    let period = adv + a.adv_delay_ms.value * 1e-3;
    let frames = b.frames.max(1);
    let startup = f64::from(b.channels) * b.ramp_s;
    acc.item(
        "crystal start-up, then the radio's before each channel's PDU of the new reading".into(),
        f64::from(frames),
        b.wake.j + p.tx_j(startup),
        b.wake.s + startup,
        true,
    );
    // One event's PDUs on air: the message's airtime spread over its frames.
    let event_s = b.airtime_s / f64::from(frames) + startup;
    acc.item(
        format!(
            "advertising events repeating the reading (one per {:.1} ms with advDelay)",
            period * 1e3
        ),
        (interval_s / period - f64::from(frames)).max(0.0),
        b.wake.j + p.tx_j(event_s),
        b.wake.s + event_s,
        false,
    );
}

#[allow(clippy::too_many_arguments)]
fn mac802154(
    acc: &mut Acc,
    m: &Mac802154,
    f: &link::framed::FramedLink,
    p: Power,
    ramp_s: f64,
    wake: Wake,
    frames: u32,
    interval_s: f64,
    o: &Overrides,
) {
    // Unslotted CSMA-CA on an idle channel: one back-off of a mean
    // (2^macMinBE - 1) / 2 unit periods, one CCA (IEEE 802.15.4-2015 §6.2.5.1).
    let backoff_s = (2f64.powi(m.min_be.value as i32) - 1.0) / 2.0 * m.unit_backoff_us.value * 1e-6;
    let cca_s = m.cca_us.value * 1e-6;
    let listen_s = ramp_s
        + cca_s
        + if m.backoff_listens.value {
            backoff_s
        } else {
            0.0
        };
    // Each frame and each poll wakes the radio: the crystal starts first.
    let csma_j = wake.j + p.rx_j(listen_s) + p.tx_j(ramp_s);
    let csma_busy = wake.s + backoff_s + cca_s + 2.0 * ramp_s;
    acc.param(
        "mean_backoff",
        backoff_s * 1e6,
        "us",
        format!(
            "macMinBE {} ({}); aUnitBackoffPeriod {} us ({})",
            m.min_be.value,
            m.min_be.provenance(),
            m.unit_backoff_us.value,
            m.unit_backoff_us.provenance()
        ),
    );
    acc.item(
        "crystal start-up, CSMA-CA back-off, CCA and radio start-up before each frame".into(),
        f64::from(frames),
        csma_j,
        csma_busy,
        true,
    );
    let (Some(period), Some(bytes)) = (&m.poll_period_s, &m.poll_frame_bytes) else {
        return;
    };
    let poll_s = o.poll_period_s.unwrap_or(period.value);
    acc.param(
        "poll_period",
        poll_s,
        "s",
        from(
            o.poll_period_s.map(|_| "--poll-period"),
            period.provenance(),
        ),
    );
    let request_s = f64::from(bytes.value) * 8.0 / f.bitrate_bps.value as f64;
    let ack_s = f
        .rx_per_frame_us
        .as_ref()
        .map_or(0.0, |a| a.value as f64 * 1e-6);
    let poll_j = csma_j + p.tx_j(request_s) + p.rx_j(ack_s);
    acc.item(
        format!("data polls to the parent (one per {poll_s} s)"),
        interval_s / poll_s,
        poll_j,
        csma_busy + request_s + ack_s,
        false,
    );
}

fn cellular(acc: &mut Acc, c: &Cellular, p: Power, message_s: f64, interval_s: f64, o: &Overrides) {
    let psm = match o.psm {
        Some(set) => set,
        None => Some(Psm {
            tau_s: c.tau_s.value,
            active_s: c.active_time_s.value,
        }),
    };
    let edrx = match o.edrx_s {
        Some(set) => set,
        None => c.edrx_s.as_ref().map(|e| e.value),
    };
    let psm_from = |f: &link::Figure<f64>| from(o.psm.map(|_| "--psm"), f.provenance());
    match psm {
        Some(t) => {
            acc.param("psm_tau", t.tau_s, "s", psm_from(&c.tau_s));
            acc.param(
                "psm_active_time",
                t.active_s,
                "s",
                psm_from(&c.active_time_s),
            );
        }
        None => acc.param("psm", 0.0, "off", "set by --psm off".into()),
    }
    let cycle = edrx.unwrap_or(c.drx_cycle_s.value);
    acc.param(
        if edrx.is_some() {
            "edrx_cycle"
        } else {
            "drx_cycle"
        },
        cycle,
        "s",
        match (edrx, o.edrx_s) {
            (_, Some(_)) => "set by --edrx".into(),
            (Some(_), None) => c
                .edrx_s
                .as_ref()
                .map(|e| e.provenance())
                .unwrap_or_default(),
            (None, None) => c.drx_cycle_s.provenance(),
        },
    );
    let rrc_s = o.rrc_inactivity_s.unwrap_or(c.rrc_inactivity_s.value);
    acc.param(
        "rrc_inactivity",
        rrc_s,
        "s",
        from(
            o.rrc_inactivity_s.map(|_| "--rrc-inactivity"),
            c.rrc_inactivity_s.provenance(),
        ),
    );
    acc.item(
        format!(
            "connection{} (random access, RRC set-up, release)",
            if psm.is_some() {
                " from PSM"
            } else {
                " from idle"
            }
        ),
        1.0,
        c.connect_j.value,
        c.connect_s.value,
        true,
    );
    let mut left = (interval_s - message_s - c.connect_s.value).max(0.0);
    let tail = rrc_s.min(left);
    left -= tail;
    acc.item(
        format!("connected until the RRC inactivity timer ({rrc_s} s) releases"),
        if tail > 0.0 { 1.0 } else { 0.0 },
        p.v * c.connected_ma.value * 1e-3 * tail,
        tail,
        true,
    );
    let idle = match psm {
        Some(t) => t.active_s.min(left),
        None => left,
    };
    acc.item(
        format!(
            "paging occasions in idle mode (one per {cycle} s{})",
            if psm.is_some() {
                ", until the active time ends"
            } else {
                ""
            }
        ),
        idle / cycle,
        p.v * c.paging_uc.value * 1e-6,
        0.0,
        false,
    );
    if let Some(t) = psm {
        // Each message restarts T3412: a TAU only when the interval is longer.
        let taus = ((interval_s / t.tau_s).ceil() - 1.0).max(0.0);
        acc.item(
            "periodic tracking area updates from PSM".into(),
            taus,
            c.tau_j.value,
            c.connect_s.value,
            false,
        );
    }
}
