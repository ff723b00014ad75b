//! Fragments from strangers on a plain UDP gateway: nothing authenticates a
//! fragment, so what they may hold is bounded (`--fragment-sources`,
//! `--fragment-bytes`, `--fragment-timeout`, `--max-message`), a forged copy
//! never replaces the first, and every genuine reading `send --link` cuts is
//! stored once, whatever its number of fragments.

use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use testkit::Postgres;

mod support;
use support::live::*;

/// A counter-nonce key, so that readings need no `sent_us` (`--no-timestamp`).
fn counter_key(dir: &Path, name: &str) -> PathBuf {
    keygen_with(
        dir,
        name,
        &["--scheme", "aead:aes-128-ccm", "--nonce", "counter"],
    )
}

/// A UDP gateway for `container` storing in `db` (a path or a postgres:// URL),
/// its stats every 0.1 s; returns it, its address and its stats file.
fn udp_gateway(
    dir: &Path,
    key: &Path,
    container: &str,
    db: &str,
    extra: &[&str],
) -> (Proc, String, PathBuf) {
    let stats = dir.join(format!("stats-{container}.json"));
    let mut args = vec!["gateway", "--listen", "udp://127.0.0.1:0", "--key-file"];
    args.extend([key.to_str().unwrap(), "--container", container, "--db", db]);
    args.extend([
        "--stats-file",
        stats.to_str().unwrap(),
        "--stats-interval",
        "0.1",
    ]);
    args.extend_from_slice(extra);
    let gw = Proc::start(&args);
    let to = bound(&gw.wait_line("listening on"));
    (gw, to, stats)
}

fn stats(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null)
}

/// Waits (at most `secs`) until `done` holds of the stats file, then until two
/// reads 0.3 s apart agree: the gateway has taken what was sent.
fn settle(path: &Path, secs: u64, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(secs);
    let mut last = Value::Null;
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(300));
        let now = stats(path);
        if done(&now)
            && now["received"] == last["received"]
            && now["in_fragments"] == last["in_fragments"]
        {
            return now;
        }
        last = now;
    }
    panic!("the gateway did not settle within {secs} s: {last}");
}

fn rejected(s: &Value, reason: &str) -> u64 {
    if s.is_null() {
        return 0; // before the first stats file
    }
    s["rejected"][reason]
        .as_u64()
        .unwrap_or_else(|| panic!("{reason} in {s}"))
}

fn rejected_total(s: &Value) -> u64 {
    // Before the first stats file, none.
    s["rejected"]
        .as_object()
        .map_or(0, |r| r.values().filter_map(Value::as_u64).sum())
}

/// Readings one per line in a file: `n_whole` of one byte (sealed, 48 bytes:
/// one frame), and one of `len` bytes for each of `lens`.
fn readings(dir: &Path, name: &str, lens: &[usize]) -> PathBuf {
    let path = dir.join(name);
    let lines: Vec<String> = lens
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let c = char::from(b'a' + (i % 26) as u8);
            std::iter::repeat_n(c, len).collect()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// `send` of `input`'s readings in `container` to `to`, cut for EU868 DR0.
fn send_cut(to: &str, key: &Path, container: &str, input: &Path) -> Value {
    send(&[
        "--to",
        to,
        "--key-file",
        key.to_str().unwrap(),
        "--container",
        container,
        "--input",
        input.to_str().unwrap(),
        "--no-timestamp",
        "--link",
        "lorawan-eu868-dr0",
    ])
}

/// Every reading `send --link lorawan-eu868-dr0` cuts, 100 back to back in
/// one run, in 2 to 128 fragments (JSON's smallest message takes 6), is
/// stored once over plain UDP: the tag is the message's number, which the 16
/// messages after it never share.
#[test]
fn every_reading_send_cuts_over_plain_udp_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "k.key");
    // (container, reading length, fragments a message): lengths sealed into
    // n × 49 - 10 bytes or so (binary adds 47 bytes; JSON base64s and adds 134).
    let runs: [(&str, usize, u64); 7] = [
        ("binary", 41, 2),
        ("binary", 335, 8),
        ("binary", 727, 16),
        ("binary", 6215, 128),
        ("json", 186, 8),
        ("json", 480, 16),
        ("json", 4596, 128),
    ];
    for container in ["binary", "json"] {
        let db = dir.path().join(format!("{container}.sqlite"));
        let (gw, to, stats_file) =
            udp_gateway(dir.path(), &key, container, db.to_str().unwrap(), &[]);
        let mut want = 0;
        for &(_, len, frags) in runs.iter().filter(|r| r.0 == container) {
            let input = readings(dir.path(), &format!("{container}-{frags}.txt"), &[len; 100]);
            let sent = send_cut(&to, &key, container, &input);
            assert_eq!(
                n(&sent["fragments"]),
                100 * frags,
                "{container}, {frags} a message: {sent}"
            );
            want += 100;
            // A refusal ends the wait: the assertion below says which.
            let s = settle(&stats_file, 120, |s| {
                s["stored"].as_u64() == Some(want) || rejected_total(s) > 0
            });
            assert_eq!(
                rejected_total(&s),
                0,
                "{container}, {frags} fragments a message: {s}"
            );
        }
        let c = gw.stop_gateway();
        assert_eq!((n(&c["stored"]), n(&c["in_fragments"])), (want, 0), "{c}");
        assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), want as i64);
    }
}

