//! Study 004: LoRa time on air for SF5–SF12 at 125 kHz across data sizes, and
//! what each of the study's algorithms (and modern AEADs) does to the on-air
//! size and time of one message.

use catalogue::{Kind, Padding};
use cost::Error;
use link::lora::{Bandwidth, Chip, CodingRate, Header, Ldro, LoraParams};
use link::lorawan::{MAC_OVERHEAD, Region};
use serde::{Deserialize, Serialize};

use crate::finding::{Finding, Verdict};
use crate::{out, paper, put};

/// What the paper states (data/studies/004_lora.json).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Paper {
    pub source: String,
    pub message_bytes: u32,
    pub key_bits: u32,
    pub pi_best_mb_per_s: f64,
    pub arduino_best_kb_per_s: f64,
    pub claims: Vec<paper::Claim>,
}

pub struct Options {
    /// Fewer data sizes.
    pub quick: bool,
    /// Message size for the per-algorithm table.
    pub bytes: u32,
}

/// The largest LoRa PHY payload: longer messages need several packets.
pub const MAX_PACKET: u32 = 255;

/// Study 004's LoRa setting: 125 kHz, CR 4/5, explicit header, CRC on. SX126x rules,
/// since only SX126x radios have SF5; for SF7–SF12 they equal the SX1276 formula.
fn phy(sf: u8) -> LoraParams {
    LoraParams {
        sf,
        bandwidth: Bandwidth::KHZ_125,
        coding_rate: CodingRate::CR4_5,
        preamble: None,
        header: Header::Explicit,
        crc: true,
        ldro: Ldro::Auto,
        chip: Chip::Sx126x,
    }
}

/// Time on air of `bytes` sent as packets of at most 255 B, in ms, with the
/// packet count: one packet, or the sealing core's fragments with their
/// 2-byte headers (`link::fragments`, as every LoRa link is costed); an
/// error says why it cannot be computed.
pub fn airtime_ms(sf: u8, bytes: u32) -> Result<(u32, f64), String> {
    let packets = link::fragments::sizes(bytes, MAX_PACKET, "LoRa").map_err(|e| e.to_string())?;
    let mut total = 0.0;
    for &n in &packets {
        total += phy(sf)
            .airtime(n)
            .map_err(|e| format!("SF{sf}, {n} B: {e}"))?
            .total
            .as_ms();
    }
    Ok((packets.len() as u32, total))
}

/// One of study 004's algorithms and the concrete builds we cost it with
/// (data/studies/004_lora.json, `algorithm_variants`): the paper gives only names.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Variant {
    /// The paper's name ("XCHACHA").
    pub name: String,
    /// How our tables print it ("XChaCha20").
    pub label: String,
    /// In preference order; the first one a device table has numbers for is used.
    pub candidates: Vec<Candidate>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Candidate {
    /// The algorithm id in the device cost tables.
    pub device: String,
    /// The catalogue id whose on-air size a message takes.
    pub variant: String,
    /// Costed per block the variant sends (RSA: one exponentiation each), not per byte.
    #[serde(default)]
    pub per_block: bool,
}

#[derive(Deserialize)]
struct Variants {
    algorithm_variants: Vec<Variant>,
}

/// Study 004's eleven algorithms, as the data file maps them.
pub fn variants() -> Result<Vec<Variant>, Error> {
    let v = paper::parse::<Variants>(paper::LORA, "004")?.algorithm_variants;
    match v.iter().find(|v| v.candidates.is_empty()) {
        Some(empty) => Err(Error::failed(format!(
            "study 004 data: {} has no candidate build",
            empty.name
        ))),
        None => Ok(v),
    }
}

/// Modern AEADs (and RSA as a signature) beside the study's algorithms.
/// Every figure comes from the catalogue entry; an id the catalogue lacks is
/// reported, never guessed.
const MODERN: [(&str, &str); 6] = [
    ("RSA signature", "rsa-2048-pkcs1v15-sha256"),
    ("AES-GCM", "aes-128-gcm"),
    ("AES-CCM", "aes-128-ccm"),
    ("ChaCha20-Poly1305", "chacha20-poly1305"),
    ("XChaCha20-Poly1305", "xchacha20-poly1305"),
    ("Ascon-AEAD128", "ascon-aead128"),
];

