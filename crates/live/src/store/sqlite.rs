//! The readings in one SQLite file. `synchronous=FULL` in WAL mode: a commit is on disk
//! before `commit_batch` returns, so what the gateway acknowledged survives a power cut,
//! not only a crash. Each batch takes the write lock first (`BEGIN IMMEDIATE`), so even
//! two processes on one file read and write the counter marks one after the other.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::{BatchTx, FragmentRow, NonceRow, ReadingRow, Span};
use crate::envelope::FrameCounter;
use crate::error::LiveError;
use crate::replay::CounterMark;

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
CREATE TABLE IF NOT EXISTS uplinks_seen (
    dev_eui TEXT    NOT NULL,      -- lower-case hex
    session TEXT    NOT NULL,      -- session key id or DevAddr; '' when unknown
    f_cnt   INTEGER NOT NULL,      -- FCntUp (32 bits)
    PRIMARY KEY (dev_eui, session, f_cnt)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS uplink_spans (
    id      INTEGER PRIMARY KEY,
    dev_eui TEXT    NOT NULL,
    session TEXT    NOT NULL,
    lo      INTEGER NOT NULL,      -- lowest and highest counter of the span
    hi      INTEGER NOT NULL,
    n       INTEGER NOT NULL       -- counters seen in it (each in one span only)
);
CREATE TABLE IF NOT EXISTS fragments_in_progress (
    device     TEXT PRIMARY KEY,   -- DevEUI and session, else where they came from
    state      BLOB NOT NULL,      -- crate::reassembly::InProgress (its binary layout)
    messages   INTEGER NOT NULL,   -- messages in progress in it
    bytes      INTEGER NOT NULL DEFAULT 0,  -- bytes they hold
    trusted    INTEGER NOT NULL DEFAULT 0,  -- 1: a message of the device's opened
    touched_us INTEGER NOT NULL DEFAULT 0   -- last written (Unix µs); idle rows are swept
) WITHOUT ROWID;
";

/// Columns added to `fragments_in_progress` since its first version: a row of
/// that version reads as idle since 1970 and is swept (its JSON state given up).
const FRAGMENT_COLUMNS: [(&str, &str); 3] = [
    ("bytes", "INTEGER NOT NULL DEFAULT 0"),
    ("trusted", "INTEGER NOT NULL DEFAULT 0"),
    ("touched_us", "INTEGER NOT NULL DEFAULT 0"),
];

pub(super) struct Readings {
    conn: Connection,
}

impl Readings {
    pub fn open(path: &Path) -> Result<Readings, LiveError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        // The replay and counter indexes are read on every batch: keep their pages in
        // memory (64 MiB at most, SQLite's default is 2 MiB) and map the file, so a batch
        // costs no read(2) per page.
        conn.pragma_update(None, "cache_size", -65_536)?;
        conn.pragma_update(None, "mmap_size", 256 << 20)?;
        // Random nonces dirty pages all over `seen_nonces`: checkpoint every 32 MiB of
        // WAL instead of 4, so a hot page is copied back to the file less often.
        conn.pragma_update(None, "wal_autocheckpoint", 8192)?;
        conn.execute_batch(SCHEMA)?;
        migrate_seen_nonces(&conn)?;
        for (column, kind) in FRAGMENT_COLUMNS {
            let has: bool = conn.query_row(
                "SELECT COUNT(*) > 0 FROM pragma_table_info('fragments_in_progress') WHERE name = ?1",
                [column],
                |r| r.get(0),
            )?;
            if !has {
                conn.execute_batch(&format!(
                    "ALTER TABLE fragments_in_progress ADD COLUMN {column} {kind};"
                ))?;
            }
        }
        // The sweep's, and the strangers' budget's read once a batch with fragments
        // (a partial index: its cost follows the strangers, not every known device).
        conn.execute_batch(
            "CREATE INDEX IF NOT EXISTS fragments_idle ON fragments_in_progress (touched_us);
             CREATE INDEX IF NOT EXISTS fragments_strangers ON fragments_in_progress (bytes)
                 WHERE trusted = 0 AND messages > 0;",
        )?;
        conn.execute_batch("CREATE INDEX IF NOT EXISTS seen_nonces_age ON seen_nonces (sent_us);")?;
        Ok(Readings { conn })
    }

    pub fn in_transaction<T>(
        &mut self,
        work: impl FnOnce(&mut dyn BatchTx) -> Result<T, LiveError>,
    ) -> Result<T, LiveError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let out = work(&mut Tx(&tx))?;
        tx.commit()?;
        Ok(out)
    }

    pub fn count_rows(&mut self, table: &str) -> Result<u64, LiveError> {
        let n: i64 = self
            .conn
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?;
        Ok(n as u64)
    }

    pub fn latest(&mut self) -> Result<Option<(String, String, Option<i64>)>, LiveError> {
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

struct Tx<'a>(&'a rusqlite::Transaction<'a>);

impl BatchTx for Tx<'_> {
    fn lock_marks(&mut self, key_ids: &[&str]) -> Result<HashMap<String, CounterMark>, LiveError> {
        let mut select = self
            .0
            .prepare_cached("SELECT high, seen FROM counter_marks WHERE key_id = ?1")?;
        let mut marks = HashMap::new();
        for key_id in key_ids {
            let mark = select
                .query_row([key_id], |r| {
                    let (high, seen): (i64, i64) = (r.get(0)?, r.get(1)?);
                    Ok(CounterMark {
                        high: high as u64,
                        seen: seen as u64,
                    })
                })
                .optional()?;
            marks.insert(key_id.to_string(), mark.unwrap_or_default());
        }
        Ok(marks)
    }

    fn claim_nonces(&mut self, nonces: &[NonceRow]) -> Result<Vec<bool>, LiveError> {
        let mut insert = self.0.prepare_cached(
            "INSERT INTO seen_nonces (device, nonce, sent_us) VALUES (?1, ?2, ?3)
             ON CONFLICT DO NOTHING",
        )?;
        nonces
            .iter()
            .map(|n| Ok(insert.execute(params![n.device, n.nonce, n.sent_us])? == 1))
            .collect()
    }

    fn insert_readings(&mut self, rows: &[ReadingRow]) -> Result<(), LiveError> {
        let mut insert = self.0.prepare_cached(
            "INSERT INTO readings (device, key_id, reading, arrived_us, sent_us, latency_us, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for r in rows {
            let reading = ToSqlOutput::Borrowed(match std::str::from_utf8(r.reading) {
                Ok(_) => ValueRef::Text(r.reading),
                Err(_) => ValueRef::Blob(r.reading),
            });
            insert.execute(params![
                r.device,
                r.key_id,
                reading,
                r.arrived_us,
                r.sent_us,
                r.latency_us,
                r.source
            ])?;
        }
        Ok(())
    }

    fn save_marks(&mut self, marks: &[(&str, CounterMark)]) -> Result<(), LiveError> {
        let mut upsert = self.0.prepare_cached(
            "INSERT INTO counter_marks (key_id, high, seen) VALUES (?1, ?2, ?3)
             ON CONFLICT (key_id) DO UPDATE SET high = excluded.high, seen = excluded.seen",
        )?;
        for (key_id, m) in marks {
            upsert.execute(params![key_id, m.high as i64, m.seen as i64])?;
        }
        Ok(())
    }

    fn prune_nonces(&mut self, before_us: i64) -> Result<(), LiveError> {
        self.0
            .prepare_cached("DELETE FROM seen_nonces WHERE sent_us < ?1")?
            .execute([before_us])?;
        Ok(())
    }

    fn note_uplinks(&mut self, seen: &[&FrameCounter]) -> Result<Vec<bool>, LiveError> {
        let mut insert = self.0.prepare_cached(
            "INSERT INTO uplinks_seen (dev_eui, session, f_cnt) VALUES (?1, ?2, ?3)
             ON CONFLICT DO NOTHING",
        )?;
        seen.iter()
            .map(|c| Ok(insert.execute(params![c.dev_eui, c.session, c.f_cnt])? == 1))
            .collect()
    }

    fn add_spans(&mut self, spans: &[Span]) -> Result<(), LiveError> {
        let mut insert = self.0.prepare_cached(
            "INSERT INTO uplink_spans (dev_eui, session, lo, hi, n) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for s in spans {
            insert.execute(params![s.dev_eui, s.session, s.lo, s.hi, s.n])?;
        }
        Ok(())
    }

    /// The transaction holds SQLite's write lock already (`BEGIN IMMEDIATE`).
    fn lock_spans(&mut self) -> Result<(), LiveError> {
        Ok(())
    }

    fn spans(&mut self) -> Result<Vec<(i64, Span)>, LiveError> {
        let mut select = self
            .0
            .prepare_cached("SELECT id, dev_eui, session, lo, hi, n FROM uplink_spans")?;
        let rows = select.query_map([], |r| {
            Ok((
                r.get(0)?,
                Span {
                    dev_eui: r.get(1)?,
                    session: r.get(2)?,
                    lo: r.get(3)?,
                    hi: r.get(4)?,
                    n: r.get(5)?,
                },
            ))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn replace_spans(&mut self, gone: &[i64], new: &[Span]) -> Result<(), LiveError> {
        let mut delete = self
            .0
            .prepare_cached("DELETE FROM uplink_spans WHERE id = ?1")?;
        for id in gone {
            delete.execute([id])?;
        }
        self.add_spans(new)
    }

    fn lock_fragments(&mut self, devices: &[&str]) -> Result<HashMap<String, Vec<u8>>, LiveError> {
        // BEGIN IMMEDIATE holds the write lock already.
        let mut select = self
            .0
            .prepare_cached("SELECT state FROM fragments_in_progress WHERE device = ?1")?;
        let mut states = HashMap::new();
        for device in devices {
            if let Some(state) = select.query_row([device], |r| r.get(0)).optional()? {
                states.insert(device.to_string(), state);
            }
        }
        Ok(states)
    }

    fn save_fragments(&mut self, rows: &[FragmentRow]) -> Result<(), LiveError> {
        let mut upsert = self.0.prepare_cached(
            "INSERT INTO fragments_in_progress (device, state, messages, bytes, trusted, touched_us)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (device) DO UPDATE SET state = excluded.state, messages = excluded.messages,
                 bytes = excluded.bytes, trusted = excluded.trusted, touched_us = excluded.touched_us",
        )?;
        let mut delete = self
            .0
            .prepare_cached("DELETE FROM fragments_in_progress WHERE device = ?1")?;
        for r in rows {
            match &r.state {
                Some(state) => upsert.execute(params![
                    r.device,
                    state,
                    r.messages,
                    r.bytes,
                    r.trusted,
                    r.touched_us
                ])?,
                None => delete.execute([r.device])?,
            };
        }
        Ok(())
    }

    fn stranger_usage(&mut self) -> Result<(u64, u64), LiveError> {
        let (n, bytes): (i64, i64) = self.0.query_row(
            "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM fragments_in_progress
             WHERE trusted = 0 AND messages > 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((n as u64, bytes as u64))
    }

    /// BEGIN IMMEDIATE holds the write lock already.
    fn idle_fragments(&mut self, before_us: i64) -> Result<Vec<(String, Vec<u8>)>, LiveError> {
        let mut select = self.0.prepare_cached(
            "SELECT device, state FROM fragments_in_progress WHERE touched_us < ?1",
        )?;
        let rows = select.query_map([before_us], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn messages_in_fragments(&mut self) -> Result<u64, LiveError> {
        let n: i64 = self.0.query_row(
            "SELECT COALESCE(SUM(messages), 0) FROM fragments_in_progress",
            [],
            |r| r.get(0),
        )?;
        Ok(n as u64)
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
            [crate::clock::now_us()],
        )?;
    }
    Ok(())
}
