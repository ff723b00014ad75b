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
use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, Instant};

use futures_core::Stream;
use lapin::options::{
    BasicAckOptions, BasicConsumeOptions, BasicPublishOptions, BasicQosOptions,
    ConfirmSelectOptions, ExchangeDeclareOptions, QueueBindOptions, QueueDeclareOptions,
};
use lapin::types::FieldTable;
use lapin::uri::{AMQPAuthority, AMQPUri, AMQPUserInfo};
use lapin::{BasicProperties, Channel, Confirmation, Connection, ConnectionProperties};
use tokio::runtime::Runtime;
use tokio::sync::{Notify, Semaphore};

use crate::error::LiveError;

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

const CONNECT_LIMIT: Duration = Duration::from_secs(10);

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

impl AmqpUrl {
    /// The broker's address for lapin: vhost `/`, the user from the environment.
    fn uri(&self) -> AMQPUri {
        let mut uri = AMQPUri {
            vhost: "/".into(),
            ..AMQPUri::default()
        };
        uri.authority = AMQPAuthority {
            userinfo: AMQPUserInfo {
                username: std::env::var(USER_ENV).unwrap_or_else(|_| "guest".into()),
                password: std::env::var(PASSWORD_ENV).unwrap_or_else(|_| "guest".into()),
            },
            host: self.host.clone(),
            port: self.port,
        };
        uri
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

/// A one-worker runtime for lapin's tasks (it does its socket I/O on a thread of its own).
fn runtime(name: &str) -> Result<Runtime, LiveError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(name)
        .enable_all()
        .build()
        .map_err(|e| LiveError::io("amqp runtime", e))
}

fn amqp_error(url: &AmqpUrl, e: impl fmt::Display) -> LiveError {
    LiveError::Io(format!("{url}: {e}"))
}

async fn connect(url: &AmqpUrl, role: &str) -> Result<Connection, LiveError> {
    let props = ConnectionProperties::default()
        .with_connection_name(format!("ciphermeter-{role}-{}", std::process::id()).into());
    match tokio::time::timeout(CONNECT_LIMIT, Connection::connect_uri(url.uri(), props)).await {
        Ok(conn) => conn.map_err(|e| amqp_error(url, e)),
        Err(_) => Err(amqp_error(url, "no answer from the broker")),
    }
}

/// One connection's consuming channel.
struct Session {
    conn: Connection,
    channel: Channel,
    consumer: lapin::Consumer,
}

impl Session {
    async fn open(url: &AmqpUrl, sub: &AmqpSubscription) -> Result<Session, LiveError> {
        let conn = connect(url, "gateway").await?;
        let err = |what: &str, e: lapin::Error| amqp_error(url, format!("{what}: {e}"));
        let channel = conn.create_channel().await.map_err(|e| err("channel", e))?;
        let queue = url.name.as_str();
        channel
            .queue_declare(
                queue.into(),
                QueueDeclareOptions {
                    durable: true,
                    ..QueueDeclareOptions::default()
                },
                FieldTable::default(),
            )
            .await
            .map_err(|e| err(&format!("declaring the durable queue {queue}"), e))?;
        channel
            .queue_bind(
                queue.into(),
                sub.exchange.as_str().into(),
                sub.binding_key.as_str().into(),
                QueueBindOptions::default(),
                FieldTable::default(),
            )
            .await
            .map_err(|e| {
                err(
                    &format!(
                        "binding {queue} to exchange {} with key {}",
                        sub.exchange, sub.binding_key
                    ),
                    e,
                )
            })?;
        channel
            .basic_qos(sub.prefetch, BasicQosOptions::default())
            .await
            .map_err(|e| err("prefetch (basic.qos)", e))?;
        let tag = format!("ciphermeter-gateway-{}", std::process::id());
        let consumer = channel
            .basic_consume(
                queue.into(),
                tag.into(),
                BasicConsumeOptions::default(),
                FieldTable::default(),
            )
            .await
            .map_err(|e| err(&format!("consuming {queue}"), e))?;
        Ok(Session {
            conn,
            channel,
            consumer,
        })
    }

    /// Closing the channel hands every unacknowledged message back to the queue.
    async fn close(self) {
        let bye = async {
            let _ = self.channel.close(200, "bye".into()).await;
            let _ = self.conn.close(200, "bye".into()).await;
        };
        let _ = tokio::time::timeout(Duration::from_secs(2), bye).await;
    }
}

/// The acknowledgements the caller has released: the highest delivery tag of the
/// current session (tags restart with each connection).
struct Acks {
    state: Mutex<AckState>,
    wake: Notify,
}

#[derive(Default)]
struct AckState {
    session: u64,
    highest: u64,
}

impl Acks {
    fn highest(&self, session: u64) -> u64 {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.session == session { s.highest } else { 0 }
    }

