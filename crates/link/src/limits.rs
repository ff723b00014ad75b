//! A link's legal and commercial limits on how often it may send, from its
//! data file's `[link.limits]` (Sigfox RC1: the ETSI 1 % duty cycle of
//! 868.0–868.6 MHz and the 140 uplinks a day operators sell). Each limit
//! turns into the earliest next message start ([`LinkCost::min_interval`]),
//! the one figure `energy` and `recommend` judge an interval by, LoRaWAN's
//! regional duty cycle included; [`LinkCost::limited_by`] names the limit
//! that sets it.

use num_rational::Ratio;
use serde::{Deserialize, Serialize};

use crate::catalogue::LinkCost;
use crate::error::LinkError;
use crate::figure::Figure;
use crate::time::Micros;

/// Microseconds in a day, over which per-day limits count.
const DAY_US: u64 = 86_400_000_000;

/// `[link.limits]`: each figure with its source.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkLimits {
    /// Who sets the limits, as sentences name them ("Sigfox RC1").
    pub name: String,
    /// The regional band it sends in, named as LoRaWAN's regions are
    /// (`EU868`): another link is looked for in the same band, or in none.
    #[serde(default)]
    pub band: Option<String>,
    /// Share of time the transmitter may be on, percent (ETSI sub-bands).
    #[serde(default)]
    pub duty_cycle_percent: Option<Figure<f64>>,
    /// Uplink frames a day (a multi-frame message spends one per frame).
    #[serde(default)]
    pub uplinks_per_day: Option<Figure<u32>>,
    /// Downlink frames a day, each only in answer to an uplink that asks.
    #[serde(default)]
    pub downlinks_per_day: Option<Figure<u32>>,
}

/// Which limit sets a message's earliest next start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// Time on air over the duty cycle (EU868's and ETSI's 1 %).
    DutyCycle,
    /// Frames a day (Sigfox's 140).
    UplinksPerDay,
}

impl Limit {
    /// The JSON name: `duty_cycle`, `uplinks_per_day`.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::DutyCycle => "duty_cycle",
            Limit::UplinksPerDay => "uplinks_per_day",
        }
    }

    /// As a table marks it: "duty cycle", "uplinks/day".
    pub fn short(self) -> &'static str {
        match self {
            Limit::DutyCycle => "duty cycle",
            Limit::UplinksPerDay => "uplinks/day",
        }
    }

    /// As sentences say it: "the duty cycle", "the daily uplink limit".
    pub fn words(self) -> &'static str {
        match self {
            Limit::DutyCycle => "the duty cycle",
            Limit::UplinksPerDay => "the daily uplink limit",
        }
    }
}

impl LinkLimits {
    pub fn validate(&self, who: &str) -> Result<(), LinkError> {
        if self.name.trim().is_empty() {
            return Err(LinkError::Data(format!(
                "{who}: [link.limits] needs a name"
            )));
        }
        if let Some(d) = &self.duty_cycle_percent {
            d.check(who, "duty_cycle_percent")?;
            if !(d.value > 0.0 && d.value <= 100.0) {
                return Err(LinkError::Data(format!(
                    "{who}: duty_cycle_percent must be in (0, 100], not {}",
                    d.value
                )));
            }
        }
        for (field, fig) in [
            ("uplinks_per_day", &self.uplinks_per_day),
            ("downlinks_per_day", &self.downlinks_per_day),
        ] {
            if let Some(f) = fig {
                f.check(who, field)?;
            }
        }
        if self.uplinks_per_day.as_ref().is_some_and(|f| f.value == 0) {
            return Err(LinkError::Data(format!(
                "{who}: uplinks_per_day must be positive"
            )));
        }
        Ok(())
    }

    /// The duty cycle as a fraction (1 % is 1/100), to a thousandth of a percent.
    pub fn duty_cycle(&self) -> Option<Ratio<u64>> {
        let p = self.duty_cycle_percent.as_ref()?.value;
        Some(Ratio::new((p * 1000.0).round() as u64, 100_000))
    }

    /// Each limit's earliest next start after a message of `frames` frames
    /// and `airtime` on air.
    pub fn intervals(&self, airtime: Micros, frames: u32) -> Vec<(Limit, Micros)> {
        let duty = self
            .duty_cycle()
            .map(|dc| (Limit::DutyCycle, airtime.scale(dc.recip())));
        let daily = self.uplinks_per_day.as_ref().map(|n| {
            (
                Limit::UplinksPerDay,
                Micros::new(Ratio::new(
                    DAY_US * u64::from(frames.max(1)),
                    u64::from(n.value),
                )),
            )
        });
        duty.into_iter().chain(daily).collect()
    }

