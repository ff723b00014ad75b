//! The link catalogue: entries read from TOML data files (built in, plus the user's own),
//! and the cost of sending one message over an entry.

use serde::{Deserialize, Serialize};

use crate::error::LinkError;
use crate::figure::{Figure, parse_toml};
use crate::fragments;
use crate::framed::FramedLink;
use crate::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use crate::lorawan::{MAC_OVERHEAD, Region};
use crate::serial::SerialRadio;
use crate::time::Micros;

/// The data files compiled into the binary (the same files as /data/links in the repository).
const BUILTIN: [(&str, &str); 7] = [
    (
        "links/lora.toml",
        include_str!("../../../data/links/lora.toml"),
    ),
    crate::lorawan::REGIONS_FILE,
    (
        "links/ieee802154.toml",
        include_str!("../../../data/links/ieee802154.toml"),
    ),
    (
        "links/ble.toml",
        include_str!("../../../data/links/ble.toml"),
    ),
    (
        "links/sigfox.toml",
        include_str!("../../../data/links/sigfox.toml"),
    ),
    (
        "links/cellular.toml",
        include_str!("../../../data/links/cellular.toml"),
    ),
    (
        "links/serial.toml",
        include_str!("../../../data/links/serial.toml"),
    ),
];

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoraSpec {
    pub sf: u8,
    pub bandwidth_khz: String,
    #[serde(default = "default_cr")]
    pub coding_rate: String,
    #[serde(default)]
    pub preamble: Option<u16>,
    #[serde(default = "default_header")]
    pub header: Header,
    #[serde(default = "default_true")]
    pub crc: bool,
    #[serde(default = "default_chip")]
    pub chip: Chip,
    /// Largest message per packet (255 unless a protocol above says less).
    #[serde(default = "default_max")]
    pub max_payload: u32,
}

fn default_cr() -> String {
    "4/5".into()
}
fn default_header() -> Header {
    Header::Explicit
}
fn default_true() -> bool {
    true
}
fn default_chip() -> Chip {
    Chip::Sx127x
}
fn default_max() -> u32 {
    255
}

