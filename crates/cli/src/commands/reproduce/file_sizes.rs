//! Study 002: eight symmetric ciphers on 1-128 MiB "files", execution time,
//! CPU and memory, beside the paper's Raspberry Pi 3 values.
//!
//! The data is streamed through one fixed 64 KiB buffer with
//! `Cipher::streaming`, so no file is ever held in memory, let alone twice;
//! the peak heap of each run is measured with the counting allocator to
//! show it. Disk I/O is left out: the paper's times include reading and
//! writing files on an SD card, ours are the cipher alone.

use std::path::PathBuf;
use std::time::Instant;

use catalogue::{Backend, Direction, Padding, Params};
use measure::alloc::HeapProbe;
use measure::environment::{self, Environment};
use measure::sizes::{format_size, parse_size};
use measure::workload::pattern;
use serde::{Deserialize, Serialize};

use crate::commands::bench::write_output;
use crate::error::CliError;

const PAPER: &str = include_str!("../../../../../data/studies/002_file_sizes.json");
pub const SCHEMA: &str = "ciphermeter.file-sizes/1";
/// The fixed buffer every byte passes through.
pub const BUFFER: usize = 64 * 1024;
const MIB: u64 = 1 << 20;

#[derive(clap::Args)]
pub struct Args {
    /// Sizes up to 8 MiB only (a few seconds), for CI.
    #[arg(long)]
    pub quick: bool,
    /// Largest file size to run, e.g. 16MiB (the paper goes to 128 MiB).
    #[arg(long)]
    pub max_size: Option<String>,
    /// Backend to use where the cipher has it (default: each cipher's first).
    #[arg(long)]
    pub backend: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: crate::commands::linkdata::Format,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    pub output: Option<PathBuf>,
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

#[derive(Deserialize)]
struct Paper {
    sizes_mib: Vec<u64>,
    seconds: PaperSeconds,
}

#[derive(Deserialize)]
struct PaperSeconds {
    ecb: std::collections::BTreeMap<String, Vec<Option<f64>>>,
    cbc: std::collections::BTreeMap<String, Vec<Option<f64>>>,
    stream: std::collections::BTreeMap<String, Vec<Option<f64>>>,
}

impl Paper {
    fn seconds(&self, cipher: &str, mode: &str, size: u64) -> Option<f64> {
        let table = match mode {
            "ecb" => &self.seconds.ecb,
            "cbc" => &self.seconds.cbc,
            _ => &self.seconds.stream,
        };
        let i = self.sizes_mib.iter().position(|&m| m * MIB == size)?;
        table.get(cipher)?.get(i).copied().flatten()
    }
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
    /// Process CPU time over wall time, in percent (100 = one core busy).
    pub cpu_percent: f64,
    /// Peak heap above the level before the run; null without the counting allocator.
    pub heap_peak_bytes: Option<u64>,
    /// Peak heap as a share of the machine's RAM (the paper's "memory consumption").
    pub memory_percent: Option<f64>,
    pub paper_pi3_seconds: Option<f64>,
    /// Paper time over ours: how many times faster this machine is.
    pub speedup_vs_pi3: Option<f64>,
}

#[derive(Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub environment: Environment,
    pub buffer_bytes: usize,
    pub max_rss_bytes: Option<u64>,
    pub interrupted: bool,
    pub skipped: Vec<String>,
    pub rows: Vec<Row>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let json = args.format == crate::commands::linkdata::Format::Json;
    let cap = match &args.max_size {
        Some(text) => parse_size(text).map_err(CliError::usage)?,
        None if args.quick => 8 * MIB,
        None => 128 * MIB,
    };
    let backend = args.backend.as_deref().map(Backend::parse).transpose()?;
    let paper: Paper = serde_json::from_str(PAPER)
        .map_err(|e| CliError::failed(format!("study 002 data: {e}")))?;
    let sizes: Vec<u64> = paper
        .sizes_mib
        .iter()
        .map(|m| m * MIB)
        .filter(|&s| s <= cap)
        .collect();
    if sizes.is_empty() {
        return Err(CliError::usage(format!(
            "--max-size {}: the smallest file of the study is 1 MiB",
            format_size(cap)
        )));
    }
    ctrlc::set_handler(measure::interrupt::request_stop)
        .map_err(|e| CliError::failed(format!("cannot install the Ctrl-C handler: {e}")))?;

