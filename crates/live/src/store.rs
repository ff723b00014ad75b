//! The gateway's own SQLite file: verified readings and the replay state.
//!
//! It is kept apart from the benchmark results store (crates/store): readings arrive
//! continuously and are written in batches by one process, results are written per run;
//! sharing one file would make a benchmark wait on the gateway's write lock.
//!
//! A reading and its nonce go in the same transaction, so after any crash either both
//! are there or neither is: a message stored before a SIGKILL is still a replay after
//! the restart, and a message lost in flight can be sent again and is stored once.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::LiveError;
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
    device TEXT NOT NULL,
    nonce  BLOB NOT NULL,
    PRIMARY KEY (device, nonce)
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
}

impl ReadingStore {
    /// Opens (or creates) the database. `synchronous=FULL` in WAL mode: a commit is on
    /// disk before `commit_batch` returns, so what the gateway acknowledged survives a
    /// power cut, not only a crash.
    pub fn open(path: &Path) -> Result<ReadingStore, LiveError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.execute_batch(SCHEMA)?;
        Ok(ReadingStore { conn })
    }

    /// Stores a batch in one transaction. Returns, per message, whether it was stored
    /// (false: its nonce was seen before for that device, a replay).
    pub fn commit_batch(&mut self, batch: &[Pending]) -> Result<Vec<bool>, LiveError> {
        let tx = self.conn.transaction()?;
        let mut outcome = Vec::with_capacity(batch.len());
        {
            let mut seen = tx.prepare_cached(
                "INSERT INTO seen_nonces (device, nonce) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO readings (device, key_id, reading, arrived_us, sent_us, latency_us, source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for p in batch {
                let v = &p.verified;
                let fresh = seen.execute(params![v.device, v.replay_id])? == 1;
                if fresh {
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
                outcome.push(fresh);
            }
        }
        tx.commit()?;
        Ok(outcome)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(device: &str, nonce: u8, reading: &str) -> Pending {
        Pending {
            verified: Verified {
                device: device.into(),
                key_id: "k".into(),
                replay_id: vec![nonce; 12],
                reading: reading.as_bytes().to_vec(),
                sent_us: Some(1_000),
            },
            arrived_us: 1_500,
            source: "test".into(),
        }
    }

    #[test]
    fn replays_are_refused_in_a_batch_and_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite");
        let mut store = ReadingStore::open(&path).unwrap();
        let out = store
            .commit_batch(&[
                pending("a", 1, "{\"x\":1}"),
                pending("a", 1, "{\"x\":1}"),
                pending("b", 1, "{\"x\":2}"),
            ])
            .unwrap();
        assert_eq!(out, vec![true, false, true]);
        drop(store);
        let mut store = ReadingStore::open(&path).unwrap();
        let out = store
            .commit_batch(&[pending("a", 1, "r"), pending("a", 2, "{\"x\":3}")])
            .unwrap();
        assert_eq!(out, vec![false, true]);
        assert_eq!(store.count().unwrap(), 3);
        assert_eq!(
            store.latest().unwrap(),
            Some(("a".into(), "{\"x\":3}".into(), Some(500)))
        );
    }
}
