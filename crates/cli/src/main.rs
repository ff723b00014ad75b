//! The `ciphermeter` binary: parses arguments, calls the library crates, prints.

mod args;
mod commands;
mod error;
mod help;
mod renamed;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

/// Counts allocations so `bench` can report heap use per operation.
#[global_allocator]
static ALLOCATOR: measure::CountingAllocator = measure::CountingAllocator;

/// What each cryptographic choice costs on your device and your radio link.
#[derive(clap::Parser)]
#[command(name = "ciphermeter", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    // clap prints its own usage errors and exits with status 2.
    let matches = help::grouped(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    match commands::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}

/// Rust ignores SIGPIPE, so `ciphermeter list | head` would panic on the
/// closed pipe; restoring the default makes it end quietly like other tools.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