    /// Adds these limits to `cost`'s, its earliest next start the latest of all.
    pub fn apply(&self, cost: &mut LinkCost) {
        cost.limits
            .extend(self.intervals(cost.airtime, cost.frames));
        let Some(iv) = cost.limits.iter().map(|l| l.1).max() else {
            return;
        };
        cost.min_interval = Some(iv);
        cost.max_per_hour = Some(
            (Ratio::from_integer(3_600_000_000u64) / iv.ratio())
                .floor()
                .to_integer(),
        );
    }

    /// "Sigfox RC1's 1 % duty cycle and 140 uplinks a day".
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = &self.duty_cycle_percent {
            parts.push(format!("{} % duty cycle", d.value));
        }
        if let Some(n) = &self.uplinks_per_day {
            parts.push(format!("{} uplinks a day", n.value));
        }
        format!("{}'s {}", self.name, parts.join(" and "))
    }
}

impl LinkCost {
    /// The limit that sets `min_interval` (the first, where two agree).
    pub fn limited_by(&self) -> Option<Limit> {
        let latest = self.limits.iter().map(|l| l.1).max()?;
        self.limits.iter().find(|l| l.1 == latest).map(|l| l.0)
    }

    /// The limits a message every `interval_s` seconds breaks.
    pub fn limits_broken(&self, interval_s: f64) -> Vec<Limit> {
        self.limits
            .iter()
            .filter(|l| l.1.as_secs() > interval_s)
            .map(|l| l.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rc1() -> LinkLimits {
        LinkLimits {
            name: "Sigfox RC1".into(),
            band: Some("EU868".into()),
            duty_cycle_percent: Some(Figure::sourced(1.0, "test")),
            uplinks_per_day: Some(Figure::sourced(140, "test")),
            downlinks_per_day: Some(Figure::sourced(4, "test")),
        }
    }

    #[test]
    fn each_limit_has_its_interval_and_the_latest_is_named() {
        let cost = |airtime_ms, frames| {
            let mut c = crate::Catalogue::builtin()
                .unwrap()
                .get("ble-1m-251")
                .unwrap()
                .cost(1, false)
                .unwrap();
            (c.airtime, c.frames) = (Micros::from_ms(airtime_ms), frames);
            rc1().apply(&mut c);
            c
        };
        // One full Sigfox frame: 26 B three times at 100 b/s is 6.24 s on air,
        // 624 s under 1 %; 140 a day is one every 617.14 s: the duty cycle binds.
        let c = cost(6240, 1);
        assert_eq!(c.min_interval, Some(Micros::from_ms(624_000)));
        assert_eq!(c.limited_by(), Some(Limit::DutyCycle));
        assert_eq!(c.max_per_hour, Some(5));
        assert_eq!(c.limits_broken(620.0), vec![Limit::DutyCycle]);
        assert!(c.limits_broken(624.0).is_empty());
        // Five short frames, 20 s on air: 2,000 s under 1 %, 3,085.7 s by the day.
        let c = cost(20_000, 5);
        assert_eq!(c.limited_by(), Some(Limit::UplinksPerDay));
        let iv = c.min_interval.unwrap();
        assert_eq!(iv, Micros::new(Ratio::new(DAY_US * 5, 140)));
        assert!((iv.as_secs() - 3085.714).abs() < 1e-3);
        assert_eq!(
            c.limits_broken(617.0),
            vec![Limit::DutyCycle, Limit::UplinksPerDay]
        );
        assert_eq!(c.limits_broken(2500.0), vec![Limit::UplinksPerDay]);
    }

    #[test]
    fn a_limit_without_a_source_or_out_of_range_is_refused() {
        let mut l = rc1();
        l.uplinks_per_day = Some(Figure {
            value: 140,
            source: None,
            estimate: None,
        });
        assert!(l.validate("link 'x'").is_err());
        let mut l = rc1();
        l.duty_cycle_percent = Some(Figure::sourced(0.0, "test"));
        assert!(l.validate("link 'x'").is_err());
        assert!(rc1().validate("link 'x'").is_ok());
        assert_eq!(
            rc1().words(),
            "Sigfox RC1's 1 % duty cycle and 140 uplinks a day"
        );
    }
}
