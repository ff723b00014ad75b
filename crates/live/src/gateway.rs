//! The gateway: listens on one transport, opens each message with the key files,
//! stores verified readings in batches, and counts (and logs, one line each) everything
//! it refuses. Nothing it refuses is stored, and no input makes it stop.
//!
//! This is the top of the gateway's side: it starts the transport's input and the
//! pipeline, and no module below imports it. Its settings are [`crate::config`]'s.
//!
//! Threads: the transport's ([`crate::input`]: one readiness loop for every TCP
//! connection, one per socket, device or broker otherwise) turns what arrives into
//! messages on a [`Feed`]; one pipeline thread ([`crate::pipeline`]) opens them and
//! writes the store, so a slow disk never stalls reads. What the network may take is
//! bounded by [`crate::limits::Limits`], and each refusal is counted. Each message's
//! acknowledgement (`ack N` on TCP, PUBACK on MQTT, a CoAP answer) is released only
//! after the commit that settled it, so an acknowledged message is never lost; a
//! fragment's, after the commit that put it in the store with its message in progress.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use crate::counters::{Counters, Snapshot};
use crate::endpoint::check_pairing;
use crate::error::LiveError;
use crate::feed::{Feed, Input};
use crate::input;
use crate::pipeline::{Worker, note_losses};
use crate::store::ReadingStore;
use crate::verify::Keyring;

pub use crate::config::{GatewayConfig, check_framing};

/// Runs until `stop` is set (or `exit_after` is reached); returns the final counters.
pub fn run(
    config: GatewayConfig,
    keyring: Keyring,
    stop: Arc<AtomicBool>,
) -> Result<Snapshot, LiveError> {
    config.limits.validate()?;
    input::check(&config)?;
    check_pairing(
        &config.listen,
        keyring.is_oscore(),
        config.schc.is_some(),
        "the gateway",
    )?;
    let mut keyring = keyring;
    if let (Keyring::Oscore(ring), Some(rules)) = (&mut keyring, &config.schc) {
        ring.compressed_with(rules.clone());
    }
    let mut store = ReadingStore::open(&config.db, config.limits.max_age_us())?;
    let counters = Arc::new(Counters::default());
    let (tx, rx) = mpsc::sync_channel::<Input>(65_536);
    let inputs_stop = Arc::new(AtomicBool::new(false));
    // Sealing keys go to the transport's thread, which opens as it receives.
    let (ring, mut keyring) = match keyring {
        Keyring::Sealed(ring) => (Some(ring), None),
        other => (None, Some(other)),
    };
    let opening = match &ring {
        Some(ring) => format!(", opening with {}", ring.implementations().join(", ")),
        None => String::new(),
    };
    // The pipeline opens with them too: the messages fragments complete.
    let ring = ring.map(|r| Arc::new(Mutex::new(r)));
    let feed = Feed::new(tx, ring.clone());
    let started = input::start(&config, feed, inputs_stop.clone(), counters.clone())?;
    eprintln!(
        "gateway: listening on {}, storing in {}{opening}",
        started.bound, config.db
    );

    let mut worker = Worker::new(&config, &counters, ring);
    // Asked to stop, the inputs end first, so that what they had taken in
    // reaches the pipeline, which commits it and ends once the last input has
    // let go of the queue.
    let served = Arc::new(AtomicBool::new(false));
    let watch = {
        let (stop, inputs_stop, served) = (stop.clone(), inputs_stop.clone(), served.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) && !served.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            inputs_stop.store(true, Ordering::Relaxed);
        })
    };
    let result = worker.serve(&rx, &mut keyring, &mut store, &stop);
    served.store(true, Ordering::Relaxed);
    inputs_stop.store(true, Ordering::Relaxed);
    drop(rx);
    let _ = watch.join();
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
    note_losses(&config, &counters, &mut store)?;
    let snap = counters.snapshot();
    if let Some(path) = &config.stats_file {
        snap.write_to(path)?;
    }
    if snap.in_fragments > 0 {
        eprintln!(
            "gateway: {} message(s) still in fragments, kept in {} for the rest of their \
             fragments (the next run, or another worker, completes them)",
            snap.in_fragments, config.db
        );
    }
    Ok(snap)
}

/// Only what a build without `mqtt` or `postgres` does: with both, the CLI's tests
/// start the gateway on every transport and store.
#[cfg(all(test, not(all(feature = "mqtt", feature = "postgres"))))]
mod tests {
    use super::*;
    use crate::endpoint::Endpoint;
    use crate::framing::Framing;

    /// What a build without a client or PostgreSQL answers: a refusal the CLI maps
    /// to status 2, before anything starts, never a panic.
    fn refused(listen: &str, db: store::Location) -> Option<LiveError> {
        let listen: Endpoint = listen.parse().unwrap();
        let config = GatewayConfig::new(listen, Framing::Line, db);
        let keyring = Keyring::from_keys(&[], seal::Container::Json).unwrap();
        run(config, keyring, Arc::new(AtomicBool::new(true))).err()
    }

    fn says_not_built(err: Option<LiveError>, support: &str, feature: &str) {
        let err = err.expect("refused");
        assert!(matches!(err, LiveError::NotBuilt(_)), "{err:?}");
        assert!(err.is_usage());
        let text = err.to_string();
        let want = format!("this build has no {support} support (cargo feature `{feature}`)");
        assert!(text.contains(&want), "{text}");
        assert!(text.contains("ARM board binaries"), "{text}");
    }

    #[cfg(not(feature = "mqtt"))]
    #[test]
    fn an_mqtt_gateway_without_the_feature_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let db = store::Location::Sqlite(dir.path().join("g.sqlite"));
        let err = refused("mqtt://127.0.0.1:1883/up", db);
        says_not_built(err, "MQTT", "mqtt");
        assert!(
            !dir.path().join("g.sqlite").exists(),
            "refused before the store"
        );
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn a_postgres_store_without_the_feature_says_so() {
        let db = store::Location::Postgres("postgres://gw:secret@127.0.0.1/readings".into());
        let err = refused("udp://127.0.0.1:0", db);
        assert!(!format!("{err:?}").contains("secret"));
        says_not_built(err, "PostgreSQL", "postgres");
    }
}
