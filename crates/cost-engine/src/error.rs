//! One error type for the domain libraries (cost, studies, campaign), kept in
//! three kinds because callers map them to different outcomes: what the user
//! can fix (a name, a length, a file they wrote), what the machine failed at,
//! and an interruption that kept whatever had finished.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The request is wrong: an unknown name, an impossible parameter, bad data.
    Invalid(String),
    /// Something outside the request failed: I/O, a missing tool, a bug.
    Failed(String),
    /// The user asked to stop; finished work has been kept.
    Interrupted(String),
}

impl Error {
    pub fn invalid(msg: impl fmt::Display) -> Self {
        Error::Invalid(msg.to_string())
    }

    pub fn failed(msg: impl fmt::Display) -> Self {
        Error::Failed(msg.to_string())
    }

    pub fn interrupted() -> Self {
        Error::Interrupted("interrupted while measuring".into())
    }

    pub fn is_invalid(&self) -> bool {
        matches!(self, Error::Invalid(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Invalid(m) | Error::Failed(m) | Error::Interrupted(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::Failed(format!("I/O error: {err}"))
    }
}

impl From<catalogue::Error> for Error {
    fn from(err: catalogue::Error) -> Self {
        // Every catalogue error stems from what was asked for.
        Error::Invalid(err.to_string())
    }
}

impl From<seal::SealError> for Error {
    fn from(err: seal::SealError) -> Self {
        if err.is_user_error() {
            Error::invalid(err)
        } else {
            Error::failed(err)
        }
    }
}

#[cfg(feature = "store")]
impl From<store::StoreError> for Error {
    fn from(err: store::StoreError) -> Self {
        if err.is_user_error() {
            Error::invalid(err)
        } else {
            Error::failed(err)
        }
    }
}

impl From<device_facts::FactsError> for Error {
    fn from(err: device_facts::FactsError) -> Self {
        match err {
            device_facts::FactsError::Usage(m) => Error::Invalid(m),
            device_facts::FactsError::Failed(m) => Error::Failed(m),
        }
    }
}
