//! The gateway: listens on one transport, opens each message with the key files,
//! stores verified readings in batches, and counts (and logs, one line each) everything
//! it refuses. Nothing it refuses is stored, and no input makes it stop.
//!
//! Threads: the transport's ([`crate::input`]: one readiness loop for every TCP
//! connection, one per socket, device or broker otherwise) turns what arrives into
//! messages; one pipeline thread ([`crate::pipeline`]) opens them and writes the store,
//! so a slow disk never stalls reads. What the network may take is bounded by
//! [`Limits`], and each refusal is counted. Each message's acknowledgement (`ack N` on
//! TCP, PUBACK on MQTT, a CoAP answer) is released only after the commit that settled
//! it, so an acknowledged message is never lost.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use store::Location;

use crate::counters::{Counters, Snapshot};
use crate::endpoint::Endpoint;
use crate::envelope::Envelope;
use crate::error::LiveError;
use crate::framing::Framing;
use crate::input::{self, Feed};
use crate::limits::Limits;
use crate::mqtt::Subscription;
use crate::pipeline::Worker;
use crate::store::ReadingStore;
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
    pub limits: Limits,
    pub stats_file: Option<PathBuf>,
    pub stats_interval: Duration,
    /// Stop once this many messages have been received and settled.
    pub exit_after: Option<u64>,
    /// How a network server wraps each uplink (MQTT, AMQP); `raw` elsewhere.
    pub envelope: Envelope,
    /// AMQP only: the exchange the queue is bound to, the binding key, the prefetch.
    pub amqp: crate::amqp::AmqpSubscription,
    /// MQTT only: shared subscription and session.
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
            limits: Limits::default(),
            stats_file: None,
            stats_interval: Duration::from_secs(1),
            exit_after: None,
            envelope: Envelope::Raw,
            amqp: crate::amqp::AmqpSubscription::default(),
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

/// Runs until `stop` is set (or `exit_after` is reached); returns the final counters.
pub fn run(
    config: GatewayConfig,
    keyring: Keyring,
    stop: Arc<AtomicBool>,
) -> Result<Snapshot, LiveError> {
    config.limits.validate()?;
    input::check(&config)?;
    crate::coap::check_pairing(&config.listen, keyring.is_oscore(), "the gateway")?;
    let mut store = ReadingStore::open(&config.db, config.limits.max_age_us())?;
    let counters = Arc::new(Counters::default());
    let (tx, rx) = mpsc::sync_channel::<input::Input>(65_536);
    let inputs_stop = Arc::new(AtomicBool::new(false));
    // Sealing keys go to the transport's thread, which opens as it receives.
    let (ring, mut keyring) = match keyring {
        Keyring::Sealed(ring) => (Some(ring), None),
        other => (None, Some(other)),
    };
    let feed = Feed::new(tx, ring);
    let started = input::start(&config, feed, inputs_stop.clone(), counters.clone())?;
    eprintln!(
        "gateway: listening on {}, storing in {}",
        started.bound, config.db
    );

    let mut worker = Worker::new(&config, &counters);
    let result = worker.serve(&rx, &mut keyring, &mut store, &stop);
    inputs_stop.store(true, Ordering::Relaxed);
    drop(rx);
    let mut crashed = false;
    for t in started.threads {
        crashed |= t.join().is_err();
    }
    if crashed {
        // A panic on the transport's thread (its message is on stderr) is a failure,
        // never a clean stop.
        return Err(LiveError::Io(format!(
            "the {} input failed; what arrived before is committed",
            config.listen
        )));
    }
    result?;
    crate::pipeline::note_losses(&config, &counters, &mut store)?;
    let snap = counters.snapshot();
    if let Some(path) = &config.stats_file {
        snap.write_to(path)?;
    }
    Ok(snap)
}
