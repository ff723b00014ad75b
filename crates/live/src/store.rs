//! The gateway's own database: verified readings and the replay state, in a SQLite
//! file (one gateway) or a PostgreSQL database that several gateway workers share.
//!
//! It is kept apart from the benchmark results store (crates/store): readings arrive
//! continuously and are written in batches, results are written per run; sharing one
//! file would make a benchmark wait on the gateway's write lock.
//!
//! A reading and its nonce go in the same transaction, so after any crash either both
//! are there or neither is: a message stored before a SIGKILL is still a replay after
//! the restart, and a message lost in flight can be sent again and is stored once.
//! Between workers the database decides: a random nonce is accepted by whichever
//! transaction inserts it into `seen_nonces` (its primary key refuses the second), and
//! the counter marks are read and written under the batch's write lock, never cached.
//! In PostgreSQL a batch is one transaction of a fixed number of statements, whatever its
//! size; SQLite, in-process, runs one statement per row.

mod postgres;
mod sqlite;

use std::collections::{HashMap, HashSet};

use store::Location;

use crate::error::LiveError;
use crate::replay::{CounterMark, Verdict, check_age};
use crate::verify::Verified;

/// One message waiting to be stored.
pub struct Pending {
    pub verified: Verified,
    pub arrived_us: i64,
    pub source: String,
}

pub struct ReadingStore {
    db: Backend,
    max_age_us: i64,
}

enum Backend {
    Sqlite(sqlite::Readings),
    Postgres(Box<postgres::Readings>),
}

/// A random nonce to remember while its reading is inside the freshness window.
struct NonceRow<'a> {
    device: &'a str,
    nonce: &'a [u8],
    sent_us: i64,
}

struct ReadingRow<'a> {
    device: &'a str,
    key_id: &'a str,
    /// Stored as text when UTF-8 (JSON), else as bytes.
    reading: &'a [u8],
    arrived_us: i64,
    sent_us: Option<i64>,
    /// arrived_us - sent_us (clocks of two machines!).
    latency_us: Option<i64>,
    source: &'a str,
}

/// What one batch's transaction does; each database does it its own way.
trait BatchTx {
    /// The marks of these key ids (sorted, distinct), held against other writers until
    /// the commit; a key without one gets the empty mark, which accepts any counter.
    fn lock_marks(&mut self, key_ids: &[&str]) -> Result<HashMap<String, CounterMark>, LiveError>;
    /// Inserts nonces (distinct); says for each whether it was new.
    fn claim_nonces(&mut self, nonces: &[NonceRow]) -> Result<Vec<bool>, LiveError>;
    fn insert_readings(&mut self, rows: &[ReadingRow]) -> Result<(), LiveError>;
    fn save_marks(&mut self, marks: &[(&str, CounterMark)]) -> Result<(), LiveError>;
    /// Forgets nonces sent before `before_us`.
    fn prune_nonces(&mut self, before_us: i64) -> Result<(), LiveError>;
}

impl ReadingStore {
    /// Opens (or creates) the database: a SQLite file, or a PostgreSQL database.
    /// `max_age_us` is the freshness window of random nonces.
    pub fn open(location: impl Into<Location>, max_age_us: i64) -> Result<ReadingStore, LiveError> {
        let db = match location.into() {
            Location::Sqlite(path) => Backend::Sqlite(sqlite::Readings::open(&path)?),
            Location::Postgres(url) => Backend::Postgres(Box::new(postgres::Readings::open(&url)?)),
        };
        Ok(ReadingStore { db, max_age_us })
    }

    /// Stores a batch in one transaction, with the replay state it changes, and prunes
    /// nonces that left the freshness window. Returns each message's verdict: only
    /// `Fresh` ones were stored.
    pub fn commit_batch(&mut self, batch: &[Pending]) -> Result<Vec<Verdict>, LiveError> {
        let max_age_us = self.max_age_us;
        match &mut self.db {
            Backend::Sqlite(db) => db.in_transaction(|tx| decide(tx, batch, max_age_us)),
            Backend::Postgres(db) => db.in_transaction(|tx| decide(tx, batch, max_age_us)),
        }
    }

