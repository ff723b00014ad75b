//! Two `gateway` processes sharing one PostgreSQL database, as a fleet's workers do:
//! the messages one stored are replays to the other, and the database holds each once.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use assert_cmd::cargo::cargo_bin;
use live::store::ReadingStore;
use serde_json::Value;
use store::Location;
use testkit::Postgres;

/// A gateway process, killed when the test ends however it ends.
struct Gateway(Child);

impl Gateway {
    /// Starts a TCP gateway on a free port; returns it and its `tcp://` address.
    fn start(key: &Path, db: &str, exit_after: u32) -> (Gateway, String) {
        let mut child = Command::new(cargo_bin("ciphermeter"))
            .args(["gateway", "--listen", "tcp://127.0.0.1:0", "--key-file"])
            .arg(key)
            .args(["--db", db, "--exit-after", &exit_after.to_string()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let gw = Gateway(child);
        let line = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|l| l.contains("listening on"))
            .expect("the gateway says where it listens");
        // Keep draining stderr (one line per refusal) so the gateway never blocks on it.
        std::thread::spawn(move || lines.for_each(drop));
        let to = line
            .split("listening on ")
            .nth(1)
            .and_then(|s| s.split(',').next())
            .unwrap()
            .to_string();
        (gw, to)
    }

    /// Waits for the exit after `--exit-after` messages; returns the final counters.
    fn counters(mut self) -> Value {
        let out = self.0.stdout.take().unwrap();
        let text = std::io::read_to_string(out).unwrap();
        assert!(self.0.wait().unwrap().success());
        serde_json::from_str(text.lines().last().expect("counters")).unwrap()
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ciphermeter(args: &[&str]) -> Value {
    let out = Command::new(cargo_bin("ciphermeter"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("null")).unwrap_or(Value::Null)
}

#[test]
fn two_gateways_on_one_database_store_each_message_once() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("readings");
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.json");
    let saved = dir.path().join("sent.txt");
    let (key_s, saved_s) = (key.to_str().unwrap(), saved.to_str().unwrap());
    ciphermeter(&["keygen", "--scheme", "aead:aes-128-gcm", "--output", key_s]);

    let (first, to_first) = Gateway::start(&key, &url, 40);
    let (second, to_second) = Gateway::start(&key, &url, 40);
    let sent = ciphermeter(&[
        "send",
        "--to",
        &to_first,
        "--key-file",
        key_s,
        "--sample",
        "chain:2",
        "--count",
        "40",
        "--save",
        saved_s,
    ]);
    assert_eq!(sent["acked"], 40, "{sent}");
    // The same 40 sealed messages, verbatim, to the other worker.
    let again = ciphermeter(&[
        "send",
        "--to",
        &to_second,
        "--input",
        saved_s,
        "--presealed",
    ]);
    assert_eq!(again["acked"], 40, "{again}");

    let (a, b) = (first.counters(), second.counters());
    assert_eq!(
        (a["stored"].as_u64(), a["rejected"]["replay"].as_u64()),
        (Some(40), Some(0)),
        "{a}"
    );
    assert_eq!(
        (b["stored"].as_u64(), b["rejected"]["replay"].as_u64()),
        (Some(0), Some(40)),
        "{b}"
    );
    let mut readings = ReadingStore::open(Location::Postgres(url), 60_000_000).unwrap();
    assert_eq!(readings.count().unwrap(), 40);
}
