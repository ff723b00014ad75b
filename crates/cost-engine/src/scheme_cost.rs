//! One scheme's cost on one device and link: the row `recommend` ranks, and
//! the energy of its message from its CPU time and its cost on air.

use catalogue::{Entry, Status};
use device_facts::Implementation;
use device_facts::cycle_model::validation::CoreError;
use energy::{Battery, Device, EnergyEstimate, MessageLoad, Radio};
use link::{LinkCost, LinkSpec};
use seal::Scheme;
use seal::host::container::MessageContainer;
use serde_json::{Value, json};

use crate::Error;
use crate::cpu_source::{ConstantTime, CpuSource};
use crate::device_times::DeviceTimes;
use crate::message::{Ask, Messages, Sealed};
use crate::schc_packet::{SCHC_CPU_NOTE, SchcPacket};

/// Worst catalogue status among a scheme's algorithms, with the reason.
pub fn scheme_status(scheme: &Scheme) -> (Status, Option<String>) {
    let entries: Vec<&Entry> = scheme.cipher.into_iter().chain(scheme.mac).collect();
    let rank = |s: Status| match s {
        Status::Recommended => 0,
        Status::Legacy => 1,
        Status::Broken => 2,
    };
    let worst = entries.iter().max_by_key(|e| rank(e.status));
    match worst {
        Some(e) => (e.status, e.status_reason.clone()),
        None => (Status::Recommended, None),
    }
}

#[derive(Clone)]
pub struct SchemeCost {
    pub scheme: Scheme,
    /// The container the reading was sealed in.
    pub container: MessageContainer,
    /// The message compressed with SCHC (the oscore container's), as sent.
    pub schc: Option<SchcPacket>,
    pub status: Status,
    pub status_reason: Option<String>,
    /// The sample as given (`chain:10`), and in words.
    pub sample: String,
    pub sample_description: String,
    pub plaintext_bytes: usize,
    pub sealed_bytes: usize,
    /// Host seal time: median, 95 % CI, samples (µs); zeros with no samples
    /// when not timed here: on a device with seal times of its own, whose
    /// rows without one are not ranked.
    pub host_us: (f64, f64, f64, u64),
    pub cpu_us: f64,
    pub cpu_source: CpuSource,
    /// The cycle model's validated error on the device's core, where
    /// `cpu_us` is its estimate (a Cortex-M simulation); ranking widens the
    /// CPU energy by it. None for an exact count, or an unvalidated core.
    pub cpu_model_error: Option<CoreError>,
    pub code_size: Option<i64>,
    /// Peak stack of the seal on the device, bytes.
    pub stack_bytes: Option<u32>,
    pub energy: Option<EnergyEstimate>,
    /// The sealed message on the link: bytes on air, frames, airtime and
    /// duty-cycle spacing, as `link` computes them (`LinkSpec::cost`).
    pub link_cost: Option<LinkCost>,
    /// Why there is no energy figure (message too long for the link...).
    pub energy_gap: Option<String>,
    /// Keyed by a handshake shared over a session (`--session-messages`):
    /// its share is in `energy`. None: a pre-shared key.
    pub session: Option<crate::session_share::SessionShare>,
    /// Whose code `cpu_us` is: on a simulated device, the fastest allowed
    /// implementation whose whole seal path was measured there; on the host,
    /// RustCrypto's (what `HostSealer::new` runs).
    pub seal_implementation: Implementation,
    /// Every allowed implementation's whole seal path on the device (µs),
    /// the chosen one among them; empty for a host time.
    pub seal_paths: Vec<(f64, Implementation)>,
    /// The chosen build's constant-time verdict on the device; none for a host time.
    pub constant_time: Option<ConstantTime>,
    /// The breakdown: the fastest implementation of each primitive measured
    /// alone on the device (`implementation_choice`), set by the ranking for
    /// device-measured rows.
    pub implementation: Option<crate::implementation_choice::ImplementationChoice>,
    /// A hardware engine doing part of the seal (`engine_cost`): its time
    /// published, not simulated; none for software alone.
    pub engine: Option<crate::engine_use::EngineUse>,
}