/// A forged copy of a part, and a forged "last", interleaved into a genuine
/// train from its own source after the parts they copy: refused as
/// `fragment_conflict`, and the genuine message is stored.
#[test]
fn a_spoofed_fragment_in_a_genuine_train_is_counted_and_the_reading_stored() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "k.key");
    // The genuine train as `send` cuts it, caught on a socket of ours.
    let catcher = UdpSocket::bind("127.0.0.1:0").unwrap();
    catcher
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let input = readings(dir.path(), "r.txt", &[200]);
    let sent = send_cut(
        &format!("udp://{}", catcher.local_addr().unwrap()),
        &key,
        "binary",
        &input,
    );
    assert_eq!(n(&sent["fragments"]), 6, "{sent}");
    let mut train = Vec::new();
    let mut buf = [0u8; 64];
    for _ in 0..6 {
        let (len, _) = catcher.recv_from(&mut buf).unwrap();
        train.push(buf[..len].to_vec());
    }
    let mut forged = train[1].clone();
    forged[20] ^= 0x55;
    let mut early_last = train[2].clone();
    early_last[1] |= 0x80;

    let db = dir.path().join("g.sqlite");
    let (gw, to, stats_file) = udp_gateway(dir.path(), &key, "binary", db.to_str().unwrap(), &[]);
    let device = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = to.trim_start_matches("udp://");
    let order = [
        &train[0],
        &train[1],
        &forged,
        &train[2],
        &early_last,
        &train[3],
        &train[4],
        &train[5],
    ];
    for datagram in order {
        device.send_to(datagram, target).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    let s = settle(&stats_file, 30, |s| s["stored"].as_u64() == Some(1));
    assert_eq!(rejected(&s, "fragment_conflict"), 2, "{s}");
    assert_eq!(rejected_total(&s), 2, "{s}");
    gw.stop_gateway();
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), 1);
}

/// A message whose fragments hold more than `--max-message` is given up as
/// `oversize` before it is opened: under a key the gateway does not hold, it
/// is never `wrong_key`.
#[test]
fn a_reassembled_message_past_max_message_is_refused_before_it_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "k.key");
    let unknown = counter_key(dir.path(), "unknown.key");
    let db = dir.path().join("g.sqlite");
    let (gw, to, stats_file) = udp_gateway(
        dir.path(),
        &key,
        "binary",
        db.to_str().unwrap(),
        &["--max-message", "200"],
    );
    // 300 + 47 bytes in 8 fragments of at most 51.
    let input = readings(dir.path(), "r.txt", &[300]);
    let unknown_sent = send_cut(&to, &unknown, "binary", &input);
    assert_eq!(n(&unknown_sent["fragments"]), 8, "{unknown_sent}");
    // The same from the gateway's own key: still oversize.
    send_cut(&to, &key, "binary", &input);
    let s = settle(&stats_file, 30, |s| {
        s["received"].as_u64() >= Some(2 + 2 * 3)
    });
    // Each message: given up at its 5th fragment (5 × 49 > 200); its three
    // fragments after are of a settled message.
    assert_eq!(rejected(&s, "oversize"), 2, "{s}");
    assert_eq!((rejected(&s, "wrong_key"), n(&s["stored"])), (0, 0), "{s}");
    gw.stop_gateway();
}

