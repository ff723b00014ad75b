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
//!
//! # Lost uplinks
//! A network server numbers each device's uplinks (LoRaWAN's FCntUp), so an uplink that
//! never reached the store leaves a gap. Every uplink that arrived with a counter
//! ([`FrameCounter`], from a ChirpStack or The Things Stack envelope) is written to
//! `uplinks_seen` in its batch's transaction, whatever became of its reading: a tampered
//! uplink was received, not lost. A redelivery inserts nothing (the key is device,
//! session, counter). Several workers each see any subset of a device's uplinks, in any
//! order, so gaps are counted from what the shared store holds, never per worker:
//! [`ReadingStore::lost_uplinks`] is, over every device's session, the counters missing
//! between the lowest and the highest seen.
//!
//! What it cannot see: uplinks lost after a device's last one seen (until a later one
//! arrives) or before its first one seen. A device session's counters form series, runs
//! with no more than [`MAX_FCNT_GAP`] missing in a row; losses are counted inside each
//! series, and a longer run is a discontinuity, not loss. So, when a counter starts again:
//! - a (re)join gives the device a new session (The Things Stack's session key id,
//!   ChirpStack's DevAddr) and its counter restarts at 0 in a new series: the old one's
//!   trailing losses stay unseen, nothing else changes;
//! - a restart within one session (an ABP device that resets its counter, which LoRaWAN
//!   1.0.4 forbids, behind a network server that skips the frame-counter check; or a
//!   rejoin that drew the same DevAddr) lands among the session's counters: far below
//!   those seen, it starts a series of its own; counters that repeat ones seen count as
//!   seen, so a loss among them goes unreported; and when the restarted run ends within
//!   [`MAX_FCNT_GAP`] below the first counter the store saw in that session, the counters
//!   between the two are reported lost although they were never sent;
//! - FCntUp is 32 bits and does not wrap within one session (LoRaWAN has the device
//!   rejoin first); a wrap from 2^32 - 1 to 0 would be one more discontinuity.
//!
//! Cost: each batch adds one row per new counter and one per series it touched
//! (`uplink_spans`: lowest, highest and how many new); `lost_uplinks` folds the spans into
//! one row per series, so it reads the series and the spans added since its last call,
//! not every uplink. Called once per stats interval, it keeps `uplink_spans` that small.

mod fragments;
#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;

pub use fragments::{Committed, FragmentIn, Opener, Reassembly};

use std::collections::{HashMap, HashSet};

use store::Location;

use crate::envelope::FrameCounter;
use crate::error::LiveError;
use crate::replay::{CounterMark, Verdict, check_age};
use crate::verify::Verified;

/// A run of more than this many missing counters in one device session is a
/// discontinuity (a counter that started again without a new session), not loss: LoRaWAN
/// 1.0.x's MAX_FCNT_GAP, past which a network server applying it discards the frame.
pub const MAX_FCNT_GAP: u64 = 16_384;

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
    #[cfg(feature = "postgres")]
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
    /// Inserts uplinks seen (sorted, distinct); says for each whether it was new.
    fn note_uplinks(&mut self, seen: &[&FrameCounter]) -> Result<Vec<bool>, LiveError>;
    fn add_spans(&mut self, spans: &[Span]) -> Result<(), LiveError>;
    /// Held until the commit, so that one transaction at a time folds the spans.
    fn lock_spans(&mut self) -> Result<(), LiveError>;
    /// Every span, with its row id.
    fn spans(&mut self) -> Result<Vec<(i64, Span)>, LiveError>;
    /// Deletes the spans `gone` and inserts `new` in their place.
    fn replace_spans(&mut self, gone: &[i64], new: &[Span]) -> Result<(), LiveError>;
    /// The stored reassembly state of these devices (sorted, distinct), held
    /// against other writers until the commit; a device without one has none.
    fn lock_fragments(&mut self, devices: &[&str]) -> Result<HashMap<String, Vec<u8>>, LiveError>;
    /// Writes these devices' rows (locked by `lock_fragments` or
    /// `idle_fragments`); a row without a state is removed.
    fn save_fragments(&mut self, rows: &[FragmentRow]) -> Result<(), LiveError>;
    /// Strangers' rows with messages in progress: how many, and their bytes.
    fn stranger_usage(&mut self) -> Result<(u64, u64), LiveError>;
    /// The rows last written before `before_us`, held until the commit (those
    /// another writer holds are left to it).
    fn idle_fragments(&mut self, before_us: i64) -> Result<Vec<(String, Vec<u8>)>, LiveError>;
    /// Messages in progress over every device (the sum of the saved numbers).
    fn messages_in_fragments(&mut self) -> Result<u64, LiveError>;
}

