//! LoRa PHY time on air, computed exactly (integer and rational arithmetic only).
//!
//! Sources (formulas re-derived from the documents, not from other code):
//! - SX1276/77/78/79 datasheet rev. 7, §4.1.1.7 "Time on air", and Semtech AN1200.13
//!   "LoRa Modem Designer's Guide": T_preamble = (n_preamble + 4.25)·T_s and
//!   n_payload = 8 + max(ceil((8PL − 4SF + 28 + 16CRC − 20IH) / (4(SF − 2DE)))·(CR + 4), 0).
//! - SX1261/2 datasheet §6.1.4 (same text in the LR1110 user manual §8.2.2.4): for SF7–SF12
//!   it is the same count; for SF5 and SF6 the preamble gets 6.25 extra symbols instead of
//!   4.25 and the numerator loses its "+8" (8PL + 16CRC − 4SF + 20·explicit), divided by 4SF.
//! - Low data rate optimisation is mandated when the symbol time is at least 16 ms
//!   (SX1276 datasheet §4.1.1.6), which is what `Ldro::Auto` applies; it depends on the
//!   bandwidth, so SF11 at 250 kHz keeps it off (LMIC's `calcAirTime` turns it on).

use std::fmt;
use std::str::FromStr;

use num_rational::Ratio;

use crate::error::LinkError;
use crate::time::Micros;

/// Which Semtech family's counting rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Chip {
    /// SX1272/SX1276/SX1278 (and RFM95, Murata CMWX1ZZABZ): SF6–SF12.
    Sx127x,
    /// SX1261/SX1262/SX1268, LLCC68, LR11xx: SF5–SF12.
    Sx126x,
}

impl Chip {
    pub fn name(self) -> &'static str {
        match self {
            Chip::Sx127x => "sx127x",
            Chip::Sx126x => "sx126x",
        }
    }
}

impl FromStr for Chip {
    type Err = LinkError;
    fn from_str(s: &str) -> Result<Self, LinkError> {
        match s.to_ascii_lowercase().as_str() {
            "sx127x" | "sx1276" | "sx1272" | "sx1278" => Ok(Chip::Sx127x),
            "sx126x" | "sx1261" | "sx1262" | "sx1268" | "llcc68" => Ok(Chip::Sx126x),
            _ => Err(LinkError::invalid(format!(
                "unknown chip '{s}' (expected sx127x or sx126x)"
            ))),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Header {
    /// The PHY header (length, coding rate, CRC flag) is sent.
    Explicit,
    /// Both ends are configured alike; no PHY header on air.
    Implicit,
}

impl FromStr for Header {
    type Err = LinkError;
    fn from_str(s: &str) -> Result<Self, LinkError> {
        match s.to_ascii_lowercase().as_str() {
            "explicit" => Ok(Header::Explicit),
            "implicit" => Ok(Header::Implicit),
            _ => Err(LinkError::invalid(format!(
                "unknown header mode '{s}' (expected explicit or implicit)"
            ))),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ldro {
    /// On exactly when the symbol time is at least 16 ms (the datasheet rule).
    Auto,
    On,
    Off,
}

impl FromStr for Ldro {
    type Err = LinkError;
    fn from_str(s: &str) -> Result<Self, LinkError> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Ldro::Auto),
            "on" => Ok(Ldro::On),
            "off" => Ok(Ldro::Off),
            _ => Err(LinkError::invalid(format!(
                "unknown LDRO setting '{s}' (expected auto, on or off)"
            ))),
        }
    }
}

/// A LoRa bandwidth. Every Semtech bandwidth is 500 kHz divided by an integer,
/// which keeps the symbol time an exact number of microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bandwidth {
    /// Bandwidth = 500 kHz / divisor.
    divisor: u64,
}

/// (label in kHz, divisor of 500 kHz), from the SX1276 RegModemConfig1 table.
const BANDWIDTHS: [(&str, u64); 10] = [
    ("7.8", 64),
    ("10.4", 48),
    ("15.6", 32),
    ("20.8", 24),
    ("31.25", 16),
    ("41.7", 12),
    ("62.5", 8),
    ("125", 4),
    ("250", 2),
    ("500", 1),
];

impl Bandwidth {
    pub const KHZ_125: Bandwidth = Bandwidth { divisor: 4 };
    pub const KHZ_250: Bandwidth = Bandwidth { divisor: 2 };
    pub const KHZ_500: Bandwidth = Bandwidth { divisor: 1 };

    pub fn all() -> impl Iterator<Item = Bandwidth> {
        BANDWIDTHS.iter().map(|&(_, d)| Bandwidth { divisor: d })
    }

    /// Exact bandwidth in hertz.
    pub fn hz(self) -> Ratio<u64> {
        Ratio::new(500_000, self.divisor)
    }

    /// The customary label, e.g. "125" or "7.8" (kHz).
    pub fn label(self) -> &'static str {
        BANDWIDTHS
            .iter()
            .find(|&&(_, d)| d == self.divisor)
            .map(|&(l, _)| l)
            .unwrap_or("?")
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} kHz", self.label())
    }
}

