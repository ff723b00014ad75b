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

/// The user's to fix (exit 2), or the machine's failure (exit 1).
fn by_fault(users: bool, err: impl fmt::Display) -> CliError {
    match users {
        true => CliError::usage(err),
        false => CliError::failed(err),
    }
}

/// Input, key files and arguments are the user's to fix; I/O is not.
impl From<seal::SealError> for CliError {
    fn from(err: seal::SealError) -> Self {
        by_fault(err.is_user_error(), err)
    }
}

impl From<live::LiveError> for CliError {
    fn from(err: live::LiveError) -> Self {
        by_fault(err.is_usage(), err)
    }
}

impl From<store::StoreError> for CliError {
    fn from(err: store::StoreError) -> Self {
        by_fault(err.is_user_error(), err)
    }
}

/// `keygen --scheme edhoc`: the files' errors as seal's, the handshake's rules the user's.
impl From<handshake::credentials::KeygenError> for CliError {
    fn from(err: handshake::credentials::KeygenError) -> Self {
        use handshake::{HandshakeError, credentials::KeygenError};
        match err {
            KeygenError::File(e) => e.into(),
            KeygenError::Handshake(e) => by_fault(matches!(e, HandshakeError::Usage(_)), e),
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
