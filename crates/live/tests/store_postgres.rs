//! The gateway's readings in PostgreSQL as two workers share them: two `ReadingStore`s
//! (two connections) commit overlapping batches at once, holding the same random nonces
//! and counters. Each message is stored exactly once; the other worker gets the replay
//! verdict. The state survives reopening, and counter marks are never stale per process.
//! Lost uplinks are counted from what both saw, while both commit and fold at once.
//! Fragments that two workers each got some of make their message once.

use std::sync::{Arc, Barrier};

use ciphermeter_live::LiveError;
use ciphermeter_live::envelope::FrameCounter;
use ciphermeter_live::replay::Verdict;
use ciphermeter_live::store::{FragmentIn, Pending, ReadingStore, Reassembly};
use ciphermeter_live::verify::Verified;
use store::Location;
use testkit::Postgres;

const S: i64 = 1_000_000;
const NOW: i64 = 1_800_000_000 * S;
/// Below the replay rule's reorder window, so no counter is ever stale here.
const COUNTERS_PER_KEY: u64 = 40;

/// Message `i`: even ones carry a random nonce of their device, odd ones the next
/// counter of their key (1, 2, ... for keys 1 and 3).
fn message(i: u64) -> Pending {
    let (device, counter) = (format!("dev{}", i % 4), i % 2 == 1);
    Pending {
        verified: Verified {
            key_id: format!("key{}", i % 4),
            replay_id: (i * 7919).to_be_bytes().to_vec(),
            counter: counter.then_some(1 + i / 4),
            reading: format!("{{\"i\":{i}}}").into_bytes(),
            sent_us: (!counter).then_some(NOW - 5 * S),
            device,
        },
        arrived_us: NOW,
        source: "test".into(),
    }
}

fn all() -> Vec<u64> {
    (0..4 * COUNTERS_PER_KEY).collect()
}

fn open(url: &str) -> ReadingStore {
    ReadingStore::open(Location::Postgres(url.into()), 60 * S).unwrap()
}

/// Commits `order` in batches of `batch`; returns (message, verdict) pairs.
fn commit_all(store: &mut ReadingStore, order: &[u64], batch: usize) -> Vec<(u64, Verdict)> {
    let mut out = Vec::new();
    for chunk in order.chunks(batch) {
        let pending: Vec<Pending> = chunk.iter().map(|&i| message(i)).collect();
        let verdicts = store.commit_batch(&pending).unwrap();
        out.extend(chunk.iter().copied().zip(verdicts));
    }
    out
}

#[test]
fn two_workers_store_each_message_once_and_the_other_sees_a_replay() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("gateway");
    // One worker forwards, the other backwards with another batch size: the batches
    // overlap in every way, and each holds nonces and counters of every key.
    let forward = all();
    let mut backward = all();
    backward.reverse();
    let start = Arc::new(Barrier::new(2));
    let workers: Vec<_> = [(forward, 16), (backward, 23)]
        .into_iter()
        .map(|(order, batch)| {
            let (url, start) = (url.clone(), start.clone());
            std::thread::spawn(move || {
                let mut store = open(&url);
                start.wait();
                commit_all(&mut store, &order, batch)
            })
        })
        .collect();
    let results: Vec<Vec<(u64, Verdict)>> =
        workers.into_iter().map(|w| w.join().unwrap()).collect();

    for i in all() {
        let verdicts: Vec<&Verdict> = results
            .iter()
            .map(|r| &r.iter().find(|(m, _)| *m == i).unwrap().1)
            .collect();
        let fresh = verdicts.iter().filter(|v| ***v == Verdict::Fresh).count();
        assert_eq!(fresh, 1, "message {i}: {verdicts:?}");
        assert!(
            verdicts.iter().any(|v| matches!(v, Verdict::Replay(_))),
            "message {i}: {verdicts:?}"
        );
    }
    let mut store = open(&url);
    assert_eq!(store.count().unwrap(), all().len() as u64);
    // Random nonces are remembered (half the messages); counters need no rows.
    assert_eq!(store.replay_rows().unwrap(), all().len() as u64 / 2);
}

