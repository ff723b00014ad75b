//! Key establishment on a device: a handshake's messages on the link
//! (crates/handshake) with each party's CPU per message from the device's
//! own simulation (the firmware builds in the shipped device table:
//! `edhoc-m3-s2`, `ml-kem-512`, `x-wing`, `ml-dsa-44`…), and what the whole
//! handshake costs the device in energy, with the same energy model as a
//! sealed message. `recommend` and `energy` spread each over the N messages
//! of a session, classical, hybrid and post-quantum side by side.

use energy::model::{MessageLoad, estimate};
use energy::{Device, Radio};
use handshake::{Class, HandshakeCost};
use link::{LinkSpec, Micros};
use serde::Serialize;

use crate::Error;
use crate::device_times::device_target;
pub use cost_engine::session_share::{SessionShare, check_messages};
use device_facts::Implementation;

/// One message's CPU: the party that writes it and the party that reads it,
/// both at the device's clock.
#[derive(Clone, Debug, Serialize)]
pub struct MessageCpu {
    pub message: &'static str,
    pub writer: &'static str,
    pub write_cycles: u64,
    pub write_ms: f64,
    pub read_cycles: u64,
    pub read_ms: f64,
}

/// A handshake on one device: each message's CPU and the device's energy.
/// The device is the initiator; the responder's steps are given at the same
/// clock (what a device-to-device handshake costs the other side).
#[derive(Clone, Debug, Serialize)]
pub struct DeviceHandshake {
    pub protocol: String,
    pub class: Class,
    pub device: String,
    pub target: String,
    pub clock_mhz: f64,
    /// Where the cycles come from (simulated, the table and its firmware).
    pub cycles_source: String,
    /// Where the builds ran and whether they fit the device: the simulated
    /// board's RAM, the most any build needed, and the device's.
    pub memory: String,
    pub messages: Vec<MessageCpu>,
    pub initiator_cpu_ms: f64,
    pub responder_cpu_ms: f64,
    /// The device's energy: its CPU, its radio sending message_1 and
    /// message_3 (with their receive windows) and receiving message_2 and
    /// message_4 as the link's downlink brings them (their time on air, or
    /// the whole window a Sigfox device listens). Model estimates, µJ.
    pub cpu_uj: f64,
    pub tx_uj: f64,
    pub rx_uj: f64,
    pub energy_uj: f64,
    /// The CPU's share of `energy_uj`.
    pub cpu_share: f64,
    /// The device's load for the whole handshake, for sharing it over a session.
    #[serde(skip)]
    pub load: MessageLoad,
    /// The duty cycle's off-time the device's own frames of the handshake
    /// take, s (none: the link has no duty cycle), for sharing it likewise.
    #[serde(skip)]
    pub duty_s: Option<f64>,
    /// P-256 on the device each way it runs, engines' published figures
    /// included (`public_key`): empty for a handshake without P-256.
    pub p256: Vec<crate::public_key::PublicKeyRow>,
}

/// The device's part of a handshake, or why it has none.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum OnDevice {
    Measured(Box<DeviceHandshake>),
    Unavailable {
        protocol: String,
        class: Class,
        device: String,
        target: Option<String>,
        /// Why there are no device cycles (no simulator for the board, or the
        /// build does not fit or build, with its reason).
        failure: String,
    },
}

impl OnDevice {
    pub fn measured(&self) -> Option<&DeviceHandshake> {
        match self {
            OnDevice::Measured(d) => Some(d),
            OnDevice::Unavailable { .. } => None,
        }
    }
}

