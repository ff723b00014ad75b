//! What the gateway has seen: every received frame ends as stored or as exactly one
//! rejection reason, so `received == stored + rejected` once the queue is drained;
//! every TCP connection that reached `accept` was served or refused, so
//! `connections.accepted + connections.refused` is every one that arrived.

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::LiveError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The tag did not verify: a bit changed, or the right key id with other material.
    Tampered,
    /// A key id (or scheme) none of the gateway's key files holds.
    WrongKey,
    /// A message cut short: a partial frame, or a container that ends early.
    Truncated,
    /// Bytes that are no message at all.
    Garbage,
    /// A nonce this device has used before (checked against the database, so across restarts).
    Replay,
    /// Outside the replay window: a counter below the key's window, or a reading
    /// whose `sent_us` is missing or further than `--max-age` from the gateway's clock.
    Stale,
    /// A line or datagram longer than `--max-message`.
    Oversize,
    /// A message sent in fragments (`seal::fragment`) whose fragments did not
    /// all arrive: given up, never stored in part (crates/live `reassembly`).
    Incomplete,
    /// A fragment a stranger sent when strangers' messages in fragments
    /// already held their budget (`--fragment-sources`, `--fragment-bytes`).
    FragmentsRefused,
    /// A fragment that disagrees with what arrived first for its message (a
    /// differing copy, a second last, a part past the last): refused, the
    /// first kept.
    FragmentConflict,
}

impl Reason {
    pub const ALL: [Reason; 10] = [
        Reason::Tampered,
        Reason::WrongKey,
        Reason::Truncated,
        Reason::Garbage,
        Reason::Replay,
        Reason::Stale,
        Reason::Oversize,
        Reason::Incomplete,
        Reason::FragmentsRefused,
        Reason::FragmentConflict,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Tampered => "tampered",
            Reason::WrongKey => "wrong_key",
            Reason::Truncated => "truncated",
            Reason::Garbage => "garbage",
            Reason::Replay => "replay",
            Reason::Stale => "stale",
            Reason::Oversize => "oversize",
            Reason::Incomplete => "incomplete",
            Reason::FragmentsRefused => "fragments_refused",
            Reason::FragmentConflict => "fragment_conflict",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Why the gateway closed a TCP connection it had accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// The peer closed it, or it failed.
    Peer,
    /// Nothing arrived for `--idle-timeout`.
    Idle,
    /// `--max-connections` were open and a newcomer arrived: the one idle longest goes.
    Evicted,
    /// A frame was not completed within `--frame-timeout` of its first byte.
    FrameTimeout,
}

#[derive(Default)]
pub struct Counters {
    received: AtomicU64,
    stored: AtomicU64,
    rejected: [AtomicU64; Reason::ALL.len()],
    first_us: AtomicI64,
    last_us: AtomicI64,
    accepted: AtomicU64,
    refused: AtomicU64,
    idle_closed: AtomicU64,
    evicted: AtomicU64,
    frame_timeout: AtomicU64,
    closed: AtomicU64,
    handshakes_established: AtomicU64,
    handshakes_refused: AtomicU64,
    lost_uplinks: AtomicU64,
    in_fragments: AtomicU64,
}

/// A copy of the counters at one moment, as written to the stats file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub received: u64,
    pub stored: u64,
    pub rejected: Rejected,
    /// Received but not yet stored or rejected (waiting for the next commit).
    pub pending: u64,
    /// Unix µs of the first message received, and of the last commit that settled any:
    /// throughput is (stored + rejected) / (last - first).
    pub first_us: Option<i64>,
    pub last_us: Option<i64>,
    #[serde(default)]
    pub connections: Connections,
    #[serde(default)]
    pub handshakes: Handshakes,
    /// Uplinks that never reached the store, from the gaps in their devices' frame
    /// counters (ChirpStack and The Things Stack envelopes only): over the whole store,
    /// so every worker sharing it reports the same figure, as of its last stats read.
    /// Losses after a device's last uplink seen show once a later one arrives.
    #[serde(default)]
    pub lost_uplinks: u64,
    /// Messages still in fragments in the store (over every worker sharing it),
    /// waiting for the rest: not yet among `received`.
    #[serde(default)]
    pub in_fragments: u64,
}

/// EDHOC handshakes (`--edhoc`; zero otherwise). Their messages carry no
/// reading, so they are not among `received`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Handshakes {
    /// Completed: a session's OSCORE context is held.
    pub established: u64,
    /// Messages answered with an error (malformed, unverifiable, untrusted, unknown C_R).
    pub refused: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Rejected {
    pub tampered: u64,
    pub wrong_key: u64,
    pub truncated: u64,
    pub garbage: u64,
    pub replay: u64,
    pub stale: u64,
    pub oversize: u64,
    pub incomplete: u64,
    pub fragments_refused: u64,
    pub fragment_conflict: u64,
}

impl Rejected {
    pub fn total(&self) -> u64 {
        self.tampered
            + self.wrong_key
            + self.truncated
            + self.garbage
            + self.replay
            + self.stale
            + self.oversize
            + self.incomplete
            + self.fragments_refused
            + self.fragment_conflict
    }
}

/// TCP connections (zero on other transports).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Connections {
    /// Taken into the gateway's event loop.
    pub accepted: u64,
    /// Lost before being served: accept(2) or registering the socket failed (out of
    /// descriptors or memory).
    pub refused: u64,
    /// Of the accepted, those closed for sending nothing for `--idle-timeout`.
    pub idle_closed: u64,
    /// Of the accepted, those closed, idle longest, to make room for a newcomer at
    /// `--max-connections`.
    pub evicted: u64,
    /// Of the accepted, those closed with a frame not completed within `--frame-timeout`.
    pub frame_timeout: u64,
    /// Of the accepted, those that ended for any reason; `accepted - closed` are open.
    pub closed: u64,
}