/// A device's row of messages in fragments, as written.
struct FragmentRow<'a> {
    device: &'a str,
    /// `None`: the row is removed.
    state: Option<Vec<u8>>,
    messages: i64,
    bytes: i64,
    /// A message of the device's opened (crate::reassembly::InProgress::trusted).
    trusted: bool,
    /// When it was last written (Unix µs): idle rows are swept after the timeout.
    touched_us: i64,
}

impl FragmentRow<'_> {
    fn gone(device: &str) -> FragmentRow<'_> {
        FragmentRow {
            device,
            state: None,
            messages: 0,
            bytes: 0,
            trusted: false,
            touched_us: 0,
        }
    }
}

/// Counters of one device session, from `lo` to `hi`: `n` of them were seen (each
/// counted in exactly one span), none missing for more than [`MAX_FCNT_GAP`] in a row.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Span {
    dev_eui: String,
    session: String,
    lo: i64,
    hi: i64,
    n: i64,
}

impl Span {
    fn series(&self) -> (&str, &str) {
        (&self.dev_eui, &self.session)
    }

    /// Counters in range and not seen.
    fn missing(&self) -> u64 {
        (self.hi - self.lo + 1 - self.n).max(0) as u64
    }

    /// Whether `next` (same series, `next.lo >= self.lo`) belongs with this one.
    fn reaches(&self, next: &Span) -> bool {
        next.lo - self.hi - 1 <= MAX_FCNT_GAP as i64
    }
}

/// The spans of new counters (sorted by series and counter, distinct).
fn spans_of(new: &[&FrameCounter]) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    for c in new {
        let f = i64::from(c.f_cnt);
        let next = Span {
            dev_eui: c.dev_eui.clone(),
            session: c.session.clone(),
            lo: f,
            hi: f,
            n: 1,
        };
        match spans.last_mut() {
            Some(last) if last.series() == next.series() && last.reaches(&next) => {
                last.hi = f;
                last.n += 1;
            }
            _ => spans.push(next),
        }
    }
    spans
}

/// Merges spans into series: those of one device session that overlap or lie within
/// [`MAX_FCNT_GAP`] of each other become one. The result depends only on the set of
/// counters seen, not on which batch or worker saw which.
fn fold(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by(|a, b| (a.series(), a.lo).cmp(&(b.series(), b.lo)));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if last.series() == s.series() && last.reaches(&s) => {
                last.hi = last.hi.max(s.hi);
                last.n += s.n;
            }
            _ => out.push(s),
        }
    }
    out
}

impl ReadingStore {
    /// Opens (or creates) the database: a SQLite file, or a PostgreSQL database.
    /// `max_age_us` is the freshness window of random nonces.
    pub fn open(location: impl Into<Location>, max_age_us: i64) -> Result<ReadingStore, LiveError> {
        let db = match location.into() {
            Location::Sqlite(path) => Backend::Sqlite(sqlite::Readings::open(&path)?),
            #[cfg(feature = "postgres")]
            Location::Postgres(url) => Backend::Postgres(Box::new(postgres::Readings::open(&url)?)),
            #[cfg(not(feature = "postgres"))]
            pg @ Location::Postgres(_) => {
                return Err(LiveError::not_built(pg, "PostgreSQL", "postgres"));
            }
        };
        Ok(ReadingStore { db, max_age_us })
    }

    /// Stores a batch in one transaction, with the replay state it changes, and prunes
    /// nonces that left the freshness window. Returns each message's verdict: only
    /// `Fresh` ones were stored. For messages that came without a frame counter (UDP,
    /// TCP, serial, CoAP, a `raw` MQTT envelope); else see [`ReadingStore::commit`].
    pub fn commit_batch(&mut self, batch: &[Pending]) -> Result<Vec<Verdict>, LiveError> {
        self.commit(batch, &[])
    }

    /// [`ReadingStore::commit_batch`], and in the same transaction the frame counters of
    /// the uplinks that arrived with this batch: every one that came in an envelope with
    /// a counter, whether its message is in `batch` (verified) or was refused before
    /// (tampered, truncated, wrong key...). Repeats (redeliveries) add nothing.
    /// `batch` may be empty when `seen` is not.
    pub fn commit(
        &mut self,
        batch: &[Pending],
        seen: &[FrameCounter],
    ) -> Result<Vec<Verdict>, LiveError> {
        // No fragments: no message is completed here, so none is opened.
        let mut none = |_: &[u8]| Err((crate::counters::Reason::WrongKey, String::new()));
        Ok(self
            .commit_all(batch, seen, &[], &mut Reassembly::new(&mut none))?
            .verdicts)
    }

