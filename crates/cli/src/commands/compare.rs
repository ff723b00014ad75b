//! `ciphermeter compare RUN_A RUN_B`: per-result ratios B/A with their intervals;
//! only differences outside the noise (non-overlapping 95 % CIs) are marked.

use clap::Args as ClapArgs;
use report::html::num;
use store::compare::{Ratio, compare};

use crate::args::{DbArgs, store_err};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// The reference run (see `ciphermeter runs`).
    run_a: i64,
    /// The run compared against it.
    run_b: i64,
    /// Only results whose difference is outside the noise.
    #[arg(long)]
    changed: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    db: DbArgs,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let store = args.db.open()?;
    let a = store.results(args.run_a).map_err(store_err)?;
    let b = store.results(args.run_b).map_err(store_err)?;
    let cmp = compare(&a, &b);
    if args.json {
        let text = serde_json::to_string_pretty(&cmp).map_err(CliError::failed)?;
        println!("{text}");
        return Ok(());
    }
    if cmp.ratios.is_empty() {
        println!(
            "runs {} and {} share no results to compare",
            args.run_a, args.run_b
        );
        return Ok(());
    }
    println!(
        "B = run {}, A = run {}; ratio B/A [interval from both 95% CIs]; * = outside the noise",
        args.run_b, args.run_a
    );
    println!("{:<58} {:>12} {:>12} {:>24}", "result", "A", "B", "B/A");
    for r in cmp.ratios.iter().filter(|r| !args.changed || r.significant) {
        println!("{}", line(r));
    }
    let n = cmp.significant().count();
    println!(
        "{} compared, {n} differ beyond the noise; {} only in A, {} only in B",
        cmp.ratios.len(),
        cmp.only_a.len(),
        cmp.only_b.len()
    );
    Ok(())
}

fn line(r: &Ratio) -> String {
    let mark = if r.significant { direction(r) } else { "" };
    format!(
        "{:<58} {:>12} {:>12} {:>24} {mark}",
        r.key.to_string(),
        format!("{} {}", num(r.a), r.unit),
        format!("{} {}", num(r.b), r.unit),
        format!("{:.3} [{:.3}-{:.3}]", r.ratio, r.ratio_low, r.ratio_high),
    )
}

/// Times and energies: higher is worse.
fn direction(r: &Ratio) -> &'static str {
    if r.ratio > 1.0 {
        "* higher in B"
    } else {
        "* lower in B"
    }
}
