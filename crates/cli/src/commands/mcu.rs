//! `mcu`: the algorithms as firmware on a microcontroller, measured in
//! simulation (simavr: exact cycles; QEMU: exact instruction counts), or on
//! a board on the desk (`--board`, crates/mcu `board`).

use clap::Args as ClapArgs;
use mcu::{Request, Target};

use crate::args::Format;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The simulated target, a file of data/targets/ (atmega1284p in simavr, the others in
    /// QEMU); an unknown name is told the list.
    #[arg(long, default_value = device_facts::target::DEFAULT_NAME)]
    pub target: String,
    /// Firmware algorithm ids (aes-128-ecb) or sealing schemes (aead:aes-128-gcm); none means all.
    pub algorithms: Vec<String>,
    /// Whose code (--implementations lists them): rustcrypto, ciphermeter (ours), mbedtls,
    /// monocypher (C), p256-cortex-m4, salty (Cortex-M4/M33 assembly), comma separated, or all;
    /// with no algorithm named, every algorithm each has, beside the others that have it.
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
    /// A board (nrf52840-dk, mkr-wan-1300, sodaq-mbili; docs/boards/): its firmware, or its results.
    #[arg(long, conflicts_with = "target")]
    pub board: Option<String>,
    /// The board's serial port (/dev/ttyACM0); its rows are labelled measured, not stored.
    #[arg(long, requires = "board", value_name = "PORT")]
    pub serial: Option<std::path::PathBuf>,
    /// The board's serial number, which its rows are labelled with.
    #[arg(long, requires = "serial", value_name = "SN")]
    pub board_serial: Option<String>,
    /// A board's table (--cost-table) against the cycle model, per region and instruction class;
    /// or published board figures (a data/validation file, or the folder) against the shipped
    /// tables' mixes priced on each figure's part.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["board", "cost_table"])]
    pub compare: Option<std::path::PathBuf>,
    /// Price the instruction mixes a device cost table keeps again with this build's cycle model
    /// and write it back (after a change to data/cycle-timings; no simulation).
    #[arg(long, value_name = "TABLE", conflicts_with_all = ["board", "cost_table", "compare"])]
    pub reprice: Option<std::path::PathBuf>,
    /// List every implementation the firmware can build (name, what it is, the targets it builds
    /// for; tab separated) and exit.
    #[arg(long, conflicts_with_all = ["board", "cost_table", "compare", "reprice"])]
    pub implementations: bool,
}

/// `--board`: the firmware to flash and how, or the board's rows (and --cost-table).
fn board(args: &Args, name: &str, builds: Vec<String>) -> Result<(), CliError> {
    let (serial, sn) = (args.serial.clone(), args.board_serial.clone());
    let req = mcu::board::Request::new(name.parse()?, builds, args.sizes.clone(), serial, sn)?;
    let table = args.cost_table.as_deref();
    match mcu::board::run(&req, table, |step| eprintln!("{step}"))? {
        mcu::board::Outcome::Built(how) => print!("{how}"),
        mcu::board::Outcome::Measured(rows) => return print(&rows, args.format).and(notes(&rows)),
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), CliError> {
    if args.implementations {
        print!("{}", mcu::implementation::listing());
        return Ok(());
    }
    let implementations = mcu::implementation::parse_list(&args.implementation)?;
    let algorithms = mcu::implementation::expand(&args.algorithms, &implementations)?;
    if let Some(name) = &args.board {
        return board(&args, name, algorithms);
    }
    if let Some(path) = &args.reprice {
        let priced = mcu::reprice_cost_table(path)?;
        eprintln!("{}: {priced} entries priced again", path.display());
        return Ok(());
    }
    if let Some(path) = &args.compare {
        if mcu::compare::is_validation(path) {
            let v = mcu::compare::validation(path)?;
            return crate::args::show_value(args.format, &v, || v.text());
        }
        let c = mcu::compare::compare(&mcu::cost_table::read_file(path)?, |s| eprintln!("{s}"))?;
        return crate::args::show_value(args.format, &c, || c.text());
    }
    let target: Target = args.target.parse()?;
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
    print(&rows, args.format)?;
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
    notes(&rows)
}

fn print(rows: &[mcu::McuResult], format: Format) -> Result<(), CliError> {
    crate::args::show_value(format, &rows, || mcu::results::table(rows))
}

/// The build notes, and a known answer that failed fails the command.
fn notes(rows: &[mcu::McuResult]) -> Result<(), CliError> {
    mcu::summary::build_notes(rows)
        .iter()
        .for_each(|n| eprintln!("note: {n}"));
    mcu::summary::known_answer_failures(rows).map_or(Ok(()), |why| Err(CliError::failed(why)))
}
