//! A serial packet radio pair (study 000's Slice of Radio) between two pseudo-terminals.
//!
//! The timing follows the link model (`link::serial::SerialRadio`, the same parameters):
//! each byte takes `serial_bits_per_byte / serial_baud` to arrive over the sender's UART;
//! a packet leaves when `packet_payload` bytes are in, or `timeout_ms` after the last byte
//! of a partial packet; it spends `(payload + overhead) × 8 / air_rate` on air, one packet
//! at a time; the receiving radio then writes it out over its own UART. Packets may be
//! lost, and bits flipped, at seeded rates.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use link::serial::SerialRadio;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::LiveError;
use serial::{Pty, wait_readable};

/// Loss and corruption on air, reproducible from the seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impairments {
    /// Probability that a whole packet is lost.
    pub loss: f64,
    /// Probability that each bit of a delivered packet is flipped.
    pub bit_error_rate: f64,
    pub seed: u64,
}

impl std::fmt::Display for Impairments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (loss, ber, seed) = (self.loss, self.bit_error_rate, self.seed);
        write!(f, "loss {loss}, BER {ber}, seed {seed}")
    }
}

impl Default for Impairments {
    fn default() -> Self {
        Impairments {
            loss: 0.0,
            bit_error_rate: 0.0,
            seed: 1,
        }
    }
}

impl Impairments {
    pub fn check(&self) -> Result<(), LiveError> {
        for (name, p) in [("loss", self.loss), ("bit error rate", self.bit_error_rate)] {
            if !(0.0..=1.0).contains(&p) {
                return Err(LiveError::Usage(format!(
                    "{name} must be between 0 and 1, got {p}"
                )));
            }
        }
        Ok(())
    }
}

/// The durations the radio works with, from the link model's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub byte: Duration,
    pub timeout: Duration,
    pub packet: usize,
    overhead: u64,
    air_rate: u64,
}

impl Timing {
    pub fn from_model(radio: &SerialRadio) -> Result<Timing, LiveError> {
        let baud = radio.serial_baud.value;
        let air_rate = radio.air_rate_bps.value;
        if baud == 0 || air_rate == 0 || radio.packet_payload.value == 0 {
            return Err(LiveError::Usage(
                "serial baud, air rate and packet size must be positive".into(),
            ));
        }
        Ok(Timing {
            byte: Duration::from_nanos(radio.serial_bits_per_byte.value * 1_000_000_000 / baud),
            timeout: Duration::from_millis(radio.timeout_ms.value),
            packet: radio.packet_payload.value as usize,
            overhead: u64::from(radio.overhead_bytes.value),
            air_rate,
        })
    }

    pub fn airtime(&self, payload: usize) -> Duration {
        Duration::from_nanos((payload as u64 + self.overhead) * 8 * 1_000_000_000 / self.air_rate)
    }
}

/// A packet and the moment its last byte leaves the receiving radio's UART.
#[derive(Debug, PartialEq, Eq)]
pub struct Delivery {
    pub at: Instant,
    pub bytes: Vec<u8>,
}

/// One direction's packet logic, separate from the I/O so it can be tested alone.
pub struct Packetizer {
    timing: Timing,
    buf: Vec<u8>,
    uart_done: Option<Instant>,
    air_free: Option<Instant>,
    out_free: Option<Instant>,
}

impl Packetizer {
    pub fn new(timing: Timing) -> Self {
        Packetizer {
            timing,
            buf: Vec::new(),
            uart_done: None,
            air_free: None,
            out_free: None,
        }
    }

    /// Bytes that the host wrote at `now`; returns the packets this fills.
    pub fn push(&mut self, bytes: &[u8], now: Instant) -> Vec<Delivery> {
        let mut out = Vec::new();
        for &b in bytes {
            let start = self.uart_done.map_or(now, |t| t.max(now));
            let done = start + self.timing.byte;
            self.uart_done = Some(done);
            self.buf.push(b);
            if self.buf.len() == self.timing.packet {
                let packet = std::mem::take(&mut self.buf);
                out.push(self.send(packet, done));
            }
        }
        out
    }

