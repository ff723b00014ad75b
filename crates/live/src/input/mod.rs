//! One input interface. Each transport is one file here that turns what arrives into
//! [`Input`]s on a [`Feed`]; the one verify → store pipeline ([`crate::pipeline`])
//! takes them from there, whatever carried them.
//!
//! - [`udp`]: datagrams, one message each (`udp://`, and `coap://` whose requests are
//!   answered on the socket they came in on).
//! - [`tcp`]: connections on one readiness loop, acknowledged after commit.
//! - [`serial`]: a serial device or pseudo-terminal.
//! - [`mqtt`]: a broker subscription, PUBACK after commit.
//! - [`amqp`]: a queue of competing consumers, `basic.ack` after commit.
//!
//! What each transport owes the pipeline: every message or refusal it hands on carries
//! how it is acknowledged ([`Ack`]); the pipeline releases it after the commit that
//! settles the message, so an acknowledged message is never lost.

#[cfg(feature = "amqp")]
pub mod amqp;
pub mod mqtt;
pub mod serial;
pub mod tcp;
pub mod udp;

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;
use std::thread::JoinHandle;

use crate::counters::{Counters, Reason};
use crate::endpoint::Endpoint;
use crate::envelope::FrameCounter;
use crate::error::LiveError;
use crate::framing::Event;
use crate::gateway::{GatewayConfig, now_us};
use crate::verify::{SealedRing, Verified};

/// One thing that arrived: a message to open, or bytes already known to be none.
pub enum Input {
    Message {
        bytes: Vec<u8>,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        /// How a network server numbered the uplink, when its envelope says.
        counter: Option<FrameCounter>,
    },
    /// A message the feed opened already (sealed containers: see [`Feed`]).
    Verified {
        verified: Verified,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
        counter: Option<FrameCounter>,
    },
    Broken {
        reason: Reason,
        detail: String,
        source: Arc<str>,
        ack: Option<Ack>,
        counter: Option<FrameCounter>,
    },
}

impl Input {
    pub fn broken(reason: Reason, detail: impl Into<String>, source: Arc<str>) -> Input {
        Input::Broken {
            reason,
            detail: detail.into(),
            source,
            ack: None,
            counter: None,
        }
    }

    pub fn message(bytes: Vec<u8>, source: Arc<str>) -> Input {
        Input::Message {
            bytes,
            arrived_us: now_us(),
            source,
            ack: None,
            counter: None,
        }
    }

    pub fn with_ack(mut self, with: Option<Ack>) -> Input {
        match &mut self {
            Input::Message { ack, .. }
            | Input::Verified { ack, .. }
            | Input::Broken { ack, .. } => *ack = with,
        }
        self
    }

    fn with_counter(mut self, with: Option<FrameCounter>) -> Input {
        match &mut self {
            Input::Message { counter, .. }
            | Input::Verified { counter, .. }
            | Input::Broken { counter, .. } => *counter = with,
        }
        self
    }

    /// A deframer's event as the pipeline's input.
    pub fn from_event(event: Event, source: Arc<str>) -> Input {
        match event {
            Event::Message(bytes) => Input::message(bytes, source),
            Event::Garbage(n) => Input::broken(
                Reason::Garbage,
                format!("{n} bytes that start no frame"),
                source,
            ),
            Event::Truncated(n) => Input::broken(
                Reason::Truncated,
                format!("partial frame of {n} bytes stopped arriving"),
                source,
            ),
            Event::Oversize(n) => Input::broken(
                Reason::Oversize,
                format!("line of {n} bytes, above --max-message"),
                source,
            ),
        }
    }
}

/// Something a transport does once the message it belongs to is committed (stored, or
/// refused for good): PUBACK, `basic.ack`, an `ack N` line.
pub trait Acknowledge: Send {
    fn ack(self: Box<Self>);
}

/// How a message is acknowledged once its batch is committed.
pub enum Ack {
    /// Released after the commit, in arrival order.
    After(Box<dyn Acknowledge>),
    /// A CoAP request, answered after the commit with what the store decided
    /// ([`crate::coap`]): the answer depends on the verdict, so the pipeline writes it.
    Coap(Arc<UdpSocket>, SocketAddr),
}

/// Where a transport puts what arrived. Sending blocks while the pipeline is a full
/// queue behind: back-pressure, not loss. `false` once the pipeline has stopped.
///
/// With sealing keys, the feed opens each message on the transport's thread, so that
/// verifying (a third of the work per message) runs beside the pipeline's commits
/// instead of before them. OSCORE keeps its keys in the pipeline: its replay window
/// and answers are decided there, in order.
pub struct Feed {
    tx: SyncSender<Input>,
    ring: Option<SealedRing>,
}

impl Feed {
    pub fn new(tx: SyncSender<Input>, ring: Option<SealedRing>) -> Feed {
        Feed { tx, ring }
    }

    pub fn send(&mut self, input: Input) -> bool {
        let input = match (input, &mut self.ring) {
            (
                Input::Message {
                    bytes,
                    arrived_us,
                    source,
                    ack,
                    counter,
                },
                Some(ring),
            ) => match ring.open(&bytes) {
                Ok(verified) => Input::Verified {
                    verified,
                    arrived_us,
                    source,
                    ack,
                    counter,
                },
                Err((reason, detail)) => Input::Broken {
                    reason,
                    detail,
                    source,
                    ack,
                    counter,
                },
            },
            (input, _) => input,
        };
        self.tx.send(input).is_ok()
    }
}

/// A transport listening: where it is bound (the real port for `:0`) and its threads.
pub struct Started {
    pub bound: Endpoint,
    pub threads: Vec<JoinHandle<()>>,
}

/// Settings for another transport are a mistake, not something to ignore.
pub fn check(config: &GatewayConfig) -> Result<(), LiveError> {
    let listen = &config.listen;
    let broker = matches!(listen, Endpoint::Mqtt(_) | Endpoint::Amqp(_));
    if config.envelope != crate::envelope::Envelope::Raw && !broker {
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
        Endpoint::Mqtt(url) => mqtt::start(url, config, feed, stop),
        #[cfg(feature = "amqp")]
        Endpoint::Amqp(url) => amqp::start(url, config, feed, stop),
        #[cfg(not(feature = "amqp"))]
        Endpoint::Amqp(_) => Err(LiveError::Usage(crate::amqp::NOT_BUILT.into())),
    }
}

/// An uplink from a network server (MQTT, AMQP) as the pipeline's input: the sealed
/// message out of its envelope, or why there is none. `source` names the uplink from
/// its id ("-" when the envelope has none).
pub(crate) fn uplink_input(
    payload: &[u8],
    envelope: crate::envelope::Envelope,
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
