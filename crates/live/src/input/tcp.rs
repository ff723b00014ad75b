//! TCP: every connection on one readiness loop (mio over epoll), so an open connection
//! costs a registration, a small struct and its partial frame, not a thread and a
//! 64 KiB buffer. One read buffer serves them all.
//!
//! What a flood cannot do:
//! - hold the door: at `--max-connections` a newcomer is served and the connection idle
//!   longest is closed (`connections.evicted`), so idle sockets never lock a good
//!   client out;
//! - dribble: a connection that has not completed a frame `--frame-timeout` after the
//!   frame's first byte is closed (`connections.frame_timeout`), its partial frame
//!   refused as truncated;
//! - linger: one that sends nothing for `--idle-timeout` is closed (`idle_closed`).
//!
//! Acknowledgements: after each commit the pipeline settles every message it took from
//! a connection; the loop then writes `ack N\n` (the first N messages of that connection
//! are stored or refused for good). Only the newest total waits to be written, so a
//! client that never reads its acks costs a line, not a growing buffer.

use std::collections::{BTreeSet, HashMap};
use std::io::{ErrorKind, Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token, Waker};

use super::Started;
use crate::config::GatewayConfig;
use crate::counters::{Closed, Counters};
use crate::endpoint::Endpoint;
use crate::error::LiveError;
use crate::feed::{Ack, Acknowledge, Feed, Input};
use crate::framing::{Deframer, Framing};
use crate::limits::Limits;

const LISTENER: Token = Token(0);
const WAKE: Token = Token(1);
/// Connection ids (and their tokens) count up from here and are never reused, so a
/// late acknowledgement can never reach a newer connection.
const FIRST_ID: u64 = 2;
/// Read at most this much from one connection per turn, so one fast sender cannot
/// starve the others; the rest is read on the next turn.
const READ_TURN: usize = 256 * 1024;
/// How often timeouts are checked.
const TICK: Duration = Duration::from_millis(50);

pub(super) fn start(
    addr: SocketAddr,
    config: &GatewayConfig,
    feed: Feed,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
) -> Result<Started, LiveError> {
    let io = |e| LiveError::io(format!("tcp {addr}"), e);
    let std_listener = std::net::TcpListener::bind(addr).map_err(io)?;
    std_listener.set_nonblocking(true).map_err(io)?;
    enlarge_backlog(&std_listener);
    let bound = Endpoint::Tcp(std_listener.local_addr().map_err(io)?);
    let mut listener = TcpListener::from_std(std_listener);
    let poll = Poll::new().map_err(io)?;
    poll.registry()
        .register(&mut listener, LISTENER, Interest::READABLE)
        .map_err(io)?;
    let waker = Waker::new(poll.registry(), WAKE).map_err(io)?;
    let board = Arc::new(AckBoard {
        settled: Mutex::new(HashMap::new()),
        waker,
    });
    let mut event_loop = Loop {
        poll,
        listener,
        conns: HashMap::new(),
        by_activity: BTreeSet::new(),
        again: Vec::new(),
        accept_pending: false,
        next_id: FIRST_ID,
        framing: config.framing,
        limits: config.limits.clone(),
        feed,
        counters,
        board,
        buf: vec![0u8; 64 * 1024],
        events: Vec::new(),
    };
    let t = std::thread::spawn(move || event_loop.run(&stop));
    Ok(Started {
        bound,
        threads: vec![t],
    })
}

/// Messages settled per connection since the loop last looked; the first settle after
/// that wakes the loop, so a commit of thousands of messages costs one wake-up.
struct AckBoard {
    settled: Mutex<HashMap<u64, u64>>,
    waker: Waker,
}

struct ConnAck {
    id: u64,
    board: Arc<AckBoard>,
}

impl Acknowledge for ConnAck {
    fn ack(self: Box<Self>) {
        let wake = {
            let mut settled = self.board.settled.lock().expect("ack board");
            let wake = settled.is_empty();
            *settled.entry(self.id).or_insert(0) += 1;
            wake
        };
        if wake {
            let _ = self.board.waker.wake();
        }
    }
}

struct Conn {
    stream: TcpStream,
    source: Arc<str>,
    deframer: Deframer,
    /// The last byte read (or the accept): the eviction and idle order.
    active: Instant,
    /// Inputs handed to the pipeline, and how many of those a commit settled.
    handed: u64,
    acked: u64,
    /// The ack line being written, how much of it is out, and the total it announces.
    out: Vec<u8>,
    out_at: usize,
    announced: u64,
    read_closed: bool,
}