/// Bytes RSAES-OAEP with SHA-256 spends per block: 2·hLen + 2 = 66 (RFC 8017 §7.1.1,
/// "mLen > k - 2hLen - 2" is an error), so a 256-byte block carries at most 190 bytes.
const OAEP_SHA256_OVERHEAD: usize = 2 * 32 + 2;

/// One SF's time on air for one size; `None` with the reason when it cannot be computed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Cell {
    pub packets: u32,
    pub ms: Option<f64>,
    pub error: Option<String>,
}

impl Cell {
    fn of(sf: u8, bytes: u32) -> Cell {
        match airtime_ms(sf, bytes) {
            Ok((packets, ms)) => Cell {
                packets,
                ms: Some(ms),
                error: None,
            },
            Err(e) => Cell {
                packets: bytes.div_ceil(MAX_PACKET).max(1),
                ms: None,
                error: Some(e),
            },
        }
    }

    fn text(&self) -> String {
        match (self.ms, &self.error) {
            (Some(ms), _) if self.packets > 1 => format!("{}x:{ms:.3}", self.packets),
            (Some(ms), _) => format!("{ms:.3}"),
            (None, _) => "error".into(),
        }
    }
}

/// Fig. 6: time on air by data size, one cell per SF5..SF12.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SizeRow {
    pub bytes: u32,
    pub cells: Vec<Cell>,
}

/// A message under one algorithm: bytes on air and time at SF7 and SF12.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AlgorithmRow {
    pub label: String,
    pub id: String,
    pub how: String,
    pub on_air: u32,
    pub sf7: Cell,
    pub sf12: Cell,
    /// LoRaWAN EU868 DR0 frames needed.
    pub dr0_frames: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ran_on: String,
    pub paper: Paper,
    pub message_bytes: u32,
    pub spreading_factors: Vec<u8>,
    pub sizes: Vec<SizeRow>,
    pub algorithms: Vec<AlgorithmRow>,
    pub plaintext: AlgorithmRow,
    pub dr0_max_payload: u32,
    /// Catalogue ids this build lacks.
    pub missing: Vec<String>,
    pub findings: Vec<Finding>,
}

/// How `id` changes a `len`-byte message; None when the catalogue lacks the id.
pub(crate) fn expansion(id: &str, len: usize) -> Option<(u32, String)> {
    let e = catalogue::catalogue().get(id)?;
    let nonce = e.nonce_sizes.iter().copied().max().unwrap_or(0);
    let (on_air, how) = match e.kind {
        Kind::Hash => {
            let d = e.output_size.unwrap_or(0);
            (
                len + d,
                format!("message + {d} B digest (integrity only, sent in clear)"),
            )
        }
        Kind::BlockMode => {
            let ct = e.ciphertext_len(len, Padding::Pkcs7);
            (
                ct + nonce,
                format!(
                    "PKCS#7 to {}-byte blocks ({ct} B) + {nonce} B IV",
                    e.block_size.unwrap_or(0)
                ),
            )
        }
        Kind::Stream => (len + nonce, format!("same length + {nonce} B nonce")),
        Kind::Aead => {
            let tag = e.tag_size.unwrap_or(0);
            (len + nonce + tag, format!("{nonce} B nonce + {tag} B tag"))
        }
        Kind::Asymmetric if id.contains("-oaep-") => {
            let k = e.output_size.unwrap_or(0);
            let per_block = k.saturating_sub(OAEP_SHA256_OVERHEAD).max(1);
            let blocks = len.div_ceil(per_block).max(1);
            (
                blocks * k,
                format!("{blocks} x {k} B OAEP block(s), at most {per_block} B each"),
            )
        }
        Kind::Asymmetric => {
            let sig = e.output_size.unwrap_or(0);
            (
                len + sig,
                format!("message + {sig} B signature (sent in clear)"),
            )
        }
        other => {
            let ct = e.ciphertext_len(len, Padding::Pkcs7);
            (ct + nonce, format!("{other}: {ct} B + {nonce} B"))
        }
    };
    Some((on_air as u32, how))
}

pub fn paper() -> Result<Paper, Error> {
    paper::parse(paper::LORA, "004")
}