/// The asked message sealed (`messages`) and costed: timed on this machine
/// only for a device without seal times of its own.
pub fn cost_message(
    ask: &Ask,
    messages: &dyn Messages,
    setting: &Setting,
    device: Option<&DeviceTimes>,
) -> Result<SchemeCost, Error> {
    let sealed = messages.seal(ask)?;
    // On a device with seal times of its own, a scheme it has none for is
    // not ranked (`choices`: never with this host's time), so it is not timed.
    let host_us = match device {
        Some(_) => None,
        None => messages.host_time(ask)?,
    };
    from_message(&sealed, host_us, ask.sample, setting, device)
}

/// A sealed message's cost on the device and link: its CPU time the
/// device's own where `device` has it (the fastest allowed implementation's
/// whole seal path), else `host_us` (this machine's median, 95 % interval
/// and samples; zeros when nothing timed it: a device's row without a seal
/// time, which `choices` lists apart), labelled so.
pub fn from_message(
    sealed: &Sealed,
    host_us: Option<(f64, f64, f64, u64)>,
    sample: &str,
    setting: &Setting,
    device: Option<&DeviceTimes>,
) -> Result<SchemeCost, Error> {
    // Not timed here (the device's time stands): no host samples.
    let host_us = host_us.unwrap_or((0.0, 0.0, 0.0, 0));
    let (status, status_reason) = scheme_status(&sealed.scheme);
    let bytes = sealed.plaintext_bytes;
    let device_us = device.and_then(|d| {
        d.seal_choice(&sealed.scheme, sealed.container, bytes)
            .map(|(us, imp)| (us, imp, d))
    });
    // The host seals with RustCrypto's code (`HostSealer::new`).
    let mut implementation = Implementation::RustCrypto;
    let mut seal_paths = Vec::new();
    let mut constant_time = None;
    let mut cpu_model_error = None;
    let (cpu_us, cpu_source) = match device_us {
        Some((us, imp, d)) => {
            implementation = imp;
            cpu_model_error = d.model_error(&sealed.scheme, imp).cloned();
            constant_time = Some(d.constant_time(&sealed.scheme, imp));
            seal_paths = d.seal_by(&sealed.scheme, sealed.container, bytes);
            let mut what = d.describe_build(&sealed.scheme, imp);
            if let Some(n) = d.below_measured(&sealed.scheme, sealed.container, imp, bytes) {
                what.push_str(&format!(
                    "; at the smallest reading measured ({n} B): none of {bytes} B was, so this is an upper bound"
                ));
            }
            (us, CpuSource::Device(what))
        }
        None => (
            host_us.0,
            match device {
                Some(d) => CpuSource::HostInsteadOfDevice {
                    target: d.target,
                    why: d.failure(&sealed.scheme),
                },
                None => CpuSource::Host,
            },
        ),
    };
    let code_size = device.and_then(|d| d.code_size(&sealed.scheme, implementation));
    let stack_bytes = device.and_then(|d| d.stack(&sealed.scheme, implementation));
    let (link_cost, energy, energy_gap) =
        match energy_of(setting, sealed.bytes, sealed.schc.as_ref(), cpu_us) {
            Ok((c, Ok(e))) => (Some(c), Some(e), None),
            Ok((c, Err(why))) => (Some(c), None, Some(why)),
            Err(why) => (None, None, Some(why)),
        };
    // A compressed message's bytes are what the radio carries (its frames'
    // payloads, the rule id in FPort when one frame holds it), as `link` says.
    let sealed_bytes = match (&sealed.schc, &link_cost) {
        (Some(_), Some(c)) => c.message_bytes as usize,
        _ => sealed.bytes,
    };
    let cpu_source = match (&sealed.schc, cpu_source) {
        (Some(_), CpuSource::Device(what)) => CpuSource::Device(what + SCHC_CPU_NOTE),
        (_, source) => source,
    };
    Ok(SchemeCost {
        scheme: sealed.scheme.clone(),
        container: sealed.container,
        schc: sealed.schc.clone(),
        status,
        status_reason,
        sample: sample.to_string(),
        sample_description: sealed.sample_description.clone(),
        plaintext_bytes: sealed.plaintext_bytes,
        sealed_bytes,
        host_us,
        cpu_us,
        cpu_source,
        cpu_model_error,
        code_size,
        stack_bytes,
        energy,
        link_cost,
        energy_gap,
        session: None,
        seal_implementation: implementation,
        constant_time,
        seal_paths,
        implementation: None,
        engine: None,
    })
}