impl Conn {
    /// Writes the newest ack total, as far as the socket takes it now.
    fn write_acks(&mut self) -> std::io::Result<()> {
        loop {
            let written = self.out_at == self.out.len();
            // A line none of which went out yet is replaced by the newer total.
            if (written || self.out_at == 0) && self.announced < self.acked {
                self.out.clear();
                self.out_at = 0;
                let _ = writeln!(self.out, "ack {}", self.acked);
                self.announced = self.acked;
            } else if written {
                return Ok(());
            }
            match self.stream.write(&self.out[self.out_at..]) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(n) => self.out_at += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The peer finished sending and every message it sent is acknowledged.
    fn finished(&self) -> bool {
        self.read_closed && self.handed == self.acked && self.out_at == self.out.len()
    }
}

struct Loop {
    poll: Poll,
    listener: TcpListener,
    conns: HashMap<u64, Conn>,
    /// (last activity, id) of every connection: the first is the one idle longest.
    by_activity: BTreeSet<(Instant, u64)>,
    /// Connections with more to read than one turn took.
    again: Vec<u64>,
    /// An accept failed for want of descriptors or memory: try again on the next tick.
    accept_pending: bool,
    next_id: u64,
    framing: Framing,
    limits: Limits,
    feed: Feed,
    counters: Arc<Counters>,
    board: Arc<AckBoard>,
    buf: Vec<u8>,
    events: Vec<crate::framing::Event>,
}

impl Loop {
    fn run(&mut self, stop: &AtomicBool) {
        let mut events = Events::with_capacity(1024);
        let mut next_tick = Instant::now() + TICK;
        while !stop.load(Ordering::Relaxed) {
            let wait = if self.again.is_empty() {
                next_tick.saturating_duration_since(Instant::now())
            } else {
                Duration::ZERO
            };
            if let Err(e) = self.poll.poll(&mut events, Some(wait))
                && e.kind() != ErrorKind::Interrupted
            {
                eprintln!("gateway: tcp: poll failed: {e}");
                return;
            }
            for event in events.iter() {
                match event.token() {
                    LISTENER => self.accept(),
                    WAKE => self.settle(),
                    Token(t) => {
                        let id = t as u64;
                        if event.is_writable() {
                            self.write(id);
                        }
                        if event.is_readable() || event.is_read_closed() || event.is_error() {
                            self.read(id);
                        }
                    }
                }
            }
            for id in std::mem::take(&mut self.again) {
                self.read(id);
            }
            if Instant::now() >= next_tick {
                next_tick = Instant::now() + TICK;
                self.expire();
            }
        }
        // The pipeline's last commit settles before inputs stop: write those acks.
        self.settle();
    }

    fn accept(&mut self) {
        self.accept_pending = false;
        let mut evicted_for_room = false;
        loop {
            let (mut stream, peer) = match self.listener.accept() {
                Ok(accepted) => accepted,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if out_of_room(&e) => {
                    // Out of descriptors or memory (ENFILE is system-wide, beyond
                    // --max-connections): make room by closing the idlest connection and
                    // try again once; otherwise leave the newcomer queued in the kernel and
                    // try on the next tick, so idle sockets never hold the door.
                    if !evicted_for_room && self.evict_idlest() {
                        evicted_for_room = true;
                        continue;
                    }
                    eprintln!("gateway: tcp: accept failed: {e}; retrying");
                    self.accept_pending = true;
                    return;
                }
                Err(e) => {
                    // One connection that failed in the queue (ECONNABORTED, EPROTO, a
                    // network error): the rest of the queue still waits behind it.
                    self.counters.connection_refused();
                    eprintln!("gateway: tcp: accept failed: {e}");
                    continue;
                }
            };
            if self.conns.len() >= self.limits.max_connections {
                self.evict_idlest();
            }
            let id = self.next_id;
            self.next_id += 1;
            let interest = Interest::READABLE | Interest::WRITABLE;
            if self
                .poll
                .registry()
                .register(&mut stream, Token(id as usize), interest)
                .is_err()
            {
                self.counters.connection_refused();
                continue;
            }
            let now = Instant::now();
            self.counters.connection_accepted();
            self.by_activity.insert((now, id));
            self.conns.insert(
                id,
                Conn {
                    stream,
                    source: Arc::from(format!("tcp {peer}")),
                    deframer: Deframer::new(
                        self.framing,
                        self.limits.max_message,
                        self.limits.frame_timeout,
                    ),
                    active: now,
                    handed: 0,
                    acked: 0,
                    out: Vec::new(),
                    out_at: 0,
                    announced: 0,
                    read_closed: false,
                },
            );
        }
    }

    /// Closes the connection idle longest; false when none is open.
    fn evict_idlest(&mut self) -> bool {
        match self.by_activity.pop_first() {
            Some((_, oldest)) => {
                self.close(oldest, Closed::Evicted);
                true
            }
            None => false,
        }
    }

    fn read(&mut self, id: u64) {
        let Some(conn) = self.conns.get_mut(&id) else {
            return;
        };
        let mut taken = 0;
        let mut failed = false;
        while !conn.read_closed {
            if taken >= READ_TURN {
                self.again.push(id);
                break;
            }
            match conn.stream.read(&mut self.buf) {
                Ok(0) => conn.read_closed = true,
                Ok(n) => {
                    taken += n;
                    conn.deframer
                        .push(&self.buf[..n], Instant::now(), &mut self.events);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    conn.read_closed = true;
                    failed = true;
                }
            }
        }
        if taken > 0 {
            self.by_activity.remove(&(conn.active, id));
            conn.active = Instant::now();
            self.by_activity.insert((conn.active, id));
        }
        if conn.read_closed {
            // Whatever partial frame is left will never be completed.
            conn.deframer.abandon(&mut self.events);
        }
        if !self.hand_on(id) {
            return;
        }
        if failed || self.conns[&id].finished() {
            self.close(id, Closed::Peer);
        }
    }

    /// Hands the deframed events of `id` to the pipeline, each with its ack.
    fn hand_on(&mut self, id: u64) -> bool {
        let Some(conn) = self.conns.get_mut(&id) else {
            return false;
        };
        for e in self.events.drain(..) {
            conn.handed += 1;
            let ack = Ack::After(Box::new(ConnAck {
                id,
                board: self.board.clone(),
            }));
            let input = Input::from_event(e, conn.source.clone()).with_ack(Some(ack));
            // The pipeline stopped: the gateway is shutting down.
            if !self.feed.send(input) {
                return false;
            }
        }
        true
    }

    fn write(&mut self, id: u64) {
        let Some(conn) = self.conns.get_mut(&id) else {
            return;
        };
        if conn.write_acks().is_err() {
            // The peer is gone; what it sent is still stored, and nothing more comes.
            self.close(id, Closed::Peer);
        } else if conn.finished() {
            self.close(id, Closed::Peer);
        }
    }

    /// Writes the acks that commits settled since the last look.
    fn settle(&mut self) {
        let settled = std::mem::take(&mut *self.board.settled.lock().expect("ack board"));
        for (id, n) in settled {
            if let Some(conn) = self.conns.get_mut(&id) {
                conn.acked += n;
                self.write(id);
            }
        }
    }

    /// Closes connections past their frame or idle timeout.
    fn expire(&mut self) {
        let now = Instant::now();
        let frame_timeout = self.limits.frame_timeout;
        let dribbling: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| {
                c.deframer
                    .partial_since()
                    .is_some_and(|t| now >= t + frame_timeout)
            })
            .map(|(id, _)| *id)
            .collect();
        for id in dribbling {
            // What is already in the socket counts: the loop may have been held up by a
            // full pipeline while the rest of the frame arrived.
            self.read(id);
            let still = self.conns.get(&id).is_some_and(|c| {
                c.deframer
                    .partial_since()
                    .is_some_and(|t| now >= t + frame_timeout)
            });
            if !still || self.again.contains(&id) {
                continue;
            }
            if let Some(conn) = self.conns.get_mut(&id) {
                conn.deframer.abandon(&mut self.events);
            }
            self.hand_on(id);
            self.close(id, Closed::FrameTimeout);
        }
        while let Some(&(active, id)) = self.by_activity.first() {
            if now < active + self.limits.idle_timeout {
                break;
            }
            self.by_activity.pop_first();
            self.close(id, Closed::Idle);
        }
        if self.accept_pending {
            self.accept();
        }
    }

    fn close(&mut self, id: u64, why: Closed) {
        let Some(mut conn) = self.conns.remove(&id) else {
            return;
        };
        self.by_activity.remove(&(conn.active, id));
        let _ = self.poll.registry().deregister(&mut conn.stream);
        let _ = conn.stream.shutdown(std::net::Shutdown::Both);
        self.counters.connection_closed(why);
    }
}

/// Errors of accept(2) that say this process has no room now, rather than that one
/// queued connection failed.
fn out_of_room(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    )
}

/// A burst of connections should wait in the kernel's accept queue (capped by
/// net.core.somaxconn) for the accept loop, not have its SYNs dropped and retried.
fn enlarge_backlog(listener: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen(2) again on a listening socket only resizes its queue.
    unsafe {
        libc::listen(listener.as_raw_fd(), 4096);
    }
}
