//! `device-send`: the sealing firmware in the live loop (studies 000 and 003's
//! experiment with the real sealing code on the real instruction set). The
//! simulated device seals readings with the provisioned key and writes them
//! to its UART; this host deframes the UART and forwards each message, as it
//! came, through the sender (so `--inject`, `--to` and the gateway's
//! acknowledgements work as for `send`).
//!
//! A restart (`--restart-after M`) kills the simulator without warning once
//! M messages have been forwarded (what it sealed after them is lost, as in a
//! power cut) and boots it again for the rest: its counter, kept in the state
//! directory, resumes past every nonce it used.

use std::io::Read;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use device_facts::Target;
use mcu::uplink::{self, Provision};
use seal::{NoncePolicy, SealKey};
use serde::Serialize;

use crate::error::LiveError;
use crate::framing::{Deframer, Event, Framing, MAX_MESSAGE};
use crate::sender::{Readings, SendConfig, SendReport, send};

/// Where a device keeps its counter by default: beside its key, `KEY.device`.
pub fn state_dir_of(key_file: &std::path::Path) -> PathBuf {
    let mut state = key_file.as_os_str().to_owned();
    state.push(".device");
    state.into()
}

pub struct DeviceSendConfig {
    pub target: Target,
    /// Whose code the firmware seals with (a backend of the sealing core:
    /// `recommend` names the fastest for the device).
    pub implementation: device_facts::Implementation,
    /// Readings the device seals in all (across a restart).
    pub count: u64,
    /// Kill and reboot the device once this many messages have been forwarded.
    pub restart_after: Option<u64>,
    /// Thermometers per reading (study 003's chain).
    pub thermometers: u8,
    /// Where the device keeps its counter between boots (one device per key).
    pub state_dir: PathBuf,
    /// How the forwarded messages go out; `container` is what the device seals in.
    pub send: SendConfig,
    /// Build it even if its timing leaks on the target (`--allow-leaky`).
    pub allow_leaky: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceReport {
    pub target: String,
    pub scheme: String,
    pub implementation: String,
    pub container: String,
    pub boots: u32,
    /// Messages read off the device's UART.
    pub from_device: u64,
    /// Bytes on the UART that were not a whole frame (should be 0).
    pub uart_errors: u64,
    /// What sealing cost on the device, timed by its own firmware.
    pub seal_cost: SealCost,
    pub send: SendReport,
}

/// Each message's seal as the device counted it (serialize, seal, wrap:
/// the region the device tables time), beside the table's row for the
/// same scheme, implementation, container and reading length.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SealCost {
    /// `cycles` (ATmega1284P, simavr) or `instructions` (QEMU).
    pub counter: String,
    /// Messages whose seal was timed.
    pub timed: u64,
    pub per_message_min: Option<u64>,
    pub per_message_max: Option<u64>,
    /// `data/device-costs/TARGET.json`'s count for this seal, if the table
    /// has the row at this reading's length (study 003's chain lengths).
    pub table: Option<u64>,
    /// The largest deviation of a message from the table, in percent.
    pub worst_deviation_percent: Option<f64>,
}

impl SealCost {
    fn add(
        &mut self,
        target: Target,
        scheme: &str,
        implementation: &str,
        seals: &[uplink::TimedSeal],
    ) {
        self.counter = target.counter().to_string();
        let table = device_facts::cost_table::shipped(target).ok().flatten();
        let imp = implementation.parse().ok();
        for s in seals {
            self.timed += 1;
            self.per_message_min = Some(self.per_message_min.map_or(s.count, |m| m.min(s.count)));
            self.per_message_max = Some(self.per_message_max.map_or(s.count, |m| m.max(s.count)));
            let table = table.as_ref().zip(imp).and_then(|(t, imp)| {
                let entry = t.entry_of(scheme, imp, &s.operation)?;
                entry.points.iter().find(|p| p.0 == s.size).map(|p| p.1)
            });
            self.table = self.table.or(table);
            if let Some(t) = table.filter(|t| *t > 0) {
                let d = (s.count as f64 - t as f64).abs() * 100.0 / t as f64;
                self.worst_deviation_percent =
                    Some(self.worst_deviation_percent.map_or(d, |w: f64| w.max(d)));
            }
        }
    }
}

