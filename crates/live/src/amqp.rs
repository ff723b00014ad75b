//! AMQP 0-9-1 on both sides of a network server, as ChirpStack v4's AMQP integration
//! uses it: the gateway consumes uplinks from a durable queue bound to the integration's
//! exchange, and `send` publishes uplinks the way the integration does.
//!
//! What ChirpStack does (v4, `chirpstack/src/integration/amqp.rs` and its config
//! defaults): every event is published to the exchange `amq.topic` (setting
//! `integration.amqp.exchange`) with the routing key
//! `application.{{application_id}}.device.{{dev_eui}}.event.{{event}}` (uplinks:
//! `event.up`; the application id is a UUID, the DevEUI 16 hex digits), content type
//! `application/json` (the protobuf `integration.UplinkEvent` in its JSON mapping, our
//! [`crate::envelope::Envelope::ChirpStack`]; `application/octet-stream` when `json =
//! false`), not mandatory, default properties (so transient: no delivery mode), without
//! publisher confirms. ChirpStack declares no queue: a consumer binds its own, and an
//! event published while none is bound is dropped by the broker.
//!
//! - **Gateway** ([`Consumer`]): declares the durable queue named in the URL, binds it to
//!   the exchange (default `amq.topic`) with a binding key (default
//!   `application.*.device.*.event.up`: every device's uplinks), sets a bounded prefetch
//!   (`basic.qos`, default 4,096) and consumes with manual acknowledgements. Several
//!   workers consuming the same queue are competing consumers: each message goes to one.
//!   A message is acknowledged only after the commit that holds it ([`Delivery::ack`]).
//!   Acknowledgements come in delivery order, so one `basic.ack` with `multiple` for the
//!   highest tag acknowledges a whole run: no round trip, and one frame per wake-up of
//!   the connection's task rather than per message. A worker that dies (SIGKILL, crash,
//!   lost connection) leaves its unacknowledged messages to the broker, which requeues
//!   them at once and delivers them to the other consumers, `redelivered` set: a worker
//!   retired for good loses nothing, unlike an MQTT shared subscription's offline session
//!   (see [`crate::mqtt`]). A message committed but not yet acknowledged comes back once
//!   more, and the store's replay check refuses it (logged as a redelivery by its uplink
//!   id).
//! - **Send** ([`Publisher`]): publishes to the exchange named in the URL with one
//!   routing key, persistent (delivery mode 2, so a durable queue keeps it over a broker
//!   restart, which ChirpStack's transient events would not survive), `mandatory` (a
//!   message no queue takes comes back, and is not counted as confirmed), with publisher
//!   confirms counted as they arrive; at most [`PUBLISH_WINDOW`] unconfirmed.
//!
//! The broker's default user (`guest`, which RabbitMQ accepts from loopback only) and
//! vhost `/` are used, unless `CIPHERMETER_AMQP_USER` and `CIPHERMETER_AMQP_PASSWORD` say
//! otherwise; no TLS.
//!
//! **The client: lapin 4.** Chosen over the other AMQP 0-9-1 crates on crates.io for:
//! - maintained: lapin (amqp-rs) has releases through 2026 and is the client ChirpStack
//!   itself publishes with; amiquip, the synchronous one, has had no release since 0.4.2
//!   (2021) and says it is no longer actively maintained; amqprs is alive but is a
//!   smaller, single-maintainer tokio client, with no gain over lapin here;
//! - builds here from crates.io with default features off (no TLS stack), on the tokio
//!   the workspace already has (rumqttc, postgres);
//! - fast enough: consuming with a 4,096 prefetch and multiple-acks costs this client
//!   7-9 µs of CPU per message (release build, 2-core machine): over 110,000 messages/s
//!   on one core. End to end against RabbitMQ 3.10 on the same two cores, the broker is
//!   the bound: 50,000-54,000 consumed and acknowledged per second for transient
//!   messages (ChirpStack's), 37,000-43,000 for persistent ones (docs/live.md: how it
//!   was measured); publisher confirms and mandatory returns are built in.
//!
//! lapin is asynchronous; this module is synchronous like the rest of the gateway: each
//! [`Consumer`] and [`Publisher`] owns a one-worker tokio runtime (lapin's own I/O thread
//! does the socket work) and blocks on it.

use std::fmt;
use std::str::FromStr;

use crate::error::LiveError;

/// The client (lapin): without the `amqp` feature an `amqp://` endpoint is refused as
/// not built in ([`LiveError::NotBuilt`]).
#[cfg(feature = "amqp")]
mod client;
#[cfg(feature = "amqp")]
pub use client::{Confirms, Consumer, Delivery, Publisher, Received};

