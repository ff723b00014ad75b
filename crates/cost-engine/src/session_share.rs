//! A scheme keyed by a handshake shared over a session (`--session-messages`):
//! the share a ranked row carries; the handshake's cost is the host's
//! (`cost::session`, crates/handshake).

use serde::{Deserialize, Serialize};

use crate::Error;

/// A handshake's share of each message in a session of `messages`.
#[derive(Clone, Debug, Serialize)]
pub struct SessionShare {
    pub protocol: String,
    pub messages: u64,
    /// The device's handshake energy over `messages`, µJ per message.
    pub handshake_uj: f64,
}

/// `--session-messages`: a session holds at least one message.
pub fn check_messages(messages: u64) -> Result<u64, Error> {
    if messages == 0 {
        return Err(Error::invalid("--session-messages must be at least 1"));
    }
    Ok(messages)
}

/// A key establishment's answer as a ranking shows it: what `recommend`
/// prints of it (the host's type: `cost::session::SessionAnswer`).
pub trait SessionSaid {
    fn sentence(&self) -> &str;
}

/// No key establishment: what a ranking without the host's handshakes
/// holds (none is ever made).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum NoSession {}

impl SessionSaid for NoSession {
    fn sentence(&self) -> &str {
        match *self {}
    }
}
