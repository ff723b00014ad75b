//! LoRa time on air and LoRaWAN uplinks as `airtime` shows them: one case in
//! detail, a table over spreading factors and payloads, or a region's data rates.

use std::fmt::Write as _;

use link::lora::{Airtime, Header, LoraParams};
use link::lorawan::{LorawanMessage, MAC_OVERHEAD, Region};
use serde_json::{Value, json};

use crate::data::ms;

/// One SF and payload: the time on air, or why it cannot be computed.
pub type PhyRow = (LoraParams, u32, Result<Airtime, String>);

/// Every SF × payload cell of a PHY grid, with the distinct reasons of the
/// cells that cannot be computed; an error when none can.
pub fn phy_grid(
    base: &LoraParams,
    sfs: &[u32],
    payloads: &[u32],
) -> Result<(Vec<PhyRow>, Vec<String>), String> {
    let mut rows = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    for &sf in sfs {
        for &pl in payloads {
            let p = LoraParams {
                sf: sf as u8,
                ..*base
            };
            let cell = p.airtime(pl).map_err(|e| e.to_string());
            if let Err(msg) = &cell
                && !notes.contains(msg)
            {
                notes.push(msg.clone());
            }
            rows.push((p, pl, cell));
        }
    }
    if rows.iter().all(|r| r.2.is_err()) {
        return Err(notes.join("; "));
    }
    Ok((rows, notes))
}

/// Every data rate × payload of a region. A single message over the frame
/// limit is refused unless `split` allows costing it as several frames.
pub fn lorawan_grid(
    region: Region,
    drs: &[u32],
    payloads: &[u32],
    split: bool,
) -> Result<Vec<(u32, LorawanMessage)>, String> {
    let single = drs.len() == 1 && payloads.len() == 1;
    let mut rows = Vec::new();
    for &dr in drs {
        let rate = region.data_rate(dr as u8).map_err(|e| e.to_string())?;
        for &pl in payloads {
            if pl > rate.max_payload && single && !split {
                return Err(format!(
                    "{}; pass --split to cost it as several frames",
                    rate.too_big(pl)
                ));
            }
            rows.push((pl, rate.message(pl).map_err(|e| e.to_string())?));
        }
    }
    Ok(rows)
}

pub fn case_json(p: &LoraParams, payload: u32, a: &Airtime) -> Value {
    json!({
        "chip": p.chip.name(),
        "sf": p.sf,
        "bandwidth_khz": p.bandwidth.label(),
        "coding_rate": p.coding_rate.to_string(),
        "header": header_name(p.header),
        "crc": p.crc,
        "payload_bytes": payload,
        "preamble_programmed": p.preamble_symbols(),
        "preamble_symbols": a.preamble_symbols(),
        "payload_symbols": a.payload_symbols,
        "ldro": a.ldro,
        "symbol_ms": ms(a.symbol_time),
        "airtime_ms": ms(a.total),
        "airtime_us": a.total.ratio().to_integer(),
    })
}

/// One case in detail.
pub fn case_text(p: &LoraParams, payload: u32, a: &Airtime) -> String {
    let payloads = [payload];
    let mut o = String::new();
    let _ = writeln!(o, "LoRa time on air ({} rules, exact)", p.chip.name());
    let _ = writeln!(
        o,
        "  SF{} / {} / CR {} / {} header / CRC {} / preamble {}",
        p.sf,
        p.bandwidth,
        p.coding_rate,
        header_name(p.header),
        on_off(p.crc),
        p.preamble_symbols()
    );
    let _ = writeln!(o, "  payload          {} B", payloads[0]);
    let _ = writeln!(o, "  symbol time      {}", a.symbol_time);
    let _ = writeln!(o, "  preamble         {} symbols", a.preamble_symbols());
    let _ = writeln!(o, "  payload symbols  {}", a.payload_symbols);
    let _ = writeln!(o, "  LDRO             {}", on_off(a.ldro));
    let _ = writeln!(o, "  time on air      {}", a.total);
    o
}

pub fn phy_json(rows: &[PhyRow]) -> Value {
    Value::Array(
        rows.iter()
            .map(|(p, pl, r)| match r {
                Ok(a) => case_json(p, *pl, a),
                Err(e) => json!({"sf": p.sf, "payload_bytes": pl, "error": e}),
            })
            .collect(),
    )
}

