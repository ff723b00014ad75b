//! One error type for every command, mapped to the exit status users rely on:
//! 2 for anything the user can fix (bad names, lengths, hex, tampered input),
//! 1 for failures of the machine (I/O, a missing tool), 130 for Ctrl-C.

use std::fmt;

#[derive(Debug)]
pub enum CliError {
    /// The input or the arguments are wrong; exit status 2.
    Usage(String),
    /// Something outside the user's input failed; exit status 1.
    Failed(String),
    /// The user interrupted; whatever finished has been written. Exit 130.
    Interrupted(String),
}

impl CliError {
    pub fn usage(msg: impl fmt::Display) -> Self {
        CliError::Usage(msg.to_string())
    }

    pub fn failed(msg: impl fmt::Display) -> Self {
        CliError::Failed(msg.to_string())
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Failed(_) => 1,
            CliError::Interrupted(_) => 130,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) | CliError::Failed(m) | CliError::Interrupted(m) => f.write_str(m),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(err: std::io::Error) -> Self {
        CliError::Failed(format!("I/O error: {err}"))
    }
}

impl From<catalogue::Error> for CliError {
    fn from(err: catalogue::Error) -> Self {
        // Every catalogue error stems from what the user asked for.
        CliError::Usage(err.to_string())
    }
}

impl From<cost::Error> for CliError {
    fn from(err: cost::Error) -> Self {
        match err {
            cost::Error::Invalid(m) => CliError::Usage(m),
            cost::Error::Failed(m) => CliError::Failed(m),
            cost::Error::Interrupted(m) => CliError::Interrupted(m),
        }
    }
}

/// Input, key files and arguments are the user's to fix (exit 2); I/O is not (exit 1).
impl From<seal::SealError> for CliError {
    fn from(err: seal::SealError) -> Self {
        match err.is_user_error() {
            true => CliError::usage(err),
            false => CliError::failed(err),
        }
    }
}

/// Usage errors exit 2, failures of devices, sockets and files exit 1.
impl From<live::LiveError> for CliError {
    fn from(err: live::LiveError) -> Self {
        match err.is_usage() {
            true => CliError::usage(err),
            false => CliError::failed(err),
        }
    }
}

impl From<store::StoreError> for CliError {
    fn from(err: store::StoreError) -> Self {
        match err.is_user_error() {
            true => CliError::usage(err),
            false => CliError::failed(err),
        }
    }
}

/// A missing toolchain piece is the user's to install: exit 2.
impl From<mcu::McuError> for CliError {
    fn from(err: mcu::McuError) -> Self {
        match err {
            mcu::McuError::Usage(m) | mcu::McuError::Missing(m) => CliError::Usage(m),
            mcu::McuError::Failed(m) => CliError::Failed(m),
        }
    }
}

/// An unknown target or implementation exits 2, as cost maps it.
impl From<device_facts::FactsError> for CliError {
    fn from(err: device_facts::FactsError) -> Self {
        cost::Error::from(err).into()
    }
}
