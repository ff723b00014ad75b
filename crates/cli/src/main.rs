//! The `ciphermeter` binary: parses arguments, calls the library crates, prints.

mod commands;
mod error;
mod hexarg;

use std::process::ExitCode;

use clap::Parser;

/// What each cryptographic choice costs on your device and your radio link.
#[derive(Parser)]
#[command(name = "ciphermeter", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() -> ExitCode {
    // clap prints its own usage errors and exits with status 2.
    let cli = Cli::parse();
    match commands::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