/// Where a build ran out of the simulated board's RAM, what that says of the
/// device's: the same RAM, or more than the board had (then not measured).
fn beyond_the_board(why: &str, target: device_facts::Target, device: &Device) -> String {
    let board_ram = target.memory_bytes().1;
    let Some(ram) = crate::device_times::device_ram(device) else {
        return String::new();
    };
    if !why.starts_with(&target.short_of_ram()) {
        return String::new();
    }
    let board = target.board();
    match ram.cmp(&board_ram) {
        std::cmp::Ordering::Greater => format!(
            " — that is the simulated board's RAM ({board}, where it ran); {} has {ram} B, so \
             whether it fits there is not measured",
            device.name
        ),
        std::cmp::Ordering::Equal => format!(
            " — it ran on {board} with {board_ram} B of RAM, as much as {} has: it does not fit \
             the device",
            device.name
        ),
        std::cmp::Ordering::Less => format!(
            " — it ran on {board} with {board_ram} B of RAM; {} has {ram} B: it does not fit \
             the device",
            device.name
        ),
    }
}

/// Where a handshake's builds ran, and what they need of the device's RAM.
fn memory_line(target: device_facts::Target, device: &Device, need: Option<u32>) -> String {
    let board = format!(
        "ran on {} with {} B of RAM",
        target.board(),
        target.memory_bytes().1
    );
    match (need, crate::device_times::device_ram(device)) {
        (Some(need), Some(ram)) => format!(
            "{board}; its builds need at most {need} B (static data and the deepest stack), \
             within {}'s {ram} B",
            device.name
        ),
        (Some(need), None) => format!(
            "{board}; its builds need at most {need} B; {} has no RAM size in its profile",
            device.name
        ),
        (None, _) => format!("{board}; the table has no RAM need for its builds"),
    }
}

