//! The one verify → store pipeline every transport feeds: it takes [`Input`]s from the
//! feed ([`crate::feed`]; the transports are [`crate::input`]'s, which it never imports,
//! nor the gateway that starts it), opens each message with the key files, stores
//! verified readings in batches, counts (and logs, one line each) everything it
//! refuses, and releases each message's acknowledgement only after the commit that
//! settled it (a fragment's, after the commit that stored it with its message in
//! progress). Nothing it refuses is stored.

use std::collections::{HashSet, VecDeque};
use std::io::{BufWriter, Write};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clock::now_us;
use crate::config::GatewayConfig;
use crate::counters::{Counters, Reason};
use crate::envelope::{Envelope, FrameCounter};
use crate::error::LiveError;
use crate::feed::{Ack, Acknowledge, Input};
use crate::replay::Verdict;
use crate::store::{FragmentIn, Pending, ReadingStore, Reassembly};
use crate::verify::oscore::{self, OscoreRing};
use crate::verify::{Keyring, SealedRing, Verified};

/// A CoAP request in the current batch: its index there and where its answer goes.
struct CoapAnswer {
    index: usize,
    pending: oscore::Pending,
    socket: Arc<UdpSocket>,
    peer: SocketAddr,
}

pub(crate) struct Worker<'a> {
    config: &'a GatewayConfig,
    counters: &'a Counters,
    log: BufWriter<std::io::Stderr>,
    pending: Vec<Pending>,
    /// Acknowledgements of the current batch, released in arrival order after commit.
    acks: Vec<Box<dyn Acknowledge>>,
    /// Frame counters of the batch's uplinks, stored with it (lost-uplink counting).
    seen: Vec<FrameCounter>,
    /// CoAP requests of the current batch, answered after commit.
    answers: Vec<CoapAnswer>,
    /// Fragments of the current batch, put into their messages in its commit.
    fragments: Vec<FragmentIn>,
    /// The sealing keys the feed opens with, for the messages fragments complete.
    ring: Option<Arc<Mutex<SealedRing>>>,
    /// Sources whose whole messages opened lately: no strangers to
    /// reassembly's budget.
    known: KnownSources,
    /// Give up idle messages in fragments in the next commit.
    sweep: bool,
    dirty_since: Option<Instant>,
}

/// The sources (as [`device_of`] names them without an envelope) of the last
/// [`KnownSources::CAPACITY`] messages that opened.
#[derive(Default)]
struct KnownSources {
    set: HashSet<String>,
    order: VecDeque<String>,
}

impl KnownSources {
    const CAPACITY: usize = 65_536;

    fn note(&mut self, source: &str) {
        let origin = device_of(None, source);
        if self.set.contains(&origin) {
            return;
        }
        if self.order.len() == Self::CAPACITY
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        self.set.insert(origin.clone());
        self.order.push_back(origin);
    }
}

impl<'a> Worker<'a> {
    pub(crate) fn new(
        config: &'a GatewayConfig,
        counters: &'a Counters,
        ring: Option<Arc<Mutex<SealedRing>>>,
    ) -> Self {
        Worker {
            config,
            counters,
            log: BufWriter::new(std::io::stderr()),
            pending: Vec::new(),
            acks: Vec::new(),
            seen: Vec::new(),
            answers: Vec::new(),
            fragments: Vec::new(),
            ring,
            known: KnownSources::default(),
            sweep: false,
            dirty_since: None,
        }
    }

