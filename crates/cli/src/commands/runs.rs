//! `ciphermeter runs`: the runs in the store, oldest first.

use clap::Args as ClapArgs;

use crate::args::DbArgs;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    #[command(flatten)]
    db: DbArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let store = args.db.open()?;
    let runs = store.runs()?;
    if args.json {
        let text = serde_json::to_string_pretty(&runs).map_err(CliError::failed)?;
        println!("{text}");
        return Ok(());
    }
    if runs.is_empty() {
        println!(
            "no runs yet in {} (start one with `ciphermeter run --quick`)",
            store.path().display()
        );
        return Ok(());
    }
    println!(
        "{:>4}  {:<20}  {:<11}  {:>7}  {:<18}  command",
        "id", "started (UTC)", "status", "results", "host"
    );
    for r in &runs {
        let origin = if r.origin == "local" {
            String::new()
        } else {
            format!("  [{}]", r.origin)
        };
        println!(
            "{:>4}  {:<20}  {:<11}  {:>7}  {:<18}  {}{origin}",
            r.id,
            r.started_at,
            r.status.as_str(),
            r.results,
            truncate(&r.host, 18),
            r.command
        );
    }
    println!("store: {}", store.path().display());
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).collect::<String>() + "…"
    }
}
