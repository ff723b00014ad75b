//! `ciphermeter reproduce serialization`: study 001, Tables IV and V. Four
//! structured samples (1.5, 2.1, 3.0, 3.5 KB as pretty JSON) serialized four
//! ways, encrypted and decrypted with 20 cipher/mode pairs in libmcrypt's
//! meanings; total time over the four samples per scheme, and the reduction
//! from scheme 1 (JSON pretty) to scheme 4 (YAML minified).

use std::time::Duration;

use catalogue::{Entry, Padding, Params};
use clap::Args as ClapArgs;
use measure::{Config, Sampler};
use payload::{Format, RECORD_SIZES, sized_record};
use serde::Deserialize;
use serde_json::json;

use crate::error::CliError;

const PAPER: &str = include_str!("../../../../../data/studies/001_serialization.json");

#[derive(Deserialize)]
struct Paper {
    encrypt: Vec<PaperRow>,
    decrypt: Vec<PaperRow>,
    average_reduction_pct: Averages,
}

#[derive(Deserialize)]
struct PaperRow {
    no: u32,
    cipher: String,
    mode_printed: String,
    mcrypt: String,
    total_ns: [f64; 4],
    reduction_pct: f64,
}

#[derive(Deserialize)]
struct Averages {
    encrypt: f64,
    decrypt: f64,
    aes_mean: f64,
}

#[derive(ClapArgs)]
pub struct Args {
    /// Seconds, not minutes: very short samples (for CI; numbers are rough).
    #[arg(long)]
    quick: bool,
    #[arg(long, value_enum, default_value = "table")]
    format: crate::commands::linkdata::Format,
}

/// The study's key: 32 bytes for every cipher (AES-256, Serpent-256, Rijndael-256, Blowfish-256).
const KEY: [u8; 32] = *b"ciphermeter-study-001-key-32-byt";

struct Row {
    paper: usize,
    entry: &'static Entry,
    /// Total ns over the four samples, per scheme; encrypt then decrypt.
    encrypt: [f64; 4],
    decrypt: [f64; 4],
}

fn reduction(totals: &[f64; 4]) -> f64 {
    (totals[0] - totals[3]) / totals[0] * 100.0
}

fn config(quick: bool) -> Config {
    if quick {
        Config {
            time: Duration::from_millis(2),
            warmup: Duration::from_millis(1),
            min_samples: 3,
            max_samples: 10,
            min_sample_time: Duration::from_micros(20),
        }
    } else {
        Config::with_time(Duration::from_millis(40))
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    let json_out = args.format == crate::commands::linkdata::Format::Json;
    let paper: Paper = serde_json::from_str(PAPER)
        .map_err(|e| CliError::failed(format!("study 001 data: {e}")))?;
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
        .map_err(CliError::failed)?;

    let mut sampler = Sampler::new(config(args.quick), false);
    let mut rows = Vec::new();
    for (i, p) in paper.encrypt.iter().enumerate() {
        let entry = catalogue::catalogue().resolve(&p.mcrypt, Some(KEY.len()))?;
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
            paper: i,
            entry,
            encrypt: [0.0; 4],
            decrypt: [0.0; 4],
        };
        for (s, scheme_pts) in plaintexts.iter().enumerate() {
            for pt in scheme_pts {
                let mut ct = Vec::new();
                entry.cipher(None, key)?.encrypt(&params, pt, &mut ct)?;
                // As the study's EncryptAlg(passphrase, data): key setup is part of each call.
                let mut out = Vec::with_capacity(ct.len() + 32);
                let enc = sampler
                    .measure(|| {
                        out.clear();
                        entry
                            .cipher(None, key)
                            .and_then(|mut c| c.encrypt(&params, pt, &mut out))
                            .is_ok()
                    })
                    .map_err(|_| CliError::Interrupted("interrupted while measuring".into()))?;
                let dec = sampler
                    .measure(|| {
                        out.clear();
                        entry
                            .cipher(None, key)
                            .and_then(|mut c| c.decrypt(&params, &ct, &mut out))
                            .is_ok()
                    })
                    .map_err(|_| CliError::Interrupted("interrupted while measuring".into()))?;
                row.encrypt[s] += enc.ns.median;
                row.decrypt[s] += dec.ns.median;
            }
        }
        rows.push(row);
    }

    if json_out {
        print_json(&paper, &rows, &plaintexts);
    } else {
        print_tables(&paper, &rows, &plaintexts, args.quick);
    }
    Ok(())
}

