//! Study 001, Tables IV and V: four structured samples (1.5, 2.1, 3.0, 3.5 KB
//! as pretty JSON) serialized four ways, encrypted and decrypted with 20
//! cipher/mode pairs in libmcrypt's meanings; total time over the four samples
//! per scheme, and the reduction from scheme 1 (JSON pretty) to scheme 4 (YAML
//! minified).

use catalogue::{Entry, Padding, Params};
use cost::Error;
use measure::Sampler;
use payload::{Format, RECORD_SIZES, sized_record};
use serde::{Deserialize, Serialize};

use crate::finding::{Finding, Verdict};
use crate::{out, paper};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Paper {
    pub source: String,
    pub encrypt: Vec<PaperRow>,
    pub decrypt: Vec<PaperRow>,
    pub average_reduction_pct: Averages,
    pub claims: Vec<paper::Claim>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PaperRow {
    pub no: u32,
    pub cipher: String,
    pub mode_printed: String,
    pub mcrypt: String,
    pub total_ns: [f64; 4],
    pub reduction_pct: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Averages {
    pub encrypt: f64,
    pub decrypt: f64,
    pub aes_mean: f64,
}

pub struct Options {
    /// Very short samples: seconds, not minutes; numbers are rough.
    pub quick: bool,
}

/// The study's key: 32 bytes for every cipher (AES-256, Serpent-256, Rijndael-256, Blowfish-256).
const KEY: [u8; 32] = *b"ciphermeter-study-001-key-32-byt";

/// One cipher/mode row: total ns over the four samples per serialization scheme.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub no: u32,
    pub cipher: String,
    pub mode: String,
    pub catalogue_id: String,
    pub encrypt_total_ns: [f64; 4],
    pub decrypt_total_ns: [f64; 4],
}

impl Row {
    pub fn encrypt_reduction_pct(&self) -> f64 {
        reduction(&self.encrypt_total_ns)
    }
    pub fn decrypt_reduction_pct(&self) -> f64 {
        reduction(&self.decrypt_total_ns)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub ran_on: String,
    pub paper: Paper,
    /// Serialized sizes: `[scheme][sample]` in bytes.
    pub scheme_sample_bytes: Vec<Vec<usize>>,
    pub scheme_names: Vec<String>,
    pub rows: Vec<Row>,
    pub quick: bool,
    pub findings: Vec<Finding>,
}

pub fn reduction(totals: &[f64; 4]) -> f64 {
    (totals[0] - totals[3]) / totals[0] * 100.0
}

pub fn paper() -> Result<Paper, Error> {
    paper::parse(paper::SERIALIZATION, "001")
}

/// Times `op` and fails if any call of it failed: a failing decrypt is an
/// error, never a fast success.
fn timed(
    sampler: &mut Sampler,
    mut op: impl FnMut() -> Result<(), catalogue::Error>,
) -> Result<f64, Error> {
    let mut failure = None;
    let m = sampler
        .measure(|| {
            if let Err(e) = op() {
                failure.get_or_insert(e);
            }
        })
        .map_err(|_| Error::interrupted())?;
    match failure {
        Some(e) => Err(Error::failed(format!("a timed call failed: {e}"))),
        None => Ok(m.ns.median),
    }
}

pub fn run(opts: &Options) -> Result<Report, Error> {
    let paper = paper()?;
    let samples: Vec<_> = RECORD_SIZES
        .iter()
        .map(|kb| sized_record((kb * 1024.0).round() as usize, 1))
        .collect();
    // plaintexts[scheme][sample]
    let plaintexts: Vec<Vec<Vec<u8>>> = Format::STUDY_001
        .iter()
        .map(|f| {
            samples
                .iter()
                .map(|s| f.serialize(s))
                .collect::<Result<_, _>>()
        })
        .collect::<Result<_, _>>()
        .map_err(Error::failed)?;

    let mut sampler = Sampler::new(crate::sampling(opts.quick, 40), false);
    let mut rows = Vec::new();
    for p in &paper.encrypt {
        let entry: &Entry = catalogue::catalogue().resolve(&p.mcrypt, Some(KEY.len()))?;
        let key = &KEY[..entry
            .key_sizes
            .iter()
            .copied()
            .filter(|&k| k <= 32)
            .max()
            .unwrap_or(32)];
        let iv = vec![0x5Au8; entry.nonce_sizes.first().copied().unwrap_or(0)];
        let params = Params {
            iv: &iv,
            aad: &[],
            padding: Padding::Pkcs7,
        };
        let mut row = Row {
            no: p.no,
            cipher: p.cipher.clone(),
            mode: p.mode_printed.clone(),
            catalogue_id: entry.id.clone(),
            encrypt_total_ns: [0.0; 4],
            decrypt_total_ns: [0.0; 4],
        };
        for (s, scheme_pts) in plaintexts.iter().enumerate() {
            for pt in scheme_pts {
                let mut ct = Vec::new();
                entry.cipher(None, key)?.encrypt(&params, pt, &mut ct)?;
                // As the study's EncryptAlg(passphrase, data): key setup is part of each call.
                let mut out = Vec::with_capacity(ct.len() + 32);
                row.encrypt_total_ns[s] += timed(&mut sampler, || {
                    out.clear();
                    entry
                        .cipher(None, key)
                        .and_then(|mut c| c.encrypt(&params, pt, &mut out))
                })?;
                row.decrypt_total_ns[s] += timed(&mut sampler, || {
                    out.clear();
                    entry
                        .cipher(None, key)
                        .and_then(|mut c| c.decrypt(&params, &ct, &mut out))
                })?;
            }
        }
        rows.push(row);
    }
    let findings = judge(&paper, &rows);
    Ok(Report {
        ran_on: crate::this_host(),
        scheme_sample_bytes: plaintexts
            .iter()
            .map(|p| p.iter().map(Vec::len).collect())
            .collect(),
        scheme_names: Format::STUDY_001.iter().map(|f| f.to_string()).collect(),
        paper,
        rows,
        quick: opts.quick,
        findings,
    })
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Mean reduction over all rows, and over the AES rows.
pub fn mean_reductions(rows: &[Row], encrypt: bool) -> (f64, f64) {
    let of = |r: &Row| {
        if encrypt {
            r.encrypt_reduction_pct()
        } else {
            r.decrypt_reduction_pct()
        }
    };
    let all: Vec<f64> = rows.iter().map(of).collect();
    let aes: Vec<f64> = rows
        .iter()
        .filter(|r| r.catalogue_id.starts_with("aes-"))
        .map(of)
        .collect();
    (mean(&all), mean(&aes))
}

/// A reduction agrees when it points the same way and is within a factor of
/// two of the paper's: the direction is the claim, the size its strength.
fn same_effect(ours: f64, paper: f64) -> bool {
    ours > 0.0 && ours >= paper / 2.0 && ours <= paper * 2.0
}

pub fn judge(paper: &Paper, rows: &[Row]) -> Vec<Finding> {
    let (enc, enc_aes) = mean_reductions(rows, true);
    let (dec, dec_aes) = mean_reductions(rows, false);
    let aes = mean(&[enc_aes, dec_aes]);
    let avg = &paper.average_reduction_pct;
    crate::finding::judge_claims(&paper.claims, |id| match id {
        "yaml_min_faster_encrypt" => (
            Verdict::from_ok(same_effect(enc, avg.encrypt)),
            format!(
                "mean encrypt reduction JSON pretty → YAML minified {enc:.2} % (paper {:.2} %)",
                avg.encrypt
            ),
        ),
        "yaml_min_faster_decrypt" => (
            Verdict::from_ok(same_effect(dec, avg.decrypt)),
            format!(
                "mean decrypt reduction {dec:.2} % (paper {:.2} %)",
                avg.decrypt
            ),
        ),
        "aes_reduction" => (
            Verdict::from_ok(same_effect(aes, avg.aes_mean) && aes > enc.max(dec)),
            format!(
                "AES rows {aes:.2} % on average (paper about {:.0} %), against {enc:.2} % for all rows' encryption",
                avg.aes_mean
            ),
        ),
        other => (Verdict::NotJudged, format!("no check for claim {other}")),
    })
}

impl Report {
    pub fn text(&self) -> String {
        let (paper, rows) = (&self.paper, &self.rows);
        let mut o = String::new();
        out!(
            o,
            "Study 001 (Setiawan & Nuruzzaman): serialization × cipher × mode, Tables IV and V"
        );
        out!(
            o,
            "Samples: structured device records of 1.5, 2.1, 3.0 and 3.5 KB as pretty JSON (study's own data unpublished)."
        );
        out!(o);
        out!(
            o,
            "{:<16} {:>8} {:>8} {:>8} {:>8}  total bytes",
            "scheme",
            "1.5 KB",
            "2.1 KB",
            "3.0 KB",
            "3.5 KB"
        );
        for (i, (name, sizes)) in self
            .scheme_names
            .iter()
            .zip(&self.scheme_sample_bytes)
            .enumerate()
        {
            out!(
                o,
                "{:<16} {:>8} {:>8} {:>8} {:>8}  {}",
                format!("{} {name}", i + 1),
                sizes[0],
                sizes[1],
                sizes[2],
                sizes[3],
                sizes.iter().sum::<usize>()
            );
        }
        for (title, encrypt) in [("Table IV: encrypt", true), ("Table V: decrypt", false)] {
            let paper_rows = if encrypt {
                &paper.encrypt
            } else {
                &paper.decrypt
            };
            out!(o);
            out!(
                o,
                "{title}, total time over the four samples in ns (ours on this machine | paper, Orange Pi Zero)"
            );
            out!(
                o,
                "{:>3} {:<13} {:<5} {:<22} {:>10} {:>10} {:>10} {:>10} {:>7} | {:>10} {:>10} {:>7}",
                "No",
                "cipher",
                "mode",
                "catalogue id",
                "S1",
                "S2",
                "S3",
                "S4",
                "red.%",
                "paper S1",
                "paper S4",
                "red.%"
            );
            for (row, p) in rows.iter().zip(paper_rows) {
                let t = if encrypt {
                    &row.encrypt_total_ns
                } else {
                    &row.decrypt_total_ns
                };
                out!(
                    o,
                    "{:>3} {:<13} {:<5} {:<22} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>7.2} | {:>10.0} {:>10.0} {:>7.2}",
                    p.no,
                    p.cipher,
                    p.mode_printed,
                    row.catalogue_id,
                    t[0],
                    t[1],
                    t[2],
                    t[3],
                    reduction(t),
                    p.total_ns[0],
                    p.total_ns[3],
                    p.reduction_pct
                );
            }
            let (ours, aes) = mean_reductions(rows, encrypt);
            let theirs = if encrypt {
                paper.average_reduction_pct.encrypt
            } else {
                paper.average_reduction_pct.decrypt
            };
            out!(
                o,
                "mean reduction S1→S4: ours {ours:.2}% | paper {theirs:.2}%;  AES-256 rows: ours {aes:.2}% | paper about {:.0}%",
                paper.average_reduction_pct.aes_mean
            );
        }
        out!(o);
        out!(o, "The paper's findings beside ours:");
        o.push_str(&crate::finding::text(&self.findings));
        out!(o);
        out!(
            o,
            "libmcrypt meanings: ofb/cfb feed back 8 bits (catalogue …-ofb8/-cfb8), nofb/ncfb a full block."
        );
        out!(
            o,
            "Each call includes the key schedule, as the study's EncryptAlg(passphrase, data) did; ECB/CBC pad with PKCS#7."
        );
        out!(
            o,
            "⚠ ECB (rows 3, 5, 8, 15) and Blowfish's 64-bit block are measured only; `seal` refuses them without --allow-insecure."
        );
        if self.quick {
            out!(
                o,
                "note: --quick takes very short samples; rerun without it for numbers worth comparing."
            );
        }
        if cfg!(debug_assertions) {
            out!(
                o,
                "note: this is a debug build; times are far slower than a release build's."
            );
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, enc: [f64; 4], dec: [f64; 4]) -> Row {
        Row {
            no: 1,
            cipher: "x".into(),
            mode: "CBC".into(),
            catalogue_id: id.into(),
            encrypt_total_ns: enc,
            decrypt_total_ns: dec,
        }
    }

    #[test]
    fn the_claim_judge_follows_the_table() {
        let paper = paper().unwrap();
        // AES halves, the other cipher gains 20 %: the paper's picture.
        let agree = vec![
            row(
                "aes-256-cbc",
                [100.0, 60.0, 55.0, 50.0],
                [100.0, 60.0, 55.0, 48.0],
            ),
            row(
                "bf-cbc",
                [100.0, 90.0, 85.0, 92.0],
                [100.0, 95.0, 90.0, 94.0],
            ),
        ];
        let f = judge(&paper, &agree);
        assert!(f.iter().all(|f| f.verdict == Verdict::Agrees), "{f:#?}");
        // Minified input slower than pretty: every claim differs.
        let differ = vec![row(
            "aes-256-cbc",
            [100.0, 110.0, 120.0, 130.0],
            [100.0, 110.0, 120.0, 130.0],
        )];
        let f = judge(&paper, &differ);
        assert!(f.iter().all(|f| f.verdict == Verdict::Differs), "{f:#?}");
    }

    /// A failing call inside the timed closure is an error, not a time.
    #[test]
    fn a_failing_decrypt_is_not_timed_as_a_success() {
        let mut sampler = Sampler::new(crate::sampling(true, 40), false);
        let entry = catalogue::catalogue().get("aes-256-cbc").unwrap();
        let key = [7u8; 32];
        let iv = [0u8; 16];
        let params = Params {
            iv: &iv,
            aad: &[],
            padding: Padding::Pkcs7,
        };
        let mut out = Vec::new();
        // 15 bytes is not a whole number of AES blocks: every decrypt fails.
        let err = timed(&mut sampler, || {
            out.clear();
            entry
                .cipher(None, &key)
                .and_then(|mut c| c.decrypt(&params, &[0u8; 15], &mut out))
        })
        .unwrap_err();
        assert!(err.to_string().contains("failed"), "{err}");
    }
}
