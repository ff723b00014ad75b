//! MQTT v5 on both sides of a network server: the gateway subscribes (QoS 1, manual
//! acknowledgements, optionally one shared subscription over several workers) and `send`
//! publishes uplinks as a network server would.
//!
//! Acknowledgement: the gateway sends PUBACK for a message only after the batch that
//! holds it was committed (stored, or refused for good), in the order the messages came,
//! as MQTT v5 asks. A worker killed before that leaves the message unacknowledged.
//!
//! What Mosquitto 2.0 does with a shared subscription when a member dies (tested): the
//! messages in flight to it stay in *its* session, and it keeps being given its share
//! of new messages while offline; none moves to the other members. They are delivered
//! (in flight ones with DUP set) when a client with the same id reconnects with
//! `clean_start = false` before the session expires. So each worker needs a stable
//! `--client-id` and a persistent session, and a killed worker must be restarted. A
//! message committed but not yet acknowledged comes back once more, and the store's
//! replay check refuses it: it is logged as a replay from the same uplink id.
//! The same holds for a worker stopped on purpose: its session keeps receiving its
//! share until it comes back or the session expires (an hour), so a worker that leaves
//! the group for good loses what was routed to it after it left.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::error::LiveError;

/// The client (rumqttc): without the `mqtt` feature an `mqtt://` endpoint is refused as
/// not built in ([`LiveError::NotBuilt`]).
#[cfg(feature = "mqtt")]
mod client;
#[cfg(feature = "mqtt")]
pub use client::{Acks, Delivery, Publisher, Received, Subscriber};

/// `mqtt://HOST:PORT/TOPIC`: a broker and a topic (a filter, with `+`/`#`, to subscribe).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MqttUrl {
    pub host: String,
    pub port: u16,
    pub topic: String,
}

impl FromStr for MqttUrl {
    type Err = LiveError;
    fn from_str(text: &str) -> Result<Self, LiveError> {
        let bad = |why: &str| LiveError::Usage(format!("endpoint '{text}': {why}"));
        let rest = text
            .strip_prefix("mqtt://")
            .ok_or_else(|| bad("expected mqtt://HOST:PORT/TOPIC"))?;
        let (authority, topic) = rest
            .split_once('/')
            .ok_or_else(|| bad("expected a topic after HOST:PORT/"))?;
        if topic.is_empty() {
            return Err(bad("expected a topic after HOST:PORT/"));
        }
        let (host, port) = authority
            .rsplit_once(':')
            .ok_or_else(|| bad("expected HOST:PORT"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = port
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?;
        if host.is_empty() {
            return Err(bad("expected HOST:PORT"));
        }
        Ok(MqttUrl {
            host: host.to_string(),
            port,
            topic: topic.to_string(),
        })
    }
}

impl fmt::Display for MqttUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "mqtt://[{}]:{}/{}", self.host, self.port, self.topic)
        } else {
            write!(f, "mqtt://{}:{}/{}", self.host, self.port, self.topic)
        }
    }
}

/// How the gateway subscribes.
#[derive(Clone, Debug)]
pub struct Subscription {
    /// Shared subscription group: `$share/GROUP/FILTER`, each message to one member.
    pub share: Option<String>,
    /// A stable id gives a persistent session (unacknowledged messages are redelivered
    /// when the worker comes back); without one the session ends with the connection.
    pub client_id: Option<String>,
    pub session_expiry: Duration,
    /// Messages the broker may have in flight to this worker (MQTT v5 receive maximum):
    /// it must exceed what arrives while one batch waits and commits.
    pub receive_max: u16,
}

impl Default for Subscription {
    fn default() -> Self {
        Subscription {
            share: None,
            client_id: None,
            session_expiry: Duration::from_secs(3600),
            receive_max: 16_384,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_print() {
        let u: MqttUrl = "mqtt://127.0.0.1:1883/application/+/device/+/event/up"
            .parse()
            .unwrap();
        assert_eq!(u.host, "127.0.0.1");
        assert_eq!(u.port, 1883);
        assert_eq!(u.topic, "application/+/device/+/event/up");
        assert_eq!(
            u.to_string(),
            "mqtt://127.0.0.1:1883/application/+/device/+/event/up"
        );
        let v6: MqttUrl = "mqtt://[::1]:1883/v3/#".parse().unwrap();
        assert_eq!(v6.host, "::1");
        assert_eq!(v6.to_string(), "mqtt://[::1]:1883/v3/#");
        for bad in [
            "mqtt://",
            "mqtt://127.0.0.1:1883",
            "mqtt://127.0.0.1:1883/",
            "mqtt://127.0.0.1/t",
            "mqtt://:1883/t",
            "mqtt://h:0/t",
            "tcp://h:1/t",
        ] {
            assert!(bad.parse::<MqttUrl>().is_err(), "{bad}");
        }
    }
}
