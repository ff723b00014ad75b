//! What a message from the gateway (or central, coordinator, server) to the
//! device costs on a link: its frames, the device's receive time and its
//! wait for the downlink, each link as its `[link.downlink]` table says.
//!
//! Three kinds of downlink (`mode`):
//! - `symmetric` (BLE, 802.15.4, LoRa, cellular, serial radios): the other
//!   side sends the way the device does, in the same frames; the device's
//!   receiver is on for their time on air.
//! - `class-a` (LoRaWAN): one downlink answers one uplink, in RX1 (at the
//!   data rate RP002 maps the uplink's to, `delay_ms` after it) with that
//!   rate's maximum FRMPayload, or not at all. No downlink fragments are
//!   costed: each would need an uplink of its own to open its window, and
//!   nothing here cuts or puts back fragments sent down.
//! - `on-request` (Sigfox): one fixed-size frame of `max_payload` bytes,
//!   only in the window the device opens `delay_ms` after an uplink that
//!   asks for it, as many a day as `[link.limits]` `downlinks_per_day`
//!   allows; the device listens the whole
//!   window (it cannot know when in it the frame comes). No fragments
//!   (RFC 9442's downlink fragments each need a requesting uplink and count
//!   against the day's few).
//!
//! A message no downlink can carry is refused ([`LinkError::DownlinkRefused`]).

use serde::{Deserialize, Serialize};

use crate::catalogue::LinkSpec;
use crate::error::LinkError;
use crate::figure::Figure;
use crate::time::Micros;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Symmetric,
    ClassA,
    OnRequest,
}

impl Mode {
    /// As the data files spell it.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Symmetric => "symmetric",
            Mode::ClassA => "class-a",
            Mode::OnRequest => "on-request",
        }
    }
}

/// A link's downlink, from its `[link.downlink]` table.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DownlinkSpec {
    pub mode: Mode,
    /// Where the downlink's behaviour comes from.
    pub source: String,
    /// What the model leaves to the reader (a sleepy 802.15.4 device's polls).
    #[serde(default)]
    pub notes: Option<String>,
    /// class-a, on-request: from the end of the uplink to the window's opening.
    #[serde(default)]
    pub delay_ms: Option<Figure<u64>>,
    /// class-a: the network's RX1DROffset.
    #[serde(default)]
    pub rx1_dr_offset: Option<Figure<u8>>,
    /// on-request: payload bytes of the one fixed-size downlink frame.
    #[serde(default)]
    pub max_payload: Option<Figure<u32>>,
    /// on-request: the downlink's bit rate.
    #[serde(default)]
    pub bitrate_bps: Option<Figure<u64>>,
    /// on-request: the whole frame on air (preamble to check sequence).
    #[serde(default)]
    pub frame_bytes: Option<Figure<u32>>,
    /// on-request: how long the device listens.
    #[serde(default)]
    pub window_ms: Option<Figure<u64>>,
}

/// One message sent down to the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownlinkCost {
    pub link: String,
    pub mode: Mode,
    pub bytes: u32,
    /// Frames (on `class-a` and `on-request` links, downlinks: one per uplink).
    pub frames: u32,
    /// Message bytes one downlink frame carries at most.
    pub frame_capacity: u32,
    pub on_air_bytes: u32,
    /// The sender's transmitter-on time.
    pub airtime: Micros,
    /// The device's receiver-on time: the frames, or the whole window it listens.
    pub rx_time: Micros,
    /// From the end of the device's uplink to its receive window, radio off.
    pub wait: Micros,
    /// Each downlink answers an uplink of the device's that asks for it.
    pub answers_uplink: bool,
    /// The window or way it comes, in words.
    pub how: String,
    /// The sender's duty cycle: its earliest next transmission (LoRaWAN RX1).
    pub min_interval: Option<Micros>,
    pub notes: Option<String>,
    pub warnings: Vec<String>,
}

