//! `ciphermeter compare RUN_A RUN_B`: per-result ratios B/A (`store::compare`);
//! `--fail-above PCT` makes it a regression gate.

use clap::Args as ClapArgs;
use store::compare::compare_runs;

use crate::args::{DbArgs, Format, print_json, show_value};
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
    let store = args.db.open()?;
    let runs = (args.run_a, args.run_b);
    let cmp = compare_runs(&store, runs, args.threshold, args.fail_above)?;
    let Some(pct) = args.fail_above else {
        return show_value(args.format, &cmp, || {
            report::comparison::text(&cmp, args.changed)
        });
    };
    let slower = cmp.gate(pct)?;
    match args.format {
        Format::Json => print_json(&report::comparison::gate_json(&cmp, pct, &slower))?,
        Format::Table => print!("{}", report::comparison::gate_text(&cmp, pct, &slower)),
    }
    if slower.is_empty() {
        return Ok(());
    }
    let n = slower.len();
    Err(CliError::failed(format!(
        "{n} results slower by more than {pct} % beyond the noise"
    )))
}