    /// Rows in the replay table of random nonces (bounded by the window).
    pub fn replay_rows(&mut self) -> Result<u64, LiveError> {
        self.count_rows("seen_nonces")
    }

    pub fn count(&mut self) -> Result<u64, LiveError> {
        self.count_rows("readings")
    }

    fn count_rows(&mut self, table: &str) -> Result<u64, LiveError> {
        match &mut self.db {
            Backend::Sqlite(db) => db.count_rows(table),
            Backend::Postgres(db) => db.count_rows(table),
        }
    }

    /// The newest reading, as (device, reading text, latency µs).
    pub fn latest(&mut self) -> Result<Option<(String, String, Option<i64>)>, LiveError> {
        match &mut self.db {
            Backend::Sqlite(db) => db.latest(),
            Backend::Postgres(db) => db.latest(),
        }
    }
}

/// The replay rule over one batch, inside its transaction.
fn decide(
    tx: &mut dyn BatchTx,
    batch: &[Pending],
    max_age_us: i64,
) -> Result<Vec<Verdict>, LiveError> {
    let mut key_ids: Vec<&str> = batch
        .iter()
        .filter(|p| p.verified.counter.is_some())
        .map(|p| p.verified.key_id.as_str())
        .collect();
    key_ids.sort_unstable();
    key_ids.dedup();
    let mut marks = if key_ids.is_empty() {
        HashMap::new()
    } else {
        tx.lock_marks(&key_ids)?
    };
    let before = marks.clone();

    let mut verdicts = Vec::with_capacity(batch.len());
    // Random nonces that pass the age check; the database has the last word on them.
    let (mut claims, mut claimed_by) = (Vec::new(), Vec::new());
    let mut in_batch = HashSet::new();
    for (i, p) in batch.iter().enumerate() {
        let v = &p.verified;
        let verdict = match v.counter {
            Some(n) => marks.entry(v.key_id.clone()).or_default().accept(n),
            None => match check_age(v.sent_us, p.arrived_us, max_age_us) {
                Verdict::Fresh if !in_batch.insert((&v.device, &v.replay_id)) => replay(v),
                Verdict::Fresh => {
                    claims.push(NonceRow {
                        device: &v.device,
                        nonce: &v.replay_id,
                        sent_us: v.sent_us.expect("fresh readings have a timestamp"),
                    });
                    claimed_by.push(i);
                    Verdict::Fresh
                }
                other => other,
            },
        };
        verdicts.push(verdict);
    }
    if !claims.is_empty() {
        for (i, new) in claimed_by.into_iter().zip(tx.claim_nonces(&claims)?) {
            if !new {
                verdicts[i] = replay(&batch[i].verified);
            }
        }
    }

    let readings: Vec<ReadingRow> = batch
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| **v == Verdict::Fresh)
        .map(|(p, _)| ReadingRow {
            device: &p.verified.device,
            key_id: &p.verified.key_id,
            reading: &p.verified.reading,
            arrived_us: p.arrived_us,
            sent_us: p.verified.sent_us,
            latency_us: p.verified.sent_us.map(|s| p.arrived_us - s),
            source: &p.source,
        })
        .collect();
    if !readings.is_empty() {
        tx.insert_readings(&readings)?;
    }
    let mut changed: Vec<(&str, CounterMark)> = marks
        .iter()
        .filter(|(k, m)| before.get(*k) != Some(*m))
        .map(|(k, m)| (k.as_str(), *m))
        .collect();
    if !changed.is_empty() {
        changed.sort_unstable_by_key(|(k, _)| *k);
        tx.save_marks(&changed)?;
    }
    // Any later copy of a pruned nonce is older than the window, so it is stale.
    if let Some(now_us) = batch.iter().map(|p| p.arrived_us).max() {
        tx.prune_nonces(now_us - max_age_us)?;
    }
    Ok(verdicts)
}