fn print_tables(paper: &Paper, rows: &[Row], plaintexts: &[Vec<Vec<u8>>], quick: bool) {
    println!("Study 001 (Setiawan & Nuruzzaman): serialization × cipher × mode, Tables IV and V");
    println!(
        "Samples: structured device records of 1.5, 2.1, 3.0 and 3.5 KB as pretty JSON (study's own data unpublished)."
    );
    println!();
    println!(
        "{:<16} {:>8} {:>8} {:>8} {:>8}  total bytes",
        "scheme", "1.5 KB", "2.1 KB", "3.0 KB", "3.5 KB"
    );
    for (format, pts) in Format::STUDY_001.iter().zip(plaintexts) {
        let sizes: Vec<usize> = pts.iter().map(Vec::len).collect();
        println!(
            "{:<16} {:>8} {:>8} {:>8} {:>8}  {}",
            format!(
                "{} {}",
                Format::STUDY_001.iter().position(|f| f == format).unwrap() + 1,
                format
            ),
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
        println!();
        println!(
            "{title}, total time over the four samples in ns (ours on this machine | paper, Orange Pi Zero)"
        );
        println!(
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
        for row in rows {
            let p = &paper_rows[row.paper];
            let t = if encrypt { &row.encrypt } else { &row.decrypt };
            println!(
                "{:>3} {:<13} {:<5} {:<22} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>7.2} | {:>10.0} {:>10.0} {:>7.2}",
                p.no,
                p.cipher,
                p.mode_printed,
                row.entry.id,
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
        let ours: Vec<f64> = rows
            .iter()
            .map(|r| reduction(if encrypt { &r.encrypt } else { &r.decrypt }))
            .collect();
        let aes: Vec<f64> = rows
            .iter()
            .zip(&ours)
            .filter(|(r, _)| r.entry.id.starts_with("aes-"))
            .map(|(_, v)| *v)
            .collect();
        let theirs = if encrypt {
            paper.average_reduction_pct.encrypt
        } else {
            paper.average_reduction_pct.decrypt
        };
        println!(
            "mean reduction S1→S4: ours {:.2}% | paper {theirs:.2}%;  AES-256 rows: ours {:.2}% | paper about {:.0}%",
            mean(&ours),
            mean(&aes),
            paper.average_reduction_pct.aes_mean
        );
    }
    println!();
    println!(
        "libmcrypt meanings: ofb/cfb feed back 8 bits (catalogue …-ofb8/-cfb8), nofb/ncfb a full block."
    );
    println!(
        "Each call includes the key schedule, as the study's EncryptAlg(passphrase, data) did; ECB/CBC pad with PKCS#7."
    );
    println!(
        "⚠ ECB (rows 3, 5, 8, 15) and Blowfish's 64-bit block are measured only; `seal` refuses them without --allow-insecure."
    );
    if quick {
        println!(
            "note: --quick takes very short samples; rerun without it for numbers worth comparing."
        );
    }
    if cfg!(debug_assertions) {
        println!("note: this is a debug build; times are far slower than a release build's.");
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn print_json(paper: &Paper, rows: &[Row], plaintexts: &[Vec<Vec<u8>>]) {
    let out: Vec<_> = rows
        .iter()
        .map(|r| {
            let (pe, pd) = (&paper.encrypt[r.paper], &paper.decrypt[r.paper]);
            json!({
                "no": pe.no, "cipher": pe.cipher, "mode": pe.mode_printed, "catalogue_id": r.entry.id,
                "encrypt_total_ns": r.encrypt, "encrypt_reduction_pct": reduction(&r.encrypt),
                "decrypt_total_ns": r.decrypt, "decrypt_reduction_pct": reduction(&r.decrypt),
                "paper_encrypt_total_ns": pe.total_ns, "paper_encrypt_reduction_pct": pe.reduction_pct,
                "paper_decrypt_total_ns": pd.total_ns, "paper_decrypt_reduction_pct": pd.reduction_pct,
            })
        })
        .collect();
    let sizes: Vec<Vec<usize>> = plaintexts
        .iter()
        .map(|p| p.iter().map(Vec::len).collect())
        .collect();
    let doc = json!({ "study": "001", "scheme_sample_bytes": sizes, "rows": out });
    println!(
        "{}",
        serde_json::to_string_pretty(&doc).expect("JSON values serialize")
    );
}