#[test]
fn the_state_survives_reopening_and_counter_marks_are_shared_live() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("gateway");
    let mut a = open(&url);
    // A batch holding one message twice: the second copy is a replay.
    let out = a
        .commit_batch(&[message(0), message(0), message(1)])
        .unwrap();
    assert_eq!(out[0], Verdict::Fresh);
    assert!(matches!(out[1], Verdict::Replay(_)), "{out:?}");
    assert_eq!(out[2], Verdict::Fresh);
    drop(a);

    let mut a = open(&url);
    let out = a
        .commit_batch(&[message(0), message(1), message(2)])
        .unwrap();
    assert!(matches!(out[0], Verdict::Replay(_)), "{out:?}");
    assert!(matches!(out[1], Verdict::Replay(_)), "{out:?}");
    assert_eq!(out[2], Verdict::Fresh);
    assert_eq!(a.count().unwrap(), 3);
    assert_eq!(
        a.latest().unwrap(),
        Some(("dev2".into(), "{\"i\":2}".into(), Some(5 * S)))
    );

    // Worker b moves key1's mark on; worker a, which used key1 before, must see it.
    let mut b = open(&url);
    let ahead = |n: u64| {
        let mut p = message(1);
        p.verified.counter = Some(n);
        p
    };
    assert_eq!(b.commit_batch(&[ahead(500)]).unwrap(), vec![Verdict::Fresh]);
    let out = a
        .commit_batch(&[ahead(500), ahead(300), ahead(499)])
        .unwrap();
    assert!(matches!(out[0], Verdict::Replay(_)), "{out:?}");
    assert!(matches!(out[1], Verdict::Stale(_)), "{out:?}");
    assert_eq!(out[2], Verdict::Fresh);
    assert!(matches!(
        b.commit_batch(&[ahead(499)]).unwrap()[0],
        Verdict::Replay(_)
    ));
    assert_eq!(b.count().unwrap(), 5);
}

#[test]
fn a_server_that_cannot_be_reached_is_a_usage_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://gw:secret@127.0.0.1:{port}/readings");
    let err = ReadingStore::open(Location::Postgres(url), S)
        .err()
        .expect("no server there");
    assert!(matches!(err, LiveError::Usage(_)), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("cannot connect"), "{text}");
    assert!(!text.contains("secret"), "{text}");
}

/// Uplink `i` of 3 devices: counter i / 3 of device i % 3.
fn uplink(i: u32) -> FrameCounter {
    FrameCounter {
        dev_eui: format!("{:016x}", i % 3),
        session: "0a0b0c0d".into(),
        f_cnt: i / 3,
    }
}