fn replay(v: &Verified) -> Verdict {
    Verdict::Replay(format!(
        "device {} already used nonce {}",
        v.device,
        hex::encode(&v.replay_id)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000;

    fn pending(device: &str, nonce: u8, reading: &str) -> Pending {
        Pending {
            verified: Verified {
                device: device.into(),
                key_id: "k".into(),
                replay_id: vec![nonce; 12],
                counter: None,
                reading: reading.as_bytes().to_vec(),
                sent_us: Some(1_000),
            },
            arrived_us: 1_500,
            source: "test".into(),
        }
    }

    fn fresh(out: &[Verdict]) -> Vec<bool> {
        out.iter().map(|v| *v == Verdict::Fresh).collect()
    }

    #[test]
    fn replays_are_refused_in_a_batch_and_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite");
        let mut store = ReadingStore::open(&path, 60 * S).unwrap();
        let out = store
            .commit_batch(&[
                pending("a", 1, "{\"x\":1}"),
                pending("a", 1, "{\"x\":1}"),
                pending("b", 1, "{\"x\":2}"),
            ])
            .unwrap();
        assert_eq!(fresh(&out), vec![true, false, true]);
        drop(store);
        let mut store = ReadingStore::open(&path, 60 * S).unwrap();
        let out = store
            .commit_batch(&[pending("a", 1, "r"), pending("a", 2, "{\"x\":3}")])
            .unwrap();
        assert_eq!(fresh(&out), vec![false, true]);
        assert_eq!(store.count().unwrap(), 3);
        assert_eq!(
            store.latest().unwrap(),
            Some(("a".into(), "{\"x\":3}".into(), Some(500)))
        );
    }

    #[test]
    fn nonces_leave_with_the_window_and_their_replays_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReadingStore::open(&dir.path().join("g.sqlite"), 10 * S).unwrap();
        let at = |nonce: u8, sent: i64, arrived: i64| {
            let mut p = pending("a", nonce, "{}");
            p.verified.sent_us = Some(sent);
            p.arrived_us = arrived;
            p
        };
        // One message a second for 100 s; each batch prunes what left the window.
        for t in 0..100 {
            let out = store.commit_batch(&[at(t as u8, t * S, t * S)]).unwrap();
            assert_eq!(out, vec![Verdict::Fresh]);
            assert!(store.replay_rows().unwrap() <= 11);
        }
        // The first message again: its nonce is gone, and it is refused as stale.
        let out = store.commit_batch(&[at(0, 0, 100 * S)]).unwrap();
        assert!(matches!(out[0], Verdict::Stale(_)), "{out:?}");
        let out = store.commit_batch(&[at(99, 99 * S, 100 * S)]).unwrap();
        assert!(matches!(out[0], Verdict::Replay(_)), "{out:?}");
        assert_eq!(store.count().unwrap(), 100);
    }

    #[test]
    fn counter_marks_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite");
        let with_counter = |n: u64| {
            let mut p = pending("a", 0, "{}");
            p.verified.counter = Some(n);
            p.verified.sent_us = None;
            p
        };
        let mut store = ReadingStore::open(&path, 10 * S).unwrap();
        let out = store
            .commit_batch(&[with_counter(5), with_counter(7), with_counter(5)])
            .unwrap();
        assert_eq!(fresh(&out), vec![true, true, false]);
        drop(store);
        let mut store = ReadingStore::open(&path, 10 * S).unwrap();
        let out = store
            .commit_batch(&[
                with_counter(7),
                with_counter(6),
                with_counter(500),
                with_counter(7),
            ])
            .unwrap();
        assert_eq!(fresh(&out), vec![false, true, true, false]);
        assert!(matches!(out[3], Verdict::Stale(_)));
        assert_eq!(store.replay_rows().unwrap(), 0);
    }
}
