//! LoRaWAN on top of the LoRa PHY: MAC overhead, per-data-rate payload limits,
//! duty cycle and dwell time.
//!
//! Sources: LoRaWAN 1.0.x/1.1 specification §4 (MHDR 1 B, FHDR 7 B without FOpts,
//! FPort 1 B, MIC 4 B = 13 B) and LoRa Alliance RP002-1.0.x Regional Parameters:
//! EU868 §2.1 (DR0–DR6, maximum FRMPayload N = 51/51/51/115/222/222/222, 1 % duty
//! cycle in the g1 sub-band used by the default channels) and US902-928 §2.5
//! (uplink DR0–DR4, 400 ms dwell time, N = 11/53/125/242/242).

use std::fmt;
use std::str::FromStr;

use num_rational::Ratio;

use crate::error::LinkError;
use crate::figure::{Figure, parse_toml};
use crate::limits::LinkLimits;
use crate::lora::{Airtime, Bandwidth, LoraParams};
use crate::lorawan_frame::{MAX_FOPTS, MIC_LEN, phy_len};
use crate::time::Micros;

/// MHDR (1) + FHDR without FOpts (7) + FPort (1) + MIC (4): `phy_len(0, Some(0))`.
pub const MAC_OVERHEAD: u32 = 13;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Region {
    #[serde(rename = "EU868")]
    Eu868,
    #[serde(rename = "US915")]
    Us915,
}

impl FromStr for Region {
    type Err = LinkError;
    fn from_str(s: &str) -> Result<Self, LinkError> {
        match s.to_ascii_uppercase().as_str() {
            "EU868" | "EU" => Ok(Region::Eu868),
            "US915" | "US902" | "US" => Ok(Region::Us915),
            _ => Err(LinkError::invalid(format!(
                "unknown LoRaWAN region '{s}' (known: EU868, US915)"
            ))),
        }
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Region::Eu868 => "EU868",
            Region::Us915 => "US915",
        })
    }
}

/// A region's limits, shared by every link entry in it: data/links/lorawan.toml's
/// `[[region]]` (RP002-1.0.x Regional Parameters, ETSI EN 300 220).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    pub region: Region,
    /// How often it may send (EU868's 1 %), judged as a link's `[link.limits]` is.
    #[serde(default)]
    pub limits: Option<LinkLimits>,
    /// How long one frame may be on air (US915: 400 ms).
    #[serde(default)]
    pub dwell_time_ms: Option<Figure<u64>>,
}

impl RegionSpec {
    pub fn validate(&self) -> Result<(), LinkError> {
        let who = format!("region '{}'", self.region);
        if let Some(l) = &self.limits {
            l.validate(&who)?;
        }
        if let Some(d) = &self.dwell_time_ms {
            d.check(&who, "dwell_time_ms")?;
            if d.value == 0 {
                return Err(LinkError::Data(format!(
                    "{who}: dwell_time_ms must be positive"
                )));
            }
        }
        Ok(())
    }
}

/// The built-in regions, read once from data/links/lorawan.toml; the
/// catalogue validates them with its built-in files.
pub(crate) const REGIONS_FILE: (&str, &str) = (
    "links/lorawan.toml",
    include_str!("../../../data/links/lorawan.toml"),
);

#[derive(serde::Deserialize)]
struct RegionFile {
    #[serde(default)]
    region: Vec<RegionSpec>,
}

/// Every `[[region]]` of the built-in file, checked.
pub fn load_regions() -> Result<Vec<RegionSpec>, LinkError> {
    let file: RegionFile = parse_toml(REGIONS_FILE.0, REGIONS_FILE.1)?;
    for r in &file.region {
        r.validate()
            .map_err(|e| LinkError::Data(format!("{}: {e}", REGIONS_FILE.0)))?;
    }
    Ok(file.region)
}

fn regions() -> &'static [RegionSpec] {
    static REGIONS: std::sync::OnceLock<Vec<RegionSpec>> = std::sync::OnceLock::new();
    // The file is compiled in and `Catalogue::builtin` and the tests load it
    // with `load_regions`, so a fault in it shows there first.
    REGIONS.get_or_init(|| load_regions().unwrap_or_else(|e| panic!("{e}")))
}

/// One uplink data rate of a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataRate {
    pub region: Region,
    pub dr: u8,
    pub sf: u8,
    pub bandwidth: Bandwidth,
    /// Largest FRMPayload (application bytes) without FOpts.
    pub max_payload: u32,
}

const EU868: [(u8, u64, u32); 7] = [
    (12, 125, 51),
    (11, 125, 51),
    (10, 125, 51),
    (9, 125, 115),
    (8, 125, 222),
    (7, 125, 222),
    (7, 250, 222),
];

// US915 with the 400 ms dwell time in force (RP002 Table "US902-928 maximum payload size").
const US915: [(u8, u64, u32); 5] = [
    (10, 125, 11),
    (9, 125, 53),
    (8, 125, 125),
    (7, 125, 242),
    (8, 500, 242),
];