/// `handshake`'s messages on `device` and `link`, from the device's shipped table.
pub fn on_device(
    handshake: &HandshakeCost,
    device: &Device,
    radio: &Radio,
    link: &LinkSpec,
) -> Result<OnDevice, Error> {
    let unavailable = |target: Option<String>, failure: String| OnDevice::Unavailable {
        protocol: handshake.protocol.clone(),
        class: handshake.class,
        device: device.name.clone(),
        target,
        failure,
    };
    if let Some(why) = &handshake.refused {
        return Ok(unavailable(None, why.clone()));
    }
    let Some(target) = device_target(device)? else {
        return Ok(unavailable(
            None,
            format!(
                "{} has no simulated microcontroller: its CPU costs come from runs imported from the board",
                device.name
            ),
        ));
    };
    let Some(table) = crate::device_times::shipped_for(device, target)? else {
        return Ok(unavailable(
            Some(target.name().into()),
            format!("no device cost table for {target}: run scripts/device-costs"),
        ));
    };
    // Every build the handshake's messages use must have run on this target.
    let mut builds: Vec<&str> = handshake
        .messages
        .iter()
        .flat_map(|m| m.device_ops.write.iter().chain(&m.device_ops.read))
        .map(|o| o.build)
        .collect();
    builds.sort_unstable();
    builds.dedup();
    // Each build by the fastest implementation the table measured whole for
    // it (EDHOC's P-256 from the Cortex-M4 assembly where it ran).
    let mut chosen: Vec<(&str, Implementation)> = Vec::new();
    for &build in &builds {
        let ops: Vec<&str> = handshake
            .messages
            .iter()
            .flat_map(|m| m.device_ops.write.iter().chain(&m.device_ops.read))
            .filter(|o| o.build == build)
            .map(|o| o.op)
            .collect();
        let total = |imp: Implementation| -> Option<u64> {
            ops.iter()
                .map(|op| {
                    let e = table.entry_of(build, imp, op)?;
                    e.cycle_points().first().map(|p| p.1)
                })
                .sum()
        };
        let fastest = Implementation::on(target)
            .filter(|i| i.offers(build))
            .filter_map(|i| total(i).map(|c| (c, i)))
            .min();
        match fastest {
            Some((_, imp)) => chosen.push((build, imp)),
            None => {
                let failure = match table.failure(build) {
                    Some(why) => {
                        format!("{build}: {why}{}", beyond_the_board(why, target, device))
                    }
                    None => format!("the firmware has no {build} build to measure it with"),
                };
                return Ok(unavailable(Some(target.name().into()), failure));
            }
        }
    }
    let by = |build: &str| {
        chosen
            .iter()
            .find(|(b, _)| *b == build)
            .map_or(Implementation::RustCrypto, |c| c.1)
    };
    let clock_hz = device.clock_mhz.value * 1e6;
    let cycles = |ops: &[handshake::DeviceOp]| -> Result<u64, Error> {
        ops.iter()
            .map(|o| {
                table
                    .entry_of(o.build, by(o.build), o.op)
                    .and_then(|e| e.cycle_points().first().map(|p| p.1))
                    .ok_or_else(|| {
                        Error::failed(format!(
                            "{} {} is not in the {target} table: run scripts/device-costs {}",
                            o.build,
                            o.op,
                            target.name()
                        ))
                    })
            })
            .sum()
    };
    let ms = |c: u64| c as f64 / clock_hz * 1e3;
    let (mut initiator_ms, mut responder_ms) = (0.0, 0.0);
    let (mut airtime, mut rx_time) = (Micros::ZERO, Micros::ZERO);
    let mut messages = Vec::new();
    for m in &handshake.messages {
        let (w, r) = (cycles(&m.device_ops.write)?, cycles(&m.device_ops.read)?);
        // The message's own frames (fragments included), as the link model costs them.
        if m.sender == "initiator" {
            initiator_ms += ms(w);
            responder_ms += ms(r);
            airtime = airtime + m.airtime;
            rx_time = rx_time + m.rx_time;
        } else {
            responder_ms += ms(w);
            initiator_ms += ms(r);
            // The device's listening for the downlink (`link::downlink`).
            rx_time = rx_time + m.rx_time;
        }
        messages.push(MessageCpu {
            message: m.message,
            writer: m.sender,
            write_cycles: w,
            write_ms: ms(w),
            read_cycles: r,
            read_ms: ms(r),
        });
    }
    let load = MessageLoad {
        cpu_time_s: initiator_ms / 1e3,
        airtime,
        rx_time,
        tx_power_dbm: link.tx_power_dbm,
    };
    // The model's per-message split; the interval only sizes its sleep.
    let active_s = load.cpu_time_s + airtime.as_secs() + rx_time.as_secs();
    let e = estimate(device, radio, None, &load, active_s + 1.0).map_err(Error::invalid)?;
    let estimated = table.entries.iter().any(|e| !e.cycle_estimates.is_empty());
    let need = builds
        .iter()
        .filter_map(|b| table.ram_need(b, by(b).name()))
        .max();
    let whose: Vec<String> = chosen
        .iter()
        .map(|(b, i)| format!("{b} by {}", i.label()))
        .collect();
    let memory = memory_line(target, device, need);
    Ok(OnDevice::Measured(Box::new(DeviceHandshake {
        protocol: handshake.protocol.clone(),
        class: handshake.class,
        device: device.name.clone(),
        target: target.name().into(),
        clock_mhz: device.clock_mhz.value,
        cycles_source: format!(
            "simulated {target} (data/device-costs/{}.json, firmware {}; {}, the fastest measured){}",
            target.name(),
            table.firmware_revision,
            whose.join(", "),
            if estimated {
                "; cycles estimated from the executed instruction mix"
            } else {
                ""
            }
        ),
        memory,
        messages,
        initiator_cpu_ms: initiator_ms,
        responder_cpu_ms: responder_ms,
        cpu_uj: e.cpu_j * 1e6,
        tx_uj: e.tx_j * 1e6,
        rx_uj: e.rx_j * 1e6,
        energy_uj: e.message_j * 1e6,
        cpu_share: e.cpu_share,
        load,
        duty_s: handshake
            .messages
            .iter()
            .filter(|m| m.sender == "initiator")
            .map(|m| m.min_interval_s)
            .sum(),
        p256: match chosen.iter().any(|(b, _)| b.starts_with("edhoc")) {
            true => crate::public_key::p256_rows(
                &table,
                &device_facts::engine::of_device(&device.name)?,
                clock_hz,
            ),
            false => Vec::new(),
        },
    })))
}

