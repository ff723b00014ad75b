//! What the live-link tests share: the CLI run as a separate process, key files,
//! the gateway's database and its printed counters.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin;
use serde_json::Value;

/// A child process that is killed when the test ends, however it ends.
pub struct Proc {
    child: Child,
    lines: mpsc::Receiver<String>,
    stdout: Option<std::thread::JoinHandle<String>>,
}

impl Proc {
    /// Starts `ciphermeter ARGS`; stderr lines are collected, stdout kept whole.
    pub fn start(args: &[&str]) -> Proc {
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
    pub fn wait_line(&self, needle: &str) -> String {
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
    pub fn finish(mut self) -> (std::process::ExitStatus, String) {
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

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory now, in KiB (VmRSS of /proc/PID/status).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS in /proc/PID/status")
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
    }

    /// Counters printed (as the last stdout line) when the gateway exits.
    pub fn stop_gateway(self) -> Value {
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

pub fn last_json(out: &str) -> Value {
    let line = out.lines().last().unwrap_or_else(|| panic!("no output"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

pub fn run(args: &[&str]) -> Output {
    Command::new(cargo_bin("ciphermeter"))
        .args(args)
        .output()
        .unwrap()
}

pub fn keygen(dir: &Path, name: &str) -> PathBuf {
    keygen_with(dir, name, &["--scheme", "aead:aes-128-gcm"])
}

/// `keygen ARGS --output DIR/NAME`, which must succeed.
pub fn keygen_with(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let out = run(&[&["keygen"], args, &["--output", path.to_str().unwrap()]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

pub fn send(args: &[&str]) -> Value {
    let out = run(&[&["send"], args].concat());
    assert!(
        out.status.success(),
        "send failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    last_json(&String::from_utf8_lossy(&out.stdout))
}

pub fn db_count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// "gateway: listening on udp://127.0.0.1:PORT, …" → "udp://127.0.0.1:PORT".
pub fn bound(line: &str) -> String {
    line.split("listening on ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .unwrap()
        .to_string()
}

/// A TCP gateway on a free port: (process, tcp://… address, database, stats file).
pub fn tcp_gateway(dir: &Path, key: &Path, extra: &[&str]) -> (Proc, String, PathBuf, PathBuf) {
    let db = dir.join("g.sqlite");
    let stats = dir.join("stats.json");
    let mut args = vec![
        "gateway",
        "--listen",
        "tcp://127.0.0.1:0",
        "--key-file",
        key.to_str().unwrap(),
        "--db",
        db.to_str().unwrap(),
        "--stats-file",
        stats.to_str().unwrap(),
        "--stats-interval",
        "0.05",
    ];
    args.extend_from_slice(extra);
    let gw = Proc::start(&args);
    let to = bound(&gw.wait_line("listening on"));
    (gw, to, db, stats)
}

pub fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// A radio emulator process and its two pseudo-terminals (sender side, gateway side).
pub fn emulator(extra: &[&str]) -> (Proc, String, String) {
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