pub struct Setting<'a> {
    pub device: &'a Device,
    pub radio: &'a Radio,
    pub link: &'a LinkSpec,
    pub battery: Option<&'a Battery>,
    pub interval_s: f64,
    /// The link protocol's parameters as the user set them (`--conn-interval`,
    /// `--poll-period`, `--psm`…); default: the stack's, from the link's data.
    pub protocol: energy::protocol::Overrides,
}

/// The message's cost on the link and its energy; when the energy has no
/// answer (the interval is shorter than the message's active time), the
/// cost still, so that a refusal can say why.
pub fn energy_of(
    s: &Setting,
    bytes: usize,
    schc: Option<&SchcPacket>,
    cpu_us: f64,
) -> Result<(LinkCost, Result<EnergyEstimate, String>), String> {
    let options = link::SendOptions::default();
    let cost =
        crate::on_air::message_cost(s.link, bytes, schc, &options).map_err(|e| e.to_string())?;
    let est = message_energy(s, &cost, cpu_us);
    Ok((cost, est))
}

/// One message's energy: `cpu_us` of CPU, the link's own airtime and
/// listening, and its protocol's costs in the interval (`energy::protocol`).
pub fn message_energy(s: &Setting, link: &LinkCost, cpu_us: f64) -> Result<EnergyEstimate, String> {
    let load = MessageLoad {
        cpu_time_s: cpu_us * 1e-6,
        airtime: link.airtime,
        rx_time: link.rx_time,
        tx_power_dbm: s.link.tx_power_dbm,
    };
    let protocol = protocol_cost(s, link).map_err(|e| e.to_string())?;
    energy::estimate_with(
        s.device,
        s.radio,
        s.battery,
        &load,
        s.interval_s,
        protocol.as_ref(),
    )
    .map_err(|e| e.to_string())
}

/// The link protocol's costs in one interval around a message that costs
/// `link` on air (none for a link without `[link.protocol]`).
pub fn protocol_cost(
    s: &Setting,
    link: &LinkCost,
) -> Result<Option<energy::protocol::ProtocolCost>, energy::EnergyError> {
    energy::protocol::cost(
        s.link,
        s.radio,
        link.frames,
        link.airtime.as_secs() + link.rx_time.as_secs(),
        s.interval_s,
        &s.protocol,
    )
}

impl SchemeCost {
    pub fn name(&self) -> &str {
        self.scheme.name()
    }

    /// The name as sentences say it: with the engine that does part of it
    /// and the handshake that keys it, so that a tie or a winner line never
    /// names a scheme beside itself.
    pub fn shown_name(&self) -> String {
        let name = match &self.engine {
            Some(e) => e.shown_name(self.name()),
            None => self.name().to_string(),
        };
        match &self.session {
            Some(s) => format!(
                "{name} keyed by {} every {} messages",
                s.protocol, s.messages
            ),
            None => name,
        }
    }

    /// The same message with another CPU time, its energy estimated anew
    /// (the link's airtime and listening are the message's own).
    pub fn with_cpu_us(&self, cpu_us: f64, s: &Setting) -> Result<SchemeCost, Error> {
        let link = self
            .link_cost
            .as_ref()
            .ok_or_else(|| Error::failed("a ranked scheme has no link cost"))?;
        let energy = message_energy(s, link, cpu_us).map_err(Error::invalid)?;
        let mut row = self.clone();
        row.cpu_us = cpu_us;
        row.energy = Some(energy);
        Ok(row)
    }

    /// What a stored row of this cost holds beside its value (`cost::record`).
    pub fn row_data(&self) -> Value {
        json!({
            "scheme": self.name(),
            "pattern": self.scheme.pattern.as_str(),
            "security_bits": self.scheme.security_bits(),
            "status": self.status.as_str(),
            "status_reason": self.status_reason,
            "sample": self.sample,
            "sample_description": self.sample_description,
            "plaintext_bytes": self.plaintext_bytes,
            "sealed_bytes": self.sealed_bytes,
            "overhead_ratio": self.sealed_bytes as f64 / self.plaintext_bytes.max(1) as f64,
        })
    }
}