    let environment = Environment::capture(None, environment::perf_status());
    let memory = environment.memory_total_bytes;
    let mut report = Report {
        schema: SCHEMA.into(),
        environment,
        buffer_bytes: BUFFER,
        max_rss_bytes: None,
        interrupted: false,
        skipped: Vec::new(),
        rows: Vec::new(),
    };
    if !json {
        println!("{}", table_header());
    }
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
            let chosen = match backend {
                Some(b) if entry.backends().contains(&b) => b,
                _ => entry.backends()[0],
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
                if !json {
                    println!("{}", table_row(&row));
                }
                report.rows.push(row);
            }
        }
    }
    report.max_rss_bytes = measure::cpu_time::process_usage().map(|u| u.max_rss_bytes);
    if json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises") + "\n";
        write_output(&text, args.output.as_ref())?;
    } else {
        println!("{}", table_footer(&report));
        if let Some(path) = &args.output {
            let text = serde_json::to_string_pretty(&report).expect("report serialises") + "\n";
            write_output(&text, Some(path))?;
        }
    }
    if report.interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: {} finished rows written",
            report.rows.len()
        )));
    }
    Ok(())
}

struct FileRun {
    seconds: f64,
    repeats: u32,
    cpu_percent: f64,
    heap_peak: Option<u64>,
}

/// Encrypts `size` bytes through the fixed buffer; small files three times
/// (median). None when interrupted.
fn time_file(
    entry: &'static catalogue::Entry,
    backend: Backend,
    key_len: usize,
    size: u64,
) -> Result<Option<FileRun>, CliError> {
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
    let (mut cpu, mut wall, mut peak) = (0.0, 0.0, 0u64);
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
        cpu += used.unwrap_or(0.0);
        peak = peak.max(heap.peak_bytes);
    }
    times.sort_by(f64::total_cmp);
    Ok(Some(FileRun {
        seconds: times[times.len() / 2],
        repeats,
        cpu_percent: 100.0 * cpu / wall,
        heap_peak: heap_counted.then_some(peak),
    }))
}

fn table_header() -> String {
    format!(
        "{:<9} {:<6} {:>7} {:>10} {:>9} {:>6} {:>10} {:>7} {:>11} {:>9}\n{}",
        "cipher",
        "mode",
        "size",
        "seconds",
        "MB/s",
        "CPU%",
        "heap peak",
        "mem%",
        "Pi 3 (s)",
        "speedup",
        "-".repeat(92)
    )
}

fn table_row(r: &Row) -> String {
    format!(
        "{:<9} {:<6} {:>7} {:>10.4} {:>9.1} {:>6.0} {:>10} {:>7} {:>11} {:>9}",
        r.cipher,
        r.mode,
        format_size(r.size_bytes),
        r.seconds,
        r.throughput_mb_s,
        r.cpu_percent,
        r.heap_peak_bytes
            .map_or("-".into(), |b| format!("{:.1} KiB", b as f64 / 1024.0)),
        r.memory_percent.map_or("-".into(), |m| format!("{m:.4}")),
        r.paper_pi3_seconds
            .map_or("illegible".into(), |s| format!("{s:.4}")),
        r.speedup_vs_pi3.map_or("-".into(), |x| format!("{x:.0}x")),
    )
}

fn table_footer(report: &Report) -> String {
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
    if env.build_profile != "release" {
        text.push_str(
            "\nwarning: a debug build; times are not representative (build with --release)",
        );
    }
    text
}