impl DeviceHandshake {
    /// The lines `handshake edhoc --device` adds under the link's table.
    pub fn text(&self) -> String {
        let mut out = format!(
            "on {} ({} at {} MHz; {}):\n{}\n{:<20} {:<9} {:>14} {:>10} {:>14} {:>10}\n",
            self.device,
            self.target,
            self.clock_mhz,
            self.cycles_source,
            self.memory,
            "message",
            "writer",
            "write cycles",
            "write ms",
            "read cycles",
            "read ms"
        );
        for m in &self.messages {
            out.push_str(&format!(
                "{:<20} {:<9} {:>14} {:>10.1} {:>14} {:>10.1}\n",
                m.message, m.writer, m.write_cycles, m.write_ms, m.read_cycles, m.read_ms
            ));
        }
        out.push_str(&format!(
            "CPU: initiator (the device) {:.1} ms, responder {:.1} ms at this clock; \
             the device's energy for the handshake: {:.1} uJ (CPU {:.1}, {:.1} %; TX {:.1}, RX {:.1}; model estimate)\n",
            self.initiator_cpu_ms,
            self.responder_cpu_ms,
            self.energy_uj,
            self.cpu_uj,
            self.cpu_share * 100.0,
            self.tx_uj,
            self.rx_uj
        ));
        out.push_str(&crate::public_key::text(&self.p256));
        out
    }
}

/// What `handshake edhoc` prints: the messages on the link and, with a
/// device, each party's CPU per message there and the device's energy.
#[derive(Clone, Debug, Serialize)]
pub struct HandshakeView {
    #[serde(flatten)]
    pub link: HandshakeCost,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<OnDevice>,
}

/// Where a handshake is costed: the link, the device if one is named, how a
/// message longer than a frame is cut (`ciphermeter` or `schc`), and the data.
pub struct OnLink<'a> {
    pub link: &'a str,
    pub device: Option<&'a str>,
    pub fragmentation: &'a str,
    /// `schc` or `schc:RULES`: EDHOC's messages as CoAP carries them, compressed.
    pub compression: Option<&'a str>,
    pub data_dir: Option<&'a std::path::Path>,
}

/// Runs EDHOC (method, suite, with or without message_4) and costs it as `on` says.
impl OnLink<'_> {
    /// The fragmentation and the link's spec, or why they are refused.
    fn resolve(&self) -> Result<(handshake::Fragmentation, link::LinkSpec), Error> {
        let fragmentation =
            handshake::Fragmentation::parse(self.fragmentation).map_err(Error::invalid)?;
        let cat = crate::data::links(self.data_dir)?;
        let spec = cat.get(self.link).map_err(Error::invalid)?.clone();
        Ok((fragmentation, spec))
    }
}

pub fn edhoc_view(
    method: &str,
    suite: u8,
    message_4: bool,
    on: &OnLink,
) -> Result<HandshakeView, Error> {
    // psk: EDHOC-PSK (draft-ietf-lake-edhoc-psk, method 4), run for real by
    // handshake::edhoc_psk like method 3 by lakers.
    let method = match method {
        "psk" => handshake::edhoc_psk::METHOD,
        m => m.parse::<u8>().map_err(|_| {
            Error::invalid(format!(
                "--method {m}: a method number (RFC 9528: 0-3; 4, draft-ietf-lake-edhoc-psk) or psk"
            ))
        })?,
    };
    let (fragmentation, spec) = on.resolve()?;
    let rules = on
        .compression
        .map(|c| schc::rules_file::named(c).map(|(rules, _)| rules))
        .transpose()
        .map_err(Error::invalid)?;
    let compression = rules.as_ref();
    let link =
        handshake::edhoc_on_link(method, suite, message_4, &spec, fragmentation, compression)
            .map_err(|e| match e {
                handshake::HandshakeError::Protocol(_) => Error::failed(e),
                _ => Error::invalid(e),
            })?;
    view_on(link, &spec, on.device, on.data_dir)
}

/// Each draft suite on one link, and its part on the device where named.
#[derive(Clone, Debug, Serialize)]
pub struct DraftRowView {
    #[serde(flatten)]
    pub row: handshake::edhoc_drafts::DraftRow,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<OnDevice>,
}