    /// When a partial packet will be sent if no byte comes first.
    pub fn deadline(&self) -> Option<Instant> {
        if self.buf.is_empty() {
            None
        } else {
            self.uart_done.map(|t| t + self.timing.timeout)
        }
    }

    /// Sends the partial packet if its timeout has passed by `now`.
    pub fn expire(&mut self, now: Instant) -> Option<Delivery> {
        let deadline = self.deadline()?;
        if now < deadline {
            return None;
        }
        let packet = std::mem::take(&mut self.buf);
        Some(self.send(packet, deadline))
    }

    fn send(&mut self, bytes: Vec<u8>, ready: Instant) -> Delivery {
        let start = self.air_free.map_or(ready, |t| t.max(ready));
        let air_end = start + self.timing.airtime(bytes.len());
        self.air_free = Some(air_end);
        let out_start = self.out_free.map_or(air_end, |t| t.max(air_end));
        let at = out_start + self.timing.byte * bytes.len() as u32;
        self.out_free = Some(at);
        Delivery { at, bytes }
    }
}

/// Counts for one direction.
#[derive(Default, Debug)]
pub struct DirectionStats {
    pub bytes_in: AtomicU64,
    pub packets: AtomicU64,
    pub lost: AtomicU64,
    pub bits_flipped: AtomicU64,
}

impl DirectionStats {
    /// "N bytes in, N packets, N lost, N bits flipped".
    pub fn text(&self) -> String {
        format!(
            "{} bytes in, {} packets, {} lost, {} bits flipped",
            self.bytes_in.load(Ordering::Relaxed),
            self.packets.load(Ordering::Relaxed),
            self.lost.load(Ordering::Relaxed),
            self.bits_flipped.load(Ordering::Relaxed)
        )
    }
}

/// The running emulator: two pseudo-terminals and four threads.
pub struct RadioEmulator {
    pub a: PathBuf,
    pub b: PathBuf,
    pub stats: [Arc<DirectionStats>; 2],
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    // Keep the ptys (and their slave ends) alive as long as the emulator.
    _ptys: [Pty; 2],
}

impl RadioEmulator {
    pub fn start(radio: &SerialRadio, impair: Impairments) -> Result<RadioEmulator, LiveError> {
        impair.check()?;
        let timing = Timing::from_model(radio)?;
        let a = Pty::open()?;
        let b = Pty::open()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stats = [Arc::default(), Arc::default()];
        let mut threads = Vec::new();
        let clone = |f: &File| f.try_clone().map_err(|e| LiveError::io("pty", e));
        for (dir, (from, to)) in [(&a, &b), (&b, &a)].into_iter().enumerate() {
            let (tx, rx) = mpsc::channel::<Delivery>();
            let reader = clone(&from.master)?;
            let writer = clone(&to.master)?;
            let stop_in = stop.clone();
            let stats_in: Arc<DirectionStats> = Arc::clone(&stats[dir]);
            // Each direction has its own stream of random numbers.
            let rng = ChaCha8Rng::seed_from_u64(impair.seed.wrapping_add(dir as u64));
            threads.push(std::thread::spawn(move || {
                let mut air = Air {
                    impair,
                    rng,
                    stats: stats_in,
                };
                receive_side(reader, Packetizer::new(timing), &mut air, &tx, &stop_in);
            }));
            let stop_out = stop.clone();
            threads.push(std::thread::spawn(move || {
                deliver_side(writer, rx, &stop_out)
            }));
        }
        Ok(RadioEmulator {
            a: a.path.clone(),
            b: b.path.clone(),
            stats,
            stop,
            threads,
            _ptys: [a, b],
        })
    }

