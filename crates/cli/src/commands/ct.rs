//! `ct`: whether a build's timing depends on its secrets, proven in
//! simulation (crates/mcu `ct`).

use clap::Args as ClapArgs;
use mcu::Target;
use mcu::ct::Verdict;

use crate::args::Format;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// atmega1284p (simavr: cycles, instructions, data addresses), cortex-m0plus, cortex-m3,
    /// cortex-m4, riscv32imc (QEMU: instructions).
    #[arg(long, default_value = "atmega1284p")]
    pub target: String,
    /// Sealing schemes as the device tables name them (aead:aes-128-ccm@ciphermeter), or
    /// `plants` for the planted leaks and their constant-time twins.
    #[arg(required_unless_present = "all")]
    pub builds: Vec<String>,
    /// Every scheme build the target's device cost table holds.
    #[arg(long, conflicts_with = "builds")]
    pub all: bool,
    /// Also write the verdicts to FILE (data/constant-time/TARGET.json), after each build, so
    /// an interrupted sweep keeps what it finished.
    #[arg(long, value_name = "FILE")]
    pub verdict_table: Option<std::path::PathBuf>,
    /// The secrets' seed, 16 hex digits (a report prints its own); random by default.
    #[arg(long)]
    pub seed: Option<String>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
}

/// Prints each build's verdict; exits 1 when any leaks, 2 on bad input.
pub fn run(args: Args) -> Result<(), CliError> {
    let target: Target = args.target.parse()?;
    let seed = match &args.seed {
        Some(hex) => mcu::ct::parse_seed(hex)?,
        None => mcu::ct::random_seed()?,
    };
    let builds = if args.all {
        mcu::ct::table_builds(target)?
    } else {
        args.builds
    };
    ctrlc::set_handler(measure::interrupt::request_stop)
        .map_err(|e| CliError::failed(format!("cannot install the Ctrl-C handler: {e}")))?;
    let mut reports = Vec::new();
    for (i, build) in builds.iter().enumerate() {
        eprintln!(
            "checking {build} on {target} ({} of {})",
            i + 1,
            builds.len()
        );
        let report = mcu::ct::check(target, build, seed)?;
        // Ctrl-C also reaches the compiler or simulator: that build's report is dropped.
        if measure::interrupt::stop_requested() {
            break;
        }
        if args.format == Format::Table {
            print!("{}", mcu::ct::table(&report));
        }
        reports.push(report);
        if let Some(path) = &args.verdict_table {
            mcu::ct::write_table(path, target, &reports)?;
        }
    }
    if args.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&reports).map_err(CliError::failed)?
        );
    }
    let leaking = reports
        .iter()
        .filter(|r| r.verdict == Verdict::Leaks)
        .count();
    if leaking > 0 {
        return Err(CliError::failed(format!(
            "{leaking} of {} builds leak on {target}",
            reports.len()
        )));
    }
    Ok(())
}