impl Region {
    pub fn data_rates(self) -> Vec<DataRate> {
        let table: &[(u8, u64, u32)] = match self {
            Region::Eu868 => &EU868,
            Region::Us915 => &US915,
        };
        table
            .iter()
            .enumerate()
            .map(|(i, &(sf, khz, max))| DataRate {
                region: self,
                dr: i as u8,
                sf,
                bandwidth: match khz {
                    125 => Bandwidth::KHZ_125,
                    250 => Bandwidth::KHZ_250,
                    _ => Bandwidth::KHZ_500,
                },
                max_payload: max,
            })
            .collect()
    }

    pub fn data_rate(self, dr: u8) -> Result<DataRate, LinkError> {
        let rates = self.data_rates();
        rates.get(usize::from(dr)).copied().ok_or_else(|| {
            LinkError::invalid(format!(
                "{self} has uplink data rates DR0..DR{}, not DR{dr}",
                rates.len() - 1
            ))
        })
    }

    /// The region's entry in data/links/lorawan.toml (`[[region]]`).
    pub fn spec(self) -> &'static RegionSpec {
        regions()
            .iter()
            .find(|r| r.region == self)
            .unwrap_or_else(|| panic!("data/links/lorawan.toml has no [[region]] {self}"))
    }

    /// The regulatory duty cycle as a fraction (EU868 g1 sub-band: 1 %), from
    /// `[region.limits]`; `None` where the region limits dwell time instead.
    pub fn duty_cycle(self) -> Option<Ratio<u64>> {
        self.spec().limits.as_ref()?.duty_cycle()
    }

    /// The longest single transmission allowed (US915: 400 ms dwell time).
    pub fn dwell_limit(self) -> Option<Micros> {
        self.spec()
            .dwell_time_ms
            .as_ref()
            .map(|d| Micros::from_ms(d.value))
    }

    /// The region's limit as the `airtime` table heads it, from its data:
    /// "1 % duty cycle", "400 ms dwell time".
    pub fn limit_words(self) -> String {
        let spec = self.spec();
        let duty = spec
            .limits
            .as_ref()
            .and_then(|l| l.duty_cycle_percent.as_ref());
        match (duty, &spec.dwell_time_ms) {
            (Some(d), _) => format!("{} % duty cycle", d.value),
            (None, Some(d)) => format!("{} ms dwell time", d.value),
            (None, None) => "no duty cycle or dwell time".into(),
        }
    }

    /// A downlink data rate of the region: EU868's are its uplink rates
    /// (DR0-DR6); US915's are DR8-DR13 at 500 kHz, with the maximum
    /// FRMPayload RP002 gives them (N = 53/129/242/242/242/242).
    pub fn downlink_rate(self, dr: u8) -> Result<DataRate, LinkError> {
        match self {
            Region::Eu868 => self.data_rate(dr),
            Region::Us915 => US915_DOWN
                .get(usize::from(dr.wrapping_sub(8)))
                .map(|&(sf, max)| DataRate {
                    region: self,
                    dr,
                    sf,
                    bandwidth: Bandwidth::KHZ_500,
                    max_payload: max,
                })
                .ok_or_else(|| {
                    LinkError::invalid(format!(
                        "US915 has downlink data rates DR8..DR13, not DR{dr}"
                    ))
                }),
        }
    }

    /// The data rate of the first receive window after an uplink at
    /// `uplink_dr` with the network's RX1DROffset `offset` (RP002: EU868
    /// DR minus the offset, down to DR0; US915 DR10 + DR (DR4 as DR3),
    /// minus the offset, down to DR8).
    pub fn rx1_data_rate(self, uplink_dr: u8, offset: u8) -> Result<DataRate, LinkError> {
        self.data_rate(uplink_dr)?;
        let dr = match self {
            Region::Eu868 => uplink_dr.saturating_sub(offset),
            Region::Us915 => (10 + uplink_dr.min(3)).saturating_sub(offset).max(8),
        };
        self.downlink_rate(dr)
    }

    /// The second receive window's default data rate (RP002: EU868 DR0,
    /// SF12/125 kHz at 869.525 MHz; US915 DR8, SF12/500 kHz at 923.3 MHz).
    pub fn rx2_data_rate(self) -> Result<DataRate, LinkError> {
        self.downlink_rate(match self {
            Region::Eu868 => 0,
            Region::Us915 => 8,
        })
    }
}

// US915 downlink data rates DR8-DR13, all 500 kHz (RP002 §2.5: "US902-928
// Data rate table" and "maximum payload size", N).
const US915_DOWN: [(u8, u32); 6] = [(12, 53), (11, 129), (10, 242), (9, 242), (8, 242), (7, 242)];

impl DataRate {
    pub fn phy(&self) -> LoraParams {
        LoraParams::lorawan(self.sf, self.bandwidth)
    }