impl DownlinkSpec {
    /// Checks that the mode has its figures, each with its source, and no others.
    pub fn validate(&self, link: &LinkSpec) -> Result<(), LinkError> {
        let who = format!("link '{}' [link.downlink]", link.name);
        if self.source.trim().is_empty() {
            return Err(LinkError::Data(format!("{who}: empty source")));
        }
        let present = [
            (
                "delay_ms",
                self.delay_ms.as_ref().map(|f| f.check(&who, "delay_ms")),
            ),
            (
                "rx1_dr_offset",
                self.rx1_dr_offset
                    .as_ref()
                    .map(|f| f.check(&who, "rx1_dr_offset")),
            ),
            (
                "max_payload",
                self.max_payload
                    .as_ref()
                    .map(|f| f.check(&who, "max_payload")),
            ),
            (
                "bitrate_bps",
                self.bitrate_bps
                    .as_ref()
                    .map(|f| f.check(&who, "bitrate_bps")),
            ),
            (
                "frame_bytes",
                self.frame_bytes
                    .as_ref()
                    .map(|f| f.check(&who, "frame_bytes")),
            ),
            (
                "window_ms",
                self.window_ms.as_ref().map(|f| f.check(&who, "window_ms")),
            ),
        ];
        let needs: &[&str] = match self.mode {
            Mode::Symmetric => &[],
            Mode::ClassA => &["delay_ms", "rx1_dr_offset"],
            Mode::OnRequest => &[
                "delay_ms",
                "max_payload",
                "bitrate_bps",
                "frame_bytes",
                "window_ms",
            ],
        };
        for (name, checked) in present {
            match (checked, needs.contains(&name)) {
                (Some(result), true) => result?,
                (None, false) => {}
                (Some(_), false) => {
                    return Err(LinkError::Data(format!(
                        "{who}: '{name}' has no meaning for mode {}",
                        self.mode.name()
                    )));
                }
                (None, true) => {
                    return Err(LinkError::Data(format!(
                        "{who}: mode {} needs '{name}'",
                        self.mode.name()
                    )));
                }
            }
        }
        if self.mode == Mode::ClassA {
            let Some(w) = &link.lorawan else {
                return Err(LinkError::Data(format!(
                    "{who}: class-a is LoRaWAN's; the link has no [link.lorawan]"
                )));
            };
            w.region.rx1_data_rate(w.dr, self.rx1_offset())?;
        }
        if self.mode == Mode::OnRequest {
            let positive = |f: &Option<Figure<u64>>| f.as_ref().is_some_and(|f| f.value > 0);
            let payload = self.max_payload.as_ref().map_or(0, |f| f.value);
            let frame = self.frame_bytes.as_ref().map_or(0, |f| f.value);
            if !positive(&self.bitrate_bps) || payload == 0 || frame < payload {
                return Err(LinkError::Data(format!(
                    "{who}: the bit rate and payload must be positive and the frame at least the payload"
                )));
            }
        }
        Ok(())
    }

    /// The network's RX1DROffset (class-a), 0 elsewhere.
    pub fn rx1_offset(&self) -> u8 {
        self.rx1_dr_offset.as_ref().map_or(0, |f| f.value)
    }
}

/// A figure the mode requires (checked by `validate`), or the type's zero.
fn figure<T: Copy + Default>(f: &Option<Figure<T>>) -> T {
    f.as_ref().map_or_else(T::default, |f| f.value)
}

/// The link's downlink table, or why it has none.
pub fn spec(link: &LinkSpec) -> Result<&DownlinkSpec, LinkError> {
    link.downlink.as_ref().ok_or_else(|| {
        LinkError::invalid(format!(
            "link '{}' says nothing of its downlink: add a [link.downlink] table (docs/containers.md, \"Downlinks\")",
            link.name
        ))
    })
}

