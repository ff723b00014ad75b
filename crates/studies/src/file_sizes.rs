//! Study 002: eight symmetric ciphers on 1-128 MiB "files", execution time,
//! CPU and memory, beside the paper's Raspberry Pi 3 values.
//!
//! The data is streamed through one fixed 64 KiB buffer with
//! `Cipher::streaming`, so no file is ever held in memory, let alone twice;
//! the peak heap of each run is measured with the counting allocator to
//! show it. Disk I/O is left out: the paper's times include reading and
//! writing files on an SD card, ours are the cipher alone.

use std::collections::BTreeMap;
use std::time::Instant;

use catalogue::{Backend, Direction, Padding, Params};
use cost::Error;
use measure::alloc::HeapProbe;
use measure::environment::{self, Environment};
use measure::sizes::format_size;
use measure::workload::pattern;
use serde::{Deserialize, Serialize};

use crate::finding::{Finding, Verdict};
use crate::paper;

pub const SCHEMA: &str = "ciphermeter.file-sizes/1";
/// The fixed buffer every byte passes through.
pub const BUFFER: usize = 64 * 1024;
pub const MIB: u64 = 1 << 20;

pub struct Options {
    /// Largest file size to run (the paper goes to 128 MiB).
    pub max_size: u64,
    /// Backend to use; a cipher without it is skipped with the reason, never
    /// measured with another backend.
    pub backend: Option<Backend>,
}

impl Options {
    /// As `reproduce file-sizes` takes them: the largest size as typed
    /// (16MiB; default 128 MiB, 8 MiB when `quick`) and a backend's name.
    pub fn from_flags(
        max_size: Option<&str>,
        quick: bool,
        backend: Option<&str>,
    ) -> Result<Options, Error> {
        let max_size = match max_size {
            Some(text) => measure::sizes::parse_size(text).map_err(Error::invalid)?,
            None if quick => 8 * MIB,
            None => 128 * MIB,
        };
        let backend = backend.map(Backend::parse).transpose()?;
        Ok(Options { max_size, backend })
    }
}

/// The paper's ciphers: its name, our catalogue ids for ECB and CBC (or the
/// stream cipher), and the key length of its Table II.
struct StudyCipher {
    paper: &'static str,
    ecb: Option<&'static str>,
    cbc: Option<&'static str>,
    stream: Option<&'static str>,
    key_bytes: usize,
}

const CIPHERS: &[StudyCipher] = &[
    StudyCipher {
        paper: "aes-256",
        ecb: Some("aes-256-ecb"),
        cbc: Some("aes-256-cbc"),
        stream: None,
        key_bytes: 32,
    },
    StudyCipher {
        paper: "des",
        ecb: Some("des-ecb"),
        cbc: Some("des-cbc"),
        stream: None,
        key_bytes: 8,
    },
    StudyCipher {
        paper: "3des",
        ecb: Some("des-ede3-ecb"),
        cbc: Some("des-ede3-cbc"),
        stream: None,
        key_bytes: 24,
    },
    StudyCipher {
        paper: "blowfish",
        ecb: Some("bf-ecb"),
        cbc: Some("bf-cbc"),
        stream: None,
        key_bytes: 16,
    },
    StudyCipher {
        paper: "twofish",
        ecb: Some("twofish-256-ecb"),
        cbc: Some("twofish-256-cbc"),
        stream: None,
        key_bytes: 32,
    },
    StudyCipher {
        paper: "rc2",
        ecb: Some("rc2-ecb"),
        cbc: Some("rc2-cbc"),
        stream: None,
        key_bytes: 16,
    },
    StudyCipher {
        paper: "rc4",
        ecb: None,
        cbc: None,
        stream: Some("rc4"),
        key_bytes: 16,
    },
    StudyCipher {
        paper: "chacha20",
        ecb: None,
        cbc: None,
        stream: Some("chacha20"),
        key_bytes: 32,
    },
];

/// The paper's Tables III, IV and VI (data/studies/002_file_sizes.json).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Paper {
    pub source: String,
    pub sizes_mib: Vec<u64>,
    pub seconds: PaperSeconds,
    pub paper_memory_percent_of_ram: f64,
    pub claims: Vec<paper::Claim>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PaperSeconds {
    pub ecb: BTreeMap<String, Vec<Option<f64>>>,
    pub cbc: BTreeMap<String, Vec<Option<f64>>>,
    pub stream: BTreeMap<String, Vec<Option<f64>>>,
}