/// Runs the device and forwards its messages until `count` are sent or `stop`.
pub fn device_send(
    config: DeviceSendConfig,
    key: &SealKey,
    stop: &AtomicBool,
    progress: impl Fn(&str),
) -> Result<DeviceReport, LiveError> {
    if config.count == 0 || config.count > u64::from(u32::MAX) {
        return Err(LiveError::Usage(format!(
            "--count must be 1 to {}, not {}",
            u32::MAX,
            config.count
        )));
    }
    if let Some(m) = config.restart_after
        && (m == 0 || m >= config.count)
    {
        return Err(LiveError::Usage(format!(
            "--restart-after must be between 1 and --count - 1 ({}), not {m}",
            config.count - 1
        )));
    }
    if key.nonce != NoncePolicy::Counter {
        return Err(LiveError::Usage(format!(
            "the device seals with counter nonces it keeps in its own storage; {} is a {} -nonce key: make one with `keygen --scheme {} --nonce counter`",
            key.path
                .as_ref()
                .map_or("the key".to_string(), |p| p.display().to_string()),
            key.nonce.as_str(),
            key.scheme.name()
        )));
    }
    // The host's rules for what may seal (no broken or legacy schemes).
    seal::HostSealer::new(key, false).map_err(|e| LiveError::Usage(e.to_string()))?;
    let usage = |e: mcu::McuError| match e {
        mcu::McuError::Usage(m) | mcu::McuError::Missing(m) => LiveError::Usage(m),
        mcu::McuError::Failed(m) => LiveError::Io(m),
    };
    uplink::check(config.target, config.thermometers).map_err(usage)?;
    uplink::claim_state(&config.state_dir, config.target).map_err(usage)?;
    let scheme = key.scheme.name().to_string();
    let implementation = config.implementation;
    if !implementation.offers(&scheme) {
        return Err(LiveError::Usage(format!(
            "{} cannot seal {scheme} on the device: {}",
            implementation.label(),
            implementation
                .sealing_backend()
                .map_or("its primitives are measured alone only".to_string(), |b| {
                    format!("it has {}", b.summary())
                })
        )));
    }
    device_facts::constant_time::refuse_leaky(
        config.target,
        &implementation.build_id(&scheme),
        config.allow_leaky,
    )
    .map_err(|e| LiveError::Usage(e.to_string()))?;
    progress(&format!(
        "building the {scheme} device firmware for {} with {}'s code",
        config.target,
        implementation.label()
    ));
    let firmware =
        uplink::build(config.target, &implementation.build_id(&scheme)).map_err(usage)?;

    let stats = Arc::new(Mutex::new(DeviceReport {
        target: config.target.name().to_string(),
        scheme: scheme.clone(),
        implementation: implementation.name().to_string(),
        container: config.send.container.as_str().to_string(),
        ..DeviceReport::default()
    }));
    let DeviceSendConfig {
        target,
        implementation: _,
        count,
        restart_after,
        thermometers,
        state_dir,
        send: mut send_config,
        allow_leaky: _,
    } = config;
    progress(&format!(
        "booting the {target} device; forwarding to {}",
        send_config.to
    ));
    let device = Device {
        target,
        count,
        restart_after,
        thermometers,
        state_dir,
        container: send_config.container,
        key,
        firmware,
        framing: Framing::for_container(send_config.container),
        child: None,
        forwarded: 0,
        pending: std::collections::VecDeque::new(),
        stats: stats.clone(),
        failed: false,
    };
    send_config.presealed = true;
    let report = send(&send_config, None, Readings::Sealed(Box::new(device)), stop)?;
    let mut out = stats.lock().expect("not poisoned").clone();
    out.send = report;
    Ok(out)
}

/// How long a device may write nothing before it is taken for hung: an
/// ATmega1284P seals a 25-thermometer reading in well under a second.
const SILENCE: Duration = Duration::from_secs(60);

