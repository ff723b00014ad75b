//! `ciphermeter run`: the main job (crates/campaign); Ctrl-C stops the current step,
//! everything finished is kept.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::DbArgs;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// A short campaign: brief sampling, quick reproductions (under 3 minutes). Without --quick
    /// or --full: the same subset, fully sampled, and the full reproductions.
    #[arg(long, conflicts_with = "full")]
    quick: bool,
    /// Every catalogue entry, longer sampling, the device tier and full reproductions.
    #[arg(long)]
    full: bool,
    /// Device profile for the energy view (`ciphermeter energy --list`).
    #[arg(long, default_value = "sodaq-mbili")]
    device: String,
    /// Link for the energy view (`ciphermeter link --list`).
    #[arg(long, default_value = "lorawan-eu868-dr3")]
    link: String,
    /// Battery profile for battery life.
    #[arg(long, default_value = "2xAA")]
    battery: String,
    /// One message every: 30s, 10m, 1h.
    #[arg(long, default_value = "10m")]
    interval: String,
    /// Also simulate the device (simavr / QEMU; minutes per algorithm). On with --full.
    #[arg(long)]
    mcu: bool,
    /// Skip the reproductions.
    #[arg(long)]
    no_reproductions: bool,
    /// Where to write the HTML report [default: ciphermeter-run-ID.html here].
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Directory with extra or replacement data files; also $CIPHERMETER_DATA_DIR.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let plan = campaign::Plan {
        quick: args.quick,
        full: args.full,
        device: args.device,
        link: args.link,
        battery: args.battery,
        interval: args.interval,
        mcu: args.mcu,
        reproductions: !args.no_reproductions,
        data_dir: args.data_dir,
        output: args.output,
        host: cost::record::host_name(),
        fresh_process: std::env::current_exe().ok(),
    };
    // The first Ctrl-C asks every loop to stop after its current sample.
    let _ = measure::interrupt::stop_on_ctrl_c();
    let mut store = args.db.open()?;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let outcome = campaign::execute(&plan, &mut store, &mut |event| match event {
        campaign::Progress::Milestone(what) if progress => eprintln!("\r\x1b[2K{what}"),
        campaign::Progress::Milestone(what) => eprintln!("{what}"),
        campaign::Progress::Working(what) if progress => eprint!("\r\x1b[2K{what}"),
        campaign::Progress::Working(_) => {}
    })?;
    if progress {
        eprint!("\r\x1b[2K");
    }
    print!("{}", outcome.text(store.path()));
    if outcome.status == store::RunStatus::Interrupted {
        return Err(CliError::Interrupted(format!(
            "interrupted: run {} keeps what finished; report written to {}",
            outcome.run,
            outcome.report.display()
        )));
    }
    Ok(())
}
