//! LoRa time on air and LoRaWAN uplinks as `airtime` shows them: one case in
//! detail, a table over spreading factors and payloads, or a region's data
//! rates; from a request as typed (`Request`, ranges such as 5..12 parsed by
//! `parse_range`).

use std::fmt::Write as _;

use link::lora::{Airtime, Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use link::lorawan::{LorawanMessage, MAC_OVERHEAD, Region};
use serde_json::{Value, json};

use crate::Error;
use crate::data::ms;

/// `airtime` as typed: LoRa PHY settings, or a LoRaWAN region; the SF, the
/// payload and the data rate may be ranges (`parse_range`).
#[derive(Clone, Debug)]
pub struct Request {
    pub sf: String,
    pub bw: String,
    pub cr: String,
    pub payload: String,
    pub preamble: Option<String>,
    pub header: String,
    pub crc: String,
    pub ldro: String,
    pub chip: String,
    pub region: Option<String>,
    pub dr: Option<String>,
    /// LoRaWAN: cost a message over the frame limit as several frames.
    pub split: bool,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            sf: "7".into(),
            bw: "125".into(),
            cr: "4/5".into(),
            payload: "13".into(),
            preamble: None,
            header: "explicit".into(),
            crc: "on".into(),
            ldro: "auto".into(),
            chip: "sx127x".into(),
            region: None,
            dr: None,
            split: false,
        }
    }
}

/// What `airtime` shows.
pub enum View {
    /// One SF and payload, in detail.
    Case(LoraParams, u32, Airtime),
    /// SFs × payloads, with the reasons of the cells that cannot be computed.
    Phy(LoraParams, Vec<PhyRow>, Vec<String>),
    /// A region's data rates × payloads; `single`: one of each.
    Lorawan {
        region: Region,
        rows: Vec<(u32, LorawanMessage)>,
        single: bool,
    },
}

impl View {
    pub fn json(&self) -> Value {
        match self {
            View::Case(p, pl, a) => case_json(p, *pl, a),
            View::Phy(_, rows, _) => phy_json(rows),
            View::Lorawan {
                region,
                rows,
                single,
            } if *single => lorawan_json(*region, rows[0].0, &rows[0].1),
            View::Lorawan { region, rows, .. } => Value::Array(
                rows.iter()
                    .map(|(pl, m)| lorawan_json(*region, *pl, m))
                    .collect(),
            ),
        }
    }

    pub fn text(&self) -> String {
        match self {
            View::Case(p, pl, a) => case_text(p, *pl, a),
            View::Phy(base, rows, notes) => phy_text(base, rows, notes),
            View::Lorawan { region, rows, .. } => lorawan_text(*region, rows),
        }
    }
}

/// The view `req` asks for; an error says which flag is wrong and why.
pub fn view(req: &Request) -> Result<View, Error> {
    match &req.region {
        Some(region) => lorawan_view(req, region.parse().map_err(Error::invalid)?),
        None => phy_view(req),
    }
}

fn phy_view(req: &Request) -> Result<View, Error> {
    let sfs = parse_range("--sf", &req.sf, 64)?;
    if let Some(&bad) = sfs.iter().find(|&&s| !(5..=12).contains(&s)) {
        return Err(Error::invalid(format!(
            "--sf: SF{bad} does not exist; LoRa spreading factors are 5..12"
        )));
    }
    let payloads = parse_range("--payload", &req.payload, 255)?;
    let preamble = match &req.preamble {
        Some(p) => Some(
            parse_range("--preamble", p, 65535)?
                .first()
                .copied()
                .unwrap_or(8) as u16,
        ),
        None => None,
    };
    let base = LoraParams {
        sf: 7,
        bandwidth: req.bw.parse::<Bandwidth>().map_err(Error::invalid)?,
        coding_rate: req.cr.parse::<CodingRate>().map_err(Error::invalid)?,
        preamble,
        header: req.header.parse::<Header>().map_err(Error::invalid)?,
        crc: parse_switch("--crc", &req.crc)?,
        ldro: req.ldro.parse::<Ldro>().map_err(Error::invalid)?,
        chip: req.chip.parse::<Chip>().map_err(Error::invalid)?,
    };
    if let ([sf], [pl]) = (&sfs[..], &payloads[..]) {
        let p = LoraParams {
            sf: *sf as u8,
            ..base
        };
        let a = p.airtime(*pl).map_err(Error::invalid)?;
        return Ok(View::Case(p, *pl, a));
    }
    let (rows, notes) = phy_grid(&base, &sfs, &payloads).map_err(Error::Invalid)?;
    Ok(View::Phy(base, rows, notes))
}

