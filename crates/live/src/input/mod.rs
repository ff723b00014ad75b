//! One input interface. Each transport is one file here that turns what arrives into
//! [`Input`]s on a [`Feed`] ([`crate::feed`]); the one verify → store pipeline
//! ([`crate::pipeline`]) takes them from there, whatever carried them. The inputs sit
//! above the pipeline and the feed and import neither the gateway nor each other.
//!
//! - [`udp`]: datagrams, one message each (`udp://`, and `coap://` whose requests are
//!   answered on the socket they came in on).
//! - [`tcp`]: connections on one readiness loop, acknowledged after commit.
//! - [`serial`]: a serial device or pseudo-terminal.
//! - [`mqtt`]: a broker subscription, PUBACK after commit.
//! - [`amqp`]: a queue of competing consumers, `basic.ack` after commit.
//!
//! What each transport owes the pipeline: every message or refusal it hands on carries
//! how it is acknowledged ([`crate::feed::Ack`]); the pipeline releases it after the
//! commit that settles the message, so an acknowledged message is never lost.

#[cfg(feature = "amqp")]
pub mod amqp;
#[cfg(feature = "mqtt")]
pub mod mqtt;
pub mod serial;
pub mod tcp;
pub mod udp;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::JoinHandle;

use crate::config::GatewayConfig;
use crate::counters::Counters;
#[cfg(any(feature = "mqtt", feature = "amqp"))]
use crate::counters::Reason;
use crate::endpoint::Endpoint;
use crate::envelope::Envelope;
use crate::error::LiveError;
use crate::feed::Feed;
#[cfg(any(feature = "mqtt", feature = "amqp"))]
use crate::feed::Input;

/// A transport listening: where it is bound (the real port for `:0`) and its threads.
pub struct Started {
    pub bound: Endpoint,
    pub threads: Vec<JoinHandle<()>>,
}

/// Settings for another transport are a mistake, not something to ignore.
pub fn check(config: &GatewayConfig) -> Result<(), LiveError> {
    let listen = &config.listen;
    listen.check_built()?;
    let broker = matches!(listen, Endpoint::Mqtt(_) | Endpoint::Amqp(_));
    if config.envelope != Envelope::Raw && !broker {
        return Err(LiveError::Usage(format!(
            "--envelope is for a network server's broker (mqtt://, amqp://), not {listen}"
        )));
    }
    if config.amqp != crate::amqp::AmqpSubscription::default()
        && !matches!(listen, Endpoint::Amqp(_))
    {
        return Err(LiveError::Usage(format!(
            "--exchange, --binding-key and --prefetch are for amqp:// endpoints, not {listen}"
        )));
    }
    if matches!(listen, Endpoint::Tcp(_)) {
        crate::limits::ensure_descriptors(config.limits.max_connections)?;
    }
    let sub = &config.mqtt;
    if (sub.share.is_some() || sub.client_id.is_some()) && !matches!(listen, Endpoint::Mqtt(_)) {
        return Err(LiveError::Usage(format!(
            "--share and --client-id are for mqtt:// endpoints, not {listen}"
        )));
    }
    if sub
        .share
        .as_deref()
        .is_some_and(|g| g.is_empty() || g.contains(['/', '+', '#']))
    {
        return Err(LiveError::Usage(
            "--share takes a group name without '/', '+' or '#'".into(),
        ));
    }
    Ok(())
}

/// Opens the configured transport and starts feeding the pipeline until `stop`.
pub fn start(
    config: &GatewayConfig,
    feed: Feed,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
) -> Result<Started, LiveError> {
    match &config.listen {
        Endpoint::Udp(addr) => udp::start(*addr, false, config, feed, stop),
        Endpoint::Coap(addr) => udp::start(*addr, true, config, feed, stop),
        Endpoint::Tcp(addr) => tcp::start(*addr, config, feed, stop, counters),
        Endpoint::Serial { path, baud } => serial::start(path, *baud, config, feed, stop),
        #[cfg(feature = "mqtt")]
        Endpoint::Mqtt(url) => mqtt::start(url, config, feed, stop),
        #[cfg(feature = "amqp")]
        Endpoint::Amqp(url) => amqp::start(url, config, feed, stop),
        #[cfg(not(feature = "mqtt"))]
        Endpoint::Mqtt(_) => Err(LiveError::not_built(&config.listen, "MQTT", "mqtt")),
        #[cfg(not(feature = "amqp"))]
        Endpoint::Amqp(_) => Err(LiveError::not_built(&config.listen, "AMQP", "amqp")),
    }
}

/// An uplink from a network server (MQTT, AMQP) as the pipeline's input: the sealed
/// message out of its envelope, or why there is none. `source` names the uplink from
/// its id ("-" when the envelope has none).
#[cfg(any(feature = "mqtt", feature = "amqp"))]
pub(crate) fn uplink_input(
    payload: &[u8],
    envelope: Envelope,
    max: usize,
    source: impl FnOnce(&str) -> String,
) -> Input {
    // An envelope carries the message in base64 beside its metadata: room for both.
    let opened = if payload.len() > max * 2 + 4096 {
        Err((
            Reason::Oversize,
            format!("uplink of {} bytes", payload.len()),
        ))
    } else {
        envelope.open(payload).map_err(|e| (Reason::Garbage, e))
    };
    let id = opened
        .as_ref()
        .ok()
        .and_then(|u| u.id.as_deref())
        .unwrap_or("-");
    let source: Arc<str> = Arc::from(source(id));
    // An uplink that opened came with its counter, whatever its payload is.
    match opened {
        Ok(up) if up.sealed.is_empty() => {
            Input::broken(Reason::Truncated, "uplink without FRMPayload", source)
                .with_counter(up.counter)
        }
        Ok(up) if up.sealed.len() > max => Input::broken(
            Reason::Oversize,
            format!("{} bytes, above --max-message {max}", up.sealed.len()),
            source,
        )
        .with_counter(up.counter),
        Ok(up) => Input::message(up.sealed, source).with_counter(up.counter),
        Err((reason, detail)) => Input::broken(reason, detail, source),
    }
}