/// What `handshake drafts` prints: every draft suite on each of `links`
/// (the default five when none), each with the device's CPU and energy
/// where a device is named and the suite runs on the link.
#[derive(Clone, Debug, Serialize)]
pub struct DraftsView {
    pub rows: Vec<DraftRowView>,
}

pub fn drafts_view(
    links: &[String],
    device: Option<&str>,
    data_dir: Option<&std::path::Path>,
) -> Result<DraftsView, Error> {
    let cat = crate::data::links(data_dir)?;
    let names: Vec<&str> = match links.is_empty() {
        true => handshake::edhoc_drafts::TABLE_LINKS.to_vec(),
        false => links.iter().map(String::as_str).collect(),
    };
    let specs = names
        .iter()
        .map(|n| cat.get(n).cloned().map_err(Error::invalid))
        .collect::<Result<Vec<_>, _>>()?;
    let rows = handshake::edhoc_drafts::table(&specs).map_err(Error::failed)?;
    let prof = match device {
        Some(_) => Some(crate::data::profiles(data_dir)?),
        None => None,
    };
    let mut out = Vec::new();
    for row in rows {
        let on = match (&prof, device, &row.cost) {
            (Some(prof), Some(name), Some(cost)) => {
                let d = prof.device(name).map_err(|e| target_hint(prof, name, e))?;
                let spec = specs.iter().find(|s| s.name == row.link);
                let radio = spec
                    .map(|s| {
                        prof.radio_for(d, s)
                            .map(|r| r.radio)
                            .map_err(Error::invalid)
                    })
                    .transpose()?;
                match (spec, radio) {
                    (Some(spec), Some(radio)) => Some(on_device(cost, d, radio, spec)?),
                    _ => None,
                }
            }
            _ => None,
        };
        out.push(DraftRowView { row, device: on });
    }
    Ok(DraftsView { rows: out })
}

impl DraftsView {
    pub fn text(&self) -> String {
        let rows: Vec<_> = self.rows.iter().map(|r| r.row.clone()).collect();
        let mut out = handshake::edhoc_drafts::text(&rows);
        let mut said: Vec<String> = Vec::new();
        for r in &self.rows {
            match &r.device {
                Some(OnDevice::Measured(d)) => out.push_str(&format!(
                    "on {}: {} on {}: the device's CPU {:.1} ms (KEM and signature operations; \
                     hashing and AEAD not counted), energy {:.1} uJ (model estimate)\n",
                    d.device, r.row.suite, r.row.link, d.initiator_cpu_ms, d.energy_uj
                )),
                Some(OnDevice::Unavailable {
                    device, failure, ..
                }) if !said.contains(&r.row.suite) => {
                    said.push(r.row.suite.clone());
                    out.push_str(&format!(
                        "on {device}: {}: no device CPU: {failure}\n",
                        r.row.suite
                    ));
                }
                _ => {}
            }
        }
        out
    }
}

/// An unknown device named like a simulated target: say which device
/// profiles run that target (each has its own clock and power).
fn target_hint(prof: &energy::Profiles, name: &str, e: impl std::fmt::Display) -> Error {
    let Ok(target) = name.parse::<device_facts::Target>() else {
        return Error::invalid(e);
    };
    let runs: Vec<&str> = prof
        .devices
        .iter()
        .filter(|d| {
            d.simulated_target
                .as_ref()
                .is_some_and(|t| t.value == target.name())
        })
        .map(|d| d.name.as_str())
        .collect();
    Error::invalid(format!(
        "{name} is a simulated target, not a device profile; --device takes a profile, and these run {name}: {}",
        runs.join(", ")
    ))
}

/// What `handshake kem` prints: the device's ciphertext (and signature) on
/// the link and, with a device, its CPU there (encapsulation and signing; the
/// gateway's decapsulation and verification at the same clock) and energy.
pub fn kem_view(kem: &str, on: &OnLink) -> Result<HandshakeView, Error> {
    let kem = handshake::KemSetup::parse(kem).map_err(Error::invalid)?;
    if on.compression.is_some() {
        return Err(Error::invalid(
            "--compression schc compresses EDHOC's messages as CoAP carries them (RFC 9528 A.2); a KEM's have no CoAP carriage here",
        ));
    }
    let (fragmentation, spec) = on.resolve()?;
    let link = handshake::kem_on_link(kem, &spec, fragmentation).map_err(Error::invalid)?;
    view_on(link, &spec, on.device, on.data_dir)
}

