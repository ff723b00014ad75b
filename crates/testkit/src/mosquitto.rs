//! A throwaway Mosquitto broker: a generated config in a fresh temp dir, one listener on
//! a free port of 127.0.0.1, anonymous clients, no persistence file, killed and removed
//! when the guard is dropped. No system service is used.
//!
//! [`Mosquitto::start`] adds the settings docs/live.md asks of a fleet's broker, read from
//! the example the docs point to (`docs/examples/mosquitto-fleet.conf`), so the tests run
//! with the documented config; [`Mosquitto::start_default`] leaves Mosquitto's defaults.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Mosquitto {
    child: Child,
    port: u16,
    // Dropped after `drop` has killed the broker.
    dir: tempfile::TempDir,
}

/// The documented fleet settings, every line of the example file.
pub const FLEET_SETTINGS: &str = include_str!("../../../docs/examples/mosquitto-fleet.conf");

impl Mosquitto {
    /// Starts a broker with the documented fleet settings ([`FLEET_SETTINGS`]). When
    /// `mosquitto` is not on PATH the test fails (`crate::missing`: skipped only when
    /// asked to).
    pub fn start() -> Option<Mosquitto> {
        Self::start_with(FLEET_SETTINGS)
    }

    /// Starts a broker with Mosquitto's default settings: only the listener, anonymous
    /// clients, the log and no persistence file are set.
    pub fn start_default() -> Option<Mosquitto> {
        Self::start_with("")
    }

    fn start_with(settings: &str) -> Option<Mosquitto> {
        let Some(bin) = crate::on_path("mosquitto") else {
            return crate::missing(
                "mosquitto was not found on PATH (Debian puts it in /usr/sbin); scripts/setup installs it",
            );
        };
        let dir = tempfile::Builder::new()
            .prefix("ciphermeter-mqtt")
            .tempdir()
            .expect("temp dir");
        // A port found free can be taken before the broker binds it: try a few.
        for attempt in 1..=3 {
            let port = free_port();
            write_config(dir.path(), port, settings);
            let child = Command::new(&bin)
                .arg("-c")
                .arg(dir.path().join("mosquitto.conf"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn mosquitto");
            let mut child = child;
            if wait_listening(&mut child, port, Duration::from_secs(10)) {
                return Some(Mosquitto { child, port, dir });
            }
            let _ = child.kill();
            let _ = child.wait();
            if attempt == 3 {
                let log = std::fs::read_to_string(dir.path().join("mosquitto.log"));
                panic!("mosquitto did not listen on 127.0.0.1:{port}: {log:?}");
            }
        }
        unreachable!("the loop returns or panics")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mqtt://127.0.0.1:PORT/TOPIC`, the form `gateway --listen` and `send --to` take.
    pub fn url(&self, topic: &str) -> String {
        format!("mqtt://127.0.0.1:{}/{topic}", self.port)
    }

    /// The broker's own log (connections, sessions), for a failing test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The listener, anonymous clients, the log and no persistence file, then `settings`.
fn write_config(dir: &Path, port: u16, settings: &str) {
    let mut f = std::fs::File::create(dir.join("mosquitto.conf")).expect("write config");
    write!(
        f,
        "listener {port} 127.0.0.1\n\
         allow_anonymous true\n\
         persistence false\n\
         log_dest file {log}\n\
         log_type error\n\
         log_type warning\n\
         log_type notice\n\
         {settings}",
        log = dir.join("mosquitto.log").display()
    )
    .expect("write config");
}

/// True once the broker accepts connections; false if it exited or took too long.
fn wait_listening(child: &mut Child, port: u16, limit: Duration) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if matches!(child.try_wait(), Ok(Some(_))) {
            return false;
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}
