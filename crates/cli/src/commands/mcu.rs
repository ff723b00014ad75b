//! `mcu`: the algorithms as firmware on a microcontroller, measured in
//! simulation (simavr: exact cycles; QEMU: exact instruction counts).

use clap::Args as ClapArgs;
use mcu::{Request, Target};

use crate::args::Format;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// atmega1284p (simavr), cortex-m0plus, cortex-m3, cortex-m4 (QEMU), riscv32imc (QEMU virt as an ESP32-C3).
    #[arg(long, default_value = "atmega1284p")]
    pub target: String,
    /// Firmware algorithm ids (aes-128-ecb) or sealing schemes (aead:aes-128-gcm); none means all.
    pub algorithms: Vec<String>,
    /// Whose code: rustcrypto, ciphermeter (ours), mbedtls, monocypher (C), comma separated, or
    /// all; with no algorithm named, every algorithm each has, beside the others that have it.
    #[arg(long = "impl", value_name = "IMPL", default_value = "rustcrypto")]
    pub implementation: String,
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
    /// Also write the device cost table (data/device-costs/TARGET.json) to FILE; with algorithms
    /// named and FILE a table of this target, only their entries are replaced.
    #[arg(long, value_name = "FILE")]
    pub cost_table: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let target: Target = args.target.parse()?;
    let implementations = mcu::implementation::parse_list(&args.implementation)?;
    let algorithms = mcu::implementation::expand(&args.algorithms, &implementations)?;
    let req = Request {
        target,
        algorithms,
        sizes: args.sizes,
    };
    // Ctrl-C ends the run after the algorithm in progress; what finished is
    // still printed and stored.
    measure::interrupt::stop_on_ctrl_c().map_err(CliError::failed)?;
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
    if let Some(path) = &args.cost_table {
        mcu::write_cost_table(path, &req, &rows)?;
    }
    if !args.no_store {
        let mut store = args.db.open()?;
        let versions = mcu::toolchain::versions(target);
        let (command, interrupted) = (req.command(), measured.interrupted);
        let id =
            cost::record::save_mcu_results(&mut store, &rows, &command, versions, interrupted)?;
        eprintln!("stored as run {id} (see `ciphermeter runs`)");
    }
    if measured.interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: {} finished rows written",
            rows.len()
        )));
    }
    for note in mcu::summary::build_notes(&rows) {
        eprintln!("note: {note}");
    }
    if let Some(why) = mcu::summary::known_answer_failures(&rows) {
        return Err(CliError::failed(why));
    }
    Ok(())
}