impl LoraSpec {
    pub fn params(&self) -> Result<LoraParams, LinkError> {
        Ok(LoraParams {
            sf: self.sf,
            bandwidth: self.bandwidth_khz.parse::<Bandwidth>()?,
            coding_rate: self.coding_rate.parse::<CodingRate>()?,
            preamble: self.preamble,
            header: self.header,
            crc: self.crc,
            ldro: Ldro::Auto,
            chip: self.chip,
        })
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LorawanSpec {
    pub region: Region,
    pub dr: u8,
    /// How long each of the two Class A receive windows stays open when no downlink
    /// comes, in symbols of that window's data rate.
    pub rx_window_symbols: Figure<u64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub name: String,
    pub title: String,
    /// Where the entry as a whole comes from.
    pub source: String,
    /// Radio profile (in data/radios) whose currents apply.
    pub radio: String,
    /// Transmit power, which selects the radio's TX current.
    pub tx_power_dbm: i32,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub lora: Option<LoraSpec>,
    #[serde(default)]
    pub lorawan: Option<LorawanSpec>,
    #[serde(default)]
    pub framed: Option<FramedLink>,
    #[serde(default)]
    pub serial: Option<SerialRadio>,
    /// The security code the link's own stack carries (a tie-breaker: a
    /// scheme built on it adds little code).
    #[serde(default)]
    pub stack: Option<LinkStack>,
    /// How often it may send (`[link.limits]`: duty cycle, uplinks a day).
    #[serde(default)]
    pub limits: Option<crate::limits::LinkLimits>,
    /// How a message reaches the device (`[link.downlink]`).
    #[serde(default)]
    pub downlink: Option<crate::downlink::DownlinkSpec>,
    /// What the protocol costs around and between messages (connection
    /// events, CSMA-CA, polls, PSM): `energy::protocol` prices it.
    #[serde(default)]
    pub protocol: Option<crate::protocol::ProtocolSpec>,
}

/// What a link's protocol stack already holds, from its specification.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkStack {
    /// Primitive ids (`aes-128`, `aes-128-ccm`, `cmac-aes-128`): a scheme
    /// made of one is built on code the device already carries.
    pub carries: Vec<String>,
    /// The AEAD the protocol itself standardizes, if any.
    #[serde(default)]
    pub standard: Option<String>,
    pub source: String,
    /// What the link's own security does (`[link.stack.own]`).
    #[serde(default)]
    pub own: Option<crate::own_security::OwnSecurity>,
}

/// What one message costs on a link. Times are exact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkCost {
    pub link: String,
    pub message_bytes: u32,
    /// Zero bytes added by `--pad-to-packet` to fill the last frame or packet.
    pub padding: u32,
    /// Bytes the radio sends, including every frame's overhead and repetitions.
    pub on_air_bytes: u32,
    pub frames: u32,
    /// Message bytes one frame carries at most.
    pub frame_capacity: u32,
    /// Transmitter-on time.
    pub airtime: Micros,
    /// Receiver-on time (acknowledgements, downlink windows).
    pub rx_time: Micros,
    /// First byte handed over to last byte delivered (serial radio: includes UART time
    /// and the timeout); for the other links, the transmit time.
    pub delivery: Micros,
    pub last_waits_timeout: bool,
    /// Earliest next message start under the link's limits (LoRaWAN's
    /// regional duty cycle, `[link.limits]`).
    pub min_interval: Option<Micros>,
    /// Each limit's own earliest next start; `min_interval` is the latest.
    pub limits: Vec<(crate::limits::Limit, Micros)>,
    pub max_per_hour: Option<u64>,
    /// Bytes of the link's own message integrity (LoRaWAN: a 4-byte MIC per
    /// frame); `None` where the link model has none.
    pub network_mic_bytes: Option<u32>,
    /// LoRaWAN: FOpts bytes (MAC commands) carried in the first frame's header.
    pub fopts: u32,
    /// Limits the message runs into (dwell time, frame splits).
    pub warnings: Vec<String>,
}

/// How a message is sent, beyond its size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SendOptions {
    /// Pad the message with zeros to whole frames or packets (study 000's
    /// remedy for the serial radio's timeout).
    pub pad_to_packet: bool,
    /// LoRaWAN only: MAC commands piggybacked in the first frame's FOpts (at
    /// most 15 bytes).
    pub f_opts: Vec<u8>,
}

impl LinkSpec {
    fn kinds(&self) -> usize {
        usize::from(self.lora.is_some())
            + usize::from(self.lorawan.is_some())
            + usize::from(self.framed.is_some())
            + usize::from(self.serial.is_some())
    }

