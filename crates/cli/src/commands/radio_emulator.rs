//! `ciphermeter radio-emulator`: two pseudo-terminals joined by an emulated serial
//! packet radio (study 000's Slice of Radio by default), timed by the link model.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args as ClapArgs;

use crate::args::links;
use crate::args::stop_flag;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Serial packet-radio link whose parameters to use (from the link catalogue).
    #[arg(long, default_value = "slice-of-radio")]
    pub link: String,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Override the UART rate (baud).
    #[arg(long)]
    pub baud: Option<u64>,
    /// Override the packet payload size (bytes).
    #[arg(long)]
    pub packet_size: Option<u32>,
    /// Override the partial-packet timeout (ms).
    #[arg(long)]
    pub timeout_ms: Option<u64>,
    /// Override the over-the-air rate (bit/s).
    #[arg(long)]
    pub air_rate: Option<u64>,
    /// Override the per-packet overhead on air (bytes).
    #[arg(long)]
    pub overhead: Option<u32>,
    /// Probability that a packet is lost (0..1).
    #[arg(long, default_value_t = 0.0)]
    pub loss: f64,
    /// Probability that each delivered bit is flipped (0..1).
    #[arg(long, default_value_t = 0.0)]
    pub ber: f64,
    /// Seed for loss and bit errors.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the two paths, one per line, to this file (for scripts).
    #[arg(long)]
    pub paths_file: Option<PathBuf>,
    /// Stop after this many seconds (default: until Ctrl-C / SIGTERM).
    #[arg(long)]
    pub duration: Option<f64>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let overrides = link::serial::Overrides {
        baud: args.baud,
        packet_size: args.packet_size,
        timeout_ms: args.timeout_ms,
        air_rate: args.air_rate,
        overhead: args.overhead,
    };
    let radio = links(&args.data_dir)?
        .serial_radio(&args.link, &overrides)
        .map_err(CliError::usage)?;
    let impair = live::Impairments {
        loss: args.loss,
        bit_error_rate: args.ber,
        seed: args.seed,
    };
    let emu = live::RadioEmulator::start(&radio, impair)?;
    let (a, b) = emu.paths();
    println!("{}", a.display());
    println!("{}", b.display());
    std::io::stdout().flush()?;
    eprintln!(
        "radio-emulator: {} <-> {} ({radio}, {impair})",
        a.display(),
        b.display()
    );
    if let Some(path) = &args.paths_file {
        std::fs::write(path, format!("{}\n{}\n", a.display(), b.display()))?;
    }
    let stop = stop_flag()?;
    let until = args
        .duration
        .map(|s| std::time::Instant::now() + Duration::from_secs_f64(s));
    while !stop.load(Ordering::Relaxed) && until.is_none_or(|t| std::time::Instant::now() < t) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let [ab, ba] = &emu.stats;
    eprintln!("radio-emulator: a->b {}; b->a {}", ab.text(), ba.text());
    emu.stop();
    Ok(())
}