/// A table over spreading factors and payloads; `notes` say why a cell is n/a.
pub fn phy_text(base: &LoraParams, rows: &[PhyRow], notes: &[String]) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "LoRa time on air ({} rules, {} / CR {} / {} header / CRC {}, exact)",
        base.chip.name(),
        base.bandwidth,
        base.coding_rate,
        header_name(base.header),
        on_off(base.crc)
    );
    let _ = writeln!(
        o,
        "{:>4} {:>8} {:>9} {:>9} {:>5} {:>14}",
        "SF", "payload", "preamble", "symbols", "LDRO", "time on air"
    );
    for (p, pl, r) in rows {
        let _ = match r {
            Ok(a) => writeln!(
                o,
                "{:>4} {:>6} B {:>9} {:>9} {:>5} {:>14}",
                p.sf,
                pl,
                a.preamble_symbols(),
                a.payload_symbols,
                on_off(a.ldro),
                a.total.to_string()
            ),
            Err(_) => writeln!(
                o,
                "{:>4} {:>6} B {:>9} {:>9} {:>5} {:>14}",
                p.sf, pl, "-", "-", "-", "n/a"
            ),
        };
    }
    for n in notes {
        let _ = writeln!(o, "n/a: {n}");
    }
    o
}

pub fn lorawan_json(region: Region, pl: u32, m: &LorawanMessage) -> Value {
    json!({
        "region": region.to_string(),
        "dr": m.rate.dr,
        "sf": m.rate.sf,
        "bandwidth_khz": m.rate.bandwidth.label(),
        "payload_bytes": pl,
        "max_payload": m.rate.max_payload,
        "fits_one_frame": m.frame_payloads.len() == 1,
        "frames": m.frame_payloads.len(),
        "phy_bytes": m.on_air_bytes(),
        "mac_overhead_per_frame": MAC_OVERHEAD,
        "airtime_ms": ms(m.airtime),
        "airtime_us": m.airtime.ratio().to_integer(),
        "dwell_ok": m.dwell_ok,
        "min_interval_s": m.min_interval().map(|t| t.as_secs()),
        "max_messages_per_hour": m.max_per_hour(),
    })
}

/// A region's data rates for each payload.
pub fn lorawan_text(region: Region, rows: &[(u32, LorawanMessage)]) -> String {
    let mut o = String::new();
    let limit = match region.duty_cycle() {
        Some(_) => "1 % duty cycle",
        None => "400 ms dwell time",
    };
    let _ = writeln!(
        o,
        "LoRaWAN {region} uplinks: {MAC_OVERHEAD} B MAC overhead per frame, preamble 8, CR 4/5, CRC on; {limit}"
    );
    let _ = writeln!(
        o,
        "{:>4} {:>10} {:>8} {:>7} {:>8} {:>14} {:>14} {:>9}",
        "DR", "SF/BW", "payload", "max", "frames", "time on air", "min interval", "max/hour"
    );
    for (pl, m) in rows {
        let frames = if m.frame_payloads.len() == 1 {
            "1".to_string()
        } else {
            format!("{} (!)", m.frame_payloads.len())
        };
        let interval = m.min_interval().map_or_else(
            || {
                if m.dwell_ok {
                    "dwell ok".into()
                } else {
                    "DWELL!".into()
                }
            },
            |t| format!("{:.1} s", t.as_secs()),
        );
        let per_hour = m.max_per_hour().map_or("-".into(), |n| n.to_string());
        let _ = writeln!(
            o,
            "{:>4} {:>10} {:>6} B {:>5} B {:>8} {:>14} {:>14} {:>9}",
            m.rate.dr,
            format!("SF{}/{}", m.rate.sf, m.rate.bandwidth.label()),
            pl,
            m.rate.max_payload,
            frames,
            m.airtime.to_string(),
            interval,
            per_hour
        );
    }
    if rows.iter().any(|(_, m)| m.frame_payloads.len() > 1) {
        let _ = writeln!(
            o,
            "(!) the message does not fit one frame at that data rate: it is split, each frame paying {MAC_OVERHEAD} B of MAC overhead"
        );
    }
    o
}

pub fn header_name(h: Header) -> &'static str {
    match h {
        Header::Explicit => "explicit",
        Header::Implicit => "implicit",
    }
}

pub fn on_off(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}
