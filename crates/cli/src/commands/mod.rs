//! One file per command. Each exposes `Args` (clap) and `run`.

pub mod reproduce;

use clap::Subcommand;

use crate::error::CliError;

#[derive(Subcommand)]
pub enum Command {
    /// Reproduce one of the five studies, our numbers beside the paper's.
    #[command(subcommand)]
    Reproduce(reproduce::Study),
}

pub fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Reproduce(study) => reproduce::run(study),
    }
}