/// The running device as a source of sealed messages.
struct Device<'a> {
    target: Target,
    count: u64,
    restart_after: Option<u64>,
    thermometers: u8,
    state_dir: PathBuf,
    container: seal::Container,
    key: &'a SealKey,
    firmware: PathBuf,
    framing: Framing,
    /// The simulator, its UART's bytes (read on a thread, so a silent device
    /// cannot block forever) and the deframer.
    child: Option<(Child, Receiver<Vec<u8>>, Deframer)>,
    forwarded: u64,
    pending: std::collections::VecDeque<Vec<u8>>,
    stats: Arc<Mutex<DeviceReport>>,
    failed: bool,
}

impl Device<'_> {
    fn elf(&self) -> PathBuf {
        self.state_dir.join("firmware.elf")
    }

    /// Provisions and boots the device for the readings still to send.
    fn boot(&mut self) -> Result<(), LiveError> {
        let remaining = self.count - self.forwarded;
        let provision = Provision {
            key: self.key.material(),
            key_id: &self.key.key_id,
            container: self.container,
            thermometers: self.thermometers,
            count: remaining as u32,
        };
        let io = |e: mcu::McuError| match e {
            mcu::McuError::Usage(m) => LiveError::Usage(m),
            other => LiveError::Io(other.to_string()),
        };
        uplink::provision(&self.firmware, &provision, &self.elf()).map_err(io)?;
        let mut child = uplink::boot(self.target, &self.elf(), &self.state_dir).map_err(io)?;
        let mut stdout = child.stdout.take().expect("piped");
        let (tx, uart) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends at end of file (the simulator exited or was killed) or an error.
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let deframer = Deframer::new(self.framing, MAX_MESSAGE, Duration::from_secs(3600));
        self.child = Some((child, uart, deframer));
        self.stats.lock().expect("not poisoned").boots += 1;
        Ok(())
    }

    fn kill(&mut self) {
        if let Some((mut child, _, _)) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            // This boot's timed seals (the next boot starts a new log).
            let seals = uplink::timed_seals(self.target, &self.state_dir);
            let mut stats = self.stats.lock().expect("not poisoned");
            let (scheme, imp) = (stats.scheme.clone(), stats.implementation.clone());
            stats.seal_cost.add(self.target, &scheme, &imp, &seals);
        }
        let _ = std::fs::remove_file(self.elf());
    }

    fn next_message(&mut self) -> Result<Option<Vec<u8>>, LiveError> {
        if self.forwarded >= self.count {
            self.kill();
            return Ok(None);
        }
        if self.restart_after == Some(self.forwarded) && self.child.is_some() {
            // The power cut: no warning, whatever the device was doing.
            self.kill();
            self.pending.clear();
        }
        if self.child.is_none() {
            self.boot()?;
        }
        loop {
            if let Some(m) = self.pending.pop_front() {
                self.forwarded += 1;
                return Ok(Some(m));
            }
            let (child, uart, deframer) = self.child.as_mut().expect("booted");
            let bytes = match uart.recv_timeout(SILENCE) {
                Ok(bytes) => bytes,
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(LiveError::Io(format!(
                        "the {} device wrote nothing for {} s after {} messages; stopped it",
                        self.target,
                        SILENCE.as_secs(),
                        self.forwarded
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = child
                        .wait()
                        .map_err(|e| LiveError::io("the device simulator", e))?;
                    self.child = None;
                    let why = uplink::stop_reason(&self.state_dir);
                    return Err(LiveError::Io(format!(
                        "the {} device stopped after {} messages ({status}){}",
                        self.target,
                        self.forwarded,
                        if why.is_empty() {
                            String::new()
                        } else {
                            format!(": {why}")
                        }
                    )));
                }
            };
            let mut events = Vec::new();
            deframer.push(&bytes, Instant::now(), &mut events);
            let mut stats = self.stats.lock().expect("not poisoned");
            for event in events {
                match event {
                    Event::Message(m) => {
                        stats.from_device += 1;
                        self.pending.push_back(m);
                    }
                    Event::Garbage(n) | Event::Oversize(n) | Event::Truncated(n) => {
                        stats.uart_errors += n as u64;
                    }
                }
            }
        }
    }
}

impl Iterator for Device<'_> {
    type Item = Result<Vec<u8>, LiveError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let next = self.next_message();
        self.failed = next.is_err();
        next.transpose()
    }
}

impl Drop for Device<'_> {
    fn drop(&mut self) {
        self.kill();
    }
}
