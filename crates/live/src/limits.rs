//! What one gateway takes from the network. Each limit has a default here, a
//! `gateway` flag, and a counter for what it refused (in [`crate::counters`]),
//! so a flood costs bounded threads, descriptors, memory and replay rows.

use std::time::Duration;

use crate::error::LiveError;
use crate::framing::MAX_MESSAGE;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// TCP connections served at once; further ones are accepted, closed at once
    /// and counted as `connections.refused` (`--max-connections`).
    pub max_connections: usize,
    /// A TCP connection that sends nothing for this long is closed and counted as
    /// `connections.idle_closed` (`--idle-timeout`).
    pub idle_timeout: Duration,
    /// Largest message; a longer line or datagram is refused as `oversize`
    /// (`--max-message`).
    pub max_message: usize,
    /// Freshness window for readings under random nonces: a `sent_us` further than
    /// this from the gateway's clock is refused as `stale`, and the replay table
    /// keeps nonces only this long (`--max-age`).
    pub max_age: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 256,
            idle_timeout: Duration::from_secs(60),
            max_message: 16 * 1024,
            max_age: Duration::from_secs(300),
        }
    }
}

impl Limits {
    /// Refuses limits that would disable the gateway or lift a bound.
    pub fn validate(&self) -> Result<(), LiveError> {
        let bad = |what: &str| Err(LiveError::Usage(what.to_string()));
        if !(1..=65_536).contains(&self.max_connections) {
            return bad("--max-connections must be 1 to 65536");
        }
        if self.idle_timeout.is_zero() || self.idle_timeout > Duration::from_secs(86_400) {
            return bad("--idle-timeout must be more than 0 and at most 86400 seconds");
        }
        if !(1..=MAX_MESSAGE).contains(&self.max_message) {
            return bad(&format!("--max-message must be 1 to {MAX_MESSAGE} bytes"));
        }
        if self.max_age.is_zero() || self.max_age > Duration::from_secs(7 * 86_400) {
            return bad("--max-age must be more than 0 and at most 604800 seconds (a week)");
        }
        Ok(())
    }

    pub fn max_age_us(&self) -> i64 {
        self.max_age.as_micros() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_nonsense_is_refused() {
        assert!(Limits::default().validate().is_ok());
        for broken in [
            Limits {
                max_connections: 0,
                ..Limits::default()
            },
            Limits {
                idle_timeout: Duration::ZERO,
                ..Limits::default()
            },
            Limits {
                max_message: MAX_MESSAGE + 1,
                ..Limits::default()
            },
            Limits {
                max_age: Duration::ZERO,
                ..Limits::default()
            },
        ] {
            assert!(broken.validate().is_err(), "{broken:?}");
        }
    }
}