/// What sending `bytes` down to the device on `link` costs, or why no
/// downlink of the link can carry them.
pub fn cost(link: &LinkSpec, bytes: u32) -> Result<DownlinkCost, LinkError> {
    let down = spec(link)?;
    let refuse = |reason: String| LinkError::DownlinkRefused {
        link: link.name.clone(),
        bytes,
        reason,
    };
    match down.mode {
        Mode::Symmetric => {
            let c = link.cost(bytes, false)?;
            Ok(DownlinkCost {
                link: link.name.clone(),
                mode: down.mode,
                bytes,
                frames: c.frames,
                frame_capacity: c.frame_capacity,
                on_air_bytes: c.on_air_bytes,
                airtime: c.airtime,
                rx_time: c.airtime,
                wait: Micros::ZERO,
                answers_uplink: false,
                how: "as the device sends up, in the link's own frames".into(),
                min_interval: c.min_interval,
                notes: down.notes.clone(),
                warnings: c.warnings,
            })
        }
        Mode::ClassA => {
            let (w, rx1) = class_a(link, down)?;
            let rx2 = w.region.rx2_data_rate()?;
            if bytes > rx1.max_payload {
                return Err(refuse(format!(
                    "{bytes} B cannot go down to the device: a LoRaWAN class A downlink answers one uplink, in RX1 at {} DR{} (SF{}/{}) with at most {} B, or in RX2 at DR{} with at most {} B; no downlink fragments are costed (each would need an uplink of its own to open its window)",
                    w.region,
                    rx1.dr,
                    rx1.sf,
                    rx1.bandwidth,
                    rx1.max_payload,
                    rx2.dr,
                    rx2.max_payload
                )));
            }
            let phy = crate::lorawan_frame::phy_len(0, Some(bytes as usize)) as u32;
            let airtime = rx1.downlink_phy().airtime(phy)?.total;
            let delay = Micros::from_ms(figure(&down.delay_ms));
            Ok(DownlinkCost {
                link: link.name.clone(),
                mode: down.mode,
                bytes,
                frames: 1,
                frame_capacity: rx1.max_payload,
                on_air_bytes: phy,
                airtime,
                rx_time: airtime,
                wait: delay,
                answers_uplink: true,
                how: format!(
                    "RX1 at {} DR{} (SF{}/{}), {} after the uplink",
                    w.region,
                    rx1.dr,
                    rx1.sf,
                    rx1.bandwidth,
                    seconds(delay)
                ),
                min_interval: w.region.duty_cycle().map(|dc| airtime.scale(dc.recip())),
                notes: down.notes.clone(),
                warnings: Vec::new(),
            })
        }
        Mode::OnRequest => {
            let payload = figure(&down.max_payload);
            if bytes > payload {
                // What fragments would take: the sealing core's 2-byte header in each.
                let room = payload.saturating_sub(seal::fragment::HEADER as u32).max(1);
                let needed = bytes.div_ceil(room);
                return Err(refuse(format!(
                    "{bytes} B cannot go down to the device: a downlink carries {payload} B, one frame only in the window the device opens after an uplink that asks for it, and no downlink fragments are costed: cut into {payload}-byte downlinks with a {}-byte fragment header it would take {needed}, each answering an uplink of its own{}",
                    seal::fragment::HEADER,
                    per_day(link).map_or_else(String::new, |n| format!(
                        ", where the link allows {n} a day"
                    ))
                )));
            }
            let frame = figure(&down.frame_bytes);
            let airtime = Micros::for_bits(u64::from(frame) * 8, figure(&down.bitrate_bps));
            let delay = Micros::from_ms(figure(&down.delay_ms));
            let window = Micros::from_ms(figure(&down.window_ms));
            Ok(DownlinkCost {
                link: link.name.clone(),
                mode: down.mode,
                bytes,
                frames: 1,
                frame_capacity: payload,
                on_air_bytes: frame,
                airtime,
                rx_time: window,
                wait: delay,
                answers_uplink: true,
                how: format!(
                    "one {payload}-byte downlink in the window the device opens {} after an uplink that asks for it, listening up to {}",
                    seconds(delay),
                    seconds(window)
                ),
                min_interval: None,
                notes: down.notes.clone(),
                warnings: Vec::new(),
            })
        }
    }
}

/// A class A link's LoRaWAN setting and the data rate its RX1 window
/// answers an uplink at.
fn class_a<'a>(
    link: &'a LinkSpec,
    down: &DownlinkSpec,
) -> Result<(&'a crate::catalogue::LorawanSpec, crate::lorawan::DataRate), LinkError> {
    let w = link.lorawan.as_ref().ok_or_else(|| {
        LinkError::Data(format!(
            "link '{}': class-a without [link.lorawan]",
            link.name
        ))
    })?;
    Ok((w, w.region.rx1_data_rate(w.dr, down.rx1_offset())?))
}

/// The most one downlink frame carries on `link`: the RX1 data rate's
/// maximum FRMPayload (class A), the fixed downlink's payload (on request),
/// or the link's own frame (symmetric).
pub fn frame_capacity(link: &LinkSpec) -> Result<u32, LinkError> {
    let down = spec(link)?;
    match down.mode {
        Mode::Symmetric => Ok(link.cost(1, false)?.frame_capacity),
        Mode::ClassA => Ok(class_a(link, down)?.1.max_payload),
        Mode::OnRequest => Ok(figure(&down.max_payload)),
    }
}

/// Refuses `downlinks` answers to the device where the link allows fewer a day.
pub fn check_per_day(link: &LinkSpec, downlinks: u32) -> Result<(), LinkError> {
    let Some(limit) = per_day(link) else {
        return Ok(());
    };
    if downlinks > limit {
        return Err(LinkError::DownlinkRefused {
            link: link.name.clone(),
            bytes: 0,
            reason: format!(
                "{downlinks} downlinks are more than the {limit} a day the link allows"
            ),
        });
    }
    Ok(())
}

/// Downlinks a day at most, where the link's limits count them
/// (`[link.limits]` `downlinks_per_day`).
pub fn per_day(link: &LinkSpec) -> Option<u32> {
    link.limits
        .as_ref()
        .and_then(|l| l.downlinks_per_day.as_ref())
        .map(|f| f.value)
}