    /// "lora", "lorawan", "framed" or "serial".
    pub fn kind(&self) -> &'static str {
        if self.lora.is_some() {
            "lora"
        } else if self.lorawan.is_some() {
            "lorawan"
        } else if self.framed.is_some() {
            "framed"
        } else {
            "serial"
        }
    }

    /// Checks structure and that every figure has a source or an estimate label.
    pub fn validate(&self) -> Result<(), LinkError> {
        let who = format!("link '{}'", self.name);
        if self.kinds() != 1 {
            return Err(LinkError::Data(format!(
                "{who}: needs exactly one of [link.lora], [link.lorawan], [link.framed], [link.serial]"
            )));
        }
        if self.source.trim().is_empty() {
            return Err(LinkError::Data(format!("{who}: empty source")));
        }
        if let Some(l) = &self.lora {
            l.params()?.validate()?;
        }
        if let Some(w) = &self.lorawan {
            w.region.data_rate(w.dr)?;
            w.rx_window_symbols.check(&who, "rx_window_symbols")?;
        }
        if let Some(f) = &self.framed {
            f.bitrate_bps.check(&who, "bitrate_bps")?;
            f.max_payload.check(&who, "max_payload")?;
            f.overhead_bytes.check(&who, "overhead_bytes")?;
            f.repetitions.check(&who, "repetitions")?;
            for (name, fig) in [
                ("fixed_tx_us", &f.fixed_tx_us),
                ("rx_per_frame_us", &f.rx_per_frame_us),
                ("rx_per_message_us", &f.rx_per_message_us),
            ] {
                if let Some(fig) = fig {
                    fig.check(&who, name)?;
                }
            }
            if f.bitrate_bps.value == 0 || f.max_payload.value == 0 {
                return Err(LinkError::Data(format!(
                    "{who}: bitrate and max_payload must be positive"
                )));
            }
        }
        if let Some(l) = &self.limits {
            l.validate(&who)?;
        }
        if let Some(own) = self.stack.as_ref().and_then(|s| s.own.as_ref()) {
            own.validate(&who)?;
        }
        if let Some(d) = &self.downlink {
            d.validate(self)?;
        }
        if let Some(s) = &self.serial {
            s.serial_baud.check(&who, "serial_baud")?;
            s.serial_bits_per_byte.check(&who, "serial_bits_per_byte")?;
            s.air_rate_bps.check(&who, "air_rate_bps")?;
            s.packet_payload.check(&who, "packet_payload")?;
            s.timeout_ms.check(&who, "timeout_ms")?;
            s.overhead_bytes.check(&who, "overhead_bytes")?;
            if s.serial_baud.value == 0 || s.air_rate_bps.value == 0 || s.packet_payload.value == 0
            {
                return Err(LinkError::Data(format!(
                    "{who}: baud, air rate and packet size must be positive"
                )));
            }
        }
        if let Some(p) = &self.protocol {
            p.validate(&who)?;
        }
        Ok(())
    }

    /// Message bytes one frame or packet carries.
    pub fn frame_capacity(&self) -> Result<u32, LinkError> {
        Ok(
            match (&self.lora, &self.lorawan, &self.framed, &self.serial) {
                (Some(l), ..) => l.max_payload.min(255),
                (_, Some(w), ..) => w.region.data_rate(w.dr)?.max_payload,
                (_, _, Some(f), _) => f.max_payload.value,
                (_, _, _, Some(s)) => s.packet_payload.value,
                _ => {
                    return Err(LinkError::Data(format!(
                        "link '{}' has no model",
                        self.name
                    )));
                }
            },
        )
    }

    /// Whether a message longer than one frame goes in the sealing core's
    /// fragments (`seal::fragment`: a 2-byte header on each), the one rule
    /// for every link whose frames reach the receiver one by one: LoRa
    /// packets, LoRaWAN uplinks, 802.15.4 and BLE frames, Sigfox messages,
    /// cellular datagrams. Each arrives on its own, so nothing but the header
    /// says which frames make one message, in what order, and whether all
    /// came. A serial packet radio (`[link.serial]`) is a transparent byte
    /// pipe: its receiving module writes the packets' bytes to a UART as one
    /// stream, whose own framing (`seal::stream`, `cm_frame`) delimits
    /// messages, so its packets carry no header.
    pub fn fragments(&self) -> bool {
        self.serial.is_none()
    }

    /// The frame length a sender cuts a message's fragments at (`send
    /// --link`, the C library's `frame_len`): the frame capacity on a link
    /// that fragments, `None` on a serial radio's byte stream.
    pub fn fragment_frame(&self) -> Result<Option<u32>, LinkError> {
        if !self.fragments() {
            return Ok(None);
        }
        self.frame_capacity().map(Some)
    }

    /// The zeros `--pad-to-packet` adds to `bytes` so that every frame or
    /// packet goes out full: to whole packets on a serial radio, to one whole
    /// frame (FOpts take room in it) where the message fits one, else to
    /// fragments that each fill their frame beside the fragment header.
    fn padding(&self, bytes: u32, fopts: u32, capacity: u32) -> Result<u32, LinkError> {
        let room = capacity.saturating_sub(fopts);
        if !self.fragments() || bytes <= room {
            let filled = bytes + fopts;
            return Ok(match filled % capacity {
                0 => 0,
                part => capacity - part,
            });
        }
        let n = fragments::sizes(bytes, room, &self.name)?.len() as u32;
        Ok(n * (room - seal::fragment::HEADER as u32) - bytes)
    }

    /// The cost of sending `bytes`; with `pad_to_packet` the message is first padded
    /// to whole frames or packets (study 000's remedy for the serial radio's timeout).
    pub fn cost(&self, bytes: u32, pad_to_packet: bool) -> Result<LinkCost, LinkError> {
        let options = SendOptions {
            pad_to_packet,
            f_opts: Vec::new(),
        };
        self.cost_with(bytes, &options)
    }

    /// The cost of sending `bytes` as `options` say.
    pub fn cost_with(&self, bytes: u32, options: &SendOptions) -> Result<LinkCost, LinkError> {
        let fopts = options.f_opts.len() as u32;
        if fopts > 0 && self.lorawan.is_none() {
            return Err(LinkError::invalid(format!(
                "FOpts belong to LoRaWAN frames; {} is a {} link",
                self.name,
                self.kind()
            )));
        }
        let capacity = self.frame_capacity()?;
        let padding = match options.pad_to_packet {
            true => self.padding(bytes, fopts, capacity)?,
            false => 0,
        };
        let sent = bytes + padding;
        let mut warnings = Vec::new();
        let mut cost = LinkCost {
            link: self.name.clone(),
            message_bytes: bytes,
            padding,
            on_air_bytes: 0,
            frames: 0,
            frame_capacity: capacity,
            airtime: Micros::ZERO,
            rx_time: Micros::ZERO,
            delivery: Micros::ZERO,
            last_waits_timeout: false,
            min_interval: None,
            limits: Vec::new(),
            max_per_hour: None,
            network_mic_bytes: None,
            fopts,
            warnings: Vec::new(),
        };
        if let Some(l) = &self.lora {
            let params = l.params()?;
            let sizes = fragments::sizes(sent, capacity, &self.name)?;
            for &n in &sizes {
                cost.airtime = cost.airtime + params.airtime(n)?.total;
                cost.on_air_bytes += n;
            }
            cost.frames = sizes.len() as u32;
            cost.delivery = cost.airtime;
            warnings.extend(fragments::warning(sent, sizes.len(), capacity, &self.name));
        } else if let Some(w) = &self.lorawan {
            let rate = w.region.data_rate(w.dr)?;
            let msg = rate.message_with_fopts(sent, fopts)?;
            cost.frames = msg.frame_payloads.len() as u32;
            cost.on_air_bytes = msg.on_air_bytes();
            cost.network_mic_bytes = Some(msg.mic_bytes());
            cost.airtime = msg.airtime;
            cost.delivery = msg.airtime;
            cost.min_interval = msg.min_interval();
            cost.limits.extend(
                cost.min_interval
                    .map(|iv| (crate::limits::Limit::DutyCycle, iv)),
            );
            cost.max_per_hour = msg.max_per_hour();
            // Class A: RX1 at the rate the region maps the uplink's to, RX2 at
            // the region's fixed rate, both opened empty after each uplink.
            let offset = self.downlink.as_ref().map_or(0, |d| d.rx1_offset());
            let rx1 = w.region.rx1_data_rate(w.dr, offset)?;
            let rx2 = w.region.rx2_data_rate()?;
            let window = rx1.phy().symbol_time() + rx2.phy().symbol_time();
            cost.rx_time = window.times(w.rx_window_symbols.value * u64::from(cost.frames));
            if cost.frames > 1 {
                warnings.push(format!(
                    "{sent} B does not fit one frame at {} DR{} (max {} B): {} fragments, each with {MAC_OVERHEAD} B of MAC overhead and a {}-byte fragment header",
                    w.region, w.dr, rate.max_payload, cost.frames, seal::fragment::HEADER
                ));
            }
            if let (false, Some(dwell)) = (msg.dwell_ok, w.region.dwell_limit()) {
                warnings.push(format!(
                    "a frame exceeds the {} {} ms dwell time",
                    w.region,
                    dwell.as_ms()
                ));
            }
        } else if let Some(f) = &self.framed {
            let sizes = fragments::sizes(sent, capacity, &self.name)?;
            warnings.extend(fragments::warning(sent, sizes.len(), capacity, &self.name));
            let c = f.cost(sizes);
            cost.frames = c.frames.len() as u32;
            cost.on_air_bytes = c.on_air_bytes;
            cost.airtime = c.airtime;
            cost.delivery = c.airtime;
            cost.rx_time = c.rx_time;
        } else if let Some(s) = &self.serial {
            let t = s.timeline(sent);
            cost.frames = t.packets.len() as u32;
            cost.on_air_bytes = sent + cost.frames * s.overhead_bytes.value;
            cost.airtime = t.airtime;
            cost.delivery = t.delivery;
            cost.last_waits_timeout = t.last_waits_timeout;
        }
        cost.warnings = warnings;
        if let Some(l) = &self.limits {
            l.apply(&mut cost);
        }
        Ok(cost)
    }
}

