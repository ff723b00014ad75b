//! Study 000 live: the ten messages × three payload types sent through the
//! radio emulator's pseudo-terminals and timed at the receiving end, beside the
//! link model's prediction for the same bytes and the paper.
//!
//! The bytes are the model's own: plaintext T, AES-256-CBC ciphertext as hex C, and C
//! filled with '+' to whole packets P (the paper's Fig. 5). Study 000's messages carry no
//! tag, so the receiving end checks them byte for byte instead of opening them; the
//! verifying path (send → emulator → gateway) is exercised by the gateway's tests.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use catalogue::{Padding, Params};
use cost::Error;
use serde::{Deserialize, Serialize};

use crate::out;
use crate::rf_transmission::{Model, Paper};

fn live_error(e: impl Into<live::LiveError>) -> Error {
    let e: live::LiveError = e.into();
    if e.is_usage() {
        Error::invalid(e)
    } else {
        Error::failed(e)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LiveReport {
    pub ran_on: String,
    pub paper: Paper,
    pub model: Model,
    /// Per message: plaintext, ciphertext, padded ciphertext.
    pub rows: Vec<[Trip; 3]>,
}

/// One message of one payload type: what was sent, the live time and the model's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trip {
    pub bytes: usize,
    pub live_ms: f64,
    pub model_ms: f64,
}

/// `quick`: the first three messages only (CI).
pub fn run(link_name: &str, data_dir: Option<&Path>, quick: bool) -> Result<LiveReport, Error> {
    let paper = crate::rf_transmission::paper()?;
    let cat = cost::data::links(data_dir)?;
    let spec = cat.get(link_name).map_err(Error::invalid)?;
    let Some(radio) = &spec.serial else {
        return Err(Error::invalid(format!(
            "--link {}: study 000 needs a serial packet-radio link",
            spec.name
        )));
    };
    let packet = radio.packet_payload.value as usize;
    let emu =
        live::RadioEmulator::start(radio, live::Impairments::default()).map_err(live_error)?;
    let mut tx = serial::open_serial(&emu.a, None).map_err(live_error)?;
    let mut rx = serial::open_serial(&emu.b, None).map_err(live_error)?;

    let entry = catalogue::catalogue().resolve("aes-256-cbc", None)?;
    // The model's demonstration key and IVs, so both send the very same bytes.
    let key: Vec<u8> = (0u8..32).collect();
    let mut cipher = entry.cipher(None, &key)?;
    let mut rows: Vec<[Trip; 3]> = Vec::new();
    let count = if quick { 3 } else { paper.plaintext_kb.len() };
    for (i, kb) in paper.plaintext_kb.iter().take(count).enumerate() {
        let t = crate::rf_transmission::plaintext(i, (kb * 1000.0).round() as usize);
        let mut iv = [0u8; 16];
        iv[15] = i as u8 + 1;
        let mut ct = Vec::new();
        let params = Params {
            iv: &iv,
            aad: &[],
            padding: Padding::Pkcs7,
        };
        cipher.encrypt(&params, &t, &mut ct)?;
        let c = hex::encode(&ct).into_bytes();
        let mut p = c.clone();
        p.resize(c.len().div_ceil(packet) * packet, b'+');
        let mut row = Vec::new();
        for msg in [t, c, p] {
            let live_ms = transmit(&mut tx, &mut rx, &msg)?;
            let model_ms = radio.timeline(msg.len() as u32).delivery.as_ms();
            row.push(Trip {
                bytes: msg.len(),
                live_ms,
                model_ms,
            });
        }
        rows.push(row.try_into().map_err(|_| Error::failed("three trips"))?);
    }
    drop((tx, rx));
    emu.stop();
    Ok(LiveReport {
        ran_on: format!(
            "this host, through the radio emulator's pseudo-terminals ({})",
            spec.title
        ),
        model: crate::rf_transmission::Model {
            link: spec.name.clone(),
            title: spec.title.clone(),
            serial_baud: radio.serial_baud.value,
            serial_bits_per_byte: radio.serial_bits_per_byte.value,
            packet_bytes: radio.packet_payload.value,
            timeout_ms: radio.timeout_ms.value,
            air_rate_bps: radio.air_rate_bps.value,
            overhead_bytes: radio.overhead_bytes.value,
        },
        paper,
        rows,
    })
}

/// Writes `msg` into the sending radio and times it until its last byte leaves the
/// receiving one (the link model's "delivered").
fn transmit(tx: &mut File, rx: &mut File, msg: &[u8]) -> Result<f64, Error> {
    let limit = Duration::from_secs(10);
    let t0 = Instant::now();
    tx.write_all(msg)?;
    let mut got = Vec::with_capacity(msg.len());
    let mut buf = [0u8; 512];
    while got.len() < msg.len() {
        if t0.elapsed() > limit {
            return Err(Error::failed(format!(
                "the emulator delivered {} of {} bytes within {limit:?}",
                got.len(),
                msg.len()
            )));
        }
        if serial::wait_readable(&*rx, Duration::from_millis(50)).map_err(live_error)? {
            let n = rx.read(&mut buf)?;
            got.extend_from_slice(&buf[..n]);
        }
    }
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    if got != msg {
        return Err(Error::failed(
            "the emulator changed the bytes of a message (it runs without bit errors here)",
        ));
    }
    // Let the radio go idle so each message is timed alone, as in the study.
    std::thread::sleep(Duration::from_millis(5));
    Ok(ms)
}

impl LiveReport {
    pub fn text(&self) -> String {
        let (paper, rows, m) = (&self.paper, &self.rows, &self.model);
        let mut o = String::new();
        out!(
            o,
            "Study 000, live: the ten messages through the radio emulator ({})",
            m.title
        );
        out!(
            o,
            "emulator: {} baud, {} B packets, {} ms timeout, {} b/s on air, {} B overhead per packet (the link model's parameters)",
            m.serial_baud,
            m.packet_bytes,
            m.timeout_ms,
            m.air_rate_bps,
            m.overhead_bytes
        );
        out!(
            o,
            "time = first byte written to the sending pty until the last byte read from the receiving pty"
        );
        out!(o);
        out!(o, "Transmission time (ms): live | model | paper");
        out!(
            o,
            "{:>3} {:>5} {:>8} {:>8} {:>7} | {:>5} {:>8} {:>8} {:>7} | {:>5} {:>8} {:>8} {:>7}",
            "#",
            "T B",
            "live",
            "model",
            "paper",
            "C B",
            "live",
            "model",
            "paper",
            "P B",
            "live",
            "model",
            "paper"
        );
        let paper_ms = [&paper.plaintext_ms, &paper.ciphertext_ms, &paper.padded_ms];
        for (i, r) in rows.iter().enumerate() {
            crate::put!(o, "{:>3}", i + 1);
            for k in 0..3 {
                crate::put!(
                    o,
                    " {:>5} {:>8.3} {:>8.3} {:>7.3}{}",
                    r[k].bytes,
                    r[k].live_ms,
                    r[k].model_ms,
                    paper_ms[k][i],
                    if k < 2 { " |" } else { "" }
                );
            }
            out!(o);
        }
        out!(o);
        out!(o, "Time difference (ms), C-T and P-T: live | model | paper");
        for (i, r) in rows.iter().enumerate() {
            out!(
                o,
                "{:>3} {:>8.3} {:>8.3} {:>8.3} | {:>8.3} {:>8.3} {:>8.3}",
                i + 1,
                r[1].live_ms - r[0].live_ms,
                r[1].model_ms - r[0].model_ms,
                paper.ciphertext_ms[i] - paper.plaintext_ms[i],
                r[2].live_ms - r[0].live_ms,
                r[2].model_ms - r[0].model_ms,
                paper.padded_ms[i] - paper.plaintext_ms[i]
            );
        }
        out!(o);
        out!(
            o,
            "Throughput (KB/s = bytes/1000 / s), T C P: live | model | paper"
        );
        let kbps = |b: usize, ms: f64| b as f64 / ms;
        let paper_tp = [
            &paper.throughput_plaintext_kbps,
            &paper.throughput_ciphertext_kbps,
            &paper.throughput_padded_kbps,
        ];
        for (i, r) in rows.iter().enumerate() {
            let live: Vec<f64> = r.iter().map(|t| kbps(t.bytes, t.live_ms)).collect();
            let model: Vec<f64> = r.iter().map(|t| kbps(t.bytes, t.model_ms)).collect();
            out!(
                o,
                "{:>3} {:>7.3} {:>7.3} {:>7.3} | {:>7.3} {:>7.3} {:>7.3} | {:>7.3} {:>7.3} {:>7.3}",
                i + 1,
                live[0],
                live[1],
                live[2],
                model[0],
                model[1],
                model[2],
                paper_tp[0][i],
                paper_tp[1][i],
                paper_tp[2][i]
            );
        }
        out!(o);
        out!(o, "Expansion factor C/T and P/T: sent | paper");
        for (i, r) in rows.iter().enumerate() {
            out!(
                o,
                "{:>3} {:>7.3} {:>7.3} | {:>7.3} {:>7.3}",
                i + 1,
                r[1].bytes as f64 / r[0].bytes as f64,
                r[2].bytes as f64 / r[0].bytes as f64,
                paper.expansion_ciphertext[i],
                paper.expansion_padded[i]
            );
        }
        out!(o);
        let mut diffs: Vec<f64> = rows
            .iter()
            .flatten()
            .map(|t| t.live_ms - t.model_ms)
            .collect();
        diffs.sort_by(f64::total_cmp);
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        out!(
            o,
            "Live minus model: median {:+.3} ms, min {:+.3} ms, max {:+.3} ms over {} messages (load average {}).",
            diffs[diffs.len() / 2],
            diffs[0],
            diffs[diffs.len() - 1],
            diffs.len(),
            load.split_whitespace().next().unwrap_or("?")
        );
        out!(
            o,
            "  The emulator sleeps until each of the model's deadlines, so live is never earlier; on an idle machine it is"
        );
        out!(
            o,
            "  later by a fraction of a millisecond. A busy machine delays threads by more; a difference near the timeout"
        );
        out!(
            o,
            "  on an idle machine would mean one of the two is wrong."
        );
        let total = |k: usize, f: &dyn Fn(&Trip) -> f64| rows.iter().map(|r| f(&r[k])).sum::<f64>();
        let saves = |f: &dyn Fn(&Trip) -> f64| (1.0 - total(2, f) / total(1, f)) * 100.0;
        let paper_saves = (1.0
            - paper.padded_ms.iter().sum::<f64>() / paper.ciphertext_ms.iter().sum::<f64>())
            * 100.0;
        out!(
            o,
            "Padding to whole packets saves {:.2} % of ciphertext time live, {:.2} % in the model, {:.2} % in the paper.",
            saves(&|t| t.live_ms),
            saves(&|t| t.model_ms),
            paper_saves
        );
        o
    }
}