    /// Takes inputs until `exit_after`, or after `stop` until the inputs have
    /// ended, committing in batches.
    pub(crate) fn serve(
        &mut self,
        rx: &Receiver<Input>,
        keyring: &mut Option<Keyring>,
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
                    // Drain what is already queued without waiting, up to a batch of
                    // inputs (refused ones too, so a stream of them cannot hold it open).
                    for _ in 1..self.config.batch_max {
                        match rx.try_recv() {
                            Ok(input) => self.take(input, keyring),
                            Err(_) => break,
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.flush(store, keyring)?;
                    // Asked to stop, the inputs end first, and then the queue.
                    if stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    return Err(LiveError::Io(format!(
                        "the {} input stopped (see the line above); what arrived is committed",
                        self.config.listen
                    )));
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
                // Messages in fragments idle past their timeout are given up.
                self.sweep = true;
                self.flush(store, keyring)?;
                // Also without a stats file: each read folds the store's spans of
                // uplinks seen, which otherwise grow by a row per device per batch.
                note_losses(self.config, self.counters, store)?;
                if let Some(path) = &self.config.stats_file {
                    self.counters.snapshot().write_to(path)?;
                }
            }
            let snap = self.counters.snapshot();
            let finished = self
                .config
                .exit_after
                .is_some_and(|n| snap.received >= n && self.dirty_since.is_none());
            // A stop waits for the inputs to end and let go of the queue
            // (Disconnected, above): what they still held reaches the store.
            if finished {
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

    fn take(&mut self, input: Input, keyring: &mut Option<Keyring>) {
        // An EDHOC handshake message is answered at once; it carries no reading.
        if let (
            Input::Message {
                bytes,
                ack: Some(Ack::Coap(socket, peer)),
                ..
            },
            Some(Keyring::Oscore(ring)),
        ) = (&input, keyring.as_mut())
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
        self.dirty_since.get_or_insert_with(Instant::now);
        let input = match input {
            // Received once its message settles (in the commit), not per fragment.
            Input::Message {
                bytes,
                arrived_us,
                source,
                ack: ack @ (Some(Ack::After(_)) | None),
                counters,
            } if seal::fragment::is_fragment(&bytes) => {
                if let Some(Ok(_)) = seal::fragment::parse(&bytes) {
                    self.fragments.push(FragmentIn {
                        device: device_of(counters.first(), &source),
                        origin: device_of(None, &source),
                        bytes,
                        arrived_us,
                        source: source.to_string(),
                    });
                    self.seen.extend(counters);
                    self.note_ack(ack);
                    return;
                }
                Input::Broken {
                    reason: Reason::Garbage,
                    detail: "a fragment without a body".into(),
                    source,
                    ack,
                    counters,
                }
            }
            Input::Message {
                bytes,
                source,
                ack: ack @ Some(Ack::Coap(..)),
                counters,
                ..
            } if seal::fragment::is_fragment(&bytes) => Input::Broken {
                // A CoAP request is answered per request: never one of several.
                reason: Reason::Garbage,
                detail: "a fragment in a CoAP request".into(),
                source,
                ack,
                counters,
            },
            input => input,
        };
        self.counters.received(now_us());
        match input {
            Input::Message {
                bytes,
                arrived_us,
                source,
                ack,
                counters,
            } => {
                self.seen.extend(counters);
                if let (Some(Ack::Coap(socket, peer)), Some(Keyring::Oscore(ring))) =
                    (&ack, keyring.as_mut())
                {
                    self.take_coap(ring, bytes, arrived_us, source, socket.clone(), *peer);
                    return;
                }
                self.note_ack(ack);
                // Without a keyring here, the feed opened every message already.
                let opened = match keyring {
                    Some(k) => k.open(&bytes),
                    None => Err((Reason::WrongKey, "no key to open it".to_string())),
                };
                self.admit(opened, arrived_us, &source);
            }
            Input::Verified {
                verified,
                arrived_us,
                source,
                ack,
                counters,
            } => {
                self.seen.extend(counters);
                self.note_ack(ack);
                self.admit(Ok(verified), arrived_us, &source);
            }
            Input::Broken {
                reason,
                detail,
                source,
                ack,
                counters,
            } => {
                self.seen.extend(counters);
                self.note_ack(ack);
                self.reject(reason, &source, &detail);
            }
        }
    }

    /// An opened message waits for the next commit; one that did not open is refused.
    /// Its source is known from then on, to fragments of the same batch too.
    fn admit(&mut self, opened: Result<Verified, (Reason, String)>, arrived_us: i64, source: &str) {
        if opened.is_ok() {
            self.known.note(source);
        }
        match opened {
            Ok(verified) => self.pending.push(Pending {
                verified,
                arrived_us,
                source: source.to_string(),
            }),
            Err((reason, detail)) => self.reject(reason, source, &detail),
        }
    }

    /// A CoAP request: verified now, answered after commit; a refused one at once.
    fn take_coap(
        &mut self,
        ring: &mut OscoreRing,
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
            Some(Ack::After(a)) => self.acks.push(a),
            // Refused before the store: answered by `take_coap`, or not CoAP.
            Some(Ack::Coap(..)) | None => {}
        }
    }

    fn reject(&mut self, reason: Reason, source: &str, detail: &str) {
        self.counters.rejected(reason);
        let _ = writeln!(
            self.log,
            "gateway: rejected {} from {source}: {detail}",
            reason.as_str()
        );
    }

    fn flush(
        &mut self,
        store: &mut ReadingStore,
        keyring: &mut Option<Keyring>,
    ) -> Result<(), LiveError> {
        let mut verdicts = Vec::new();
        let work = !self.pending.is_empty() || !self.seen.is_empty() || !self.fragments.is_empty();
        if work || self.sweep {
            let ring = &self.ring;
            // A message the fragments completed opens with the keys the feed has.
            let mut open = |bytes: &[u8]| match (keyring.as_mut(), ring) {
                (Some(k), _) => k.open(bytes),
                (None, Some(ring)) => ring.lock().unwrap_or_else(|e| e.into_inner()).open(bytes),
                (None, None) => Err((Reason::WrongKey, "no key to open it".to_string())),
            };
            let known = &self.known.set;
            let mut reassembly = Reassembly {
                open: &mut open,
                known: &|origin| known.contains(origin),
                limits: &self.config.limits.fragments,
                max_message: self.config.limits.max_message,
                now_us: now_us(),
                sweep: std::mem::take(&mut self.sweep),
            };
            let committed =
                store.commit_all(&self.pending, &self.seen, &self.fragments, &mut reassembly)?;
            self.seen.clear();
            self.fragments.clear();
            for _ in 0..committed.settled {
                self.counters.received(now_us());
            }
            for (reason, source, detail) in &committed.refused {
                self.reject(*reason, source, detail);
            }
            verdicts = committed.verdicts;
            let batch = std::mem::take(&mut self.pending);
            let mut stored = 0;
            for (p, verdict) in batch.iter().chain(&committed.whole).zip(&verdicts) {
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
        for a in self.acks.drain(..) {
            a.ack();
        }
        if let Some(Keyring::Oscore(ring)) = keyring {
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

/// Whose fragments these are: the envelope's DevEUI and session, else where
/// they came from (a UDP peer, a serial port, a topic or routing key), less
/// what names one uplink (`uplink ID`, a broker's `dup` or `redelivered`):
/// a redelivered fragment must meet its siblings.
fn device_of(counter: Option<&FrameCounter>, source: &str) -> String {
    match counter {
        Some(c) => format!("{} {}", c.dev_eui, c.session),
        None => source
            .split(" uplink ")
            .next()
            .unwrap_or(source)
            .to_string(),
    }
}

/// Refreshes the figures only the store knows: `lost_uplinks`, where the
/// envelope numbers uplinks, and `in_fragments`.
pub(crate) fn note_losses(
    config: &GatewayConfig,
    counters: &Counters,
    store: &mut ReadingStore,
) -> Result<(), LiveError> {
    if config.envelope != Envelope::Raw {
        counters.set_lost_uplinks(store.lost_uplinks()?);
    }
    counters.set_in_fragments(store.in_fragments()?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redelivered_fragment_belongs_to_the_same_device() {
        let first = device_of(None, "mqtt sensors/up uplink -");
        assert_eq!(first, "mqtt sensors/up");
        assert_eq!(device_of(None, "mqtt sensors/up uplink - dup"), first);
        assert_eq!(
            device_of(None, "amqp up.1 uplink 7f3a redelivered"),
            "amqp up.1"
        );
        assert_eq!(device_of(None, "udp 127.0.0.1:5000"), "udp 127.0.0.1:5000");
        let c = FrameCounter {
            dev_eui: "0101010101010101".into(),
            session: "00189440".into(),
            f_cnt: 3,
        };
        assert_eq!(
            device_of(Some(&c), "mqtt t uplink 9"),
            "0101010101010101 00189440"
        );
    }
}