/// `link` with, when a device is named, its part on that device.
fn view_on(
    link: HandshakeCost,
    spec: &LinkSpec,
    device: Option<&str>,
    data_dir: Option<&std::path::Path>,
) -> Result<HandshakeView, Error> {
    let device = match device {
        None => None,
        Some(name) => {
            let prof = crate::data::profiles(data_dir)?;
            let device = prof.device(name).map_err(|e| target_hint(&prof, name, e))?;
            let radio = prof.radio_for(device, spec).map_err(Error::invalid)?.radio;
            Some(on_device(&link, device, radio, spec)?)
        }
    };
    Ok(HandshakeView { link, device })
}

impl HandshakeView {
    pub fn text(&self) -> String {
        let mut out = self.link.text();
        match &self.device {
            Some(OnDevice::Measured(d)) => out.push_str(&d.text()),
            Some(OnDevice::Unavailable {
                device, failure, ..
            }) => out.push_str(&format!("no device CPU for {device}: {failure}\n")),
            None => {}
        }
        out
    }
}

/// Each of [`handshake::SESSION_PROTOCOLS`] on `device` and `link`:
/// classical, hybrid and post-quantum, measured or why not.
pub fn establishments_on_device(
    device: &Device,
    radio: &Radio,
    link: &LinkSpec,
) -> Result<Vec<(HandshakeCost, OnDevice)>, Error> {
    handshake::SESSION_PROTOCOLS
        .iter()
        .map(|name| {
            let cost = handshake::establishment_on_link(name, link).map_err(Error::failed)?;
            let on = on_device(&cost, device, radio, link)?;
            Ok((cost, on))
        })
        .collect()
}

/// One message's load plus `handshake`'s spread over `messages` (≥ 1).
pub fn with_share(own: &MessageLoad, handshake: &DeviceHandshake, messages: u64) -> MessageLoad {
    let n = messages as f64;
    let us = |own: Micros, shared: Micros| {
        Micros::from_us(((own.as_secs() + shared.as_secs() / n) * 1e6).round() as u64)
    };
    MessageLoad {
        cpu_time_s: own.cpu_time_s + handshake.load.cpu_time_s / n,
        airtime: us(own.airtime, handshake.load.airtime),
        rx_time: us(own.rx_time, handshake.load.rx_time),
        tx_power_dbm: own.tx_power_dbm,
    }
}

/// `base` keyed by `handshake` once every `messages` messages: its load per
/// message plus the handshake's over `messages`, through the same energy
/// model (so battery life counts the handshakes too).
pub fn keyed_by_session(
    base: &crate::scheme_cost::SchemeCost,
    handshake: &DeviceHandshake,
    messages: u64,
    setting: &crate::scheme_cost::Setting,
) -> Result<crate::scheme_cost::SchemeCost, Error> {
    let link = base
        .link_cost
        .as_ref()
        .ok_or_else(|| Error::failed("a ranked scheme has no link cost"))?;
    let own = MessageLoad {
        cpu_time_s: base.cpu_us * 1e-6,
        airtime: link.airtime,
        rx_time: link.rx_time,
        tx_power_dbm: setting.link.tx_power_dbm,
    };
    let load = with_share(&own, handshake, messages);
    let e = estimate(
        setting.device,
        setting.radio,
        setting.battery,
        &load,
        setting.interval_s,
    )
    .map_err(Error::invalid)?;
    let mut keyed = base.clone();
    // The duty cycle over a session: each message's own off-time plus its
    // share of the handshake's, as the device may spread them.
    if let (Some(l), Some(duty)) = (keyed.link_cost.as_mut(), handshake.duty_s)
        && let Some(own) = l.min_interval
    {
        l.min_interval = Some(Micros::from_us(
            ((own.as_secs() + duty / messages as f64) * 1e6).round() as u64,
        ));
    }
    keyed.cpu_us = load.cpu_time_s * 1e6;
    keyed.energy = Some(e);
    keyed.session = Some(SessionShare {
        protocol: handshake.protocol.clone(),
        messages,
        handshake_uj: handshake.energy_uj / messages as f64,
    });
    Ok(keyed)
}

