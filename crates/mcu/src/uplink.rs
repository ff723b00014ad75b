//! The sealing device of `ciphermeter device-send`: the firmware's `uplink`
//! build (firmware/src/uplink.rs) for one scheme, provisioned with a key and
//! booted in its simulator with its UART on a pipe.
//!
//! Provisioning writes the key and the run's settings into the firmware's
//! `CIPHERMETER_PROVISION` block in a private copy of the ELF, as a factory
//! programs a part. The device keeps its nonce counter in a state directory
//! that outlives each boot: two files written through semihosting on
//! Cortex-M, the EEPROM image on the ATmega1284P.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use seal::Container;
use zeroize::Zeroizing;

use crate::{McuError, Target, compile, elf, toolchain};

/// The firmware's provisioning block (firmware/src/uplink.rs `Provision`).
pub const BLOCK_SYMBOL: &str = "CIPHERMETER_PROVISION";
const BLOCK_LEN: usize = 112;
const MAGIC: &[u8; 8] = b"CMPROV01";
const KEY_ID_AT: usize = 16;
const KEY_AT: usize = 48;

/// What a device is provisioned with for one boot.
pub struct Provision<'k> {
    pub key: &'k [u8],
    pub key_id: &'k [u8],
    pub container: Container,
    /// Thermometers per reading (study 003's chain, 1 to 25).
    pub thermometers: u8,
    /// Readings to seal in this boot; 0 for as long as it runs.
    pub count: u32,
}

impl Provision<'_> {
    fn block(&self) -> Result<Zeroizing<[u8; BLOCK_LEN]>, McuError> {
        if self.key.is_empty() || self.key.len() > BLOCK_LEN - KEY_AT {
            return Err(McuError::Usage(format!(
                "a device key holds 1 to {} bytes, not {}",
                BLOCK_LEN - KEY_AT,
                self.key.len()
            )));
        }
        if self.key_id.is_empty() || self.key_id.len() > KEY_AT - KEY_ID_AT {
            return Err(McuError::Usage(format!(
                "a device key id holds 1 to {} bytes, not {}",
                KEY_AT - KEY_ID_AT,
                self.key_id.len()
            )));
        }
        if !(1..=seal::reading::MAX_THERMOMETERS as u8).contains(&self.thermometers) {
            return Err(McuError::Usage(format!(
                "a chain reading has 1 to {} thermometers, not {}",
                seal::reading::MAX_THERMOMETERS,
                self.thermometers
            )));
        }
        let mut b = Zeroizing::new([0u8; BLOCK_LEN]);
        b[..8].copy_from_slice(MAGIC);
        b[8] = self.key.len() as u8;
        b[9] = self.key_id.len() as u8;
        b[10] = Container::ALL
            .iter()
            .position(|c| *c == self.container)
            .unwrap_or(0) as u8;
        b[11] = self.thermometers;
        b[12..16].copy_from_slice(&self.count.to_le_bytes());
        b[KEY_ID_AT..KEY_ID_AT + self.key_id.len()].copy_from_slice(self.key_id);
        b[KEY_AT..KEY_AT + self.key.len()].copy_from_slice(self.key);
        Ok(b)
    }
}

/// Refuses, before anything is built or written, a device that cannot run:
/// a target without an uplink board, or a reading it cannot make.
pub fn check(target: Target, thermometers: u8) -> Result<(), McuError> {
    if let Some(why) = target.uplink_refusal() {
        return Err(McuError::Usage(why));
    }
    Provision {
        key: &[0],
        key_id: &[0],
        container: Container::Json,
        thermometers,
        count: 1,
    }
    .block()
    .map(|_| ())
}

/// Builds the uplink firmware of `scheme` for `target` (cached by cargo).
pub fn build(target: Target, scheme: &str) -> Result<PathBuf, McuError> {
    toolchain::require(target)?;
    compile::uplink(target, scheme).map_err(|e| {
        McuError::Failed(format!(
            "the {scheme} device firmware does not build for {target}: {e}"
        ))
    })
}

/// Writes `firmware` with `provision` in its block to `out` (mode 0600: it
/// holds the key).
pub fn provision(firmware: &Path, provision: &Provision, out: &Path) -> Result<(), McuError> {
    let mut bytes = Zeroizing::new(std::fs::read(firmware)?);
    let range = elf::symbol_file_range(&bytes, BLOCK_SYMBOL)
        .filter(|r| r.len() == BLOCK_LEN && bytes[r.start..r.start + 8] == MAGIC[..])
        .ok_or_else(|| {
            McuError::Failed(format!(
                "{} has no {BLOCK_SYMBOL} block of {BLOCK_LEN} bytes: not an uplink firmware",
                firmware.display()
            ))
        })?;
    bytes[range].copy_from_slice(&provision.block()?[..]);
    let mut file = open_private(out)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    Ok(())
}