#[test]
fn lost_uplinks_are_counted_from_what_every_worker_saw() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("gateway");
    // 3,000 uplinks; every 7th never arrives, but for the last few (a loss after a
    // device's last uplink cannot be seen). Each worker gets its share (by a hash, so
    // neither sees a device's counters in order), in batches, plus the other's share of
    // the first 300 (redeliveries), and asks for the count after each batch.
    let gone = |i: &u32| i % 7 == 3 && *i < 2990;
    let lost: Vec<u32> = (0..3000).filter(gone).collect();
    let arrived: Vec<u32> = (0..3000).filter(|i| !gone(i)).collect();
    let start = Arc::new(Barrier::new(2));
    let workers: Vec<_> = (0..2u32)
        .map(|w| {
            let (url, start) = (url.clone(), start.clone());
            let mut mine: Vec<u32> = arrived
                .iter()
                .copied()
                .filter(|i| (i.wrapping_mul(2_654_435_761) >> 7) % 2 == w || *i < 300)
                .collect();
            if w == 1 {
                mine.reverse();
            }
            std::thread::spawn(move || {
                let mut store = open(&url);
                start.wait();
                for batch in mine.chunks(37 + 20 * w as usize) {
                    let seen: Vec<FrameCounter> = batch.iter().map(|&i| uplink(i)).collect();
                    store.commit(&[], &seen).unwrap();
                    store.lost_uplinks().unwrap();
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let mut store = open(&url);
    assert_eq!(store.uplinks_seen().unwrap(), arrived.len() as u64);
    assert_eq!(store.lost_uplinks().unwrap(), lost.len() as u64);
    // Folded to one span per device session; asking again changes nothing.
    assert_eq!(store.lost_uplinks().unwrap(), lost.len() as u64);
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let spans: i64 = client
        .query_one("SELECT COUNT(*) FROM uplink_spans", &[])
        .unwrap()
        .get(0);
    assert_eq!(spans, 3);
}

/// Fragments of message `m` of `device` (112 bytes: three at 51 bytes), as
/// the sealing core cuts them, tagged with the message's number.
fn fragments_of(device: u64, m: u64) -> Vec<Vec<u8>> {
    let mut message = vec![0xA5; 112];
    message[..16].copy_from_slice(&[device.to_be_bytes(), m.to_be_bytes()].concat());
    (0..3)
        .map(|i| {
            let mut out = [0u8; 51];
            let n = seal::fragment::write(&message, 51, (m % 16) as u8, i, &mut out).unwrap();
            out[..n].to_vec()
        })
        .collect()
}

/// What the gateway's keys would make of a message put back together: here,
/// the message itself as the reading, its first 16 bytes as the nonce.
fn opened(bytes: &[u8]) -> Result<Verified, (ciphermeter_live::counters::Reason, String)> {
    Ok(Verified {
        device: format!("dev{}", bytes[7]),
        key_id: "k".into(),
        replay_id: bytes[..16].to_vec(),
        counter: None,
        reading: bytes.to_vec(),
        sent_us: Some(NOW - S),
    })
}

/// Within the gateway's default limits, the fragments' time being the test's clock.
fn reassembly<'a>(open: ciphermeter_live::store::Opener<'a>) -> Reassembly<'a> {
    Reassembly {
        now_us: NOW,
        ..Reassembly::new(open)
    }
}

/// Two workers sharing a subscription each get some of every message's
/// fragments (one the first and last, the other the middle one), and commit
/// them at once: every message is put together in the store and stored once,
/// by whichever worker committed its last fragment; a fragment redelivered
/// after is a replay, and nothing is left in progress.
#[test]
fn two_workers_put_each_message_together_from_their_fragments_once() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("fragments");
    const DEVICES: u64 = 4;
    const MESSAGES: u64 = 30;
    let rounds = Arc::new(Barrier::new(2));
    let workers: Vec<_> = [vec![0, 2], vec![1]]
        .into_iter()
        .map(|indexes| {
            let (url, rounds) = (url.clone(), rounds.clone());
            std::thread::spawn(move || {
                let mut store = open(&url);
                let (mut stored, mut refused) = (0, Vec::new());
                // A round per message: a worker never runs more than one
                // message ahead of the other (WINDOW allows four).
                for m in 0..MESSAGES {
                    rounds.wait();
                    let batch: Vec<FragmentIn> = (0..DEVICES)
                        .flat_map(|d| {
                            let parts = fragments_of(d, m);
                            indexes.iter().map(move |&i| FragmentIn {
                                device: format!("dev{d}"),
                                origin: "test".into(),
                                bytes: parts[i].clone(),
                                arrived_us: NOW,
                                source: "test".into(),
                            })
                        })
                        .collect();
                    let c = store
                        .commit_all(&[], &[], &batch, &mut reassembly(&mut opened))
                        .unwrap();
                    assert_eq!(c.verdicts.len(), c.whole.len());
                    stored += c.verdicts.iter().filter(|v| **v == Verdict::Fresh).count();
                    refused.extend(c.refused.into_iter().map(|r| r.2));
                }
                (stored, refused)
            })
        })
        .collect();
    let results: Vec<(usize, Vec<String>)> =
        workers.into_iter().map(|w| w.join().unwrap()).collect();
    let stored: usize = results.iter().map(|r| r.0).sum();
    assert_eq!(stored as u64, DEVICES * MESSAGES, "{results:?}");
    assert!(results.iter().all(|r| r.1.is_empty()), "{results:?}");
    let mut store = open(&url);
    assert_eq!(store.count().unwrap(), DEVICES * MESSAGES);
    assert_eq!(store.in_fragments().unwrap(), 0);
    // The broker redelivers the last message's middle fragment: a replay.
    let again = FragmentIn {
        device: "dev0".into(),
        origin: "test".into(),
        bytes: fragments_of(0, MESSAGES - 1)[1].clone(),
        arrived_us: NOW,
        source: "test".into(),
    };
    let c = store
        .commit_all(&[], &[], &[again], &mut reassembly(&mut opened))
        .unwrap();
    assert!(c.whole.is_empty());
    assert_eq!(
        c.refused
            .iter()
            .map(|r| (r.0, r.2.as_str()))
            .collect::<Vec<_>>(),
        [(
            ciphermeter_live::counters::Reason::Replay,
            "a fragment of a message already settled"
        )]
    );
    assert_eq!(store.count().unwrap(), DEVICES * MESSAGES);
}