/// When key establishment stops mattering, said for a ranking, one per protocol.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct SessionAnswer {
    pub protocol: String,
    pub class: Class,
    pub session_messages: u64,
    /// What the device sends and receives for one handshake, and the frames.
    pub handshake_bytes: u32,
    pub handshake_frames: u32,
    /// The device's wait under the duty cycle before the key exists, s.
    pub duty_wait_s: f64,
    /// The device's wait for the responder's downlinks, radio off, s
    /// (LoRaWAN's RX1 delays; none where the other side sends as it does).
    #[serde(default)]
    pub downlink_wait_s: f64,
    /// Why the key establishment cannot run on the link (a message of the
    /// responder's that no downlink carries); null when it can.
    #[serde(default)]
    pub refused: Option<String>,
    /// Both parties authenticated; false: only the gateway, implicitly.
    pub mutual_authentication: bool,
    /// The device's own CPU time for its part, ms (none: no device cycles).
    pub device_cpu_ms: Option<f64>,
    /// The device's energy for one handshake, µJ (none: no device cycles).
    pub handshake_uj: Option<f64>,
    /// One handshake costs as much as this many of the keyed scheme's messages.
    pub handshake_in_messages: Option<f64>,
    /// From this many messages per session on, the handshake adds under 1 %
    /// to each message's energy.
    pub negligible_from_messages: Option<u64>,
    pub sentence: String,
}

/// The answer for a session of `messages` keyed by `handshake` (or why none),
/// beside the pre-shared-key scheme it keys (`base`, `message_uj` per message).
pub fn answer(
    cost: &HandshakeCost,
    handshake: &OnDevice,
    base: &str,
    message_uj: f64,
    messages: u64,
) -> SessionAnswer {
    let name = match cost.protocol.as_str() {
        "edhoc" => "EDHOC (method 3, suite 2)".to_string(),
        other => other.to_string(),
    };
    let head = format!(
        "Key establishment, {}{}: {name} sends {} bytes in {} frame{}{}",
        cost.class.as_str(),
        match cost.mutual_authentication {
            true => "",
            false => ", the device unauthenticated",
        },
        cost.total_bytes,
        cost.total_frames,
        if cost.total_frames == 1 { "" } else { "s" },
        if cost.initiator_duty_wait_s > 0.0 {
            format!(
                " and holds the key back {:.0} s under the duty cycle",
                cost.initiator_duty_wait_s
            )
        } else {
            String::new()
        }
    );
    let head = match cost.initiator_downlink_wait_s {
        w if w > 0.0 => format!("{head}, waiting {w:.0} s for the gateway's downlinks"),
        _ => head,
    };
    let mut out = SessionAnswer {
        protocol: cost.protocol.clone(),
        class: cost.class,
        session_messages: messages,
        handshake_bytes: cost.total_bytes,
        handshake_frames: cost.total_frames,
        duty_wait_s: cost.initiator_duty_wait_s,
        downlink_wait_s: cost.initiator_downlink_wait_s,
        refused: cost.refused.clone(),
        mutual_authentication: cost.mutual_authentication,
        device_cpu_ms: handshake.measured().map(|h| h.initiator_cpu_ms),
        handshake_uj: None,
        handshake_in_messages: None,
        negligible_from_messages: None,
        sentence: String::new(),
    };
    out.sentence = match handshake {
        _ if cost.refused.is_some() => format!(
            "Key establishment, {}: {name} cannot run here: {}.",
            cost.class.as_str(),
            cost.refused.as_deref().unwrap_or_default()
        ),
        OnDevice::Measured(h) if message_uj > 0.0 => {
            let worth = h.energy_uj / message_uj;
            let negligible = (100.0 * worth).ceil() as u64;
            out.handshake_uj = Some(h.energy_uj);
            out.handshake_in_messages = Some(worth);
            out.negligible_from_messages = Some(negligible);
            format!(
                "{head}; it costs this device {:.0} uJ, as much as {worth:.1} messages of {base}; over a session of {messages} message{} it adds {:.2} uJ to each ({} of a message), and from {negligible} messages per session on it adds under 1 %.",
                h.energy_uj,
                if messages == 1 { "" } else { "s" },
                h.energy_uj / messages as f64,
                cost_engine::ranking::percent_of(h.energy_uj / messages as f64, message_uj),
            )
        }
        OnDevice::Measured(h) => {
            out.handshake_uj = Some(h.energy_uj);
            format!(
                "{head}; it costs this device {:.0} uJ; {base} has no energy figure here to compare with.",
                h.energy_uj
            )
        }
        OnDevice::Unavailable { failure, .. } => {
            format!("{head}; not ranked: this device has no cycles of its own for it ({failure}).")
        }
    };
    out
}