/// AMQP's port when the URL names none.
pub const DEFAULT_PORT: u16 = 5672;
/// The exchange ChirpStack's AMQP integration publishes to by default.
pub const CHIRPSTACK_EXCHANGE: &str = "amq.topic";
/// A binding key that takes every device's uplink events of every application.
pub const UPLINK_BINDING: &str = "application.*.device.*.event.up";
/// Messages the broker may have unacknowledged at one consumer by default.
pub const DEFAULT_PREFETCH: u16 = 4096;
/// Messages a [`Publisher`] may have unconfirmed at once.
pub const PUBLISH_WINDOW: usize = 8192;
/// Credentials other than the broker's default `guest`.
pub const USER_ENV: &str = "CIPHERMETER_AMQP_USER";
pub const PASSWORD_ENV: &str = "CIPHERMETER_AMQP_PASSWORD";

/// The application `send` names in its default routing key, as ChirpStack names
/// applications (a UUID): the nil one.
pub const SEND_APPLICATION_ID: &str = "00000000-0000-0000-0000-000000000000";

/// The routing key ChirpStack publishes a device's uplinks with.
pub fn chirpstack_routing_key(application_id: &str, dev_eui: &str) -> String {
    format!("application.{application_id}.device.{dev_eui}.event.up")
}

/// `amqp://HOST[:PORT]/NAME`: a broker and a name, the queue the gateway consumes or
/// the exchange `send` publishes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmqpUrl {
    pub host: String,
    pub port: u16,
    pub name: String,
}

/// Queue and exchange names as RabbitMQ takes them for both: 1-255 bytes of letters,
/// digits, `-`, `_`, `.` and `:`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
}

impl FromStr for AmqpUrl {
    type Err = LiveError;
    fn from_str(text: &str) -> Result<Self, LiveError> {
        let bad = |why: &str| LiveError::Usage(format!("endpoint '{text}': {why}"));
        let rest = text
            .strip_prefix("amqp://")
            .ok_or_else(|| bad("expected amqp://HOST:PORT/NAME"))?;
        let (authority, name) = rest
            .split_once('/')
            .ok_or_else(|| bad("expected a queue or exchange name after HOST:PORT/"))?;
        if authority.contains('@') {
            return Err(bad(&format!(
                "credentials do not go in the URL: set {USER_ENV} and {PASSWORD_ENV}"
            )));
        }
        if !valid_name(name) {
            return Err(bad(
                "the name after HOST:PORT/ (a queue or exchange) must be 1-255 letters, \
                 digits, '-', '_', '.' or ':'",
            ));
        }
        // A port after the last ':' outside brackets; else AMQP's default.
        let (host, port) = match authority.rfind(']') {
            Some(end) => match authority[end..].split_once(':') {
                Some((_, port)) => (&authority[..end + 1], Some(port)),
                None => (authority, None),
            },
            None => match authority.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (authority, None),
            },
        };
        let port = match port {
            None => DEFAULT_PORT,
            Some(p) => p
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| bad("the port must be a number from 1 to 65535"))?,
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains(['[', ']', '/']) {
            return Err(bad("expected HOST:PORT"));
        }
        Ok(AmqpUrl {
            host: host.to_string(),
            port,
            name: name.to_string(),
        })
    }
}

impl fmt::Display for AmqpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "amqp://[{}]:{}/{}", self.host, self.port, self.name)
        } else {
            write!(f, "amqp://{}:{}/{}", self.host, self.port, self.name)
        }
    }
}

/// How the gateway consumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AmqpSubscription {
    /// The exchange the queue is bound to (ChirpStack's `amq.topic` by default).
    pub exchange: String,
    /// The binding key (a topic pattern: `*` one word, `#` any number).
    pub binding_key: String,
    /// Messages the broker may have unacknowledged at this worker (`basic.qos`): it must
    /// exceed what arrives while one batch waits and commits, and bounds what a dying
    /// worker hands back.
    pub prefetch: u16,
}

impl Default for AmqpSubscription {
    fn default() -> Self {
        AmqpSubscription {
            exchange: CHIRPSTACK_EXCHANGE.into(),
            binding_key: UPLINK_BINDING.into(),
            prefetch: DEFAULT_PREFETCH,
        }
    }
}

