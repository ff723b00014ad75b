//! `ciphermeter reproduce <study>`: one file per study, our numbers beside the paper's.

pub mod lora;
pub mod rf_transmission;

use clap::Subcommand;

use crate::error::CliError;

#[derive(Subcommand)]
pub enum Study {
    /// Study 000: AES-256-CBC over a serial packet radio (link model), Tables 1-5.
    RfTransmission(rf_transmission::Args),
    /// Study 004: LoRa time on air by SF and data size, and per algorithm.
    Lora(lora::Args),
}

pub fn run(study: Study) -> Result<(), CliError> {
    match study {
        Study::RfTransmission(args) => rf_transmission::run(args),
        Study::Lora(args) => lora::run(args),
    }
}