/// What protecting the session key against a quantum computer costs over
/// classical EDHOC at `messages` per session, per message of the keyed scheme
/// (`message_uj`), and from which session length it stops mattering: the
/// choice the post-quantum rows of a ranking make, said once. None without
/// a measured classical handshake and at least one measured other.
pub fn choice_sentence(
    answers: &[SessionAnswer],
    message_uj: f64,
    messages: u64,
) -> Option<String> {
    let classical = answers
        .iter()
        .find(|a| a.class == Class::Classical)?
        .handshake_uj?;
    let mut clauses = Vec::new();
    for a in answers.iter().filter(|a| a.class != Class::Classical) {
        let Some(h) = a.handshake_uj else { continue };
        let per_message = (h - classical) / messages as f64;
        let negligible = (100.0 * (h - classical).abs() / message_uj).ceil() as u64;
        clauses.push(format!(
            "{} ({}) {} {:.2} uJ a message ({} of one), a difference under 1 % from {negligible} messages per session",
            a.protocol,
            a.class.as_str(),
            if per_message >= 0.0 { "costs" } else { "saves" },
            per_message.abs(),
            cost_engine::ranking::percent_of(per_message.abs(), message_uj),
        ));
    }
    if clauses.is_empty() || message_uj <= 0.0 {
        return None;
    }
    Some(format!(
        "Against classical EDHOC at {messages} message{} per session: {}.",
        if messages == 1 { "" } else { "s" },
        clauses.join("; ")
    ))
}
/// The key establishments `recommend --session-messages` ranks, for the
/// engine (`cost_engine::rank::Sessions`): crates/handshake's costs on the
/// device and link.
pub struct Handshakes;

impl cost_engine::rank::Sessions for Handshakes {
    type Answer = SessionAnswer;

    fn keyed(
        &mut self,
        best: &crate::scheme_cost::SchemeCost,
        messages: u64,
        setting: &crate::scheme_cost::Setting,
    ) -> Result<(Vec<SessionAnswer>, Vec<crate::scheme_cost::SchemeCost>), Error> {
        let (mut answers, mut keyed) = (Vec::new(), Vec::new());
        let base_uj = cost_engine::ranking::message_uj(best);
        for (cost, on_device) in
            establishments_on_device(setting.device, setting.radio, setting.link)?
        {
            answers.push(answer(&cost, &on_device, best.name(), base_uj, messages));
            if let Some(h) = on_device.measured() {
                keyed.push(keyed_by_session(best, h, messages, setting)?);
            }
        }
        Ok((answers, keyed))
    }

    fn post_quantum(
        &self,
        answers: &[SessionAnswer],
        base_uj: f64,
        messages: u64,
    ) -> Option<String> {
        choice_sentence(answers, base_uj, messages)
    }
}

impl cost_engine::session_share::SessionSaid for SessionAnswer {
    fn sentence(&self) -> &str {
        &self.sentence
    }
}
