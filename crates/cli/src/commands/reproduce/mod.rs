//! `ciphermeter reproduce <study>`: one file per study, our numbers beside the paper's.

pub mod file_sizes;
pub mod lora;
pub mod rf_live;
pub mod rf_transmission;
pub mod serialization;
pub mod tiny_security;
pub mod tiny_security_device;
pub mod tiny_security_device_claims;

use clap::Subcommand;

use crate::error::CliError;

#[derive(Subcommand)]
pub enum Study {
    /// Study 000: AES-256-CBC over a serial packet radio (link model), Tables 1-5.
    RfTransmission(rf_transmission::Args),
    /// Study 001: serialization × cipher × mode, Tables IV and V beside the paper's.
    Serialization(serialization::Args),
    /// Study 003: HMAC / EtM / AEAD message framing, Figures 9-11 beside the paper's findings.
    TinySecurity(tiny_security::Args),
    /// Study 002: eight ciphers on 1-128 MiB files: time, CPU, memory beside the Raspberry Pi 3.
    FileSizes(file_sizes::Args),
    /// Study 004: LoRa time on air by SF and data size, and per algorithm.
    Lora(lora::Args),
}

pub fn run(study: Study) -> Result<(), CliError> {
    match study {
        Study::RfTransmission(args) => rf_transmission::run(args),
        Study::Serialization(args) => serialization::run(args),
        Study::TinySecurity(args) => tiny_security::run(args),
        Study::FileSizes(args) => file_sizes::run(args),
        Study::Lora(args) => lora::run(args),
    }
}
