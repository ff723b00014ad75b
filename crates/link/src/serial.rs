//! A transparent serial packet radio such as the Slice of Radio (SRF) of study 000.
//!
//! The host writes bytes over a UART. The radio collects them into packets of
//! `packet_payload` bytes and sends a packet as soon as it is full; a partial last packet
//! goes out only after `timeout` without new bytes. Each packet is then sent at the
//! over-the-air rate with `overhead_bytes` of its own (preamble, sync, length, CRC).
//! The receiver writes each packet to its own UART. This is an event model: a packet
//! starts when it is ready and the previous one has left the air.

use serde::{Deserialize, Serialize};

use crate::figure::Figure;
use crate::time::Micros;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialRadio {
    pub serial_baud: Figure<u64>,
    /// UART bits per byte: 10 for 8N1.
    pub serial_bits_per_byte: Figure<u64>,
    pub air_rate_bps: Figure<u64>,
    pub packet_payload: Figure<u32>,
    pub timeout_ms: Figure<u64>,
    pub overhead_bytes: Figure<u32>,
}

impl std::fmt::Display for SerialRadio {
    /// The settings in a line, as `radio-emulator` announces them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} baud, {} B packets, {} ms timeout, {} b/s on air, {} B overhead",
            self.serial_baud.value,
            self.packet_payload.value,
            self.timeout_ms.value,
            self.air_rate_bps.value,
            self.overhead_bytes.value
        )
    }
}

/// Values given on the command line in place of the link entry's.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub baud: Option<u64>,
    pub packet_size: Option<u32>,
    pub timeout_ms: Option<u64>,
    pub air_rate: Option<u64>,
    pub overhead: Option<u32>,
}

impl SerialRadio {
    /// This radio with `o` applied, each changed figure's source naming its flag.
    pub fn with_overrides(mut self, o: &Overrides) -> SerialRadio {
        fn set<T>(figure: &mut Figure<T>, value: Option<T>, flag: &str) {
            if let Some(v) = value {
                figure.value = v;
                figure.source = Some(format!("set on the command line ({flag})"));
            }
        }
        set(&mut self.serial_baud, o.baud, "--baud");
        set(&mut self.packet_payload, o.packet_size, "--packet-size");
        set(&mut self.timeout_ms, o.timeout_ms, "--timeout-ms");
        set(&mut self.air_rate_bps, o.air_rate, "--air-rate");
        set(&mut self.overhead_bytes, o.overhead, "--overhead");
        self
    }
}

/// The timeline of one message through a serial packet radio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SerialTimeline {
    pub packets: Vec<u32>,
    /// Time the host spends writing the message to its UART.
    pub serial_in: Micros,
    /// Radio transmit time, summed over packets.
    pub airtime: Micros,
    /// From the first byte written to the last byte out of the receiver's UART.
    pub delivery: Micros,
    pub last_waits_timeout: bool,
}

impl SerialRadio {
    pub fn byte_time(&self) -> Micros {
        Micros::for_bits(self.serial_bits_per_byte.value, self.serial_baud.value)
    }

    pub fn packet_airtime(&self, payload: u32) -> Micros {
        Micros::for_bits(
            u64::from(payload + self.overhead_bytes.value) * 8,
            self.air_rate_bps.value,
        )
    }

    pub fn timeline(&self, bytes: u32) -> SerialTimeline {
        let size = self.packet_payload.value.max(1);
        let mut packets = vec![size; (bytes / size) as usize];
        if !bytes.is_multiple_of(size) {
            packets.push(bytes % size);
        }
        let last_waits_timeout = !bytes.is_multiple_of(size);
        let byte = self.byte_time();
        let mut written = 0u64;
        let mut air_free = Micros::ZERO;
        let mut airtime = Micros::ZERO;
        let mut last_out = Micros::ZERO;
        for (i, &p) in packets.iter().enumerate() {
            written += u64::from(p);
            let mut ready = byte.times(written);
            if i + 1 == packets.len() && last_waits_timeout {
                ready = ready + Micros::from_ms(self.timeout_ms.value);
            }
            let start = ready.max(air_free);
            let air = self.packet_airtime(p);
            air_free = start + air;
            airtime = airtime + air;
            last_out = air_free + byte.times(u64::from(p));
        }
        SerialTimeline {
            serial_in: byte.times(u64::from(bytes)),
            airtime,
            delivery: last_out,
            last_waits_timeout,
            packets,
        }
    }
}