impl FromStr for Bandwidth {
    type Err = LinkError;
    /// Accepts kHz as written in Semtech datasheets ("7.8", "7.81", "10.42", "125", "125k").
    fn from_str(s: &str) -> Result<Self, LinkError> {
        let t = s.trim().trim_end_matches("kHz").trim_end_matches("khz");
        let t = t.trim_end_matches('k').trim();
        let alias = match t {
            "7.81" | "7.8125" => "7.8",
            "10.42" | "10.417" => "10.4",
            "15.63" | "15.625" => "15.6",
            "20.83" | "20.833" => "20.8",
            "41.67" | "41.667" => "41.7",
            "125.0" => "125",
            "250.0" => "250",
            "500.0" => "500",
            other => other,
        };
        BANDWIDTHS
            .iter()
            .find(|&&(l, _)| l == alias)
            .map(|&(_, d)| Bandwidth { divisor: d })
            .ok_or_else(|| {
                LinkError::invalid(format!(
                    "unsupported bandwidth '{s}' kHz (supported: 7.8, 10.4, 15.6, 20.8, 31.25, 41.7, 62.5, 125, 250, 500)"
                ))
            })
    }
}

/// Coding rate 4/5 … 4/8, stored as the datasheet's CR = 1 … 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodingRate(u8);

impl CodingRate {
    pub const CR4_5: CodingRate = CodingRate(1);

    pub fn new(cr: u8) -> Result<Self, LinkError> {
        if (1..=4).contains(&cr) {
            Ok(CodingRate(cr))
        } else {
            Err(LinkError::invalid(format!(
                "coding rate index {cr} out of range (1..4 for 4/5..4/8)"
            )))
        }
    }

    /// The datasheet's CR (1 for 4/5 … 4 for 4/8).
    pub fn index(self) -> u8 {
        self.0
    }
}

impl fmt::Display for CodingRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "4/{}", self.0 + 4)
    }
}

impl FromStr for CodingRate {
    type Err = LinkError;
    /// Accepts "4/5" … "4/8", or the index "1" … "4".
    fn from_str(s: &str) -> Result<Self, LinkError> {
        let bad = || {
            LinkError::invalid(format!(
                "bad coding rate '{s}' (expected 4/5, 4/6, 4/7 or 4/8)"
            ))
        };
        match s.trim().split_once('/') {
            Some(("4", d)) => {
                let d: u8 = d.trim().parse().map_err(|_| bad())?;
                if (5..=8).contains(&d) {
                    CodingRate::new(d - 4)
                } else {
                    Err(bad())
                }
            }
            Some(_) => Err(bad()),
            None => CodingRate::new(s.trim().parse().map_err(|_| bad())?),
        }
    }
}

/// Everything that decides a LoRa packet's duration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoraParams {
    pub sf: u8,
    pub bandwidth: Bandwidth,
    pub coding_rate: CodingRate,
    /// Programmed preamble length in symbols; `None` takes the chip's default
    /// (8, or 12 for SX126x at SF5/SF6).
    pub preamble: Option<u16>,
    pub header: Header,
    pub crc: bool,
    pub ldro: Ldro,
    pub chip: Chip,
}

impl LoraParams {
    /// LoRaWAN uplink settings: 8 preamble symbols, explicit header, CRC on, 4/5, SX127x.
    pub fn lorawan(sf: u8, bandwidth: Bandwidth) -> Self {
        LoraParams {
            sf,
            bandwidth,
            coding_rate: CodingRate::CR4_5,
            preamble: Some(8),
            header: Header::Explicit,
            crc: true,
            ldro: Ldro::Auto,
            chip: Chip::Sx127x,
        }
    }

    /// Exact symbol time, 2^SF / BW, in microseconds.
    pub fn symbol_time(&self) -> Micros {
        Micros::new(Ratio::from_integer((1u64 << self.sf) * 1_000_000) / self.bandwidth.hz())
    }

