//! The device in the live loop (`ciphermeter device-send`): seal readings
//! with the provisioned key and write them, framed, to the UART, as a
//! sensor node does. Every piece is the host's own code: study 003's reading
//! (`seal::ChainReading`), the sealing core, the stream framing
//! (`seal::stream`) and the persisted counter (`seal::SlotCounter`), so the
//! gateway opens exactly what the device wrote.
//!
//! The key and the run's settings come from the provisioning block, a static
//! in flash that the host writes into its copy of the ELF before the device
//! boots (crates/mcu `uplink::provision`), as a factory programs a key into
//! a part. Nonces are counters kept in two slots of the device's
//! non-volatile storage, reserved a block at a time, so a device restarted
//! mid-run skips ahead and never reuses one.

#[allow(unused_imports)]
use seal::algorithm::{AeadAlg, BlockAlg, CipherAlg, MacAlg, Mode, StreamAlg};
use seal::stream::Framing;
use seal::{ChainReading, Container, CounterStore, SlotCounter, Slots, counter_nonce};

use crate::probe::{Probe, ProbeExt};
#[allow(unused_imports)]
use seal::{Pattern, Spec};

include!(concat!(env!("OUT_DIR"), "/seal_scheme.rs"));

/// Size of the provisioning block, and where each field sits in it.
pub const PROVISION_LEN: usize = 112;
pub const MAGIC: [u8; 8] = *b"CMPROV01";
const KEY_ID_AT: usize = 16;
const KEY_AT: usize = 48;
const KEY_MAX: usize = PROVISION_LEN - KEY_AT;

/// Counter values reserved per write to storage.
pub const COUNTER_BLOCK: u64 = 16;

/// Why the device stopped; its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stop {
    Done = 0,
    /// The block was never written by the host, or holds impossible values.
    NotProvisioned = 2,
    /// The core refused the key (length) or the scheme is not in this build.
    KeyRefused = 3,
    /// Storage refused a write, or the counter ran out.
    Counter = 4,
    Seal = 5,
}

impl Stop {
    /// The line the device logs when it stops early (the host shows it).
    pub fn message(self) -> &'static str {
        match self {
            Stop::Done => "done\n",
            Stop::NotProvisioned => "device stopped: not provisioned\n",
            Stop::KeyRefused => "device stopped: the key or scheme was refused\n",
            Stop::Counter => "device stopped: the counter store failed or ran out\n",
            Stop::Seal => "device stopped: sealing failed\n",
        }
    }
}

/// What the host provisioned.
pub struct Provision<'p> {
    pub key: &'p [u8],
    pub key_id: &'p [u8],
    pub container: Container,
    pub thermometers: usize,
    /// Readings to send in this boot; 0 for as long as the device runs.
    pub count: u32,
}