impl AmqpSubscription {
    /// Refuses what the broker would refuse or what would be unbounded, saying why.
    pub fn check(&self, queue: &str) -> Result<(), LiveError> {
        if !valid_name(&self.exchange) {
            return Err(LiveError::Usage(format!(
                "exchange '{}': 1-255 letters, digits, '-', '_', '.' or ':'",
                self.exchange
            )));
        }
        if self.binding_key.len() > 255 {
            return Err(LiveError::Usage(
                "the binding key is longer than 255 bytes".into(),
            ));
        }
        if self.prefetch == 0 {
            return Err(LiveError::Usage(
                "the prefetch must be 1 to 65535 (0 would let the broker send without bound)"
                    .into(),
            ));
        }
        if queue.starts_with("amq.") {
            return Err(LiveError::Usage(format!(
                "queue '{queue}': names starting with 'amq.' are the broker's own"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_and_print() {
        let u: AmqpUrl = "amqp://127.0.0.1:5672/uplinks".parse().unwrap();
        assert_eq!(
            u,
            AmqpUrl {
                host: "127.0.0.1".into(),
                port: 5672,
                name: "uplinks".into()
            }
        );
        assert_eq!(u.to_string(), "amqp://127.0.0.1:5672/uplinks");
        let v6: AmqpUrl = "amqp://[::1]:5673/amq.topic".parse().unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 5673));
        assert_eq!(v6.to_string(), "amqp://[::1]:5673/amq.topic");
        // The port defaults to AMQP's; the printed form names it, and reads back the same.
        let d: AmqpUrl = "amqp://broker.local/gw-1:queue_a".parse().unwrap();
        assert_eq!(d.port, DEFAULT_PORT);
        assert_eq!(d.to_string().parse::<AmqpUrl>().unwrap(), d);
        let d6: AmqpUrl = "amqp://[::1]/q".parse().unwrap();
        assert_eq!((d6.host.as_str(), d6.port), ("::1", DEFAULT_PORT));
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        for (bad, why) in [
            ("amqp://", "name"),
            ("amqp://127.0.0.1:5672", "name"),
            ("amqp://127.0.0.1:5672/", "name"),
            ("amqp://127.0.0.1:5672/a/b", "name"),
            ("amqp://127.0.0.1:5672/a b", "name"),
            ("amqp://127.0.0.1:5672/caf\u{e9}", "name"),
            (&format!("amqp://h:1/{}", "q".repeat(256)), "name"),
            ("amqp://:5672/q", "HOST:PORT"),
            ("amqp:///q", "HOST:PORT"),
            ("amqp://h:0/q", "port"),
            ("amqp://h:70000/q", "port"),
            ("amqp://h:x/q", "port"),
            ("amqp://[::1]:/q", "port"),
            ("amqp://guest:guest@h:5672/q", USER_ENV),
            ("mqtt://h:1883/q", "amqp://HOST:PORT/NAME"),
            ("amqps://h:5671/q", "amqp://HOST:PORT/NAME"),
        ] {
            let err = bad.parse::<AmqpUrl>().expect_err(bad);
            assert!(err.is_usage(), "{bad}");
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
        let ok = format!("amqp://h:1/{}", "q".repeat(255));
        assert!(ok.parse::<AmqpUrl>().is_ok());
    }

    #[test]
    fn subscriptions_default_to_chirpstack_and_stay_bounded() {
        let sub = AmqpSubscription::default();
        assert_eq!(sub.exchange, "amq.topic");
        assert_eq!(sub.binding_key, "application.*.device.*.event.up");
        assert_eq!(sub.prefetch, DEFAULT_PREFETCH);
        assert!(sub.check("uplinks").is_ok());
        let zero = AmqpSubscription {
            prefetch: 0,
            ..AmqpSubscription::default()
        };
        assert!(zero.check("uplinks").unwrap_err().is_usage());
        assert!(sub.check("amq.mine").unwrap_err().is_usage());
        let exchange = AmqpSubscription {
            exchange: "a/b".into(),
            ..AmqpSubscription::default()
        };
        assert!(exchange.check("uplinks").unwrap_err().is_usage());
        let key = AmqpSubscription {
            binding_key: "k".repeat(256),
            ..AmqpSubscription::default()
        };
        assert!(key.check("uplinks").unwrap_err().is_usage());
    }

    #[test]
    fn routing_keys_are_chirpstacks() {
        let key =
            chirpstack_routing_key("00000000-0000-0000-0000-000000000000", "0102030405060708");
        assert_eq!(
            key,
            "application.00000000-0000-0000-0000-000000000000.device.0102030405060708.event.up"
        );
        // ChirpStack's key matches the default binding: '*' is one dot-free word.
        let words: Vec<&str> = key.split('.').collect();
        let pattern: Vec<&str> = UPLINK_BINDING.split('.').collect();
        assert_eq!(words.len(), pattern.len());
        assert!(words.iter().zip(&pattern).all(|(w, p)| *p == "*" || w == p));
    }
}
