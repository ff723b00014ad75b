//! The gateway's own SQLite file: verified readings and the replay state.
//!
//! It is kept apart from the benchmark results store (crates/store): readings arrive
//! continuously and are written in batches by one process, results are written per run;
//! sharing one file would make a benchmark wait on the gateway's write lock.
//!
//! A reading and its nonce go in the same transaction, so after any crash either both
//! are there or neither is: a message stored before a SIGKILL is still a replay after
//! the restart, and a message lost in flight can be sent again and is stored once.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::LiveError;
use crate::replay::{CounterMark, Verdict, check_age};
use crate::verify::Verified;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS readings (
    seq        INTEGER PRIMARY KEY,
    device     TEXT    NOT NULL,
    key_id     TEXT    NOT NULL,
    reading    BLOB    NOT NULL,   -- TEXT when the reading is UTF-8 (JSON), else BLOB
    arrived_us INTEGER NOT NULL,   -- Unix time in microseconds at the gateway
    sent_us    INTEGER,            -- the reading's sent_us, when it has one
    latency_us INTEGER,            -- arrived_us - sent_us (clocks of two machines!)
    source     TEXT    NOT NULL    -- transport and peer
);
CREATE TABLE IF NOT EXISTS seen_nonces (
    device  TEXT    NOT NULL,
    nonce   BLOB    NOT NULL,
    sent_us INTEGER NOT NULL,      -- pruned once older than --max-age
    PRIMARY KEY (device, nonce)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counter_marks (
    key_id TEXT    PRIMARY KEY,
    high   INTEGER NOT NULL,       -- highest counter accepted (u64 stored as i64)
    seen   INTEGER NOT NULL        -- bit i: counter high - i was accepted
) WITHOUT ROWID;
";

/// One message waiting to be stored.
pub struct Pending {
    pub verified: Verified,
    pub arrived_us: i64,
    pub source: String,
}

pub struct ReadingStore {
    conn: Connection,
    max_age_us: i64,
    /// `counter_marks`, read once at open and written back in every commit.
    marks: HashMap<String, CounterMark>,
}

impl ReadingStore {
    /// Opens (or creates) the database. `synchronous=FULL` in WAL mode: a commit is on
    /// disk before `commit_batch` returns, so what the gateway acknowledged survives a
    /// power cut, not only a crash. `max_age_us` is the freshness window of random nonces.
    pub fn open(path: &Path, max_age_us: i64) -> Result<ReadingStore, LiveError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        migrate_seen_nonces(&conn)?;
        conn.execute_batch("CREATE INDEX IF NOT EXISTS seen_nonces_age ON seen_nonces (sent_us);")?;
        let marks = conn
            .prepare("SELECT key_id, high, seen FROM counter_marks")?
            .query_map([], |r| {
                let (high, seen): (i64, i64) = (r.get(1)?, r.get(2)?);
                Ok((
                    r.get(0)?,
                    CounterMark {
                        high: high as u64,
                        seen: seen as u64,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        Ok(ReadingStore {
            conn,
            max_age_us,
            marks,
        })
    }

    /// Stores a batch in one transaction, with the replay state it changes, and prunes
    /// nonces that left the freshness window. Returns each message's verdict: only
    /// `Fresh` ones were stored.
    pub fn commit_batch(&mut self, batch: &[Pending]) -> Result<Vec<Verdict>, LiveError> {
        let tx = self.conn.transaction()?;
        let mut marks = self.marks.clone();
        let mut outcome = Vec::with_capacity(batch.len());
        let mut now_us = i64::MIN;
        {
            let mut seen = tx.prepare_cached(
                "INSERT INTO seen_nonces (device, nonce, sent_us) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO readings (device, key_id, reading, arrived_us, sent_us, latency_us, source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for p in batch {
                let v = &p.verified;
                now_us = now_us.max(p.arrived_us);
                let verdict = match v.counter {
                    Some(n) => match marks.get_mut(&v.key_id) {
                        Some(mark) => mark.accept(n),
                        None => {
                            marks.insert(v.key_id.clone(), CounterMark::first(n));
                            Verdict::Fresh
                        }
                    },
                    None => match check_age(v.sent_us, p.arrived_us, self.max_age_us) {
                        Verdict::Fresh => {
                            let sent = v.sent_us.expect("fresh readings have a timestamp");
                            if seen.execute(params![v.device, v.replay_id, sent])? == 1 {
                                Verdict::Fresh
                            } else {
                                Verdict::Replay(format!(
                                    "device {} already used nonce {}",
                                    v.device,
                                    hex::encode(&v.replay_id)
                                ))
                            }
                        }
                        other => other,
                    },
                };
                if verdict == Verdict::Fresh {
                    let latency = v.sent_us.map(|s| p.arrived_us - s);
                    let reading = match std::str::from_utf8(&v.reading) {
                        Ok(text) => rusqlite::types::Value::Text(text.to_string()),
                        Err(_) => rusqlite::types::Value::Blob(v.reading.clone()),
                    };
                    insert.execute(params![
                        v.device,
                        v.key_id,
                        reading,
                        p.arrived_us,
                        v.sent_us,
                        latency,
                        p.source
                    ])?;
                }
                outcome.push(verdict);
            }
            let mut mark = tx.prepare_cached(
                "INSERT INTO counter_marks (key_id, high, seen) VALUES (?1, ?2, ?3)
                 ON CONFLICT (key_id) DO UPDATE SET high = excluded.high, seen = excluded.seen",
            )?;
            for (key_id, m) in &marks {
                if self.marks.get(key_id) != Some(m) {
                    mark.execute(params![key_id, m.high as i64, m.seen as i64])?;
                }
            }
        }
        // Any later copy of a pruned nonce is older than the window, so it is stale.
        if now_us != i64::MIN {
            tx.execute(
                "DELETE FROM seen_nonces WHERE sent_us < ?1",
                [now_us - self.max_age_us],
            )?;
        }
        tx.commit()?;
        self.marks = marks;
        Ok(outcome)
    }

    /// Rows in the replay table of random nonces (bounded by the window).
    pub fn replay_rows(&self) -> Result<u64, LiveError> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM seen_nonces", [], |r| {
                r.get::<_, i64>(0)
            })? as u64)
    }

    pub fn count(&self) -> Result<u64, LiveError> {
        Ok(self
            .conn
            .query_row("SELECT COUNT(*) FROM readings", [], |r| r.get::<_, i64>(0))?
            as u64)
    }

    /// The newest reading, as (device, reading text, latency µs).
    pub fn latest(&self) -> Result<Option<(String, String, Option<i64>)>, LiveError> {
        Ok(self
            .conn
            .query_row(
                "SELECT device, CAST(reading AS TEXT), latency_us FROM readings ORDER BY seq DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?)
    }
}

/// Databases from before the freshness window have no `sent_us` in `seen_nonces`:
/// add it, dated now, so those nonces are kept for one more window and then pruned.
fn migrate_seen_nonces(conn: &Connection) -> Result<(), LiveError> {
    let has_age: bool = conn.query_row(
        "SELECT COUNT(*) > 0 FROM pragma_table_info('seen_nonces') WHERE name = 'sent_us'",
        [],
        |r| r.get(0),
    )?;
    if !has_age {
        conn.execute_batch(
            "ALTER TABLE seen_nonces ADD COLUMN sent_us INTEGER NOT NULL DEFAULT 0;",
        )?;
        conn.execute(
            "UPDATE seen_nonces SET sent_us = ?1",
            [crate::gateway::now_us()],
        )?;
    }
    Ok(())
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