fn lorawan_view(req: &Request, region: Region) -> Result<View, Error> {
    let max_dr = region.data_rates().len() as u32 - 1;
    let drs = match &req.dr {
        Some(d) => parse_range("--dr", d, 15)?,
        None => (0..=max_dr).collect(),
    };
    let payloads = parse_range("--payload", &req.payload, 65535)?;
    let single = drs.len() == 1 && payloads.len() == 1;
    let rows = lorawan_grid(region, &drs, &payloads, req.split).map_err(Error::Invalid)?;
    Ok(View::Lorawan {
        region,
        rows,
        single,
    })
}

/// "N" or an inclusive range "A..B" (or "A..=B") of non-negative integers up
/// to `max`; `what` names the flag in the error.
pub fn parse_range(what: &str, text: &str, max: u32) -> Result<Vec<u32>, Error> {
    let negative = || Error::invalid(format!("{what}: must not be negative (got '{text}')"));
    let t = text.trim();
    if t.starts_with('-') {
        return Err(negative());
    }
    let one = |s: &str| -> Result<u32, Error> {
        let s = s.trim();
        if s.starts_with('-') {
            return Err(negative());
        }
        let n: u64 = s.parse().map_err(|_| {
            Error::invalid(format!(
                "{what}: '{text}' is not a number or a range like 5..12"
            ))
        })?;
        if n > u64::from(max) {
            return Err(Error::invalid(format!(
                "{what}: {n} is above the maximum of {max}"
            )));
        }
        Ok(n as u32)
    };
    match t.split_once("..") {
        Some((a, b)) => {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (a, b) = (one(a)?, one(b)?);
            if a > b {
                return Err(Error::invalid(format!("{what}: empty range {a}..{b}")));
            }
            Ok((a..=b).collect())
        }
        None => Ok(vec![one(t)?]),
    }
}

/// "on"/"off" (also true/false, yes/no, 1/0).
pub fn parse_switch(what: &str, text: &str) -> Result<bool, Error> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(Error::invalid(format!(
            "{what}: expected on or off, not '{text}'"
        ))),
    }
}

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
    let limit = region.limit_words();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_switches_are_read_or_refused_with_the_flag() {
        assert_eq!(parse_range("--sf", "7", 64).unwrap(), [7]);
        assert_eq!(parse_range("--sf", " 5..=7 ", 64).unwrap(), [5, 6, 7]);
        assert_eq!(parse_range("--sf", "5..7", 64).unwrap(), [5, 6, 7]);
        let err = |t: &str| parse_range("--dr", t, 15).unwrap_err().to_string();
        assert_eq!(err("-1"), "--dr: must not be negative (got '-1')");
        assert_eq!(err("3..-1"), "--dr: must not be negative (got '3..-1')");
        assert_eq!(err("16"), "--dr: 16 is above the maximum of 15");
        assert_eq!(err("5..3"), "--dr: empty range 5..3");
        assert_eq!(err("x"), "--dr: 'x' is not a number or a range like 5..12");
        assert!(parse_switch("--crc", "ON").unwrap());
        assert!(!parse_switch("--crc", "no").unwrap());
        assert!(parse_switch("--crc", "maybe").unwrap_err().is_invalid());
    }

    #[test]
    fn a_request_gives_a_case_a_grid_or_a_region() {
        let case = view(&Request::default()).unwrap();
        assert!(matches!(case, View::Case(p, 13, _) if p.sf == 7));
        let grid = Request {
            sf: "7..9".into(),
            ..Request::default()
        };
        assert!(matches!(view(&grid).unwrap(), View::Phy(_, rows, _) if rows.len() == 3));
        let bad = Request {
            sf: "13".into(),
            ..Request::default()
        };
        let err = view(&bad).err().unwrap().to_string();
        assert_eq!(
            err,
            "--sf: SF13 does not exist; LoRa spreading factors are 5..12"
        );
        let eu = Request {
            region: Some("eu868".into()),
            dr: Some("5".into()),
            ..Request::default()
        };
        let one = view(&eu).unwrap();
        assert!(one.json().is_object(), "one DR and payload: one object");
        let all = Request {
            region: Some("eu868".into()),
            ..Request::default()
        };
        assert!(view(&all).unwrap().json().is_array());
        assert!(
            view(&all)
                .unwrap()
                .text()
                .starts_with("LoRaWAN EU868 uplinks")
        );
    }
}
