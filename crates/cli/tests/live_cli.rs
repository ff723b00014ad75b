//! The live link as a user runs it: `radio-emulator`, `gateway` and `send` as separate
//! processes, on pseudo-terminals and loopback only, each bounded in messages and time.

use std::io::{Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

mod support;
use support::live::*;

#[test]
fn sensor_readings_cross_the_emulated_radio_and_are_stored() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let db = dir.path().join("g.sqlite");
    let (_emu, a, b) = emulator(&[]);
    let gw = Proc::start(&[
        "gateway",
        "--listen",
        &format!("pty:{b}"),
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--exit-after",
        "6",
    ]);
    gw.wait_line("listening on");
    for payload in ["ciphertext", "padded"] {
        let report = send(&[
            "--to",
            &format!("pty:{a}"),
            "--key-file",
            key.to_str().unwrap(),
            "--sample",
            "chain:3",
            "--count",
            "3",
            "--payload",
            payload,
        ]);
        assert_eq!(report["good"], 3);
    }
    let (status, out) = gw.finish();
    assert!(status.success());
    let counters = last_json(&out);
    assert_eq!(counters["received"], 6, "{counters}");
    assert_eq!(counters["stored"], 6, "{counters}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), 6);
    // Each reading is the chain reading with its send time, and has a latency.
    assert_eq!(
        db_count(
            &db,
            "SELECT COUNT(*) FROM readings WHERE json_extract(reading, '$.s_t') = 'tc' \
             AND json_array_length(json_extract(reading, '$.s_d')) = 3 \
             AND device LIKE 'Logger%' AND latency_us >= 0"
        ),
        6
    );
}

#[test]
fn gateway_counts_every_kind_of_bad_message_and_stores_only_good_ones() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let other = keygen(dir.path(), "other.json");
    let db = dir.path().join("g.sqlite");
    let stats = dir.path().join("stats.json");
    let gw = Proc::start(&[
        "gateway",
        "--listen",
        "udp://127.0.0.1:0",
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--stats-file",
        stats.to_str().unwrap(),
    ]);
    let started = gw.wait_line("listening on");
    // AES-128-GCM keys are opened with the host's fastest verified backend.
    assert!(started.ends_with("opening with aws-lc"), "{started}");
    let to = bound(&started);
    let mixed = send(&[
        "--to",
        &to,
        "--key-file",
        key.to_str().unwrap(),
        "--sample",
        "chain:5",
        "--count",
        "300",
        "--rate",
        "3000",
        "--inject",
        "tampered=10%,replayed=5%,truncated=5%",
        "--seed",
        "7",
    ]);
    let wrong = send(&[
        "--to",
        &to,
        "--key-file",
        other.to_str().unwrap(),
        "--sample",
        "chain:1",
        "--count",
        "4",
    ]);
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let target = to.trim_start_matches("udp://");
    for junk in [&b"hello"[..], b"{\"v\":1}", &[0x00; 40]] {
        udp.send_to(junk, target).unwrap();
    }
    // A first byte 0xF0-0xFF marks a fragment (seal::fragment): this one's
    // message never completes, so it waits in the store for the rest (or for
    // its device's next messages, which would give it up), not yet received.
    udp.send_to(&[0xff; 40], target).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let c = gw.stop_gateway();
    let n = |v: &Value| v.as_u64().unwrap();
    for kind in ["tampered", "replayed", "truncated"] {
        assert!(n(&mixed[kind]) > 0, "the mix must contain {kind}: {mixed}");
    }
    assert_eq!(n(&c["received"]), 300 + 4 + 3, "{c}");
    assert_eq!(n(&c["in_fragments"]), 1, "{c}");
    assert_eq!(n(&c["stored"]), n(&mixed["good"]), "{c} {mixed}");
    assert_eq!(n(&c["rejected"]["tampered"]), n(&mixed["tampered"]), "{c}");
    assert_eq!(n(&c["rejected"]["replay"]), n(&mixed["replayed"]), "{c}");
    assert_eq!(
        n(&c["rejected"]["truncated"]),
        n(&mixed["truncated"]),
        "{c}"
    );
    assert_eq!(n(&c["rejected"]["wrong_key"]), n(&wrong["sent"]), "{c}");
    assert_eq!(n(&c["rejected"]["garbage"]), 3, "{c}");
    assert_eq!(n(&c["rejected"]["incomplete"]), 0, "{c}");
    assert_eq!(n(&c["pending"]), 0);
    assert_eq!(
        db_count(&db, "SELECT COUNT(*) FROM readings"),
        n(&mixed["good"]) as i64
    );
    // The stats file holds the same final counters.
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(file, c);
}