    fn new_session(&self, session: u64) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *s = AckState {
            session,
            highest: 0,
        };
    }
}

/// One delivered message to acknowledge after the commit that holds it.
pub struct Delivery {
    acks: Arc<Acks>,
    session: u64,
    tag: u64,
}

impl Delivery {
    /// Acknowledges this message and every earlier one of its connection: call it in
    /// delivery order. Cheap: it only records the tag; the consumer's task sends one
    /// `basic.ack` (multiple) for all released so far. A message of a connection that
    /// has since broken is not acknowledged: the broker has requeued it already.
    pub fn ack(self) {
        let mut s = self.acks.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.session == self.session && self.tag > s.highest {
            s.highest = self.tag;
            drop(s);
            self.acks.wake.notify_one();
        }
    }
}

/// One message as the gateway's reader hands it on.
pub struct Received {
    pub payload: Vec<u8>,
    pub routing_key: String,
    /// The broker delivered it before (to a worker that died or closed without acking).
    pub redelivered: bool,
    pub delivery: Delivery,
}

/// A consuming connection whose reader runs in [`Consumer::run`].
pub struct Consumer {
    rt: Runtime,
    url: AmqpUrl,
    sub: AmqpSubscription,
    /// Taken by `run`; closed on drop when `run` never ran.
    session: Option<Session>,
}

impl Consumer {
    /// Connects, declares and binds the durable queue `url.name`, sets the prefetch and
    /// starts consuming with manual acknowledgements (at most 10 s for the connection).
    pub fn connect(url: &AmqpUrl, sub: &AmqpSubscription) -> Result<Consumer, LiveError> {
        sub.check(&url.name)?;
        let rt = runtime("amqp-gateway")?;
        let session = rt.block_on(Session::open(url, sub))?;
        Ok(Consumer {
            rt,
            url: url.clone(),
            sub: sub.clone(),
            session: Some(session),
        })
    }

    /// Hands every message to `deliver` until `stop` or until `deliver` returns false;
    /// then sends the acknowledgements released so far and closes (what is left
    /// unacknowledged goes back to the queue). A broken connection is reopened (queue,
    /// binding and prefetch again); its unacknowledged messages come back redelivered.
    pub fn run(mut self, stop: &AtomicBool, mut deliver: impl FnMut(Received) -> bool) {
        let Some(session) = self.session.take() else {
            return;
        };
        let (url, sub) = (&self.url, &self.sub);
        let acks = Arc::new(Acks {
            state: Mutex::new(AckState::default()),
            wake: Notify::new(),
        });
        self.rt.block_on(async {
            let mut session = session;
            let mut generation = 0u64;
            // The highest tag acknowledged to the broker in this session.
            let mut acked = 0u64;
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            // Released acknowledgements are sent when no message is waiting, or once half
            // the prefetch waits on them (so the broker never runs dry).
            let due = u64::from(sub.prefetch).div_ceil(2);
            let mut open = true;
            while open && !stop.load(Ordering::Relaxed) {
                tokio::select! {
                    biased;
                    next = next_delivery(&mut session.consumer) => match next {
                        Some(Ok(d)) => {
                            open = deliver(Received {
                                payload: d.data,
                                routing_key: d.routing_key.as_str().to_owned(),
                                redelivered: d.redelivered,
                                delivery: Delivery {
                                    acks: acks.clone(),
                                    session: generation,
                                    tag: d.delivery_tag,
                                },
                            });
                            if acks.highest(generation) >= acked + due {
                                acked = flush(&session.channel, &acks, generation, acked);
                            }
                        }
                        ended => {
                            let why = match ended {
                                Some(Err(e)) => e.to_string(),
                                _ => "the broker cancelled the consumer".into(),
                            };
                            eprintln!("gateway: amqp: {url}: {why}; reconnecting");
                            let Some(fresh) = reopen(url, sub, stop).await else {
                                break;
                            };
                            let old = std::mem::replace(&mut session, fresh);
                            old.close().await;
                            generation += 1;
                            acks.new_session(generation);
                            acked = 0;
                        }
                    },
                    _ = acks.wake.notified() => {
                        acked = flush(&session.channel, &acks, generation, acked);
                    }
                    _ = tick.tick() => {
                        acked = flush(&session.channel, &acks, generation, acked);
                    }
                }
            }
            flush(&session.channel, &acks, generation, acked);
            session.close().await;
        });
    }
}

