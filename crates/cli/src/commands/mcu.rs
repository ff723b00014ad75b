//! `mcu`: the algorithms as firmware on a microcontroller, measured in
//! simulation (simavr: exact cycles; QEMU: exact instruction counts).

use clap::Args as ClapArgs;
use mcu::{McuError, Request, Target};

use crate::args::Format;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// atmega1284p (simavr), cortex-m0plus (QEMU microbit), cortex-m3 (mps2-an385), cortex-m4 (mps2-an386).
    #[arg(long, default_value = "atmega1284p")]
    pub target: String,
    /// Firmware algorithm ids (e.g. aes-128-ecb sha256); none means all.
    pub algorithms: Vec<String>,
    /// Message sizes in bytes, comma separated.
    #[arg(long, value_delimiter = ',', default_value = mcu::DEFAULT_SIZES)]
    pub sizes: Vec<usize>,
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    #[command(flatten)]
    pub db: crate::args::DbArgs,
    /// Do not append the results to the results store.
    #[arg(long)]
    pub no_store: bool,
}

impl From<McuError> for CliError {
    fn from(err: McuError) -> Self {
        match err {
            // A missing toolchain piece is fixed by the user with the printed command.
            McuError::Usage(m) | McuError::Missing(m) => CliError::Usage(m),
            McuError::Failed(m) => CliError::Failed(m),
        }
    }
}

pub fn run(args: Args) -> Result<(), CliError> {
    let target: Target = args.target.parse()?;
    let sizes: Vec<String> = args.sizes.iter().map(|s| s.to_string()).collect();
    let mut command = vec!["mcu", "--target", target.name()];
    command.extend(args.algorithms.iter().map(String::as_str));
    let sizes = sizes.join(",");
    command.extend(["--sizes", &sizes]);
    let command = command.join(" ");
    let req = Request {
        target,
        algorithms: args.algorithms,
        sizes: args.sizes,
    };
    // Ctrl-C ends the run after the algorithm in progress; what finished is
    // still printed and stored.
    ctrlc::set_handler(measure::interrupt::request_stop)
        .map_err(|e| CliError::failed(format!("cannot install the Ctrl-C handler: {e}")))?;
    let measured = mcu::measure_until(
        &req,
        |alg| eprintln!("building and running {alg} on {target}"),
        measure::interrupt::stop_requested,
    )?;
    let rows = measured.rows;
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(CliError::failed)?
        ),
        Format::Table => print!("{}", mcu::results::table(&rows)),
    }
    if !args.no_store {
        let mut store = args.db.open()?;
        let id = cost::record::save_mcu_results(
            &mut store,
            &rows,
            &command,
            mcu::toolchain::versions(target),
            measured.interrupted,
        )?;
        eprintln!("stored as run {id} (see `ciphermeter runs`)");
    }
    if measured.interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: {} finished rows written",
            rows.len()
        )));
    }
    for r in rows
        .iter()
        .filter(|r| r.operation == "build" || r.operation == "run")
    {
        eprintln!(
            "note: {} on {}: {} failed: {}",
            r.algorithm,
            target,
            r.operation,
            r.error.as_deref().unwrap_or("")
        );
    }
    // One line per algorithm whose known answer failed, with the device's reason.
    let mut failed: Vec<(&str, &str)> = Vec::new();
    for r in &rows {
        if let Some(e) = r.error.as_deref().filter(|e| e.contains("known-answer"))
            && !failed.iter().any(|(a, _)| *a == r.algorithm)
        {
            failed.push((&r.algorithm, e));
        }
    }
    if !failed.is_empty() {
        let lines: Vec<String> = failed
            .iter()
            .map(|(alg, why)| format!("  {alg}: {why}"))
            .collect();
        return Err(CliError::failed(format!(
            "known-answer test FAILED on {target} for {} algorithm(s):\n{}",
            failed.len(),
            lines.join("\n")
        )));
    }
    Ok(())
}