    /// [`ReadingStore::commit`], and `fragments` put into their devices' messages in progress
    /// ([`crate::reassembly`]) in the same transaction: each message they
    /// complete is opened with `r.open` and decided with the batch, so it is
    /// stored once, whichever worker committed its last fragment.
    pub fn commit_all(
        &mut self,
        batch: &[Pending],
        seen: &[FrameCounter],
        fragments: &[FragmentIn],
        r: &mut Reassembly,
    ) -> Result<Committed, LiveError> {
        let max_age_us = self.max_age_us;
        let work = |tx: &mut dyn BatchTx| {
            let (whole, refused, settled) = fragments::reassemble(tx, fragments, r)?;
            let all: Vec<&Pending> = batch.iter().chain(&whole).collect();
            let verdicts = decide(tx, &all, max_age_us)?;
            note_seen(tx, seen)?;
            Ok(Committed {
                verdicts,
                whole,
                refused,
                settled,
            })
        };
        match &mut self.db {
            Backend::Sqlite(db) => db.in_transaction(work),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.in_transaction(work),
        }
    }

    /// Uplinks lost before the store, over every device session all workers sharing it
    /// have seen: the counters missing between the lowest and the highest seen (see the
    /// module's "Lost uplinks" for what it cannot see). One short transaction, which
    /// also folds the spans added since the last call, so its cost follows those and
    /// the number of device sessions, not the number of uplinks stored.
    pub fn lost_uplinks(&mut self) -> Result<u64, LiveError> {
        let work = |tx: &mut dyn BatchTx| {
            tx.lock_spans()?;
            let mut by_series: HashMap<(String, String), Vec<(i64, Span)>> = HashMap::new();
            for (id, span) in tx.spans()? {
                let key = (span.dev_eui.clone(), span.session.clone());
                by_series.entry(key).or_default().push((id, span));
            }
            let (mut gone, mut new, mut lost) = (Vec::new(), Vec::new(), 0);
            for rows in by_series.into_values() {
                let count = rows.len();
                let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
                let series = fold(rows.into_iter().map(|(_, s)| s).collect());
                lost += series.iter().map(Span::missing).sum::<u64>();
                if series.len() < count {
                    gone.extend(ids);
                    new.extend(series);
                }
            }
            if !gone.is_empty() {
                tx.replace_spans(&gone, &new)?;
            }
            Ok(lost)
        };
        match &mut self.db {
            Backend::Sqlite(db) => db.in_transaction(work),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.in_transaction(work),
        }
    }

    /// Messages still in fragments, over every device sharing the store.
    pub fn in_fragments(&mut self) -> Result<u64, LiveError> {
        let work = |tx: &mut dyn BatchTx| tx.messages_in_fragments();
        match &mut self.db {
            Backend::Sqlite(db) => db.in_transaction(work),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.in_transaction(work),
        }
    }

    /// Rows in `uplinks_seen`: distinct uplinks that arrived with a frame counter.
    pub fn uplinks_seen(&mut self) -> Result<u64, LiveError> {
        self.count_rows("uplinks_seen")
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
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.count_rows(table),
        }
    }

    /// The newest reading, as (device, reading text, latency µs).
    pub fn latest(&mut self) -> Result<Option<(String, String, Option<i64>)>, LiveError> {
        match &mut self.db {
            Backend::Sqlite(db) => db.latest(),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => db.latest(),
        }
    }
}

