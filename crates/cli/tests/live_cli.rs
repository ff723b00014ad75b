//! The live link as a user runs it: `radio-emulator`, `gateway` and `send` as separate
//! processes, on pseudo-terminals and loopback only, each bounded in messages and time.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;

/// A child process that is killed when the test ends, however it ends.
struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
    stdout: Option<std::thread::JoinHandle<String>>,
}

impl Proc {
    /// Starts `ciphermeter ARGS`; stderr lines are collected, stdout kept whole.
    fn start(args: &[&str]) -> Proc {
        let mut child = Command::new(cargo_bin("ciphermeter"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ciphermeter");
        let (tx, lines) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut out = child.stdout.take().unwrap();
        let stdout = Some(std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        }));
        Proc {
            child,
            lines,
            stdout,
        }
    }

    /// The first stderr line containing `needle`, waiting at most 20 s.
    fn wait_line(&self, needle: &str) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        while Instant::now() < end {
            if let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100))
                && line.contains(needle)
            {
                return line;
            }
        }
        panic!("no line with '{needle}' within 20 s");
    }

    /// Waits for the exit (at most 30 s), returning status and stdout.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let out = self.stdout.take().unwrap().join().unwrap();
                return (status, out);
            }
            assert!(Instant::now() < end, "process did not exit within 30 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
    }

    /// Counters printed (as the last stdout line) when the gateway exits.
    fn stop_gateway(self) -> Value {
        self.signal(libc::SIGTERM);
        let (status, out) = self.finish();
        assert!(status.success(), "gateway exit {status:?}");
        last_json(&out)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn last_json(out: &str) -> Value {
    let line = out.lines().last().unwrap_or_else(|| panic!("no output"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

fn run(args: &[&str]) -> Output {
    Command::new(cargo_bin("ciphermeter"))
        .args(args)
        .output()
        .unwrap()
}

fn keygen(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let out = run(&[
        "keygen",
        "--scheme",
        "aead:aes-128-gcm",
        "--output",
        path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

fn send(args: &[&str]) -> Value {
    let out = run(&[&["send"], args].concat());
    assert!(
        out.status.success(),
        "send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    last_json(&String::from_utf8_lossy(&out.stdout))
}

fn db_count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// "gateway: listening on udp://127.0.0.1:PORT, …" → "udp://127.0.0.1:PORT".
fn bound(line: &str) -> String {
    line.split("listening on ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .unwrap()
        .to_string()
}

fn emulator(extra: &[&str]) -> (Proc, String, String) {
    let mut args = vec!["radio-emulator", "--duration", "60"];
    args.extend_from_slice(extra);
    let emu = Proc::start(&args);
    // The paths are on stdout too; stderr names both in one line.
    let line = emu.wait_line("<->");
    let paths: Vec<&str> = line
        .trim_start_matches("radio-emulator: ")
        .split(" (")
        .next()
        .unwrap()
        .split(" <-> ")
        .collect();
    let (a, b) = (paths[0].to_string(), paths[1].to_string());
    (emu, a, b)
}

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
    let to = bound(&gw.wait_line("listening on"));
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
    for junk in [&b"hello"[..], b"{\"v\":1}", &[0xff; 40]] {
        udp.send_to(junk, target).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    let c = gw.stop_gateway();
    let n = |v: &Value| v.as_u64().unwrap();
    for kind in ["tampered", "replayed", "truncated"] {
        assert!(n(&mixed[kind]) > 0, "the mix must contain {kind}: {mixed}");
    }
    assert_eq!(n(&c["received"]), 300 + 4 + 3, "{c}");
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