impl Drop for Consumer {
    /// A consumer dropped without running closes at once: the messages the broker
    /// already sent it go back to the queue.
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.rt.block_on(session.close());
        }
    }
}

/// The consumer's next message (`None` once it is cancelled or its connection broke).
async fn next_delivery(
    consumer: &mut lapin::Consumer,
) -> Option<lapin::Result<lapin::message::Delivery>> {
    std::future::poll_fn(|cx| Pin::new(&mut *consumer).poll_next(cx)).await
}

/// Sends one `basic.ack` (multiple) up to the highest released tag, if it moved.
/// Not awaited: the first poll hands the frame to the connection, in order with
/// everything else on the channel, and that is all an acknowledgement needs (it has
/// no reply; if the channel is gone, the broker has requeued the messages already).
fn flush(channel: &Channel, acks: &Acks, session: u64, acked: u64) -> u64 {
    let highest = acks.highest(session);
    if highest <= acked {
        return acked;
    }
    let ack = channel.basic_ack(highest, BasicAckOptions { multiple: true });
    let mut ack = std::pin::pin!(ack);
    let _ = ack
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
    highest
}

/// Reopens the session, retrying every second until it works or `stop`.
async fn reopen(url: &AmqpUrl, sub: &AmqpSubscription, stop: &AtomicBool) -> Option<Session> {
    let mut wait = Duration::from_millis(200);
    loop {
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        match Session::open(url, sub).await {
            Ok(s) => return Some(s),
            Err(e) => eprintln!("gateway: amqp: {e}; retrying"),
        }
        wait = Duration::from_secs(1);
    }
}

/// What became of the messages a [`Publisher`] sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Confirms {
    /// Routed to at least one queue and confirmed by the broker.
    pub confirmed: u64,
    /// Taken by no queue (returned: `mandatory`), so not delivered to anyone.
    pub unroutable: u64,
    /// Refused by the broker (`basic.nack`).
    pub nacked: u64,
}

#[derive(Default)]
struct Counts {
    confirmed: AtomicU64,
    unroutable: AtomicU64,
    nacked: AtomicU64,
    failed: Mutex<Option<String>>,
}

impl Counts {
    fn done(&self) -> u64 {
        self.confirmed.load(Ordering::Relaxed)
            + self.unroutable.load(Ordering::Relaxed)
            + self.nacked.load(Ordering::Relaxed)
    }

    fn failure(&self) -> Option<String> {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn snapshot(&self) -> Confirms {
        Confirms {
            confirmed: self.confirmed.load(Ordering::Relaxed),
            unroutable: self.unroutable.load(Ordering::Relaxed),
            nacked: self.nacked.load(Ordering::Relaxed),
        }
    }
}

/// Publishes persistent, mandatory messages with publisher confirms, counting them.
pub struct Publisher {
    rt: Runtime,
    /// Closed by `finish`, or on drop.
    conn: Option<Connection>,
    channel: Channel,
    exchange: String,
    routing_key: String,
    properties: BasicProperties,
    window: Arc<Semaphore>,
    counts: Arc<Counts>,
}

impl Publisher {
    /// Connects (at most 10 s), checks that the exchange `url.name` exists and turns
    /// publisher confirms on.
    pub fn connect(url: &AmqpUrl, routing_key: &str) -> Result<Publisher, LiveError> {
        if routing_key.len() > 255 {
            return Err(LiveError::Usage(
                "--routing-key is longer than 255 bytes".into(),
            ));
        }
        let rt = runtime("amqp-send")?;
        let (conn, channel) = rt.block_on(async {
            let conn = connect(url, "send").await?;
            let err = |what: &str, e: lapin::Error| amqp_error(url, format!("{what}: {e}"));
            let channel = conn.create_channel().await.map_err(|e| err("channel", e))?;
            // Passive: only checks. The default exchange ("") cannot be named here.
            channel
                .exchange_declare(
                    url.name.as_str().into(),
                    lapin::ExchangeKind::Topic,
                    ExchangeDeclareOptions {
                        passive: true,
                        ..ExchangeDeclareOptions::default()
                    },
                    FieldTable::default(),
                )
                .await
                .map_err(|e| err(&format!("exchange {}", url.name), e))?;
            channel
                .confirm_select(ConfirmSelectOptions::default())
                .await
                .map_err(|e| err("publisher confirms", e))?;
            Ok::<_, LiveError>((conn, channel))
        })?;
        Ok(Publisher {
            rt,
            conn: Some(conn),
            channel,
            exchange: url.name.clone(),
            routing_key: routing_key.to_string(),
            properties: BasicProperties::default().with_delivery_mode(2),
            window: Arc::new(Semaphore::new(PUBLISH_WINDOW)),
            counts: Arc::new(Counts::default()),
        })
    }