/// The replay rule over one batch, inside its transaction.
fn decide(
    tx: &mut dyn BatchTx,
    batch: &[&Pending],
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

/// The batch's frame counters, inside its transaction: the new ones, and their spans.
fn note_seen(tx: &mut dyn BatchTx, seen: &[FrameCounter]) -> Result<(), LiveError> {
    if seen.is_empty() {
        return Ok(());
    }
    let mut sorted: Vec<&FrameCounter> = seen.iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    let new = tx.note_uplinks(&sorted)?;
    let fresh: Vec<&FrameCounter> = sorted
        .into_iter()
        .zip(new)
        .filter_map(|(c, new)| new.then_some(c))
        .collect();
    let spans = spans_of(&fresh);
    if !spans.is_empty() {
        tx.add_spans(&spans)?;
    }
    Ok(())
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

    fn up(dev: &str, session: &str, f_cnt: u32) -> FrameCounter {
        FrameCounter {
            dev_eui: dev.into(),
            session: session.into(),
            f_cnt,
        }
    }

    /// Commits only frame counters (no readings), one batch per slice.
    fn see(store: &mut ReadingStore, batches: &[&[FrameCounter]]) {
        for b in batches {
            assert_eq!(store.commit(&[], b).unwrap(), vec![]);
        }
    }

    #[test]
    fn gaps_are_counted_from_what_any_batch_saw_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.sqlite");
        // Device a: 0..=99 but 10, 11 and 50; device b: 5..=9 but 7.
        let mut all: Vec<FrameCounter> = (0..100)
            .filter(|n| ![10, 11, 50].contains(n))
            .map(|n| up("a", "s1", n))
            .chain([5, 6, 8, 9].map(|n| up("b", "s1", n)))
            .collect();
        // Shuffled (a fixed permutation), and cut into uneven batches over two stores
        // on one file, as two workers would see them; each batch redelivers one.
        let n = all.len();
        all = (0..n).map(|i| all[(i * 37) % n].clone()).collect();
        let (mut one, mut two) = (
            ReadingStore::open(&path, 10 * S).unwrap(),
            ReadingStore::open(&path, 10 * S).unwrap(),
        );
        let mut at = 0;
        for (k, size) in [7, 1, 30, 13, 2, 40, 100].into_iter().enumerate() {
            let end = (at + size).min(n);
            let mut batch = all[at..end].to_vec();
            batch.push(all[at / 2].clone());
            let store = if k % 2 == 0 { &mut one } else { &mut two };
            see(store, &[&batch]);
            // Folded or not, the answer is the same at every step.
            let seen: Vec<&FrameCounter> = all[..end].iter().collect();
            assert_eq!(
                store.lost_uplinks().unwrap(),
                expected(&seen),
                "after {end}"
            );
            at = end;
        }
        assert_eq!(at, n);
        assert_eq!(one.lost_uplinks().unwrap(), 4);
        assert_eq!(two.uplinks_seen().unwrap(), n as u64);
        // Reopened, and asked again: the folded spans give the same answer.
        drop(one);
        let mut again = ReadingStore::open(&path, 10 * S).unwrap();
        assert_eq!(again.lost_uplinks().unwrap(), 4);
        assert_eq!(again.lost_uplinks().unwrap(), 4);
        // Redelivering everything changes nothing.
        see(&mut again, &[&all]);
        assert_eq!(again.lost_uplinks().unwrap(), 4);
        // A late uplink fills a gap.
        see(&mut again, &[&[up("a", "s1", 50)]]);
        assert_eq!(again.lost_uplinks().unwrap(), 3);
    }

    /// Missing counters between each device session's lowest and highest seen, where
    /// no run of them is longer than MAX_FCNT_GAP: the rule, written out plainly.
    fn expected(seen: &[&FrameCounter]) -> u64 {
        let mut sorted: Vec<&FrameCounter> = seen.to_vec();
        sorted.sort();
        sorted.dedup();
        sorted
            .windows(2)
            .filter(|w| (&w[0].dev_eui, &w[0].session) == (&w[1].dev_eui, &w[1].session))
            .map(|w| u64::from(w[1].f_cnt - w[0].f_cnt - 1))
            .filter(|gap| *gap <= MAX_FCNT_GAP)
            .sum()
    }

    #[test]
    fn trailing_losses_show_once_a_later_uplink_arrives() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReadingStore::open(&dir.path().join("g.sqlite"), 10 * S).unwrap();
        assert_eq!(store.lost_uplinks().unwrap(), 0);
        see(&mut store, &[&[up("a", "", 3), up("a", "", 4)]]);
        // 0..=2 were before the first seen: never counted. 5 and 6 are not known yet.
        assert_eq!(store.lost_uplinks().unwrap(), 0);
        see(&mut store, &[&[up("a", "", 7)]]);
        assert_eq!(store.lost_uplinks().unwrap(), 2);
    }

    #[test]
    fn a_counter_that_starts_again_is_a_new_series_not_a_loss() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReadingStore::open(&dir.path().join("g.sqlite"), 10 * S).unwrap();
        let range = |session: &str, from: u32, to: u32, skip: &[u32]| -> Vec<FrameCounter> {
            (from..=to)
                .filter(|n| !skip.contains(n))
                .map(|n| up("a", session, n))
                .collect()
        };
        // Seen from 100,000 on (the gateway started late), one lost.
        see(&mut store, &[&range("s1", 100_000, 100_009, &[100_004])]);
        assert_eq!(store.lost_uplinks().unwrap(), 1);
        // A rejoin: a new session, counting from 0 again; one lost there.
        see(&mut store, &[&range("s2", 0, 9, &[3])]);
        assert_eq!(store.lost_uplinks().unwrap(), 2);
        // An ABP device restarting at 0 in the same session: far below what was seen,
        // a series of its own, not 99,990 lost.
        see(&mut store, &[&range("s1", 0, 5, &[2])]);
        assert_eq!(store.lost_uplinks().unwrap(), 3);
        // Starting again over counters already seen in that session: they count as
        // seen, so a loss among them would not show (the under-count the docs state).
        see(&mut store, &[&range("s2", 0, 2, &[])]);
        assert_eq!(store.lost_uplinks().unwrap(), 3);
        // Started again just below where the store first saw the session (it began at
        // 100): the counters between are taken as lost, never sent though they were.
        see(&mut store, &[&[up("d", "", 100), up("d", "", 101)]]);
        see(&mut store, &[&[up("d", "", 0), up("d", "", 1)]]);
        assert_eq!(store.lost_uplinks().unwrap(), 3 + 98);
        see(
            &mut store,
            &[&(0..102).map(|n| up("d", "", n)).collect::<Vec<_>>()],
        );
        assert_eq!(store.lost_uplinks().unwrap(), 3);
        // A run of exactly MAX_FCNT_GAP missing is loss; one more is a discontinuity.
        let gap = MAX_FCNT_GAP as u32;
        see(&mut store, &[&[up("b", "", 0), up("b", "", gap + 1)]]);
        assert_eq!(store.lost_uplinks().unwrap(), 3 + MAX_FCNT_GAP);
        see(&mut store, &[&[up("c", "", 0), up("c", "", gap + 2)]]);
        assert_eq!(store.lost_uplinks().unwrap(), 3 + MAX_FCNT_GAP);
    }

    #[test]
    fn the_32_bit_counter_is_stored_whole_and_a_wrap_is_a_discontinuity() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReadingStore::open(&dir.path().join("g.sqlite"), 10 * S).unwrap();
        let top = u32::MAX;
        see(
            &mut store,
            &[&[up("a", "", top - 5), up("a", "", top - 3), up("a", "", top)]],
        );
        assert_eq!(store.lost_uplinks().unwrap(), 3);
        see(&mut store, &[&[up("a", "", 0), up("a", "", 2)]]);
        assert_eq!(store.lost_uplinks().unwrap(), 4);
        assert_eq!(store.uplinks_seen().unwrap(), 5);
    }

    #[test]
    fn uplinks_are_seen_in_the_readings_transaction_whatever_their_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = ReadingStore::open(&dir.path().join("g.sqlite"), 60 * S).unwrap();
        // Two readings (the second a replay of the first) and a third uplink whose
        // message was refused before the store (tampered): all three were received.
        let seen = [
            up("a", "", 0),
            up("a", "", 1),
            up("a", "", 2),
            up("a", "", 4),
        ];
        let out = store
            .commit(
                &[pending("a", 1, "{\"x\":1}"), pending("a", 1, "{\"x\":1}")],
                &seen,
            )
            .unwrap();
        assert_eq!(fresh(&out), vec![true, false]);
        assert_eq!(store.count().unwrap(), 1);
        assert_eq!(store.uplinks_seen().unwrap(), 4);
        assert_eq!(store.lost_uplinks().unwrap(), 1);
        // commit_batch is commit without counters.
        store.commit_batch(&[pending("a", 2, "{}")]).unwrap();
        assert_eq!(store.uplinks_seen().unwrap(), 4);
    }

    #[test]
    fn spans_fold_to_the_same_series_in_any_order() {
        let span = |lo, hi, n| Span {
            dev_eui: "a".into(),
            session: String::new(),
            lo,
            hi,
            n,
        };
        // 0..=9 seen as interleaved shares, then a far series.
        let spans = vec![span(1, 9, 5), span(0, 8, 5), span(100_000, 100_002, 2)];
        let mut reversed = spans.clone();
        reversed.reverse();
        for s in [spans, reversed] {
            let folded = fold(s);
            assert_eq!(folded, vec![span(0, 9, 10), span(100_000, 100_002, 2)]);
            assert_eq!(folded.iter().map(Span::missing).sum::<u64>(), 1);
        }
        // A batch's own counters split where a run is too long to be loss.
        let ups = [up("a", "", 0), up("a", "", 2), up("a", "", 50_000)];
        let refs: Vec<&FrameCounter> = ups.iter().collect();
        assert_eq!(
            spans_of(&refs),
            vec![span(0, 2, 2), span(50_000, 50_000, 1)]
        );
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