fn seconds(t: Micros) -> String {
    format!("{} s", t.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalogue;

    fn link(name: &str) -> LinkSpec {
        Catalogue::builtin().unwrap().get(name).unwrap().clone()
    }

    #[test]
    fn every_builtin_link_says_how_its_downlink_comes() {
        for l in Catalogue::builtin().unwrap().links() {
            let d = spec(l).unwrap_or_else(|e| panic!("{e}"));
            d.validate(l).unwrap();
        }
    }

    #[test]
    fn sigfox_carries_8_bytes_in_one_requested_downlink_and_refuses_more() {
        let s = link("sigfox-rc1");
        let c = cost(&s, 8).unwrap();
        // 224 bits at 600 b/s, after 20 s, the device listening its 25 s window.
        assert_eq!(
            c.airtime,
            Micros::new(num_rational::Ratio::new(1_120_000, 3))
        );
        assert_eq!((c.frames, c.on_air_bytes), (1, 28));
        assert_eq!(
            (c.wait, c.rx_time),
            (Micros::from_ms(20_000), Micros::from_ms(25_000))
        );
        assert!(c.answers_uplink);
        let e = cost(&s, 45).unwrap_err();
        assert!(
            matches!(e, LinkError::DownlinkRefused { bytes: 45, .. }),
            "{e}"
        );
        let why = e.to_string();
        // 45 B in 6-byte pieces: 8 downlinks, where RC1 as sold allows 4 a day.
        assert!(
            why.contains("carries 8 B") && why.contains("take 8") && why.contains("4 a day"),
            "{why}"
        );
        assert!(check_per_day(&s, 4).is_ok());
        let e = check_per_day(&s, 5).unwrap_err().to_string();
        assert_eq!(
            e,
            "on sigfox-rc1, 5 downlinks are more than the 4 a day the link allows"
        );
    }

    #[test]
    fn lorawan_answers_in_rx1_without_the_uplinks_crc_and_refuses_past_its_limit() {
        let dr0 = link("lorawan-eu868-dr0");
        let c = cost(&dr0, 45).unwrap();
        // PHYPayload 58 B at SF12/125 kHz, CR 4/5, LDRO, no CRC:
        // 8 + ceil((8*58 - 48 + 28) / 40) * 5 = 68 payload symbols, 12.25 of
        // preamble: 80.25 symbols of 32.768 ms.
        assert_eq!(c.airtime, Micros::from_us(2_629_632));
        assert_eq!((c.on_air_bytes, c.wait), (58, Micros::from_ms(1000)));
        // A 9-byte message_4: 22 B, 8 + ceil(156 / 40) * 5 = 28 symbols
        // (with the uplink's CRC it would be 33).
        assert_eq!(cost(&dr0, 9).unwrap().airtime, Micros::from_us(1_318_912));
        let e = cost(&dr0, 52).unwrap_err().to_string();
        assert!(e.contains("at most 51 B"), "{e}");
        // US915 DR0 answers at DR10 (SF10/500 kHz), 242 B.
        let us = cost(&link("lorawan-us915-dr0"), 200).unwrap();
        assert!(us.how.contains("DR10"), "{}", us.how);
        assert_eq!(us.frame_capacity, 242);
    }

    #[test]
    fn a_link_without_a_downlink_table_or_with_half_of_one_is_refused() {
        let mut s = link("sigfox-rc1");
        let mut half = s.downlink.take().unwrap();
        let e = cost(&s, 4).unwrap_err();
        assert!(
            matches!(e, LinkError::Invalid(_)) && e.to_string().contains("[link.downlink]"),
            "{e}"
        );
        half.window_ms = None;
        let e = half.validate(&s).unwrap_err().to_string();
        assert!(e.contains("needs 'window_ms'"), "{e}");
        let mut stray = link("ble-1m-251").downlink.unwrap();
        stray.delay_ms = Some(Figure::sourced(1000, "a test"));
        let e = stray.validate(&link("ble-1m-251")).unwrap_err().to_string();
        assert!(e.contains("'delay_ms' has no meaning"), "{e}");
        let class_a = link("lorawan-eu868-dr0").downlink.unwrap();
        let e = class_a
            .validate(&link("ble-1m-251"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("LoRaWAN's"), "{e}");
    }

    #[test]
    fn ble_and_802154_send_down_as_up() {
        for name in ["ble-1m-251", "ieee802154"] {
            let l = link(name);
            let up = l.cost(45, false).unwrap();
            let down = cost(&l, 45).unwrap();
            assert_eq!(
                (down.airtime, down.frames),
                (up.airtime, up.frames),
                "{name}"
            );
            assert_eq!((down.rx_time, down.wait), (up.airtime, Micros::ZERO));
        }
        assert!(
            link("ieee802154")
                .downlink
                .unwrap()
                .notes
                .unwrap()
                .contains("poll")
        );
    }
}