fn open_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = std::fs::remove_file(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Boots the provisioned firmware: its UART is the child's stdout, its log
/// (why it stopped, if it did) goes to `state/device.log`, and its counter
/// lives in `state`.
pub fn boot(target: Target, elf: &Path, state: &Path) -> Result<Child, McuError> {
    // The simulator runs in `state`: paths given to it must not be relative to here.
    let elf = std::path::absolute(elf)?;
    let log = std::fs::File::create(state.join("device.log"))?;
    let simulator_log = std::fs::File::create(state.join("simulator.log"))?;
    let mut cmd = match target.qemu_machine() {
        None => {
            let mut cmd = Command::new(compile::harness()?);
            cmd.args(["--mcu", target.simavr_mcu().unwrap_or_default(), "--freq"])
                .arg(target.clock_hz().to_string())
                .args(["--uart", "--eeprom", "eeprom.bin"])
                .arg(&elf)
                .stderr(log);
            drop(simulator_log);
            cmd
        }
        Some(machine) => {
            let mut cmd = Command::new(target.qemu_binary().unwrap_or("qemu-system-arm"));
            cmd.args(["-M", machine])
                .args(target.qemu_board_options())
                .args(["-display", "none", "-monitor", "none"])
                // As the tables' runs: the timer counts instructions exactly.
                .args(["-icount", &format!("shift={}", target.icount_shift())])
                .args(["-serial", "stdio"])
                .args(["-chardev", "file,id=log,path=device.log"])
                .args(["-semihosting-config", "enable=on,target=native,chardev=log"])
                .arg("-kernel")
                .arg(&elf)
                .stderr(simulator_log);
            drop(log);
            cmd
        }
    };
    cmd.current_dir(state)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| McuError::Failed(format!("cannot start the {target} simulator: {e}")))
}

/// Why the device stopped, from its log and its simulator's ("" when
/// neither said anything; the timing lines are not reasons).
pub fn stop_reason(state: &Path) -> String {
    ["device.log", "simulator.log"]
        .iter()
        .map(|f| std::fs::read_to_string(state.join(f)).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("M ") && !l.starts_with("C "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One seal the device timed: its region (`seal-json`, …), the reading's
/// length, and its count in the table's counter (cycles on AVR,
/// instructions under QEMU), the markers' cost taken off as the tables do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedSeal {
    pub operation: String,
    pub size: usize,
    pub count: u64,
}

/// The seals timed in this boot's device log (firmware/src/uplink.rs: `M
/// calibrate-empty 0`, then `M seal-… LEN` and a `C` count for each).
pub fn timed_seals(target: Target, state: &Path) -> Vec<TimedSeal> {
    let log = std::fs::read_to_string(state.join("device.log")).unwrap_or_default();
    let mut marker = None;
    let mut pending: Option<(String, usize)> = None;
    let mut out = Vec::new();
    for line in log.lines() {
        let mut f = line.split_whitespace();
        match (f.next(), f.next(), f.next()) {
            (Some("M"), Some(op), Some(size)) => {
                pending = size.parse().ok().map(|s| (op.to_string(), s));
            }
            (Some("C"), Some(raw), _) => {
                let (Some((op, size)), Ok(raw)) = (pending.take(), raw.parse::<u64>()) else {
                    continue;
                };
                let count = target.to_counter(raw);
                match (op.as_str(), marker) {
                    ("calibrate-empty", _) => marker = Some(count),
                    (_, Some(m)) => out.push(TimedSeal {
                        operation: op,
                        size,
                        count: count.saturating_sub(m),
                    }),
                    // No calibration before it: not a count to trust.
                    (_, None) => {}
                }
            }
            _ => {}
        }
    }
    out
}

/// The state directory belongs to one target: its counter's format (files
/// or an EEPROM image) is that target's, so another target would start from
/// zero and reuse nonces. Marks a fresh directory, refuses a foreign one.
pub fn claim_state(state: &Path, target: Target) -> Result<(), McuError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state)?;
    let mark = state.join("target");
    match std::fs::read_to_string(&mark) {
        Ok(t) if t.trim() == target.name() => Ok(()),
        Ok(t) => Err(McuError::Usage(format!(
            "{} holds the counter of a {} device; a {target} device under the same key would reuse its nonces: use another key or --state-dir",
            state.display(),
            t.trim()
        ))),
        Err(_) => Ok(std::fs::write(mark, target.name())?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_seals_take_the_markers_off_and_skip_what_is_not_a_count() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("device.log"),
            "M calibrate-empty 0\nC 2 0 900\nM seal-binary 130\nC 1002 40 900\nC 7 0 0\nM seal-binary 130\nC x 0\nM seal-binary 130\nC 902 40 900\ndevice stopped: sealing failed\n",
        )
        .unwrap();
        let seals = timed_seals(Target::Atmega1284p, dir.path());
        let counts: Vec<u64> = seals.iter().map(|s| s.count).collect();
        assert_eq!(counts, [1000, 900]);
        assert_eq!(seals[0].operation, "seal-binary");
        assert_eq!(seals[0].size, 130);
        assert_eq!(stop_reason(dir.path()), "device stopped: sealing failed");
        // No calibration, no counts.
        std::fs::write(dir.path().join("device.log"), "M seal-json 64\nC 50 0\n").unwrap();
        assert!(timed_seals(Target::Atmega1284p, dir.path()).is_empty());
    }

    #[test]
    fn the_block_refuses_what_the_device_cannot_hold() {
        let p = |key: &'static [u8], id: &'static [u8], t| Provision {
            key,
            key_id: id,
            container: Container::Cose,
            thermometers: t,
            count: 7,
        };
        let b = p(&[1; 16], b"id", 3).block().unwrap();
        assert_eq!(&b[..8], MAGIC);
        assert_eq!(&b[8..16], &[16, 2, 2, 3, 7, 0, 0, 0]);
        assert_eq!(&b[KEY_AT..KEY_AT + 16], &[1; 16]);
        assert!(p(&[1; 65], b"id", 3).block().is_err());
        assert!(p(&[1; 16], b"", 3).block().is_err());
        assert!(p(&[1; 16], b"id", 26).block().is_err());
    }
}