impl<'p> Provision<'p> {
    /// Layout: magic (8), key length, key id length, container (0 json,
    /// 1 binary, 2 cose), thermometers, count (u32 LE), key id at 16 (32),
    /// key at 48 (64).
    pub fn parse(block: &'p [u8; PROVISION_LEN]) -> Option<Provision<'p>> {
        if block[..8] != MAGIC {
            return None;
        }
        let (key_len, id_len) = (block[8] as usize, block[9] as usize);
        if key_len == 0 || key_len > KEY_MAX || id_len == 0 || id_len > KEY_AT - KEY_ID_AT {
            return None;
        }
        let container = *Container::ALL.get(block[10] as usize)?;
        let thermometers = block[11] as usize;
        if thermometers == 0 || thermometers > seal::reading::MAX_THERMOMETERS {
            return None;
        }
        Some(Provision {
            key: &block[KEY_AT..KEY_AT + key_len],
            key_id: &block[KEY_ID_AT..KEY_ID_AT + id_len],
            container,
            thermometers,
            count: u32::from_le_bytes([block[12], block[13], block[14], block[15]]),
        })
    }
}

/// The device's UART and its two non-volatile counter slots.
pub trait Device: Slots {
    fn uart_write(&mut self, bytes: &[u8]);
}

/// Reading `n` is the chain reading the device tables time at this chain
/// length, stamped with its counter value as its time, so the gateway can
/// tell every stored reading apart and a test can recompute it. Each seal
/// is timed as the tables time it (serialize, seal, wrap: one region, `M
/// seal-CONTAINER LEN` before it), on the probe's channel (the device log),
/// so the host can hold each message's cost to the table's row.
pub fn run<D: Device, P: Probe>(
    device: &mut D,
    probe: &mut P,
    block: &[u8; PROVISION_LEN],
    scratch: &mut [u8],
) -> Stop {
    let Some(p) = Provision::parse(block) else {
        return Stop::NotProvisioned;
    };
    if !SPEC.allows_counter_nonces() {
        return Stop::KeyRefused;
    }
    let Ok(sealer) = seal::Sealer::new(SPEC, p.key_id, p.key) else {
        return Stop::KeyRefused;
    };
    let framing = Framing::for_container(p.container);
    let (plain_buf, out) = scratch.split_at_mut(480);
    let mut counter = SlotCounter::resume(&mut *device, COUNTER_BLOCK);
    let mut nonce = [0u8; seal::limits::NONCE];
    let nonce = &mut nonce[..SPEC.nonce_len()];
    let op = match p.container {
        Container::Json => "seal-json",
        Container::Binary => "seal-binary",
        Container::Cose => "seal-cose",
    };
    // The markers' own cost, which the host takes off every count.
    probe.text("M calibrate-empty 0\n");
    probe.region(|| ());
    let mut sent = 0u32;
    while p.count == 0 || sent < p.count {
        let Ok(value) = counter.reserve() else {
            return Stop::Counter;
        };
        if counter_nonce(value, nonce).is_err() {
            return Stop::Counter;
        }
        let reading = ChainReading::measured(p.thermometers, value as u32);
        let Ok(len) = reading.to_json(plain_buf) else {
            return Stop::Seal;
        };
        probe.text("M ");
        probe.text(op);
        probe.text(" ");
        probe.number(len as u32);
        probe.text("\n");
        let (plain, _) = plain_buf.split_at_mut(len);
        let sealed = probe.region(|| {
            // The tables' region (firmware/src/algorithms/sealing.rs).
            let len = reading.to_json(plain).unwrap_or(0);
            sealer.seal(p.container, nonce, &plain[..len], &[], out)
        });
        let Ok(n) = sealed else {
            return Stop::Seal;
        };
        let Ok(frame) = framing.frame(&out[..n]) else {
            return Stop::Seal;
        };
        let device: &mut D = counter.slots_mut();
        device.uart_write(frame.header());
        device.uart_write(&out[..n]);
        device.uart_write(frame.trailer);
        sent += 1;
    }
    Stop::Done
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    #[derive(Default)]
    struct Board {
        uart: Vec<u8>,
        slots: [Option<[u8; seal::SLOT_LEN]>; 2],
    }

    impl Slots for Board {
        fn read(&mut self, slot: usize) -> Option<[u8; seal::SLOT_LEN]> {
            self.slots[slot]
        }
        fn write(&mut self, slot: usize, bytes: &[u8; seal::SLOT_LEN]) -> bool {
            self.slots[slot] = Some(*bytes);
            true
        }
    }

    impl Device for Board {
        fn uart_write(&mut self, bytes: &[u8]) {
            self.uart.extend_from_slice(bytes);
        }
    }

    fn block(count: u32) -> [u8; PROVISION_LEN] {
        let mut b = [0u8; PROVISION_LEN];
        b[..8].copy_from_slice(&MAGIC);
        b[8] = SPEC.key_len() as u8;
        b[9] = 4;
        b[10] = 1; // binary
        b[11] = 3;
        b[12..16].copy_from_slice(&count.to_le_bytes());
        b[KEY_ID_AT..KEY_ID_AT + 4].copy_from_slice(b"dev1");
        b[KEY_AT..KEY_AT + SPEC.key_len()].fill(7);
        b
    }

    /// Frames of one boot: (counter value, message) from the UART bytes.
    fn frames(uart: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < uart.len() {
            assert_eq!(uart[at], seal::stream::SYNC);
            let len = u16::from_be_bytes([uart[at + 1], uart[at + 2]]) as usize;
            out.push(uart[at + 3..at + 3 + len].to_vec());
            at += 3 + len;
        }
        out
    }

    #[test]
    fn seals_count_readings_that_open_and_resumes_after_a_restart() {
        let mut board = Board::default();
        let mut scratch = [0u8; 1024];
        let mut probe = crate::probe::Recorder::default();
        assert_eq!(
            run(&mut board, &mut probe, &block(3), &mut scratch),
            Stop::Done
        );
        // The empty region, then each seal's.
        assert!(
            probe
                .out
                .starts_with("M calibrate-empty 0\nC 0 0\nM seal-binary ")
        );
        assert_eq!(probe.out.matches("C 0 0\n").count(), 4);
        let first = frames(&board.uart);
        assert_eq!(first.len(), 3);
        board.uart.clear();
        assert_eq!(
            run(&mut board, &mut probe, &block(2), &mut scratch),
            Stop::Done
        );
        let second = frames(&board.uart);
        let sealer = seal::Sealer::new(SPEC, b"dev1", &[7u8; 64][..SPEC.key_len()]).unwrap();
        let mut nonces = Vec::new();
        let mut times = Vec::new();
        for m in first.iter().chain(&second) {
            let mut buf = [0u8; 2048];
            let opened = sealer.open(Container::Binary, m, &mut buf).unwrap();
            assert!(opened.plaintext.starts_with(b"{\"t\":"));
            // The tables' three-thermometer reading, at another time.
            let mut table = [0u8; 480];
            let n = ChainReading::measured(3, 0).to_json(&mut table).unwrap();
            assert_eq!(opened.plaintext.len(), n);
            assert_eq!(opened.plaintext[16..], table[16..n], "all but the time");
            times.push(opened.plaintext[..16].to_vec());
            nonces.push(opened.nonce.to_vec());
        }
        let mut unique = nonces.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 5, "no nonce twice across the restart");
        times.sort();
        times.dedup();
        assert_eq!(times.len(), 5, "every reading its own time");
        // The restart skipped to the next reserved block.
        assert_eq!(*nonces[3].last().unwrap(), COUNTER_BLOCK as u8);
    }

    #[test]
    fn an_unprovisioned_block_stops_the_device() {
        let mut board = Board::default();
        let mut scratch = [0u8; 1024];
        let mut probe = crate::probe::Recorder::default();
        let mut b = block(1);
        b[..8].fill(0);
        assert_eq!(
            run(&mut board, &mut probe, &b, &mut scratch),
            Stop::NotProvisioned
        );
        let mut b = block(1);
        b[8] = 0;
        assert_eq!(
            run(&mut board, &mut probe, &b, &mut scratch),
            Stop::NotProvisioned
        );
        assert!(board.uart.is_empty());
    }
}
