//! `ciphermeter reproduce <study>`: one file per study, our numbers beside the paper's.

use clap::Subcommand;

use crate::error::CliError;

#[derive(Subcommand)]
pub enum Study {
}

pub fn run(study: Study) -> Result<(), CliError> {
    match study {
    }
}