/// All known links: the built-in files, then the user's (same name replaces).
#[derive(Clone, Debug)]
pub struct Catalogue {
    links: Vec<LinkSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkFile {
    #[serde(default)]
    link: Vec<LinkSpec>,
    /// LoRaWAN's regions (built in only: `Region` reads them).
    #[serde(default)]
    region: Vec<crate::lorawan::RegionSpec>,
}

impl Catalogue {
    pub fn builtin() -> Result<Self, LinkError> {
        let mut cat = Catalogue { links: Vec::new() };
        for (origin, text) in BUILTIN {
            cat.add_file(origin, text)?;
        }
        Ok(cat)
    }

    pub fn add_file(&mut self, origin: &str, text: &str) -> Result<(), LinkError> {
        let file: LinkFile = parse_toml(origin, text)?;
        // Regions are built in (`Region` reads them); a data dir made by copying
        // data/ carries them unchanged, and only a differing one is refused.
        if !BUILTIN.iter().any(|b| b.0 == origin) {
            for region in &file.region {
                let same = toml::Value::try_from(region).ok()
                    == toml::Value::try_from(region.region.spec()).ok();
                if !same {
                    return Err(LinkError::Data(format!(
                        "{origin}: region {} differs from the built-in one (data/links/lorawan.toml): regions are built in; a data file adds [[link]] entries only",
                        region.region
                    )));
                }
            }
        }
        for region in &file.region {
            region
                .validate()
                .map_err(|e| LinkError::Data(format!("{origin}: {e}")))?;
        }
        for link in file.link {
            link.validate()
                .map_err(|e| LinkError::Data(format!("{origin}: {e}")))?;
            self.links.retain(|l| l.name != link.name);
            self.links.push(link);
        }
        Ok(())
    }

    pub fn links(&self) -> &[LinkSpec] {
        &self.links
    }

    pub fn get(&self, name: &str) -> Result<&LinkSpec, LinkError> {
        self.links
            .iter()
            .find(|l| l.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| LinkError::UnknownLink {
                name: name.into(),
                suggestion: names::did_you_mean(name, self.links.iter().map(|l| l.name.as_str())),
                known: self
                    .links
                    .iter()
                    .map(|l| l.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
    /// The serial packet radio of link `name` with the command line's
    /// `overrides` applied (`radio-emulator`); a link of another kind is refused.
    pub fn serial_radio(
        &self,
        name: &str,
        overrides: &crate::serial::Overrides,
    ) -> Result<crate::serial::SerialRadio, LinkError> {
        let spec = self.get(name)?;
        let radio = spec.serial.clone().ok_or_else(|| {
            LinkError::invalid(format!(
                "--link {}: not a serial packet-radio link",
                spec.name
            ))
        })?;
        Ok(radio.with_overrides(overrides))
    }
}
