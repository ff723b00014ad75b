//! What the gateway is told: where it listens, how messages are framed or wrapped,
//! where it stores, how it batches, and what the network may take ([`Limits`]). The
//! inputs, the pipeline and the gateway read it; it reads only the settings below it.

use std::path::PathBuf;
use std::time::Duration;

use store::Location;

use crate::amqp::AmqpSubscription;
use crate::endpoint::Endpoint;
use crate::envelope::Envelope;
use crate::error::LiveError;
use crate::framing::Framing;
use crate::limits::Limits;
use crate::mqtt::Subscription;

pub struct GatewayConfig {
    pub listen: Endpoint,
    pub framing: Framing,
    /// A SQLite file, or a PostgreSQL database several gateway workers share.
    pub db: Location,
    /// Commit when this many messages wait…
    pub batch_max: usize,
    /// …or when the oldest has waited this long.
    pub batch_wait: Duration,
    pub limits: Limits,
    pub stats_file: Option<PathBuf>,
    pub stats_interval: Duration,
    /// Stop once this many messages have been received and settled.
    pub exit_after: Option<u64>,
    /// How a network server wraps each uplink (MQTT, AMQP); `raw` elsewhere.
    pub envelope: Envelope,
    /// AMQP only: the exchange the queue is bound to, the binding key, the prefetch.
    pub amqp: AmqpSubscription,
    /// MQTT only: shared subscription and session.
    pub mqtt: Subscription,
    /// Serial only (`--compression schc`): OSCORE requests compressed with
    /// these rules, in RFC 9011's frames and fragments, ACKs sent back
    /// ([`crate::schc_radio`]).
    pub schc: Option<std::sync::Arc<schc::RuleSet>>,
}

impl GatewayConfig {
    pub fn new(listen: Endpoint, framing: Framing, db: Location) -> Self {
        GatewayConfig {
            listen,
            framing,
            db,
            batch_max: 4096,
            batch_wait: Duration::from_millis(20),
            limits: Limits::default(),
            stats_file: None,
            stats_interval: Duration::from_secs(1),
            exit_after: None,
            envelope: Envelope::Raw,
            amqp: AmqpSubscription::default(),
            mqtt: Subscription::default(),
            schc: None,
        }
    }
}

/// `--framing line` splits at newlines, which a binary container's messages may hold.
pub fn check_framing(framing: Framing, container: seal::Container) -> Result<(), LiveError> {
    if framing == Framing::Line && !container.is_text() {
        return Err(LiveError::Usage(format!(
            "--framing line needs a text container; {container} messages may contain newlines: use --framing len"
        )));
    }
    Ok(())
}