impl Paper {
    pub fn seconds(&self, cipher: &str, mode: &str, size: u64) -> Option<f64> {
        let table = match mode {
            "ecb" => &self.seconds.ecb,
            "cbc" => &self.seconds.cbc,
            _ => &self.seconds.stream,
        };
        let i = self.sizes_mib.iter().position(|&m| m * MIB == size)?;
        table.get(cipher)?.get(i).copied().flatten()
    }
}

pub fn paper() -> Result<Paper, Error> {
    paper::parse(paper::FILE_SIZES, "002")
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    pub cipher: String,
    pub mode: String,
    pub algorithm: String,
    pub backend: String,
    pub size_bytes: u64,
    /// Median of `repeats` runs of encrypting the whole file.
    pub seconds: f64,
    pub repeats: u32,
    pub throughput_mb_s: f64,
    /// Process CPU time over wall time, in percent (100 = one core busy);
    /// null when the process's CPU time could not be read.
    pub cpu_percent: Option<f64>,
    /// Peak heap above the level before the run; null without the counting allocator.
    pub heap_peak_bytes: Option<u64>,
    /// Peak heap as a share of the machine's RAM (the paper's "memory consumption").
    pub memory_percent: Option<f64>,
    pub paper_pi3_seconds: Option<f64>,
    /// Paper time over ours: how many times faster this machine is.
    pub speedup_vs_pi3: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub ran_on: String,
    pub paper: Paper,
    pub findings: Vec<Finding>,
    pub environment: Environment,
    pub buffer_bytes: usize,
    pub max_rss_bytes: Option<u64>,
    pub interrupted: bool,
    pub skipped: Vec<String>,
    pub rows: Vec<Row>,
}

/// Runs every cipher at every size up to the cap; `on_row` hears each row as
/// it finishes (the table streams). An interruption keeps the finished rows.
pub fn run(opts: &Options, on_row: &mut dyn FnMut(&Row)) -> Result<Report, Error> {
    let paper = paper()?;
    let sizes: Vec<u64> = paper
        .sizes_mib
        .iter()
        .map(|m| m * MIB)
        .filter(|&s| s <= opts.max_size)
        .collect();
    if sizes.is_empty() {
        return Err(Error::invalid(format!(
            "--max-size {}: the smallest file of the study is 1 MiB",
            format_size(opts.max_size)
        )));
    }
    let environment = Environment::capture(None, environment::perf_status());
    let memory = environment.memory_total_bytes;
    let mut report = Report {
        schema: SCHEMA.into(),
        ran_on: crate::this_host(),
        findings: Vec::new(),
        environment,
        buffer_bytes: BUFFER,
        max_rss_bytes: None,
        interrupted: false,
        skipped: Vec::new(),
        rows: Vec::new(),
        paper: paper.clone(),
    };
    'all: for cipher in CIPHERS {
        let modes = [
            ("ecb", cipher.ecb),
            ("cbc", cipher.cbc),
            ("stream", cipher.stream),
        ];
        for (mode, id) in modes.into_iter().filter_map(|(m, id)| id.map(|id| (m, id))) {
            let Some(entry) = catalogue::catalogue().get(id) else {
                report
                    .skipped
                    .push(format!("{id}: not in the catalogue yet"));
                continue;
            };
            let chosen = match opts.backend {
                Some(b) if entry.backends().contains(&b) => b,
                Some(b) => {
                    report
                        .skipped
                        .push(format!("{id}: no {b} backend (it has {})", backends(entry)));
                    continue;
                }
                None => entry.backends()[0],
            };
            for &size in &sizes {
                let Some(run) = time_file(entry, chosen, cipher.key_bytes, size)? else {
                    report.interrupted = true;
                    break 'all;
                };
                let paper_s = paper.seconds(cipher.paper, mode, size);
                let row = Row {
                    cipher: cipher.paper.into(),
                    mode: mode.into(),
                    algorithm: entry.id.clone(),
                    backend: chosen.to_string(),
                    size_bytes: size,
                    seconds: run.seconds,
                    repeats: run.repeats,
                    throughput_mb_s: size as f64 / run.seconds / 1e6,
                    cpu_percent: run.cpu_percent,
                    heap_peak_bytes: run.heap_peak,
                    memory_percent: run
                        .heap_peak
                        .zip(memory)
                        .map(|(h, m)| 100.0 * h as f64 / m as f64),
                    paper_pi3_seconds: paper_s,
                    speedup_vs_pi3: paper_s.map(|p| p / run.seconds),
                };
                on_row(&row);
                report.rows.push(row);
            }
        }
    }
    if report.rows.is_empty() && !report.interrupted {
        return Err(Error::invalid(format!(
            "no cipher of the study could run: {}",
            report.skipped.join("; ")
        )));
    }
    report.max_rss_bytes = measure::cpu_time::process_usage().map(|u| u.max_rss_bytes);
    report.findings = judge(&paper, &report.rows);
    Ok(report)
}