pub fn run(opts: &Options) -> Result<Report, Error> {
    let paper = paper()?;
    let sizes: Vec<u32> = if opts.quick {
        vec![10, 100, 255]
    } else {
        vec![0, 10, 16, 32, 50, 64, 100, 128, 150, 200, 222, 255]
    };
    let sfs: Vec<u8> = (5..=12).collect();
    let dr0 = Region::Eu868
        .data_rate(0)
        .map_err(|e| Error::failed(e.to_string()))?;
    // DR0 frames as a device sends them: in fragments past 51 B.
    let row = |label: &str, id: &str, how: String, on_air: u32| -> Result<AlgorithmRow, Error> {
        let dr0_frames = dr0
            .message(on_air)
            .map_err(Error::invalid)?
            .frame_payloads
            .len();
        Ok(AlgorithmRow {
            label: label.into(),
            id: id.into(),
            how,
            on_air,
            sf7: Cell::of(7, on_air),
            sf12: Cell::of(12, on_air),
            dr0_frames: dr0_frames as u32,
        })
    };
    let len = opts.bytes;
    let mut algorithms = Vec::new();
    let mut missing = Vec::new();
    let study: Vec<(String, String)> = variants()?
        .into_iter()
        .filter_map(|v| Some((v.label, v.candidates.first()?.variant.clone())))
        .collect();
    let modern = MODERN.iter().map(|(l, id)| (l.to_string(), id.to_string()));
    for (label, id) in study.into_iter().chain(modern) {
        match expansion(&id, len as usize) {
            Some((on_air, how)) => algorithms.push(row(&label, &id, how, on_air)?),
            None => missing.push(id),
        }
    }
    let findings = judge(&paper);
    Ok(Report {
        ran_on: "the LoRa time-on-air formula (computed exactly, no radio)".into(),
        message_bytes: len,
        sizes: sizes
            .iter()
            .map(|&n| SizeRow {
                bytes: n,
                cells: sfs.iter().map(|&sf| Cell::of(sf, n)).collect(),
            })
            .collect(),
        spreading_factors: sfs,
        algorithms,
        plaintext: row("(plaintext)", "-", "none".into(), len)?,
        dr0_max_payload: dr0.max_payload,
        missing,
        findings,
        paper,
    })
}

/// What time on air alone can judge; the device findings need a device run.
pub fn judge(paper: &Paper) -> Vec<Finding> {
    // One AES block: the smallest growth a block cipher adds to a message.
    let grow = 16;
    let base = paper.message_bytes;
    let added = |sf: u8| -> Option<f64> {
        Some(airtime_ms(sf, base + grow).ok()?.1 - airtime_ms(sf, base).ok()?.1)
    };
    crate::finding::judge_claims(&paper.claims, |id| match id {
        "sf12_size_sensitive" => match (added(7), added(12)) {
            (Some(a7), Some(a12)) => (
                Verdict::from_ok(a12 >= 10.0 * a7),
                format!(
                    "{grow} more bytes on a {base}-byte message add {a12:.1} ms at SF12 but {a7:.1} ms at SF7 ({:.0}×)",
                    a12 / a7
                ),
            ),
            _ => (
                Verdict::NotJudged,
                "the time on air could not be computed".into(),
            ),
        },
        "pi_des_xchacha_fastest" => (
            Verdict::NotJudged,
            format!(
                "needs times measured on a Raspberry Pi (paper: almost {} MB/s): run `ciphermeter bench` there and `import` it",
                paper.pi_best_mb_per_s
            ),
        ),
        "arduino_des_md5_best" | "mkr_fails_500_bytes" | "encryption_time_equals_toa" => (
            Verdict::NotJudged,
            format!(
                "needs the MKR1300's own times (paper: {} kB/s at best); this run computes time on air only",
                paper.arduino_best_kb_per_s
            ),
        ),
        other => (Verdict::NotJudged, format!("no check for claim {other}")),
    })
}

impl Report {
    pub fn text(&self) -> String {
        let mut o = self.tables();
        out!(o);
        out!(o, "The paper's findings beside ours:");
        o.push_str(&crate::finding::text(&self.findings));
        o
    }