    pub fn paths(&self) -> (&Path, &Path) {
        (&self.a, &self.b)
    }

    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for RadioEmulator {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What happens on air: loss and bit errors.
struct Air {
    impair: Impairments,
    rng: ChaCha8Rng,
    stats: Arc<DirectionStats>,
}

impl Air {
    fn transmit(&mut self, mut d: Delivery, tx: &mpsc::Sender<Delivery>) {
        self.stats.packets.fetch_add(1, Ordering::Relaxed);
        if self.impair.loss > 0.0 && self.rng.random::<f64>() < self.impair.loss {
            self.stats.lost.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if self.impair.bit_error_rate > 0.0 {
            for byte in d.bytes.iter_mut() {
                for bit in 0..8 {
                    if self.rng.random::<f64>() < self.impair.bit_error_rate {
                        *byte ^= 1 << bit;
                        self.stats.bits_flipped.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
        let _ = tx.send(d);
    }
}

fn receive_side(
    mut reader: File,
    mut radio: Packetizer,
    air: &mut Air,
    tx: &mpsc::Sender<Delivery>,
    stop: &AtomicBool,
) {
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if let Some(d) = radio.expire(now) {
            air.transmit(d, tx);
        }
        let wait = radio
            .deadline()
            .map_or(Duration::from_millis(50), |d| {
                d.saturating_duration_since(now)
            })
            .min(Duration::from_millis(50));
        match wait_readable(&reader, wait) {
            Ok(true) => match reader.read(&mut buf) {
                Ok(n) if n > 0 => {
                    air.stats.bytes_in.fetch_add(n as u64, Ordering::Relaxed);
                    for d in radio.push(&buf[..n], Instant::now()) {
                        air.transmit(d, tx);
                    }
                }
                // EIO while no client holds the slave open: wait and retry.
                _ => std::thread::sleep(Duration::from_millis(5)),
            },
            Ok(false) => {}
            Err(_) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn deliver_side(writer: File, rx: mpsc::Receiver<Delivery>, stop: &AtomicBool) {
    let writer = Mutex::new(writer);
    while !stop.load(Ordering::Relaxed) {
        let Ok(d) = rx.recv_timeout(Duration::from_millis(50)) else {
            continue;
        };
        let now = Instant::now();
        if d.at > now {
            std::thread::sleep(d.at - now);
        }
        // A pty whose buffer is full (nobody reading) blocks; a real radio would drop.
        let _ = writer.lock().expect("writer").write_all(&d.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use link::Figure;

    pub fn srf() -> SerialRadio {
        let f = |v| Figure::sourced(v, "test");
        SerialRadio {
            serial_baud: f(115_200),
            serial_bits_per_byte: f(10),
            air_rate_bps: f(250_000),
            packet_payload: Figure::sourced(12, "test"),
            timeout_ms: f(100),
            overhead_bytes: Figure::sourced(11, "test"),
        }
    }

    #[test]
    fn packetizer_agrees_with_the_link_model() {
        let model = srf();
        let timing = Timing::from_model(&model).unwrap();
        for n in [1usize, 5, 12, 13, 24, 31, 96, 100, 252] {
            let t0 = Instant::now();
            let mut p = Packetizer::new(timing);
            let mut out = p.push(&vec![b'x'; n], t0);
            if let Some(d) = p.deadline() {
                out.extend(p.expire(d));
            }
            let delivered: usize = out.iter().map(|d| d.bytes.len()).sum();
            assert_eq!(delivered, n);
            let live = out.last().unwrap().at - t0;
            let predicted = model.timeline(n as u32).delivery.as_ms();
            // Nanosecond rounding of each step only: well under a microsecond per byte.
            let diff = (live.as_secs_f64() * 1000.0 - predicted).abs();
            assert!(
                diff < 0.01,
                "{n} bytes: live {live:?}, model {predicted} ms"
            );
        }
    }

    #[test]
    fn partial_packet_waits_for_the_timeout() {
        let timing = Timing::from_model(&srf()).unwrap();
        let t0 = Instant::now();
        let mut p = Packetizer::new(timing);
        assert!(p.push(b"hello", t0).is_empty());
        let deadline = p.deadline().unwrap();
        assert!(deadline - t0 >= Duration::from_millis(100));
        assert!(p.expire(deadline - Duration::from_millis(1)).is_none());
        // A byte before the deadline restarts the wait.
        assert!(p.push(b"!", t0 + Duration::from_millis(50)).is_empty());
        assert!(p.deadline().unwrap() - t0 >= Duration::from_millis(150));
    }

    #[test]
    fn bytes_cross_the_emulator_both_ways() {
        let emu = RadioEmulator::start(&srf(), Impairments::default()).unwrap();
        let mut a = serial::open_serial(&emu.a, None).unwrap();
        let mut b = serial::open_serial(&emu.b, None).unwrap();
        let msg: Vec<u8> = (0..40u8).collect();
        a.write_all(&msg).unwrap();
        let mut got = vec![0u8; 40];
        let t0 = Instant::now();
        let mut n = 0;
        while n < 40 && t0.elapsed() < Duration::from_secs(5) {
            if wait_readable(&b, Duration::from_millis(200)).unwrap() {
                n += b.read(&mut got[n..]).unwrap();
            }
        }
        assert_eq!(got, msg);
        // The last 4 bytes are a partial packet: they wait for the 100 ms timeout.
        assert!(t0.elapsed() >= Duration::from_millis(100));
        // And back the other way.
        b.write_all(b"0123456789ab").unwrap();
        let mut back = [0u8; 12];
        let mut n = 0;
        while n < 12 && t0.elapsed() < Duration::from_secs(5) {
            if wait_readable(&a, Duration::from_millis(200)).unwrap() {
                n += a.read(&mut back[n..]).unwrap();
            }
        }
        assert_eq!(&back, b"0123456789ab");
        assert_eq!(emu.stats[0].packets.load(Ordering::Relaxed), 4);
        emu.stop();
    }

    #[test]
    fn loss_and_bit_errors_follow_their_rates_and_seed() {
        let run = |loss: f64, ber: f64, seed: u64| {
            let (tx, rx) = mpsc::channel();
            let mut air = Air {
                impair: Impairments {
                    loss,
                    bit_error_rate: ber,
                    seed,
                },
                rng: ChaCha8Rng::seed_from_u64(seed),
                stats: Arc::default(),
            };
            for _ in 0..200 {
                let at = Instant::now();
                air.transmit(
                    Delivery {
                        at,
                        bytes: vec![0u8; 12],
                    },
                    &tx,
                );
            }
            drop(tx);
            let got: Vec<Vec<u8>> = rx.iter().map(|d| d.bytes).collect();
            (got, air.stats)
        };
        let (none, stats) = run(1.0, 0.0, 1);
        assert!(none.is_empty());
        assert_eq!(stats.lost.load(Ordering::Relaxed), 200);
        let (all, _) = run(0.0, 1.0, 1);
        assert!(all.iter().all(|p| p == &vec![0xFFu8; 12]));
        let (some, stats) = run(0.25, 0.01, 9);
        // 25 % of 200 packets lost: a seeded draw lands well inside 25..75.
        assert!((125..=175).contains(&some.len()), "{}", some.len());
        let flipped: u32 = some.iter().flatten().map(|b| b.count_ones()).sum();
        assert_eq!(
            u64::from(flipped),
            stats.bits_flipped.load(Ordering::Relaxed)
        );
        assert!(flipped > 0);
        assert_eq!(
            run(0.25, 0.01, 9).0,
            some,
            "same seed, same losses and errors"
        );
        assert!(
            Impairments {
                loss: 1.5,
                ..Default::default()
            }
            .check()
            .is_err()
        );
    }
}
