//! `ciphermeter compare RUN_A RUN_B`: per-result ratios B/A (`store::compare`);
//! `--fail-above PCT` makes it a regression gate.

use clap::Args as ClapArgs;
use store::compare::{Mode, Options, Side, compare};

use crate::args::{DbArgs, Format, print_json};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The reference run (see `ciphermeter runs`).
    run_a: i64,
    /// The run compared against it.
    run_b: i64,
    /// Only results that changed beyond the noise.
    #[arg(long)]
    changed: bool,
    /// Noise threshold in percent for every result [default: from the runs' noise
    /// probes, else 2 for host timings; 0 for exact values].
    #[arg(long, value_name = "PCT")]
    threshold: Option<f64>,
    /// Exit 1 when a result got slower by more than PCT beyond the noise, printing only those.
    #[arg(long, value_name = "PCT")]
    fail_above: Option<f64>,
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    for (flag, v) in [
        ("--threshold", args.threshold),
        ("--fail-above", args.fail_above),
    ] {
        if v.is_some_and(|p| !(0.0..=1000.0).contains(&p)) {
            return Err(CliError::usage(format!(
                "{flag}: give a percentage from 0 to 1000"
            )));
        }
    }
    let store = args.db.open()?;
    let (run_a, run_b) = (store.run(args.run_a), store.run(args.run_b));
    let (run_a, run_b) = (run_a?, run_b?);
    let a = store.results(args.run_a)?;
    let b = store.results(args.run_b)?;
    let options = Options {
        threshold_pct: args.threshold,
    };
    let cmp = compare(
        Side {
            run: &run_a,
            rows: &a,
        },
        Side {
            run: &run_b,
            rows: &b,
        },
        &options,
    );
    let Some(pct) = args.fail_above else {
        match args.format {
            Format::Json => print_json(&serde_json::to_value(&cmp).map_err(CliError::failed)?)?,
            Format::Table => print!("{}", report::comparison::text(&cmp, args.changed)),
        }
        return Ok(());
    };
    if cmp.mode == Mode::TwoMachines {
        return Err(CliError::usage(format!(
            "--fail-above gates changes on one machine; runs {} and {} come from two ({} and {})",
            args.run_a, args.run_b, cmp.a.machine, cmp.b.machine
        )));
    }
    let slower = cmp.slower_than(pct);
    match args.format {
        Format::Json => print_json(&report::comparison::gate_json(&cmp, pct, &slower))?,
        Format::Table => print!("{}", report::comparison::gate_text(&cmp, pct, &slower)),
    }
    if slower.is_empty() {
        Ok(())
    } else {
        Err(CliError::failed(format!(
            "{} results slower by more than {pct} % beyond the noise",
            slower.len()
        )))
    }
}
