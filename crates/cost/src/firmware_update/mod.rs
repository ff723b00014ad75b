//! What an update over the air costs, per signature scheme: the image and
//! its signature delivered on one link (`delivery`), the device's receiver
//! time and energy, and its verify where the shipped device table or the
//! verify probe's table measured it (`verify`); ranked by the device's total (`ciphermeter update-cost`,
//! docs/guide.md "Firmware updates"). Schemes and protocol figures:
//! data/firmware-update.toml (`facts`, `signatures`).

pub mod delivery;
pub mod facts;
pub mod signatures;
mod verify;

use std::path::PathBuf;

use serde::Serialize;

use crate::Error;
use delivery::Delivery;
use signatures::Signature;
use verify::NOT_MEASURED;
pub use verify::VerifyCost;

/// What the user asks: `update-cost`'s flags (feature `cli`), one struct.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Request {
    /// Image size, KiB.
    #[cfg_attr(feature = "cli", arg(long))]
    pub image_kib: u32,
    /// Link name (`ciphermeter link --list`).
    #[cfg_attr(feature = "cli", arg(long))]
    pub link: String,
    /// Device profile: adds its measured verify.
    #[cfg_attr(feature = "cli", arg(long))]
    pub device: Option<String>,
    /// FUOTA's redundancy fragments, 0% to 100%.
    #[cfg_attr(feature = "cli", arg(long, default_value = "10%"))]
    pub redundancy: String,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[cfg_attr(feature = "cli", arg(long))]
    pub data_dir: Option<PathBuf>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpdateRow {
    pub rank: usize,
    pub signature: Signature,
    pub delivery: Delivery,
    /// The device's receiver energy for the whole delivery, mJ.
    pub receive_mj: f64,
    pub verify: Option<VerifyCost>,
    /// Why no verify is counted, when none is.
    pub verify_note: Option<String>,
    /// Receive plus verify, mJ; none where the verify is not measured.
    pub total_mj: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UpdateCost {
    pub link: String,
    pub link_title: String,
    pub image_bytes: u32,
    pub redundancy_percent: u32,
    pub device: Option<String>,
    pub radio: String,
    pub rows: Vec<UpdateRow>,
    pub notes: Vec<String>,
}

/// FUOTA's redundancy as a whole percentage, 0 to 100.
pub fn parse_redundancy(text: &str) -> Result<u32, Error> {
    let t = text.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim();
    t.parse::<u32>().ok().filter(|&r| r <= 100).ok_or_else(|| {
        Error::invalid(format!(
            "--redundancy '{text}': a whole percentage from 0 % to 100 % (e.g. 10%)"
        ))
    })
}

/// Every scheme's update on the request's link, ranked.
pub fn cost(req: &Request) -> Result<UpdateCost, Error> {
    if req.image_kib == 0 {
        return Err(Error::invalid("--image-kib must be at least 1"));
    }
    let image_bytes = req
        .image_kib
        .checked_mul(1024)
        .filter(|&b| b <= u32::MAX / 2)
        .ok_or_else(|| Error::invalid(format!("--image-kib {}: too large", req.image_kib)))?;
    let redundancy = parse_redundancy(&req.redundancy)?;
    let facts = facts::load()?;
    let links = crate::data::links(req.data_dir.as_deref())?;
    let link = links.get(&req.link).map_err(Error::invalid)?;
    let profiles = crate::data::profiles(req.data_dir.as_deref())?;
    let device = req
        .device
        .as_deref()
        .map(|d| profiles.device(d).map_err(Error::invalid))
        .transpose()?;
    // The device's own radio where it has figures for the link, else the link's.
    let radio = match device {
        Some(d) => profiles.radio_for(d, link).map_err(Error::invalid)?.radio,
        None => profiles.radio(&link.radio).map_err(Error::invalid)?,
    };
    let target = match device {
        Some(d) => cost_engine::device_times::device_target(d)?,
        None => None,
    };
    let table = match (device, target) {
        (Some(d), Some(t)) => cost_engine::device_times::shipped_for(d, t)?,
        _ => None,
    };
    let probe = device_facts::verify_cycles::shipped()?;
    let mut rows = Vec::new();
    for (sig, spec) in signatures::all(&facts).into_iter().zip(&facts.scheme) {
        let delivery =
            delivery::deliver(link, image_bytes + sig.signature_bytes, redundancy, &facts)?;
        let receive_mj = radio.voltage_v.value * radio.rx_ma.value * delivery.receive_s;
        let verify = match device {
            Some(d) => verify::verify_cost(
                table.as_ref(),
                &probe,
                target,
                spec.device_algorithm.as_deref(),
                &spec.name,
                d,
            ),
            None => Err("no --device: the radio alone".to_string()),
        };
        let (verify, verify_note) = match verify {
            Ok(v) => (Some(v), None),
            Err(why) => (None, Some(why)),
        };
        let total_mj = verify.as_ref().map(|v| receive_mj + v.mj);
        rows.push(UpdateRow {
            rank: 0,
            signature: sig,
            delivery,
            receive_mj,
            verify,
            verify_note,
            total_mj,
        });
    }
    // Measured totals first, then the rest by what was costed; ties by bytes.
    rows.sort_by(|a, b| {
        let key = |r: &UpdateRow| (r.total_mj.is_none(), r.total_mj.unwrap_or(r.receive_mj));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(
            a.signature
                .signature_bytes
                .cmp(&b.signature.signature_bytes),
        )
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    Ok(UpdateCost {
        link: link.name.clone(),
        link_title: link.title.clone(),
        image_bytes,
        redundancy_percent: redundancy,
        device: device.map(|d| d.name.clone()),
        radio: radio.name.clone(),
        notes: notes(link.lorawan.is_some(), device.is_some()),
        rows,
    })
}

fn notes(lorawan: bool, device: bool) -> Vec<String> {
    let mut n = vec![
        "bytes: image + signature; the public key is already on the device (its bytes are in the row for provisioning)".to_string(),
        "the image's own hash, common to every scheme, is not counted in verify".to_string(),
    ];
    if lorawan {
        n.push("multicast: one transmission serves every device of the group; a class C device keeps its receiver on for the whole session".into());
    } else {
        n.push("the device's own replies (link-layer acknowledgements, protocol responses) are not counted".into());
    }
    if device {
        n.push("verify: the fastest implementation with passed known answers in the device's shipped table (data/device-costs/), else the verify probe's (data/firmware-update/verify-cycles.json: its source says which), at the device's clock".into());
    }
    n
}

/// Minutes, seconds or milliseconds, whichever reads best.
fn duration(s: f64) -> String {
    if s >= 3600.0 {
        format!("{:.2} h", s / 3600.0)
    } else if s >= 120.0 {
        format!("{:.1} min", s / 60.0)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

impl UpdateCost {
    pub fn text(&self) -> String {
        let mut out = format!(
            "Update of {} B over {} ({})\n",
            self.image_bytes, self.link, self.link_title
        );
        if let Some(r) = self.rows.first() {
            out += &format!("{}\n", r.delivery.method);
        }
        out += &format!(
            "device: {}; radio: {}\n\n",
            self.device.as_deref().unwrap_or("none (radio only)"),
            self.radio
        );
        out += "rank  scheme              security          pk B   sig B    bytes  frames   red  on air B  time on air  device rx  rx mJ      verify              total mJ  state\n";
        for r in &self.rows {
            let s = &r.signature;
            let d = &r.delivery;
            let verify = match (&r.verify, &r.verify_note) {
                (Some(v), _) => format!("{:.1} ms {:.2} mJ", v.ms, v.mj),
                (None, Some(n)) if n == NOT_MEASURED => "not measured".into(),
                (None, Some(_)) if self.device.is_some() => "not counted (below)".into(),
                _ => "-".into(),
            };
            let total = r.total_mj.map_or_else(|| "-".into(), |t| format!("{t:.1}"));
            let state = s
                .signatures_per_key
                .map_or_else(|| "none".into(), |n| format!("{n} signatures/key"));
            out += &format!(
                "{:<5} {:<19} {:<17} {:>5} {:>7} {:>8} {:>7} {:>5} {:>9}  {:>11}  {:>9}  {:<9.1}  {:<18}  {:>8}  {}\n",
                r.rank,
                s.name,
                s.security,
                s.public_key_bytes,
                s.signature_bytes,
                d.bytes,
                d.frames,
                d.redundancy_frames,
                d.on_air_bytes,
                duration(d.airtime_s),
                duration(d.receive_s),
                r.receive_mj,
                verify,
                total,
                state
            );
        }
        let probed: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| {
                r.verify
                    .as_ref()
                    .is_some_and(|v| v.source == verify::PROBE_TABLE)
            })
            .map(|r| r.signature.name.as_str())
            .collect();
        if !probed.is_empty() {
            out += &format!(
                "\nverify from the {} for the device's target: {}\n",
                verify::PROBE_TABLE,
                probed.join(", ")
            );
        }
        for r in &self.rows {
            match &r.verify_note {
                Some(n) if self.device.is_some() && n != NOT_MEASURED => {
                    out += &format!("\n{} not counted: {n}\n", r.signature.name);
                }
                _ => {}
            }
            if r.signature.signatures_per_key.is_some() {
                out += &format!("\n{}: {}\n", r.signature.name, r.signature.state);
            }
        }
        for n in &self.notes {
            out += &format!("note: {n}\n");
        }
        out
    }
}