    /// The PHY of a downlink at this rate: no payload CRC (LoRaWAN 1.0.x
    /// §3.1: only uplinks carry it), the rest as an uplink's.
    pub fn downlink_phy(&self) -> LoraParams {
        LoraParams {
            crc: false,
            ..self.phy()
        }
    }

    /// Time on air of one uplink carrying `app_bytes` of FRMPayload.
    pub fn frame_airtime(&self, app_bytes: u32) -> Result<Airtime, LinkError> {
        if app_bytes > self.max_payload {
            return Err(self.too_big(app_bytes));
        }
        self.phy().airtime(app_bytes + MAC_OVERHEAD)
    }

    /// The error for a message over the per-frame maximum, with the frame count it needs.
    pub fn too_big(&self, app_bytes: u32) -> LinkError {
        LinkError::invalid(format!(
            "{app_bytes} B does not fit one LoRaWAN frame at {} DR{} (SF{}/{}): the maximum is {} B; it needs {} frames",
            self.region,
            self.dr,
            self.sf,
            self.bandwidth,
            self.max_payload,
            app_bytes.div_ceil(self.max_payload).max(1)
        ))
    }

    /// Splits a message into frames and costs each one.
    pub fn message(&self, app_bytes: u32) -> Result<LorawanMessage, LinkError> {
        self.message_with_fopts(app_bytes, 0)
    }

    /// Splits a message into frames, the first carrying `fopts` bytes of MAC
    /// commands in its header (which leaves that much less FRMPayload, RP002
    /// §2: N is the maximum without FOpts), and costs each frame at its real
    /// PHYPayload length (`lorawan_frame::phy_len`). A message longer than one
    /// frame goes in `seal::fragment`'s fragments, each cut to the first
    /// frame's room and carrying its 2-byte header.
    pub fn message_with_fopts(
        &self,
        app_bytes: u32,
        fopts: u32,
    ) -> Result<LorawanMessage, LinkError> {
        if fopts as usize > MAX_FOPTS {
            return Err(LinkError::invalid(format!(
                "FOpts holds at most {MAX_FOPTS} bytes, not {fopts}"
            )));
        }
        // Longer than one frame: the sealing core's fragments, each with its
        // header, cut to the room the first frame leaves beside FOpts.
        let room = self.max_payload.saturating_sub(fopts);
        let what = format!("{} DR{}", self.region, self.dr);
        let sizes = crate::fragments::sizes(app_bytes, room, &what)?;
        let frame_bytes: Vec<u32> = sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let f_opts = if i == 0 { fopts as usize } else { 0 };
                phy_len(f_opts, Some(n as usize)) as u32
            })
            .collect();
        let frames = frame_bytes
            .iter()
            .map(|&n| self.phy().airtime(n))
            .collect::<Result<Vec<_>, _>>()?;
        let airtime: Micros = frames.iter().map(|a| a.total).sum();
        let longest = frames.iter().map(|a| a.total).max().unwrap_or(Micros::ZERO);
        Ok(LorawanMessage {
            rate: *self,
            frame_payloads: sizes,
            frame_bytes,
            fopts,
            airtime,
            dwell_ok: self.region.dwell_limit().is_none_or(|lim| longest <= lim),
            frames,
        })
    }
}

/// A whole message over LoRaWAN, possibly split into several uplinks.
#[derive(Clone, Debug)]
pub struct LorawanMessage {
    pub rate: DataRate,
    /// FRMPayload bytes of each frame.
    pub frame_payloads: Vec<u32>,
    /// PHYPayload bytes of each frame: MHDR, FHDR with FOpts, FPort, FRMPayload, MIC.
    pub frame_bytes: Vec<u32>,
    /// FOpts bytes in the first frame's header.
    pub fopts: u32,
    pub frames: Vec<Airtime>,
    /// Sum over all frames.
    pub airtime: Micros,
    /// Whether every frame respects the region's dwell limit.
    pub dwell_ok: bool,
}

impl LorawanMessage {
    pub fn on_air_bytes(&self) -> u32 {
        self.frame_bytes.iter().sum()
    }

    /// The network layer's security bytes: one MIC per frame. (FCnt is sent
    /// in every frame too, but it numbers frames whether or not they are
    /// protected; it is counted as header.)
    pub fn mic_bytes(&self) -> u32 {
        MIC_LEN as u32 * self.frame_bytes.len() as u32
    }

    /// Shortest time from one message start to the next under the duty cycle
    /// (time on air / duty cycle), if the region has one.
    pub fn min_interval(&self) -> Option<Micros> {
        self.rate
            .region
            .duty_cycle()
            .map(|dc| self.airtime.scale(dc.recip()))
    }

    /// Whole messages per hour the duty cycle allows.
    pub fn max_per_hour(&self) -> Option<u64> {
        self.min_interval().map(|iv| {
            (Ratio::from_integer(3_600_000_000u64) / iv.ratio())
                .floor()
                .to_integer()
        })
    }
}
