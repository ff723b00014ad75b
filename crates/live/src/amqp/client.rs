//! The AMQP 0-9-1 client over lapin (feature `amqp`): [`Consumer`] for the gateway,
//! [`Publisher`] for `send`. See the parent module for what each does and why lapin.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
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

use super::*;
use crate::error::LiveError;

const CONNECT_LIMIT: Duration = Duration::from_secs(10);

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
