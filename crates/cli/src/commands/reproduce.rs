//! `ciphermeter reproduce <study>`: parses the study's flags, runs it from the
//! studies library and prints its typed report as text or JSON.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};
use studies::StudyReport;

use crate::args::{Format, show_value, write_output};
use crate::error::CliError;

#[derive(Subcommand)]
pub enum Study {
    /// Study 000: AES-256-CBC over a serial packet radio (link model), Tables 1-5.
    RfTransmission(RfArgs),
    /// Study 001: serialization × cipher × mode, Tables IV and V beside the paper's.
    Serialization(QuickArgs),
    /// Study 003: HMAC / EtM / AEAD message framing, Figures 9-11 beside the paper's findings.
    TinySecurity(TinySecurityArgs),
    /// Study 002: eight ciphers on 1-128 MiB files: time, CPU, memory beside the Raspberry Pi 3.
    FileSizes(FileSizesArgs),
    /// Study 004: LoRa time on air by SF and data size, and per algorithm; with --target, Figs. 2-4 on a device.
    Lora(LoraArgs),
}

#[derive(ClapArgs)]
pub struct RfArgs {
    /// Tables only, without the ciphertexts (for CI).
    #[arg(long)]
    quick: bool,
    /// Serial packet-radio link to model (from the catalogue).
    #[arg(long, default_value = "slice-of-radio")]
    link: String,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Send the messages through the radio emulator and time them.
    #[arg(long)]
    live: bool,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(ClapArgs)]
pub struct QuickArgs {
    /// Seconds, not minutes: very short samples (for CI; numbers are rough).
    #[arg(long)]
    quick: bool,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

#[derive(ClapArgs)]
pub struct TinySecurityArgs {
    /// Seconds, not minutes: 20 readings per chain length and very short samples (for CI).
    #[arg(long)]
    quick: bool,
    /// Readings per chain length (the study timed 1000, each with fresh data).
    #[arg(long)]
    iterations: Option<usize>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Run at device level on a simulated microcontroller instead of this host:
    /// a file of data/targets/ (atmega1284p, the study's board, in simavr; the others in QEMU).
    #[arg(long)]
    target: Option<String>,
    /// With --target: judge the findings again with other implementations' code (mbedtls,
    /// monocypher, ciphermeter, comma separated, or all), saying which verdicts flip.
    #[arg(long = "impl", value_name = "IMPL", requires = "target")]
    implementation: Option<String>,
}

#[derive(ClapArgs)]
pub struct FileSizesArgs {
    /// Sizes up to 8 MiB only (a few seconds), for CI.
    #[arg(long)]
    quick: bool,
    /// Largest file size to run, e.g. 16MiB (the paper goes to 128 MiB).
    #[arg(long)]
    max_size: Option<String>,
    /// Backend to use; a cipher without it is skipped and said so.
    #[arg(long)]
    backend: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Write the output to this file instead of standard output.
    #[arg(long)]
    output: Option<PathBuf>,
}

#[derive(ClapArgs)]
pub struct LoraArgs {
    /// Fewer data sizes (for CI).
    #[arg(long)]
    quick: bool,
    /// Message size for the per-algorithm table.
    #[arg(long, default_value_t = 100)]
    bytes: u32,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Also code size, time and RAM from a shipped device cost table (cortex-m0plus: the MKR1300).
    #[arg(long)]
    target: Option<String>,
}

pub fn run(study: Study) -> Result<(), CliError> {
    let (report, format) = match study {
        Study::RfTransmission(a) if a.live => {
            let live = studies::rf_live::run(&a.link, a.data_dir.as_deref(), a.quick)?;
            return show_value(a.format, &live, || live.text());
        }
        Study::RfTransmission(a) => {
            let options = studies::rf_transmission::Options::new(a.quick, a.link, a.data_dir);
            let r = studies::rf_transmission::run(&options)?;
            (StudyReport::RfTransmission(r), a.format)
        }
        Study::Serialization(a) => {
            let options = studies::serialization::Options { quick: a.quick };
            let r = studies::serialization::run(&options)?;
            (StudyReport::Serialization(r), a.format)
        }
        Study::TinySecurity(a) => match &a.target {
            Some(target) => return tiny_security_device(target, &a),
            None => {
                let (quick, iterations) = (a.quick, a.iterations);
                let options = studies::tiny_security::Options { quick, iterations };
                let r = studies::tiny_security::run(&options)?;
                (StudyReport::TinySecurity(r), a.format)
            }
        },
        Study::FileSizes(a) => return file_sizes(a),
        Study::Lora(a) => {
            let r = studies::lora_device::reproduce(a.quick, a.bytes, a.target.as_deref())?;
            (r, a.format)
        }
    };
    show_value(format, &report, || report.text())
}

/// Study 003 at device level: the simulator's steps on a terminal, and a
/// known-answer failure nothing diagnosed fails the command.
fn tiny_security_device(target: &str, a: &TinySecurityArgs) -> Result<(), CliError> {
    let show = std::io::stderr().is_terminal();
    let others = a.implementation.as_deref();
    let r = studies::tiny_security_device::run_named(target, others, &mut |step| {
        if show {
            eprintln!("{step}");
        }
    })?;
    show_value(a.format, &r, || r.text())?;
    r.require_diagnosed().map_err(CliError::failed)
}

/// Study 002 streams its table row by row: the files take minutes, and an
/// interruption keeps the rows that finished.
fn file_sizes(a: FileSizesArgs) -> Result<(), CliError> {
    use studies::file_sizes as fs;
    let options = fs::Options::from_flags(a.max_size.as_deref(), a.quick, a.backend.as_deref())?;
    measure::interrupt::stop_on_ctrl_c().map_err(CliError::failed)?;
    let json = a.format == Format::Json;
    if !json {
        println!("{}", fs::table_header());
    }
    let report = fs::run(&options, &mut |row| {
        if !json {
            println!("{}", fs::table_row(row));
        }
    })?;
    let doc = serde_json::to_string_pretty(&report).map_err(CliError::failed)? + "\n";
    if json {
        write_output(&doc, a.output.as_ref())?;
    } else {
        println!("{}", fs::table_footer(&report));
        if let Some(path) = &a.output {
            write_output(&doc, Some(path))?;
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