    /// The time-on-air tables, without the findings.
    pub fn tables(&self) -> String {
        let mut o = String::new();
        out!(
            o,
            "Study 004 — LoRa time on air (125 kHz, CR 4/5, explicit header, CRC on, exact; SX126x rules for SF5/SF6)"
        );
        put!(o, "{:>8}", "bytes");
        for sf in &self.spreading_factors {
            put!(o, " {:>11}", format!("SF{sf}"));
        }
        out!(o);
        for row in &self.sizes {
            put!(o, "{:>8}", row.bytes);
            for c in &row.cells {
                put!(o, " {:>11}", c.text());
            }
            out!(o);
        }
        out!(
            o,
            "(ms; preamble 8 symbols, 12 at SF5/SF6 as SX126x requires; LDRO on at SF11/SF12, where symbols last 16 ms or more)"
        );
        out!(o);
        let len = self.message_bytes;
        out!(
            o,
            "A {len}-byte message under each algorithm: bytes on air (LoRa PHY payload) and time on air"
        );
        out!(
            o,
            "{:<19} {:<24} {:>6} {:>11} {:>13} {:>8}  expansion",
            "algorithm",
            "variant",
            "bytes",
            "SF7",
            "SF12",
            "DR0 fr."
        );
        for x in self.algorithms.iter().chain([&self.plaintext]) {
            out!(
                o,
                "{:<19} {:<24} {:>6} {:>11} {:>13} {:>8}  {}",
                x.label,
                x.id,
                x.on_air,
                x.sf7.text(),
                x.sf12.text(),
                x.dr0_frames,
                x.how
            );
        }
        out!(
            o,
            "(ms; 'Nx:' = needs N LoRa packets of at most 255 B; 'DR0 fr.' = LoRaWAN EU868 DR0 frames of at most {} B, each + {MAC_OVERHEAD} B MAC; past one, each carries a 2-byte fragment header)",
            self.dr0_max_payload
        );
        let errors: Vec<&String> = self
            .sizes
            .iter()
            .flat_map(|r| r.cells.iter())
            .chain(
                self.algorithms
                    .iter()
                    .chain([&self.plaintext])
                    .flat_map(|r| [&r.sf7, &r.sf12]),
            )
            .filter_map(|c| c.error.as_ref())
            .collect();
        for e in errors {
            out!(o, "error: {e}");
        }
        if !self.missing.is_empty() {
            out!(
                o,
                "note: {} not in this build's catalogue: left out rather than guessed",
                self.missing.join(", ")
            );
        }
        out!(
            o,
            "note: the study computes time on air with its Eq. (1), T = 2^SF/BW x (preamble + payload symbols), which is this formula;"
        );
        out!(
            o,
            "      it plots curves, not numbers, so there is no table of paper values to print beside ours."
        );
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Above 255 B the plaintext needs two packets, like every algorithm row:
    /// fragments of 2 + 253 and 2 + 147 bytes; at EU868 DR0, 9 frames of 49
    /// message bytes beside their header.
    #[test]
    fn a_long_plaintext_counts_every_packet() {
        let r = run(&Options {
            quick: true,
            bytes: 400,
        })
        .unwrap();
        assert_eq!(r.plaintext.sf7.packets, 2);
        assert_eq!(r.plaintext.dr0_frames, 9);
        let (_, two) = airtime_ms(7, 400).unwrap();
        let one = airtime_ms(7, 255).unwrap().1 + airtime_ms(7, 149).unwrap().1;
        assert_eq!(r.plaintext.sf7.ms, Some(two));
        assert!((two - one).abs() < 1e-9);
        assert!(r.text().contains("2x:"));
    }

    /// The time-on-air claim follows the formula; the device claims wait for a device.
    #[test]
    fn the_claim_judge_separates_what_airtime_can_judge() {
        let f = judge(&paper().unwrap());
        let get = |id: &str| f.iter().find(|x| x.id == id).expect(id);
        assert_eq!(get("sf12_size_sensitive").verdict, Verdict::Agrees);
        assert!(get("sf12_size_sensitive").ours.contains("SF12"));
        assert_eq!(
            get("encryption_time_equals_toa").verdict,
            Verdict::NotJudged
        );
    }
}