#[test]
fn a_partial_packet_waits_for_the_radio_timeout() {
    let (_emu, a, b) = emulator(&[]);
    let mut tx = std::fs::OpenOptions::new().write(true).open(&a).unwrap();
    let rx = std::fs::OpenOptions::new().read(true).open(&b).unwrap();
    let (done, got) = mpsc::channel();
    std::thread::spawn(move || {
        let mut rx = rx;
        let mut buf = [0u8; 5];
        let ok = rx.read_exact(&mut buf).is_ok();
        let _ = done.send((ok, buf, Instant::now()));
    });
    let t0 = Instant::now();
    tx.write_all(b"12345").unwrap();
    let (ok, buf, at) = got.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(ok);
    assert_eq!(&buf, b"12345");
    // 5 bytes are less than a 12-byte packet: the radio holds them for its 100 ms timeout.
    assert!(
        at - t0 >= Duration::from_millis(100),
        "arrived after {:?}",
        at - t0
    );
}

#[test]
fn sigkill_mid_stream_loses_and_duplicates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let db = dir.path().join("g.sqlite");
    let saved = dir.path().join("sent.txt");
    let gateway = |extra: &[&str]| {
        let mut args = vec![
            "gateway",
            "--listen",
            "tcp://127.0.0.1:0",
            "--key-file",
            key.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        Proc::start(&args)
    };
    let gw = gateway(&[]);
    let to = bound(&gw.wait_line("listening on"));
    let sender = Proc::start(&[
        "send",
        "--to",
        &to,
        "--key-file",
        key.to_str().unwrap(),
        "--sample",
        "chain:3",
        "--count",
        "20000",
        "--rate",
        "2000",
        "--save",
        saved.to_str().unwrap(),
    ]);
    // Kill once commits are under way.
    let end = Instant::now() + Duration::from_secs(20);
    while !(db.exists() && db_count(&db, "SELECT COUNT(*) FROM readings") >= 300) {
        assert!(Instant::now() < end, "gateway stored nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
    gw.signal(libc::SIGKILL);
    let _ = gw.finish();
    let line = sender.wait_line("acknowledged");
    let (status, _) = sender.finish();
    assert!(
        !status.success(),
        "the sender must notice the lost connection"
    );
    let acked: i64 = line
        .split(" acknowledged")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("no ack count in: {line}"));
    let before = db_count(&db, "SELECT COUNT(*) FROM readings");
    assert!(acked > 0);
    assert!(
        before >= acked,
        "{acked} acknowledged but only {before} stored"
    );

    // Restart on the same database and send every message again, verbatim.
    let sent = std::fs::read_to_string(&saved).unwrap().lines().count() as i64;
    assert!(sent >= before);
    let gw = gateway(&["--exit-after", &sent.to_string()]);
    let to = bound(&gw.wait_line("listening on"));
    let again = send(&[
        "--to",
        &to,
        "--input",
        saved.to_str().unwrap(),
        "--presealed",
    ]);
    assert_eq!(again["sent"].as_i64(), Some(sent));
    assert_eq!(again["acked"].as_i64(), Some(sent));
    let (status, out) = gw.finish();
    assert!(status.success());
    let c = last_json(&out);
    // What was stored before the kill is a replay now; the rest is stored once.
    assert_eq!(c["rejected"]["replay"].as_i64(), Some(before), "{c}");
    assert_eq!(c["stored"].as_i64(), Some(sent - before), "{c}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), sent);
    assert_eq!(
        db_count(&db, "SELECT COUNT(DISTINCT reading) FROM readings"),
        sent
    );
}

#[test]
fn live_study_000_is_never_faster_than_the_link_model() {
    let out = run(&["reproduce", "rf-transmission", "--live", "--quick"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Transmission time"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(table.len(), 3, "{text}");
    for line in table {
        // "#  T-bytes live model paper | C-bytes live model paper | P-bytes live model paper"
        let cells: Vec<f64> = line
            .split(|c: char| c == '|' || c.is_whitespace())
            .filter_map(|c| c.parse().ok())
            .collect();
        assert_eq!(cells.len(), 13, "{line}");
        for k in 0..3 {
            let (live, model) = (cells[2 + 4 * k], cells[3 + 4 * k]);
            // The emulator waits for each of the model's deadlines: it can be late, never early.
            assert!(live >= model - 0.05, "{line}: live {live} < model {model}");
        }
    }
    // Message 1: 32 hex characters leave a partial packet, 36 padded ones do not.
    assert!(text.contains("Padding to whole packets saves"), "{text}");
}

/// Polls the gateway's stats file until `done` holds for it (at most 20 s).
fn wait_stats(path: &Path, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let now = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if let Some(v) = now.filter(|v| done(v)) {
            return v;
        }
        assert!(Instant::now() < end, "no {what} within 20 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Lifts this process's soft limit on open files to at least `need` (the hard limit
/// allowing), for tests that hold thousands of client sockets.
fn open_files(need: u64) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to an rlimit.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_cur.max(lim.rlim_max.min(need));
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
    }
    assert!(
        lim.rlim_cur >= need,
        "RLIMIT_NOFILE hard limit {} < {need}",
        lim.rlim_max
    );
}

/// What the docs say a held idle TCP connection costs the gateway in resident memory.
const IDLE_CONNECTION_BYTES: u64 = 1024;

#[test]
fn ten_thousand_idle_connections_do_not_keep_a_good_client_out() {
    const FLOOD: u64 = 10_000;
    open_files(FLOOD + 256);
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    // Default limits: the gateway holds --max-connections (4000) and evicts the idlest.
    let (gw, to, db, stats) = tcp_gateway(dir.path(), &key, &[]);
    let held = live::Limits::default().max_connections as u64;
    let addr = to.trim_start_matches("tcp://").to_string();
    let rss_before = gw.rss_kib();
    // Four threads connect at once; every connection stays open and sends nothing.
    let flood: Vec<TcpStream> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..FLOOD / 4)
                        .map(|_| TcpStream::connect(&addr).unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let c = wait_stats(&stats, "every flood connection accepted", |v| {
        n(&v["connections"]["accepted"]) == FLOOD
    });
    let rss_held = gw.rss_kib();
    assert_eq!(n(&c["connections"]["evicted"]), FLOOD - held, "{c}");
    assert_eq!(n(&c["connections"]["refused"]), 0, "{c}");
    // The good client: all 50 readings stored (acknowledged after commit) within 2 s.
    let start = Instant::now();
    let sent = send(&[
        "--to",
        &to,
        "--key-file",
        key.to_str().unwrap(),
        "--sample",
        "chain:2",
        "--count",
        "50",
    ]);
    let took = start.elapsed();
    assert_eq!(sent["acked"].as_u64(), Some(50), "{sent}");
    assert!(took < Duration::from_secs(2), "50 readings took {took:?}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), 50);
    // Memory: what holding the connections cost, bounded by --max-connections.
    let per_conn = (rss_held.saturating_sub(rss_before) * 1024) / held;
    eprintln!(
        "gateway RSS {rss_before} KiB idle, {rss_held} KiB holding {held} of {FLOOD} connections: {per_conn} bytes each"
    );
    // The docs' figure (docs/live.md, docs/results.md: under 1 KiB; 629-698 B
    // measured): the bound fails if it doubles.
    assert!(
        per_conn < IDLE_CONNECTION_BYTES,
        "{per_conn} bytes per idle connection, over the documented {IDLE_CONNECTION_BYTES}"
    );
    drop(flood);
    let c = gw.stop_gateway();
    // The good client's connection took one more slot: one more of the flood went.
    assert_eq!(n(&c["connections"]["accepted"]), FLOOD + 1, "{c}");
    assert_eq!(n(&c["connections"]["evicted"]), FLOOD + 1 - held, "{c}");
    assert_eq!((n(&c["received"]), n(&c["stored"])), (50, 50), "{c}");
}

#[test]
fn a_frame_dribbled_past_the_frame_timeout_closes_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let (gw, to, _, stats) = tcp_gateway(dir.path(), &key, &["--frame-timeout", "300"]);
    let addr = to.trim_start_matches("tcp://");
    let mut dribbler = TcpStream::connect(addr).unwrap();
    dribbler
        .set_write_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // One byte every 50 ms: never idle, never a whole line.
    let start = Instant::now();
    let mut closed_after = None;
    for _ in 0..100 {
        if dribbler.write_all(b"x").is_err() {
            closed_after = Some(start.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // The close is counted at once; the partial frame is refused as truncated when
    // the pipeline gets to it, so wait for both.
    let c = wait_stats(&stats, "a frame timeout and its truncated frame", |v| {
        n(&v["connections"]["frame_timeout"]) == 1 && n(&v["rejected"]["truncated"]) >= 1
    });
    assert_eq!(n(&c["rejected"]["truncated"]), 1, "{c}");
    assert_eq!(n(&c["connections"]["closed"]), 1, "{c}");
    // The writes fail soon after the gateway closed it (a reset once it is gone).
    let closed_after = closed_after.expect("the dribbling connection was never closed");
    assert!(closed_after < Duration::from_secs(4), "{closed_after:?}");
    gw.stop_gateway();
}

#[test]
fn idle_connections_and_oversize_lines_are_closed_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let (gw, to, _, stats) = tcp_gateway(
        dir.path(),
        &key,
        &["--idle-timeout", "1", "--max-message", "100"],
    );
    let addr = to.trim_start_matches("tcp://");
    let mut silent = TcpStream::connect(addr).unwrap();
    let mut talker = TcpStream::connect(addr).unwrap();
    talker.write_all(&[b'x'; 300]).unwrap();
    talker.write_all(b"\n").unwrap();
    // Closed by the client at once, so only the silent one can idle.
    drop(talker);
    wait_stats(&stats, "an oversize line", |v| {
        n(&v["rejected"]["oversize"]) == 1
    });
    // The silent one is closed by the gateway: reading gives end of file.
    silent
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut rest = Vec::new();
    silent.read_to_end(&mut rest).unwrap();
    assert!(rest.is_empty());
    let c = wait_stats(&stats, "two closed connections", |v| {
        n(&v["connections"]["closed"]) == 2
    });
    assert_eq!(n(&c["connections"]["accepted"]), 2, "{c}");
    assert_eq!(n(&c["connections"]["idle_closed"]), 1, "{c}");
    assert_eq!(
        (n(&c["received"]), n(&c["rejected"]["oversize"])),
        (1, 1),
        "{c}"
    );
    gw.stop_gateway();
    for bad in [
        ["--max-connections", "0"],
        ["--max-connections", "100000000"],
        ["--frame-timeout", "0"],
        ["--stats-interval", "1e20"],
        ["--max-message", "70000"],
        ["--max-age", "0"],
    ] {
        let out = run(&[
            &[
                "gateway",
                "--listen",
                "tcp://127.0.0.1:0",
                "--key-file",
                key.to_str().unwrap(),
            ],
            &bad[..],
        ]
        .concat());
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_stream_replayed_after_its_window_is_stale_and_the_replay_table_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let saved = dir.path().join("sent.txt");
    let (gw, to, db, _) = tcp_gateway(dir.path(), &key, &["--max-age", "1"]);
    let k = key.to_str().unwrap();
    // 200 readings paced at 100/s span two 1-second windows.
    let first = send(&[
        "--to",
        &to,
        "--key-file",
        k,
        "--sample",
        "chain:2",
        "--count",
        "200",
        "--rate",
        "100",
        "--save",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(first["acked"].as_u64(), Some(200), "{first}");
    // Only nonces inside the window are kept: none older than 1 s before the last arrival.
    let rows = db_count(&db, "SELECT COUNT(*) FROM seen_nonces");
    let old = db_count(
        &db,
        "SELECT COUNT(*) FROM seen_nonces WHERE sent_us < (SELECT MAX(arrived_us) FROM readings) - 1000000",
    );
    eprintln!("replay table after 200 readings over two windows: {rows} rows");
    assert!(
        rows < 200 && old == 0,
        "{rows} rows, {old} older than the window"
    );
    // Once the window has passed, the same stream verbatim is stale, and the table empties.
    std::thread::sleep(Duration::from_millis(2_500));
    let again = send(&[
        "--to",
        &to,
        "--input",
        saved.to_str().unwrap(),
        "--presealed",
    ]);
    assert_eq!(again["acked"].as_u64(), Some(200), "{again}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM seen_nonces"), 0);
    let c = gw.stop_gateway();
    assert_eq!(n(&c["stored"]), 200, "{c}");
    assert_eq!(n(&c["rejected"]["stale"]), 200, "{c}");
    assert_eq!(n(&c["rejected"]["replay"]), 0, "{c}");
    assert_eq!(n(&c["received"]), 400, "{c}");
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM readings"), 200);
}

#[test]
fn counter_nonce_keys_keep_one_high_water_mark_and_refuse_replays() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen_with(
        dir.path(),
        "c.key",
        &["--scheme", "etm:salsa20+hmac-sha256", "--nonce", "counter"],
    );
    let saved = dir.path().join("sent.txt");
    let (gw, to, db, _) = tcp_gateway(dir.path(), &key, &[]);
    let k = key.to_str().unwrap();
    let first = send(&[
        "--to",
        &to,
        "--key-file",
        k,
        "--sample",
        "chain:2",
        "--count",
        "30",
        "--no-timestamp",
        "--save",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(first["acked"].as_u64(), Some(30), "{first}");
    let again = send(&[
        "--to",
        &to,
        "--input",
        saved.to_str().unwrap(),
        "--presealed",
    ]);
    assert_eq!(again["acked"].as_u64(), Some(30), "{again}");
    let c = gw.stop_gateway();
    assert_eq!(
        (n(&c["stored"]), n(&c["rejected"]["replay"])),
        (30, 30),
        "{c}"
    );
    // One row for the key, whatever the count; no per-message nonces.
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM counter_marks"), 1);
    assert_eq!(db_count(&db, "SELECT high FROM counter_marks"), 29);
    assert_eq!(db_count(&db, "SELECT COUNT(*) FROM seen_nonces"), 0);
}

#[test]
fn bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let k = key.to_str().unwrap();
    for args in [
        vec!["gateway", "--listen", "ftp://x", "--key-file", k],
        vec![
            "gateway",
            "--listen",
            "udp://127.0.0.1:0",
            "--key-file",
            "/nonexistent/key",
        ],
        vec![
            "gateway",
            "--listen",
            "udp://127.0.0.1:0",
            "--key-file",
            k,
            "--container",
            "binary",
            "--framing",
            "line",
        ],
        vec![
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--key-file",
            k,
            "--inject",
            "lots=5%",
        ],
        vec![
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--key-file",
            k,
            "--sample",
            "chain:0",
        ],
        vec![
            "send",
            "--to",
            "udp://127.0.0.1:9",
            "--key-file",
            k,
            "--sample",
            "chain:1",
            "--payload",
            "padded",
        ],
        vec![
            "send",
            "--to",
            "serial:/dev/null@1234",
            "--key-file",
            k,
            "--sample",
            "chain:1",
        ],
        vec!["radio-emulator", "--loss", "2"],
        vec!["radio-emulator", "--link", "lora-sf7-125"],
    ] {
        let out = run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty());
    }
}

/// `ciphermeter gateway ARGS` with the hard open-file limit set to `files`.
fn gateway_with_open_files(files: u64, args: &[&str]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ciphermeter"));
    cmd.arg("gateway").args(args);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // SAFETY: only setrlimit(2) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: files,
                rlim_max: files,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd.spawn().unwrap()
}

#[test]
fn the_connection_limit_fits_the_open_file_limit_or_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let key = keygen(dir.path(), "k.json");
    let db = dir.path().join("g.sqlite");
    let base = [
        "--listen",
        "tcp://127.0.0.1:0",
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
    ];
    // Asked for more than the hard limit allows: exit 2 before anything is created.
    let out = gateway_with_open_files(512, &[&base[..], &["--max-connections", "4000"]].concat())
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ulimit -Hn"), "{err}");
    assert!(!db.exists(), "a refused gateway created its database");
    // The default fits what the limit leaves room for, and says so.
    let mut gw = gateway_with_open_files(512, &base);
    let mut stderr = std::io::BufReader::new(gw.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("listening on") {
        let mut line = String::new();
        if std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() == 0 {
            break;
        }
        said.push_str(&line);
    }
    let _ = gw.kill();
    let _ = gw.wait();
    assert!(
        said.contains("holding at most 448 TCP connections, not 4000"),
        "{said}"
    );
    assert!(said.contains("listening on tcp://"), "{said}");
}
