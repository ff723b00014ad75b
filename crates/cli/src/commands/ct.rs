//! `ct`: whether a build's timing depends on its secrets, proven in
//! simulation (crates/mcu `ct`).

use clap::Args as ClapArgs;
use mcu::Target;

use crate::args::{Format, print_json};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The simulated target, a file of data/targets/ (`ciphermeter mcu --implementations`
    /// lists where each implementation builds); an unknown name is told the list.
    #[arg(long, default_value = device_facts::target::DEFAULT_NAME)]
    pub target: String,
    /// Schemes as the device tables name them (aead:aes-128-ccm@ciphermeter), or `plants`.
    #[arg(required_unless_present = "all")]
    pub builds: Vec<String>,
    /// Every scheme build the target's device cost table holds.
    #[arg(long, conflicts_with = "builds")]
    pub all: bool,
    /// Also write the verdicts to FILE (data/constant-time/TARGET.json) after each build.
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
    let seed = mcu::ct::seed(args.seed.as_deref())?;
    let builds = match args.all {
        true => mcu::ct::table_builds(target)?,
        false => args.builds,
    };
    measure::interrupt::stop_on_ctrl_c().map_err(CliError::failed)?;
    let n = builds.len();
    let checked = mcu::ct::check_all(
        target,
        &builds,
        seed,
        args.verdict_table.as_deref(),
        |i, build, report| match report {
            None => eprintln!("checking {build} on {target} ({} of {n})", i + 1),
            Some(r) if args.format == Format::Table => print!("{}", mcu::ct::table(r)),
            Some(_) => {}
        },
        measure::interrupt::stop_requested,
    )?;
    if args.format == Format::Json {
        print_json(&serde_json::to_value(&checked.reports).map_err(CliError::failed)?)?;
    }
    match (checked.interrupted, checked.leaks(target)) {
        (true, _) => Err(CliError::Interrupted(checked.interruption(n))),
        (false, leaks) => leaks.map_or(Ok(()), |why| Err(CliError::failed(why))),
    }
}