    /// Whether LDRO is in effect: the explicit setting, or the 16 ms rule.
    pub fn ldro_in_effect(&self) -> bool {
        match self.ldro {
            Ldro::On => true,
            Ldro::Off => false,
            Ldro::Auto => self.symbol_time().ratio() >= Ratio::from_integer(16_000),
        }
    }

    fn sf5_or_6_on_sx126x(&self) -> bool {
        self.chip == Chip::Sx126x && self.sf <= 6
    }

    /// The preamble length actually used, after the chip default.
    pub fn preamble_symbols(&self) -> u16 {
        self.preamble
            .unwrap_or(if self.sf5_or_6_on_sx126x() { 12 } else { 8 })
    }

    /// Checks the combination against the chip's datasheet limits.
    pub fn validate(&self) -> Result<(), LinkError> {
        let chip = self.chip.name();
        match self.chip {
            Chip::Sx127x if !(6..=12).contains(&self.sf) => {
                let hint = if self.sf == 5 {
                    " (SF5 exists on SX126x radios: use --chip sx126x)"
                } else {
                    ""
                };
                return Err(LinkError::invalid(format!(
                    "SF{} is not available on {chip}: it supports SF6..SF12{hint}",
                    self.sf
                )));
            }
            Chip::Sx126x if !(5..=12).contains(&self.sf) => {
                return Err(LinkError::invalid(format!(
                    "SF{} is not available on {chip}: it supports SF5..SF12",
                    self.sf
                )));
            }
            _ => {}
        }
        if self.chip == Chip::Sx127x && self.sf == 6 && self.header == Header::Explicit {
            return Err(LinkError::invalid(
                "SF6 on sx127x works only with an implicit header (SX1276 datasheet §4.1.1.2); use --header implicit or --chip sx126x",
            ));
        }
        let pre = self.preamble_symbols();
        let min = match self.chip {
            Chip::Sx127x => 6,
            Chip::Sx126x if self.sf <= 6 => 12,
            Chip::Sx126x => 1,
        };
        if pre < min {
            return Err(LinkError::invalid(format!(
                "preamble of {pre} symbols is below {chip}'s minimum of {min} at SF{}",
                self.sf
            )));
        }
        Ok(())
    }

    /// Time on air of a packet carrying `payload` bytes (the PHY payload, 0..=255).
    pub fn airtime(&self, payload: u32) -> Result<Airtime, LinkError> {
        self.validate()?;
        if payload > 255 {
            return Err(LinkError::invalid(format!(
                "a LoRa packet carries at most 255 bytes, not {payload}"
            )));
        }
        let sf = i64::from(self.sf);
        let pl = i64::from(payload);
        let crc = i64::from(self.crc);
        let ldro = self.ldro_in_effect();
        let (numerator, denominator, extra_quarters) = if self.sf5_or_6_on_sx126x() {
            let explicit = i64::from(self.header == Header::Explicit);
            (8 * pl + 16 * crc - 4 * sf + 20 * explicit, 4 * sf, 25)
        } else {
            let ih = i64::from(self.header == Header::Implicit);
            let de = i64::from(ldro);
            (
                8 * pl - 4 * sf + 28 + 16 * crc - 20 * ih,
                4 * (sf - 2 * de),
                17,
            )
        };
        let blocks = if numerator <= 0 {
            0
        } else {
            (numerator + denominator - 1) / denominator
        };
        let payload_symbols = 8 + blocks as u64 * (u64::from(self.coding_rate.index()) + 4);
        let preamble_quarters = 4 * u64::from(self.preamble_symbols()) + extra_quarters;
        let symbol = self.symbol_time();
        let total = symbol.scale(Ratio::new(preamble_quarters + 4 * payload_symbols, 4));
        Ok(Airtime {
            symbol_time: symbol,
            preamble_quarter_symbols: preamble_quarters,
            payload_symbols,
            ldro,
            total,
        })
    }
}

/// The breakdown of one packet's time on air.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Airtime {
    pub symbol_time: Micros,
    /// Preamble including the sync word and SFD, in quarter symbols (4.25 → 17).
    pub preamble_quarter_symbols: u64,
    /// Header plus payload symbols (the datasheet's n_payload).
    pub payload_symbols: u64,
    pub ldro: bool,
    pub total: Micros,
}

impl Airtime {
    /// Preamble symbols as a decimal number (e.g. 12.25).
    pub fn preamble_symbols(&self) -> f64 {
        self.preamble_quarter_symbols as f64 / 4.0
    }
}
