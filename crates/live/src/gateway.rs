//! The gateway: listens on one transport, opens each message with the key files,
//! stores verified readings in batches, and counts (and logs, one line each) everything
//! it refuses. Nothing it refuses is stored, and no input makes it stop.
//!
//! Threads: one per listening socket or device (and per TCP connection, at most
//! `--max-connections`, each joined when it ends) turns bytes into messages; one worker
//! opens them and writes SQLite, so a slow disk never stalls reads. What the network may
//! take is bounded by [`Limits`], and each refusal is counted.
//! On TCP the worker writes `ack N\n` after each commit: the first N messages of that
//! connection are on disk (stored, or refused for good), so an acknowledged message is
//! never lost. On MQTT the same commit releases each message's PUBACK ([`crate::mqtt`]).

use std::collections::HashMap;
use std::io::{BufWriter, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use store::Location;

use crate::counters::{Counters, Reason, Snapshot};
use crate::endpoint::Endpoint;
use crate::error::LiveError;
use crate::framing::{Deframer, Event, Framing};
use crate::limits::Limits;
use crate::mqtt::{Delivery, Received, Subscriber, Subscription};
use crate::replay::Verdict;
use crate::store::{Pending, ReadingStore};
use crate::tty::{open_serial, wait_readable};
use crate::verify::Keyring;

pub struct GatewayConfig {
    pub listen: Endpoint,
    pub framing: Framing,
    /// A SQLite file, or a PostgreSQL database several gateway workers share.
    pub db: Location,
    /// Commit when this many messages wait…
    pub batch_max: usize,
    /// …or when the oldest has waited this long.
    pub batch_wait: Duration,
    /// A partial frame older than this is dropped as truncated.
    pub idle: Duration,
    pub limits: Limits,
    pub stats_file: Option<PathBuf>,
    pub stats_interval: Duration,
    /// Stop once this many messages have been received and settled.
    pub exit_after: Option<u64>,
    /// MQTT only: envelope, shared subscription and session.
    pub mqtt: Subscription,
}

impl GatewayConfig {
    pub fn new(listen: Endpoint, framing: Framing, db: Location) -> Self {
        GatewayConfig {
            listen,
            framing,
            db,
            batch_max: 4096,
            batch_wait: Duration::from_millis(20),
            idle: Duration::from_millis(500),
            limits: Limits::default(),
            stats_file: None,
            stats_interval: Duration::from_secs(1),
            exit_after: None,
            mqtt: Subscription::default(),
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

pub fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// Where to acknowledge a TCP connection's messages.
struct Acker {
    stream: Mutex<TcpStream>,
    done: AtomicU64,
    dead: AtomicBool,
}

impl Acker {
    fn ack(&self, n: u64) {
        let total = self.done.fetch_add(n, Ordering::Relaxed) + n;
        if self.dead.load(Ordering::Relaxed) {
            return;
        }
        let line = format!("ack {total}\n");
        if self
            .stream
            .lock()
            .expect("ack lock")
            .write_all(line.as_bytes())
            .is_err()
        {
            self.dead.store(true, Ordering::Relaxed);
        }
    }
}

/// How a message is acknowledged once its batch is committed.
enum Ack {
    Tcp(Arc<Acker>),
    Mqtt(Delivery),
    /// A CoAP request, answered on the socket it came in on ([`crate::coap`]).
    Coap(Arc<UdpSocket>, SocketAddr),
}

/// A CoAP request in the current batch: its index there and where its answer goes.
struct CoapAnswer {
    index: usize,
    pending: crate::coap::Pending,
    socket: Arc<UdpSocket>,
    peer: SocketAddr,
}

enum Input {
    Message {
        bytes: Vec<u8>,
        arrived_us: i64,
        source: Arc<str>,
        ack: Option<Ack>,
    },
    Broken {
        reason: Reason,
        detail: String,
        source: Arc<str>,
        ack: Option<Ack>,
    },
}

/// Runs until `stop` is set (or `exit_after` is reached); returns the final counters.
pub fn run(
    config: GatewayConfig,
    mut keyring: Keyring,
    stop: Arc<AtomicBool>,
) -> Result<Snapshot, LiveError> {
    config.limits.validate()?;
    config.mqtt.check_for(&config.listen)?;
    crate::coap::check_pairing(&config.listen, keyring.is_oscore(), "the gateway")?;
    let mut store = ReadingStore::open(&config.db, config.limits.max_age_us())?;
    let counters = Arc::new(Counters::default());
    let (tx, rx) = mpsc::sync_channel::<Input>(65_536);
    let inputs_stop = Arc::new(AtomicBool::new(false));
    let (bound, threads) = listen(&config, tx, inputs_stop.clone(), counters.clone())?;
    eprintln!("gateway: listening on {bound}, storing in {}", config.db);

    let mut worker = Worker {
        config: &config,
        counters: &counters,
        log: BufWriter::new(std::io::stderr()),
        pending: Vec::new(),
        unacked: HashMap::new(),
        deliveries: Vec::new(),
        answers: Vec::new(),
        dirty_since: None,
    };
    let result = worker.serve(&rx, &mut keyring, &mut store, &stop);
    inputs_stop.store(true, Ordering::Relaxed);
    drop(rx);
    for t in threads {
        let _ = t.join();
    }
    result?;
    let snap = counters.snapshot();
    if let Some(path) = &config.stats_file {
        snap.write_to(path)?;
    }
    Ok(snap)
}

struct Worker<'a> {
    config: &'a GatewayConfig,
    counters: &'a Counters,
    log: BufWriter<std::io::Stderr>,
    pending: Vec<Pending>,
    unacked: HashMap<*const Acker, (Arc<Acker>, u64)>,
    /// MQTT deliveries of the current batch, acknowledged in arrival order after commit.
    deliveries: Vec<Delivery>,
    /// CoAP requests of the current batch, answered after commit.
    answers: Vec<CoapAnswer>,
    dirty_since: Option<Instant>,
}

impl Worker<'_> {
    fn serve(
        &mut self,
        rx: &Receiver<Input>,
        keyring: &mut Keyring,
        store: &mut ReadingStore,
        stop: &AtomicBool,
    ) -> Result<(), LiveError> {
        let mut next_stats = Instant::now() + self.config.stats_interval;
        loop {
            let wait = match self.dirty_since {
                Some(t) => (t + self.config.batch_wait).saturating_duration_since(Instant::now()),
                None => Duration::from_millis(100),
            };
            match rx.recv_timeout(wait) {
                Ok(input) => {
                    self.take(input, keyring);
                    // Drain what is already queued without waiting, up to a batch.
                    while self.pending.len() < self.config.batch_max {
                        match rx.try_recv() {
                            Ok(input) => self.take(input, keyring),
                            Err(_) => break,
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.flush(store, keyring)?;
                    return Ok(());
                }
            }
            let due = self
                .dirty_since
                .is_some_and(|t| t.elapsed() >= self.config.batch_wait);
            if due || self.pending.len() >= self.config.batch_max {
                self.flush(store, keyring)?;
            }
            if Instant::now() >= next_stats {
                next_stats = Instant::now() + self.config.stats_interval;
                if let Some(path) = &self.config.stats_file {
                    self.counters.snapshot().write_to(path)?;
                }
            }
            let snap = self.counters.snapshot();
            let finished = self
                .config
                .exit_after
                .is_some_and(|n| snap.received >= n && self.dirty_since.is_none());
            if finished || stop.load(Ordering::Relaxed) {
                // Take what already arrived, then commit it before leaving.
                while let Ok(input) = rx.try_recv() {
                    self.take(input, keyring);
                    if self.pending.len() >= self.config.batch_max {
                        self.flush(store, keyring)?;
                    }
                }
                self.flush(store, keyring)?;
                return Ok(());
            }
        }
    }

    fn take(&mut self, input: Input, keyring: &mut Keyring) {
        // An EDHOC handshake message is answered at once; it carries no reading.
        if let (
            Input::Message {
                bytes,
                ack: Some(Ack::Coap(socket, peer)),
                ..
            },
            Keyring::Oscore(ring),
        ) = (&input, &mut *keyring)
            && let Some(handled) = ring.handshake(bytes)
        {
            let _ = socket.send_to(&handled.answer, *peer);
            if let Some(why) = &handled.refused {
                self.counters.handshake(false);
                let _ = writeln!(self.log, "gateway: refused EDHOC from coap {peer}: {why}");
            } else if let Some(session) = &handled.session {
                self.counters.handshake(true);
                let _ = writeln!(
                    self.log,
                    "gateway: EDHOC session {session} with coap {peer}"
                );
            }
            return;
        }
        self.counters.received(now_us());
        self.dirty_since.get_or_insert_with(Instant::now);
        match input {
            Input::Message {
                bytes,
                arrived_us,
                source,
                ack,
            } => {
                if let (Some(Ack::Coap(socket, peer)), Keyring::Oscore(ring)) =
                    (&ack, &mut *keyring)
                {
                    self.take_coap(ring, bytes, arrived_us, source, socket.clone(), *peer);
                    return;
                }
                self.note_ack(ack);
                match keyring.open(&bytes) {
                    Ok(verified) => self.pending.push(Pending {
                        verified,
                        arrived_us,
                        source: source.to_string(),
                    }),
                    Err((reason, detail)) => self.reject(reason, &source, &detail),
                }
            }
            Input::Broken {
                reason,
                detail,
                source,
                ack,
            } => {
                self.note_ack(ack);
                self.reject(reason, &source, &detail);
            }
        }
    }

    /// A CoAP request: verified now, answered after commit; a refused one at once.
    fn take_coap(
        &mut self,
        ring: &mut crate::coap::OscoreRing,
        bytes: Vec<u8>,
        arrived_us: i64,
        source: Arc<str>,
        socket: Arc<UdpSocket>,
        peer: SocketAddr,
    ) {
        match ring.open(&bytes) {
            Ok((verified, pending)) => {
                self.answers.push(CoapAnswer {
                    index: self.pending.len(),
                    pending,
                    socket,
                    peer,
                });
                self.pending.push(Pending {
                    verified,
                    arrived_us,
                    source: source.to_string(),
                });
            }
            Err(refusal) => {
                self.reject(refusal.reason, &source, &refusal.detail);
                if let Some(answer) = ring.refuse(&bytes, &refusal) {
                    let _ = socket.send_to(&answer, peer);
                }
            }
        }
    }

    fn note_ack(&mut self, ack: Option<Ack>) {
        match ack {
            Some(Ack::Tcp(a)) => self.note_tcp(a),
            Some(Ack::Mqtt(d)) => self.deliveries.push(d),
            // Refused before the store: answered by `take_coap`, or not CoAP.
            Some(Ack::Coap(..)) | None => {}
        }
    }

    fn note_tcp(&mut self, a: Arc<Acker>) {
        self.unacked
            .entry(Arc::as_ptr(&a))
            .or_insert_with(|| (a.clone(), 0))
            .1 += 1;
    }

    fn reject(&mut self, reason: Reason, source: &str, detail: &str) {
        self.counters.rejected(reason);
        let _ = writeln!(
            self.log,
            "gateway: rejected {} from {source}: {detail}",
            reason.as_str()
        );
    }

    fn flush(&mut self, store: &mut ReadingStore, keyring: &mut Keyring) -> Result<(), LiveError> {
        let mut verdicts = Vec::new();
        if !self.pending.is_empty() {
            verdicts = store.commit_batch(&self.pending)?;
            let batch = std::mem::take(&mut self.pending);
            let mut stored = 0;
            for (p, verdict) in batch.iter().zip(&verdicts) {
                match verdict {
                    Verdict::Fresh => stored += 1,
                    Verdict::Replay(detail) => self.reject(Reason::Replay, &p.source, detail),
                    Verdict::Stale(detail) => self.reject(Reason::Stale, &p.source, detail),
                }
            }
            self.counters.stored(stored);
        }
        if self.dirty_since.is_some() {
            self.counters.settled(now_us());
        }
        // The log of what was refused is out before anything is acknowledged.
        let _ = self.log.flush();
        for (_, (acker, n)) in self.unacked.drain() {
            acker.ack(n);
        }
        for d in self.deliveries.drain(..) {
            d.ack();
        }
        if let Keyring::Oscore(ring) = keyring {
            for a in self.answers.drain(..) {
                let answer = verdicts
                    .get(a.index)
                    .and_then(|v| ring.answer(&a.pending, v));
                if let Some(answer) = answer {
                    let _ = a.socket.send_to(&answer, a.peer);
                }
            }
        }
        self.dirty_since = None;
        Ok(())
    }
}

/// Opens the transport; returns the bound endpoint (the real port for `:0`).
fn listen(
    config: &GatewayConfig,
    tx: SyncSender<Input>,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
) -> Result<(Endpoint, Vec<JoinHandle<()>>), LiveError> {
    let framing = config.framing;
    let idle = config.idle;
    let max = config.limits.max_message;
    match &config.listen {
        Endpoint::Udp(addr) | Endpoint::Coap(addr) => {
            let socket =
                UdpSocket::bind(addr).map_err(|e| LiveError::io(format!("udp {addr}"), e))?;
            enlarge_receive_buffer(&socket);
            socket
                .set_read_timeout(Some(Duration::from_millis(100)))
                .map_err(|e| LiveError::io("udp", e))?;
            let local = socket.local_addr().map_err(|e| LiveError::io("udp", e))?;
            let coap = matches!(config.listen, Endpoint::Coap(_));
            let bound = if coap {
                Endpoint::Coap(local)
            } else {
                Endpoint::Udp(local)
            };
            let t = std::thread::spawn(move || udp_loop(Arc::new(socket), coap, max, tx, &stop));
            Ok((bound, vec![t]))
        }
        Endpoint::Tcp(addr) => {
            let listener =
                TcpListener::bind(addr).map_err(|e| LiveError::io(format!("tcp {addr}"), e))?;
            listener
                .set_nonblocking(true)
                .map_err(|e| LiveError::io("tcp", e))?;
            enlarge_backlog(&listener);
            let bound = Endpoint::Tcp(listener.local_addr().map_err(|e| LiveError::io("tcp", e))?);
            let conn = TcpConn {
                framing,
                max,
                idle,
                idle_timeout: config.limits.idle_timeout,
            };
            let limit = config.limits.max_connections as u64;
            let t =
                std::thread::spawn(move || tcp_accept(listener, conn, limit, tx, &stop, &counters));
            Ok((bound, vec![t]))
        }
        Endpoint::Mqtt(url) => {
            let sub = Subscriber::connect(url, &config.mqtt)?;
            let envelope = config.mqtt.envelope;
            let bound = config.listen.clone();
            let t = std::thread::spawn(move || {
                sub.run(&stop, |r| tx.send(mqtt_input(r, envelope, max)).is_ok());
            });
            Ok((bound, vec![t]))
        }
        Endpoint::Serial { path, baud } => {
            let file = open_serial(path, *baud)?;
            let source: Arc<str> = Arc::from(config.listen.to_string());
            let bound = config.listen.clone();
            let t = std::thread::spawn(move || {
                let mut file = file;
                let mut deframer = Deframer::new(framing, max, idle);
                let mut buf = vec![0u8; 4096];
                while !stop.load(Ordering::Relaxed) {
                    let wait = deframer.deadline().map_or(Duration::from_millis(100), |d| {
                        d.saturating_duration_since(Instant::now())
                            .min(Duration::from_millis(100))
                    });
                    let n = match wait_readable(&file, wait) {
                        Ok(true) => file.read(&mut buf).unwrap_or(0),
                        _ => 0,
                    };
                    let mut events = Vec::new();
                    let now = Instant::now();
                    deframer.push(&buf[..n], now, &mut events);
                    deframer.expire(now, &mut events);
                    if n == 0 && events.is_empty() {
                        // A device that went away (EOF/EIO) must not spin the CPU.
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    if forward(events, &source, None, &tx).is_err() {
                        return;
                    }
                }
            });
            Ok((bound, vec![t]))
        }
    }
}

fn forward(
    events: Vec<Event>,
    source: &Arc<str>,
    ack: Option<&Arc<Acker>>,
    tx: &SyncSender<Input>,
) -> Result<(), ()> {
    for e in events {
        let ack = ack.cloned().map(Ack::Tcp);
        let source = source.clone();
        let input = match e {
            Event::Message(bytes) => Input::Message {
                bytes,
                arrived_us: now_us(),
                source,
                ack,
            },
            Event::Garbage(n) => Input::Broken {
                reason: Reason::Garbage,
                detail: format!("{n} bytes that start no frame"),
                source,
                ack,
            },
            Event::Truncated(n) => Input::Broken {
                reason: Reason::Truncated,
                detail: format!("partial frame of {n} bytes stopped arriving"),
                source,
                ack,
            },
            Event::Oversize(n) => Input::Broken {
                reason: Reason::Oversize,
                detail: format!("line of {n} bytes, above --max-message"),
                source,
                ack,
            },
        };
        tx.send(input).map_err(|_| ())?;
    }
    Ok(())
}

/// One MQTT message as the worker's input: the sealed message out of its envelope, or
/// the reason it is none. The source names the uplink, so that a redelivery (same
/// uplink id) can be told from a replay (an old message in a new uplink) in the log.
fn mqtt_input(r: Received, envelope: crate::envelope::Envelope, max: usize) -> Input {
    let arrived_us = now_us();
    let ack = Some(Ack::Mqtt(r.delivery));
    // An envelope carries the message in base64 beside its metadata: room for both.
    let opened = if r.payload.len() > max * 2 + 4096 {
        Err((
            Reason::Oversize,
            format!("uplink of {} bytes", r.payload.len()),
        ))
    } else {
        match envelope.open(&r.payload) {
            Ok(up) if up.sealed.len() > max => Err((
                Reason::Oversize,
                format!("{} bytes, above --max-message {max}", up.sealed.len()),
            )),
            other => other.map_err(|e| (Reason::Garbage, e)),
        }
    };
    let id = opened
        .as_ref()
        .ok()
        .and_then(|u| u.id.as_deref())
        .unwrap_or("-");
    let dup = if r.dup { " dup" } else { "" };
    let source: Arc<str> = Arc::from(format!("mqtt {} uplink {id}{dup}", r.topic));
    match opened {
        Ok(up) if up.sealed.is_empty() => Input::Broken {
            reason: Reason::Truncated,
            detail: "uplink without FRMPayload".into(),
            source,
            ack,
        },
        Ok(up) => Input::Message {
            bytes: up.sealed,
            arrived_us,
            source,
            ack,
        },
        Err((reason, detail)) => Input::Broken {
            reason,
            detail,
            source,
            ack,
        },
    }
}

/// Datagrams in; with `answer` (CoAP) each carries where its answer goes.
fn udp_loop(
    socket: Arc<UdpSocket>,
    answer: bool,
    max: usize,
    tx: SyncSender<Input>,
    stop: &AtomicBool,
) {
    let scheme = if answer { "coap" } else { "udp" };
    let mut buf = vec![0u8; 65_536];
    let mut sources: HashMap<SocketAddr, Arc<str>> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        let Ok((n, peer)) = socket.recv_from(&mut buf) else {
            continue;
        };
        let arrived_us = now_us();
        if sources.len() > 10_000 {
            sources.clear();
        }
        let source = sources
            .entry(peer)
            .or_insert_with(|| Arc::from(format!("{scheme} {peer}")))
            .clone();
        let ack = || answer.then(|| Ack::Coap(socket.clone(), peer));
        let input = if n == 0 {
            Input::Broken {
                reason: Reason::Truncated,
                detail: "empty datagram".into(),
                source,
                ack: ack(),
            }
        } else if n > max {
            Input::Broken {
                reason: Reason::Oversize,
                detail: format!("datagram of {n} bytes, above --max-message {max}"),
                source,
                ack: ack(),
            }
        } else {
            Input::Message {
                bytes: buf[..n].to_vec(),
                arrived_us,
                source,
                ack: ack(),
            }
        };
        if tx.send(input).is_err() {
            return;
        }
    }
}

/// How each TCP connection is read.
#[derive(Clone, Copy)]
struct TcpConn {
    framing: Framing,
    max: usize,
    idle: Duration,
    idle_timeout: Duration,
}

/// Accepts until `stop`. Beyond `limit` open connections, a new one is closed at
/// once (FIN, nothing read) and counted as refused; threads of ended connections
/// are joined as the loop goes, so none accumulate.
fn tcp_accept(
    listener: TcpListener,
    conn: TcpConn,
    limit: u64,
    tx: SyncSender<Input>,
    stop: &Arc<AtomicBool>,
    counters: &Arc<Counters>,
) {
    let mut threads: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let (stream, peer) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(_) => {
                threads = join_finished(threads);
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
        };
        if counters.open_connections() >= limit {
            counters.connection_refused();
            let _ = stream.shutdown(Shutdown::Both);
            continue;
        }
        counters.connection_accepted();
        threads = join_finished(threads);
        let (tx, stop, counters) = (tx.clone(), stop.clone(), counters.clone());
        threads.push(std::thread::spawn(move || {
            let idle = tcp_conn(stream, peer.to_string(), conn, tx, &stop);
            counters.connection_closed(idle);
        }));
    }
    for t in threads {
        let _ = t.join();
    }
}

fn join_finished(threads: Vec<JoinHandle<()>>) -> Vec<JoinHandle<()>> {
    let (done, running): (Vec<_>, Vec<_>) = threads.into_iter().partition(|t| t.is_finished());
    for t in done {
        let _ = t.join();
    }
    running
}

/// Serves one connection until it closes, stops, or sends nothing for the idle
/// timeout; returns true in that last case.
fn tcp_conn(
    mut stream: TcpStream,
    peer: String,
    conn: TcpConn,
    tx: SyncSender<Input>,
    stop: &AtomicBool,
) -> bool {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let Ok(writer) = stream.try_clone() else {
        return false;
    };
    // A client that never reads its acks must not stall the worker for long.
    let _ = writer.set_write_timeout(Some(Duration::from_millis(200)));
    let acker = Arc::new(Acker {
        stream: Mutex::new(writer),
        done: AtomicU64::new(0),
        dead: AtomicBool::new(false),
    });
    let source: Arc<str> = Arc::from(format!("tcp {peer}"));
    let mut deframer = Deframer::new(conn.framing, conn.max, conn.idle);
    let mut buf = vec![0u8; 64 * 1024];
    let mut last_byte = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let (n, closed) = match stream.read(&mut buf) {
            Ok(0) => (0, true),
            Ok(n) => (n, false),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                (0, false)
            }
            Err(_) => (0, true),
        };
        let now = Instant::now();
        if n > 0 {
            last_byte = now;
        }
        let idle = !closed && now.duration_since(last_byte) >= conn.idle_timeout;
        let mut events = Vec::new();
        deframer.push(&buf[..n], now, &mut events);
        if closed || idle {
            // Whatever partial frame is left will never be completed.
            deframer.expire(now + conn.idle * 2, &mut events);
        } else {
            deframer.expire(now, &mut events);
        }
        if forward(events, &source, Some(&acker), &tx).is_err() || closed {
            return false;
        }
        if idle {
            let _ = stream.shutdown(Shutdown::Both);
            return true;
        }
    }
    false
}

/// A burst of connections should wait in the kernel's accept queue (capped by
/// net.core.somaxconn) for the accept loop, not have its SYNs dropped and retried.
fn enlarge_backlog(listener: &TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen(2) again on a listening socket only resizes its queue.
    unsafe {
        libc::listen(listener.as_raw_fd(), 4096);
    }
}

/// Bursts at tens of thousands of datagrams per second overflow Linux's default
/// 208 KiB socket buffer; ask for 16 MiB (forced when privileged, else up to rmem_max).
pub(crate) fn enlarge_receive_buffer(socket: &UdpSocket) {
    use std::os::fd::AsRawFd;
    let size: libc::c_int = 16 << 20;
    for opt in [libc::SO_RCVBUFFORCE, libc::SO_RCVBUF] {
        // SAFETY: a valid socket fd and a pointer to a c_int of the stated size.
        let rc = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&size as *const libc::c_int).cast(),
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if rc == 0 {
            return;
        }
    }
}