fn backends(entry: &catalogue::Entry) -> String {
    entry
        .backends()
        .iter()
        .map(|b| b.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Total seconds per cipher over the sizes every cipher of `rows` ran, with
/// its mode picked by `keep`.
fn totals(rows: &[Row], keep: impl Fn(&Row) -> bool) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for r in rows.iter().filter(|r| keep(r)) {
        match out.iter_mut().find(|(c, _)| *c == r.cipher) {
            Some((_, t)) => *t += r.seconds,
            None => out.push((r.cipher.clone(), r.seconds)),
        }
    }
    out.sort_by(|a, b| a.1.total_cmp(&b.1));
    out
}

/// The paper's statements against our rows.
pub fn judge(paper: &Paper, rows: &[Row]) -> Vec<Finding> {
    let block = totals(rows, |r| r.mode == "cbc");
    let all = totals(rows, |r| r.mode != "ecb");
    let of = |list: &[(String, f64)], c: &str| list.iter().find(|(n, _)| n == c).map(|(_, t)| *t);
    let names = |list: &[(String, f64)]| {
        list.iter()
            .map(|(n, t)| format!("{n} {t:.3} s"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    crate::finding::judge_claims(&paper.claims, |id| match id {
        _ if rows.is_empty() => (Verdict::NotJudged, "no rows were measured".into()),
        "twofish_fastest_block" => (
            Verdict::from_ok(block.first().is_some_and(|(n, _)| n == "twofish")),
            format!("block ciphers in CBC, fastest first: {}", names(&block)),
        ),
        "streams_compete_with_twofish" => match of(&all, "twofish") {
            Some(tf) => {
                let close = ["rc4", "chacha20"]
                    .iter()
                    .all(|s| of(&all, s).is_some_and(|t| t <= tf * 1.5));
                (
                    Verdict::from_ok(close),
                    format!(
                        "RC4 {:.3} s and ChaCha20 {:.3} s against Twofish-CBC {tf:.3} s (competing: at most 1.5× Twofish's time)",
                        of(&all, "rc4").unwrap_or(f64::NAN),
                        of(&all, "chacha20").unwrap_or(f64::NAN)
                    ),
                )
            }
            None => (Verdict::NotJudged, "Twofish was not measured".into()),
        },
        "chacha20_quickest" => (
            Verdict::from_ok(all.first().is_some_and(|(n, _)| n == "chacha20")),
            format!("CBC and stream ciphers, fastest first: {}", names(&all)),
        ),
        "memory_40_percent" => {
            let peak = rows
                .iter()
                .filter_map(|r| r.memory_percent)
                .fold(0.0, f64::max);
            (
                Verdict::Compare,
                format!(
                    "streaming through a {} KiB buffer, the cipher's peak heap is at most {peak:.4} % of this machine's RAM, against the paper's {} % of the Pi's (its program read whole files)",
                    BUFFER / 1024,
                    paper.paper_memory_percent_of_ram
                ),
            )
        }
        other => (Verdict::NotJudged, format!("no check for claim {other}")),
    })
}

struct FileRun {
    seconds: f64,
    repeats: u32,
    cpu_percent: Option<f64>,
    heap_peak: Option<u64>,
}

/// Encrypts `size` bytes through the fixed buffer; small files three times
/// (median). None when interrupted.
fn time_file(
    entry: &'static catalogue::Entry,
    backend: Backend,
    key_len: usize,
    size: u64,
) -> Result<Option<FileRun>, Error> {
    let repeats = if size <= 8 * MIB { 3 } else { 1 };
    let key = pattern(key_len, 0x11);
    let iv = pattern(entry.nonce_sizes.first().copied().unwrap_or(0), 0x77);
    let padding = if entry.mode.is_some_and(|m| m.is_padded()) {
        Padding::Pkcs7
    } else {
        Padding::None
    };
    let params = Params {
        iv: &iv,
        aad: &[],
        padding,
    };
    let heap_counted = measure::alloc::is_installed();
    let mut times = Vec::new();
    let (mut cpu, mut wall, mut peak) = (Some(0.0), 0.0, 0u64);
    for _ in 0..repeats {
        let usage = measure::cpu_time::process_usage();
        let probe = HeapProbe::start();
        let start = Instant::now();
        // Key setup and the buffer are part of the run, as in the paper's program.
        let cipher = entry.cipher(Some(backend), &key)?;
        let mut stream = cipher.streaming(&params, Direction::Encrypt)?;
        let granule = stream.granule().max(1);
        let mut buffer = pattern(BUFFER / granule * granule, 0x33);
        let mut left = size as usize;
        while left >= buffer.len() {
            if measure::interrupt::stop_requested() {
                return Ok(None);
            }
            stream.update(&mut buffer)?;
            left -= buffer.len();
        }
        let mut last = Vec::with_capacity(left + 64);
        stream.finish(&buffer[..left], &mut last)?;
        std::hint::black_box(&last);
        let elapsed = start.elapsed().as_secs_f64();
        drop((cipher, buffer, last));
        let heap = probe.finish();
        let used = measure::cpu_time::process_usage()
            .zip(usage)
            .map(|(b, a)| (b.cpu() - a.cpu()).as_secs_f64());
        times.push(elapsed);
        wall += elapsed;
        // One unreadable CPU time makes the share unknown, not zero.
        cpu = cpu.zip(used).map(|(a, b)| a + b);
        peak = peak.max(heap.peak_bytes);
    }
    times.sort_by(f64::total_cmp);
    Ok(Some(FileRun {
        seconds: times[times.len() / 2],
        repeats,
        cpu_percent: cpu.map(|c| 100.0 * c / wall),
        heap_peak: heap_counted.then_some(peak),
    }))
}

pub fn table_header() -> String {
    format!(
        "{:<9} {:<6} {:<9} {:>7} {:>10} {:>9} {:>6} {:>10} {:>7} {:>11} {:>9}\n{}",
        "cipher",
        "mode",
        "backend",
        "size",
        "seconds",
        "MB/s",
        "CPU%",
        "heap peak",
        "mem%",
        "Pi 3 (s)",
        "speedup",
        "-".repeat(102)
    )
}

pub fn table_row(r: &Row) -> String {
    format!(
        "{:<9} {:<6} {:<9} {:>7} {:>10.4} {:>9.1} {:>6} {:>10} {:>7} {:>11} {:>9}",
        r.cipher,
        r.mode,
        r.backend,
        format_size(r.size_bytes),
        r.seconds,
        r.throughput_mb_s,
        r.cpu_percent.map_or("-".into(), |c| format!("{c:.0}")),
        r.heap_peak_bytes
            .map_or("-".into(), |b| format!("{:.1} KiB", b as f64 / 1024.0)),
        r.memory_percent.map_or("-".into(), |m| format!("{m:.4}")),
        r.paper_pi3_seconds
            .map_or("illegible".into(), |s| format!("{s:.4}")),
        r.speedup_vs_pi3.map_or("-".into(), |x| format!("{x:.0}x")),
    )
}

pub fn table_footer(report: &Report) -> String {
    let env = &report.environment;
    let mut text = format!(
        "\n{} ({} cores), {}; streamed through a {} buffer; process peak RSS {}.\n\
         Paper: Raspberry Pi 3, Tables III, IV and VI of study 002 (file I/O included; ours is the cipher alone).\n\
         The paper's only memory figure: 40% of the Pi's 1 GB on average; 'mem%' is our peak heap over this machine's RAM.",
        env.cpu_model,
        env.cores_logical,
        env.build_profile,
        format_size(report.buffer_bytes as u64),
        report.max_rss_bytes.map_or("unknown".into(), |b| format!(
            "{:.1} MiB",
            b as f64 / MIB as f64
        )),
    );
    for s in &report.skipped {
        text.push_str(&format!("\nskipped {s}"));
    }
    text.push_str("\n\nThe paper's findings beside ours:\n");
    text.push_str(&crate::finding::text(&report.findings));
    if env.build_profile != "release" {
        text.push_str(
            "\nwarning: a debug build; times are not representative (build with --release)",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cipher: &str, mode: &str, seconds: f64) -> Row {
        Row {
            cipher: cipher.into(),
            mode: mode.into(),
            algorithm: format!("{cipher}-{mode}"),
            backend: "rustcrypto".into(),
            size_bytes: MIB,
            seconds,
            repeats: 1,
            throughput_mb_s: 1.0 / seconds,
            cpu_percent: None,
            heap_peak_bytes: Some(70_000),
            memory_percent: Some(0.01),
            paper_pi3_seconds: None,
            speedup_vs_pi3: None,
        }
    }

    fn verdict(rows: &[Row], id: &str) -> Verdict {
        judge(&paper().unwrap(), rows)
            .into_iter()
            .find(|f| f.id == id)
            .unwrap()
            .verdict
    }

    #[test]
    fn the_claim_judge_follows_the_table() {
        // The paper's picture: Twofish the fastest block cipher, ChaCha20 fastest of all.
        let paper_like = vec![
            row("aes-256", "cbc", 0.31),
            row("twofish", "cbc", 0.27),
            row("rc4", "stream", 0.24),
            row("chacha20", "stream", 0.23),
        ];
        for id in [
            "twofish_fastest_block",
            "streams_compete_with_twofish",
            "chacha20_quickest",
        ] {
            assert_eq!(verdict(&paper_like, id), Verdict::Agrees, "{id}");
        }
        assert_eq!(verdict(&paper_like, "memory_40_percent"), Verdict::Compare);
        // With AES-NI, AES wins and RC4 falls far behind: all three differ.
        let modern = vec![
            row("aes-256", "cbc", 0.01),
            row("twofish", "cbc", 0.10),
            row("rc4", "stream", 0.20),
            row("chacha20", "stream", 0.02),
        ];
        for id in [
            "twofish_fastest_block",
            "streams_compete_with_twofish",
            "chacha20_quickest",
        ] {
            assert_eq!(verdict(&modern, id), Verdict::Differs, "{id}");
        }
    }

    /// An unreadable CPU time shows as unknown, never as 0 %; the backend is a column.
    #[test]
    fn the_table_shows_the_backend_and_no_invented_cpu_share() {
        let r = row("aes-256", "ecb", 0.5);
        let line = table_row(&r);
        assert!(line.contains("rustcrypto"), "{line}");
        let cells: Vec<&str> = line.split_whitespace().collect();
        // cipher, mode, backend, size (2 tokens), seconds, MB/s, CPU%
        assert_eq!(cells[7], "-", "{line}");
        assert!(table_header().contains("backend"));
        let measured = Row {
            cpu_percent: Some(99.6),
            ..r
        };
        assert_eq!(table_row(&measured).split_whitespace().nth(7), Some("100"));
    }

    /// A backend no cipher of the study has is refused, not replaced.
    #[test]
    fn a_missing_backend_is_never_substituted() {
        let err = run(
            &Options {
                max_size: MIB,
                backend: Some(Backend::Ring),
            },
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.is_invalid(), "{err}");
        assert!(err.to_string().contains("no ring backend"), "{err}");
    }

    #[test]
    fn flags_give_the_largest_size_and_backend() {
        let quick = Options::from_flags(None, true, None).unwrap();
        assert_eq!((quick.max_size, quick.backend), (8 * MIB, None));
        assert_eq!(
            Options::from_flags(None, false, None).unwrap().max_size,
            128 * MIB
        );
        let given = Options::from_flags(Some("16MiB"), true, Some("rustcrypto")).unwrap();
        assert_eq!(given.max_size, 16 * MIB);
        assert_eq!(given.backend, Some(Backend::RustCrypto));
        assert!(
            Options::from_flags(Some("lots"), false, None)
                .err()
                .unwrap()
                .is_invalid()
        );
        assert!(
            Options::from_flags(None, false, Some("nope"))
                .err()
                .unwrap()
                .is_invalid()
        );
    }
}