impl Counters {
    pub fn received(&self, now_us: i64) {
        if self.received.fetch_add(1, Ordering::Relaxed) == 0 {
            self.first_us.store(now_us, Ordering::Relaxed);
        }
    }

    /// Marks the moment a commit settled messages.
    pub fn settled(&self, now_us: i64) {
        self.last_us.store(now_us, Ordering::Relaxed);
    }

    pub fn stored(&self, n: u64) {
        self.stored.fetch_add(n, Ordering::Relaxed);
    }

    pub fn rejected(&self, reason: Reason) {
        self.rejected[reason.index()].fetch_add(1, Ordering::Relaxed);
    }

    pub fn connection_accepted(&self) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
    }

    pub fn connection_refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    pub fn connection_closed(&self, why: Closed) {
        let counter = match why {
            Closed::Peer => None,
            Closed::Idle => Some(&self.idle_closed),
            Closed::Evicted => Some(&self.evicted),
            Closed::FrameTimeout => Some(&self.frame_timeout),
        };
        if let Some(c) = counter {
            c.fetch_add(1, Ordering::Relaxed);
        }
        self.closed.fetch_add(1, Ordering::Relaxed);
    }

    /// The store's count of lost uplinks (`ReadingStore::lost_uplinks`), read by the
    /// gateway before it writes its stats.
    pub fn set_lost_uplinks(&self, n: u64) {
        self.lost_uplinks.store(n, Ordering::Relaxed);
    }

    /// The store's count of messages still in fragments (`ReadingStore::in_fragments`).
    pub fn set_in_fragments(&self, n: u64) {
        self.in_fragments.store(n, Ordering::Relaxed);
    }

    pub fn handshake(&self, established: bool) {
        let counter = if established {
            &self.handshakes_established
        } else {
            &self.handshakes_refused
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> Snapshot {
        let r = |x: Reason| self.rejected[x.index()].load(Ordering::Relaxed);
        let rejected = Rejected {
            tampered: r(Reason::Tampered),
            wrong_key: r(Reason::WrongKey),
            truncated: r(Reason::Truncated),
            garbage: r(Reason::Garbage),
            replay: r(Reason::Replay),
            stale: r(Reason::Stale),
            oversize: r(Reason::Oversize),
            incomplete: r(Reason::Incomplete),
            fragments_refused: r(Reason::FragmentsRefused),
            fragment_conflict: r(Reason::FragmentConflict),
        };
        let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let connections = Connections {
            accepted: n(&self.accepted),
            refused: n(&self.refused),
            idle_closed: n(&self.idle_closed),
            evicted: n(&self.evicted),
            frame_timeout: n(&self.frame_timeout),
            closed: n(&self.closed),
        };
        let stored = self.stored.load(Ordering::Relaxed);
        let received = self.received.load(Ordering::Relaxed);
        let time = |a: &AtomicI64| Some(a.load(Ordering::Relaxed)).filter(|t| *t != 0);
        Snapshot {
            first_us: time(&self.first_us),
            last_us: time(&self.last_us),
            pending: received.saturating_sub(stored + rejected.total()),
            received,
            stored,
            rejected,
            connections,
            handshakes: Handshakes {
                established: n(&self.handshakes_established),
                refused: n(&self.handshakes_refused),
            },
            lost_uplinks: n(&self.lost_uplinks),
            in_fragments: n(&self.in_fragments),
        }
    }
}

impl Snapshot {
    /// Replaces `path` atomically (write beside it, then rename), so readers never see half a file.
    pub fn write_to(&self, path: &Path) -> Result<(), LiveError> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let text = serde_json::to_string_pretty(self).expect("counters serialize");
        std::fs::write(&tmp, text + "\n").map_err(|e| LiveError::io(path.display(), e))?;
        std::fs::rename(&tmp, path).map_err(|e| LiveError::io(path.display(), e))
    }

    pub fn read_from(path: &Path) -> Result<Snapshot, LiveError> {
        let text = std::fs::read_to_string(path).map_err(|e| LiveError::io(path.display(), e))?;
        serde_json::from_str(&text).map_err(|e| LiveError::io(path.display(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_and_round_trip_through_the_file() {
        let c = Counters::default();
        for t in 1..=5 {
            c.received(t);
        }
        c.settled(9);
        c.stored(2);
        c.rejected(Reason::Replay);
        c.rejected(Reason::Tampered);
        c.set_lost_uplinks(4);
        c.set_lost_uplinks(3);
        let s = c.snapshot();
        assert_eq!(s.received, 5);
        assert_eq!(s.rejected.total(), 2);
        assert_eq!(s.pending, 1);
        assert_eq!((s.first_us, s.last_us), (Some(1), Some(9)));
        // The store's figure as last read, not a sum.
        assert_eq!(s.lost_uplinks, 3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stats.json");
        s.write_to(&path).unwrap();
        assert_eq!(Snapshot::read_from(&path).unwrap(), s);
    }

    #[test]
    fn stats_files_without_lost_uplinks_still_read() {
        let mut old: serde_json::Value =
            serde_json::to_value(Counters::default().snapshot()).unwrap();
        old.as_object_mut().unwrap().remove("lost_uplinks");
        let s: Snapshot = serde_json::from_value(old).unwrap();
        assert_eq!(s.lost_uplinks, 0);
    }
}
