//! A scheme keyed by a handshake shared over a session (`--session-messages`):
//! the share a ranked row carries; the handshake's cost is the host's
//! (`cost::session`, crates/handshake).

use serde::Serialize;

/// A handshake's share of each message in a session of `messages`.
#[derive(Clone, Debug, Serialize)]
pub struct SessionShare {
    pub protocol: String,
    pub messages: u64,
    /// The device's handshake energy over `messages`, µJ per message.
    pub handshake_uj: f64,
}