    /// Sets the content type of every message from now on (`application/json` for an
    /// enveloped uplink, as ChirpStack sends it).
    pub fn set_content_type(&mut self, content_type: &str) {
        self.properties = self
            .properties
            .clone()
            .with_content_type(content_type.into());
    }

    /// Persistent messages (delivery mode 2, the default here) outlive a broker restart
    /// in a durable queue; transient ones (ChirpStack's) cost the broker less.
    pub fn set_persistent(&mut self, persistent: bool) {
        self.properties =
            self.properties
                .clone()
                .with_delivery_mode(if persistent { 2 } else { 1 });
    }

    /// Queues one message; returns once its frames are handed to the connection (in
    /// the order of the calls), waiting first while [`PUBLISH_WINDOW`] are unconfirmed.
    pub fn publish(&self, payload: Vec<u8>) -> Result<(), LiveError> {
        if let Some(e) = self.counts.failure() {
            return Err(LiveError::Io(format!("amqp publish: {e}")));
        }
        let channel = self.channel.clone();
        let exchange = self.exchange.clone();
        let key = self.routing_key.clone();
        let properties = self.properties.clone();
        let counts = self.counts.clone();
        let window = self.window.clone();
        self.rt.block_on(async move {
            let permit = window
                .acquire_owned()
                .await
                .map_err(|e| LiveError::Io(format!("amqp publish: {e}")))?;
            let mut job: Pin<Box<dyn Future<Output = ()> + Send>> = Box::pin(async move {
                let sent = channel
                    .basic_publish(
                        exchange.into(),
                        key.into(),
                        BasicPublishOptions {
                            mandatory: true,
                            immediate: false,
                        },
                        &payload,
                        properties,
                    )
                    .await;
                let confirmed = match sent {
                    Ok(confirm) => confirm.await,
                    Err(e) => Err(e),
                };
                match confirmed {
                    Ok(Confirmation::Ack(None)) | Ok(Confirmation::NotRequested) => {
                        counts.confirmed.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(Confirmation::Ack(Some(_))) => {
                        counts.unroutable.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(Confirmation::Nack(_)) => {
                        counts.nacked.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => {
                        let mut failed = counts.failed.lock().unwrap_or_else(|e| e.into_inner());
                        failed.get_or_insert_with(|| e.to_string());
                    }
                }
                drop(permit);
            });
            // The first poll hands the frames to the connection: done here, they go out
            // in the order of the calls; the confirm is awaited by a task of its own.
            let first = std::future::poll_fn(|cx| Poll::Ready(job.as_mut().poll(cx))).await;
            if first.is_pending() {
                tokio::spawn(job);
            }
            Ok(())
        })
    }

    /// Messages confirmed so far (routed and confirmed).
    pub fn confirmed(&self) -> u64 {
        self.counts.confirmed.load(Ordering::Relaxed)
    }

    /// Waits (at most `wait`) until the broker has answered for `sent` messages, then
    /// closes; returns how many were confirmed.
    pub fn finish(self, sent: u64, wait: Duration) -> u64 {
        self.finish_counts(sent, wait).confirmed
    }

    /// [`Publisher::finish`], with the unroutable and refused messages counted apart.
    pub fn finish_counts(mut self, sent: u64, wait: Duration) -> Confirms {
        let end = Instant::now() + wait;
        while self.counts.done() < sent && Instant::now() < end && self.counts.failure().is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let counts = self.counts.snapshot();
        self.close();
        counts
    }

    fn close(&mut self) {
        let Some(conn) = self.conn.take() else {
            return;
        };
        let channel = self.channel.clone();
        self.rt.block_on(async {
            let bye = async {
                let _ = channel.close(200, "bye".into()).await;
                let _ = conn.close(200, "bye".into()).await;
            };
            let _ = tokio::time::timeout(Duration::from_secs(2), bye).await;
        });
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        self.close();
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