/// Flood a UDP gateway with first fragments from thousands of source ports
/// and with never-finished 128-part trains, then let a good client send whole
/// and fragmented readings: the gateway stays up, stores every good reading,
/// holds strangers' messages within its budget, and forgets them after
/// `--fragment-timeout`.
fn flood_then_good_client(db: &str, rows: &dyn Fn(&str) -> i64) {
    let dir = tempfile::tempdir().unwrap();
    let key = counter_key(dir.path(), "k.key");
    const SOURCES: i64 = 300;
    const BYTES: i64 = 200 * 1024;
    let budget = [
        "--fragment-sources",
        "300",
        "--fragment-bytes",
        "204800",
        "--fragment-timeout",
        "3",
    ];
    let (gw, to, stats_file) = udp_gateway(dir.path(), &key, "binary", db, &budget);
    let target = to.trim_start_matches("udp://");
    // First fragments (tag 0, index 127, one byte) from 2,000 source ports:
    // the first SOURCES are held, the rest refused.
    let trains: Vec<UdpSocket> = (0..20)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    for s in &trains {
        s.send_to(&[0xF0, 0x7F, 0x00], target).unwrap();
    }
    for _ in 0..1980 {
        UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .send_to(&[0xF0, 0x7F, 0x00], target)
            .unwrap();
    }
    // Then 20 of them go on with never-finished 128-part trains: 127 parts of
    // 120 bytes (15,241 bytes in all, within --max-message), no last; the
    // bytes budget refuses what passes it.
    for s in &trains {
        for index in 0..127u8 {
            let mut part = vec![0xF0, index];
            part.extend([index; 120]);
            s.send_to(&part, target).unwrap();
        }
    }
    let flooded = settle(&stats_file, 120, |s| rejected(s, "fragments_refused") > 0);
    let rss = gw.rss_kib();
    assert!(rss < 200 * 1024, "bounded memory: {rss} KiB");
    let strangers = rows("SELECT COUNT(*) FROM fragments_in_progress WHERE messages > 0");
    let held = rows("SELECT COALESCE(SUM(bytes), 0) FROM fragments_in_progress");
    assert!(
        strangers <= SOURCES && held <= BYTES,
        "{strangers} rows, {held} bytes: {flooded}"
    );
    assert!(
        strangers >= SOURCES / 2,
        "the budget was used, then refused: {strangers}"
    );
    assert_eq!(n(&flooded["stored"]), 0);
    // What `--nocapture` shows (the closing note's figures).
    eprintln!(
        "flooded: {strangers} strangers' rows, {held} bytes held, {} fragments refused, gateway RSS {rss} KiB",
        rejected(&flooded, "fragments_refused")
    );

    // A good client (one source): a whole reading first, then fragmented ones.
    let lens = [1, 300, 1, 700, 2000, 1, 4000];
    let input = readings(dir.path(), "good.txt", &lens);
    let sent = send_cut(&to, &key, "binary", &input);
    assert!(n(&sent["fragments"]) > 100, "{sent}");
    let s = settle(&stats_file, 60, |s| {
        s["stored"].as_u64() == Some(lens.len() as u64)
    });
    assert_eq!(n(&s["stored"]), lens.len() as u64, "{s}");
    assert_eq!(rows("SELECT COUNT(*) FROM readings"), lens.len() as i64);

    // Idle past --fragment-timeout: every stranger's message given up, its row gone.
    let idle = settle(&stats_file, 30, |s| s["in_fragments"].as_u64() == Some(0));
    assert!(rejected(&idle, "incomplete") >= strangers as u64, "{idle}");
    let c = gw.stop_gateway();
    assert_eq!(
        n(&c["received"]),
        n(&c["stored"]) + rejected_total(&c),
        "{c}"
    );
    assert_eq!(
        rows("SELECT COUNT(*) FROM fragments_in_progress WHERE messages > 0"),
        0
    );
}

#[test]
fn a_flood_of_strangers_fragments_is_bounded_and_a_good_client_is_stored_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("flood.sqlite");
    let count = |sql: &str| db_count(&db, sql);
    flood_then_good_client(db.to_str().unwrap(), &count);
    let size = std::fs::metadata(&db).unwrap().len();
    assert!(size < 8 << 20, "the store stays small: {size} bytes");
}

#[test]
fn a_flood_of_strangers_fragments_is_bounded_and_a_good_client_is_stored_in_postgres() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("flood");
    let count = |sql: &str| -> i64 {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let sql = sql
            .replace("COUNT(*)", "COUNT(*)::int8")
            .replace("SUM(bytes), 0)", "SUM(bytes), 0)::int8");
        client.query_one(sql.as_str(), &[]).unwrap().get(0)
    };
    flood_then_good_client(&url, &count);
}
