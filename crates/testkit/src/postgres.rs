//! A throwaway PostgreSQL cluster: `initdb` and `pg_ctl` from Debian's server package in
//! a fresh temp dir, listening on a free port of 127.0.0.1 only (its unix socket in the
//! temp dir), stopped and removed when the guard is dropped. No system service is used.
//!
//! PostgreSQL refuses to run as root, so a root test process runs both programs as the
//! `postgres` user (`runuser`), which the Debian package creates.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian installs the server's programs, named in the error when they
/// are not on PATH.
const DEBIAN_VERSIONS: &str = "/usr/lib/postgresql";

pub struct Postgres {
    // Dropped after `drop` has stopped the server.
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl Postgres {
    /// Starts a cluster. When `initdb` and `pg_ctl` are not on PATH the test
    /// fails (`crate::missing`: skipped only when asked to). Any other failure
    /// panics with the server's own words.
    pub fn start() -> Option<Postgres> {
        let (Some(initdb), Some(pg_ctl)) = (crate::on_path("initdb"), crate::on_path("pg_ctl"))
        else {
            return crate::missing(&format!(
                "PostgreSQL's initdb and pg_ctl were not found on PATH (Debian keeps them in \
                 {DEBIAN_VERSIONS}/VERSION/bin, which scripts/test puts on PATH); scripts/setup installs them"
            ));
        };
        let bin = initdb.parent().map(Path::to_path_buf).unwrap_or_default();
        if pg_ctl.parent() != Some(bin.as_path()) {
            panic!(
                "initdb ({}) and pg_ctl ({}) come from different directories on PATH",
                initdb.display(),
                pg_ctl.display()
            );
        }
        Some(Postgres::start_with(bin))
    }

    fn start_with(bin: PathBuf) -> Postgres {
        let dir = tempfile::Builder::new()
            .prefix("ciphermeter-pg")
            .tempdir()
            .expect("temp dir");
        // SAFETY: geteuid has no preconditions and cannot fail.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let mut pg = Postgres {
            dir,
            bin,
            port: 0,
            as_postgres,
        };
        if as_postgres {
            pg.run(
                Command::new("chown")
                    .arg("postgres:postgres")
                    .arg(pg.dir.path()),
                "chown",
            );
            let reachable = Command::new("runuser")
                .args(["-u", "postgres", "--", "test", "-w"])
                .arg(pg.dir.path())
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                reachable,
                "the postgres user cannot write {}: every directory above it must be \
                 searchable by others (point TMPDIR at such a directory)",
                pg.dir.path().display()
            );
        }
        pg.run(
            pg.tool("initdb")
                .args(["-U", "postgres", "--auth=trust", "--no-sync"])
                .args(["--encoding=UTF8", "--locale=C", "-D"])
                .arg(pg.data()),
            "initdb",
        );
        // A port found free can be taken before the server binds it: try a few.
        for attempt in 1..=3 {
            pg.port = free_port();
            let options = format!(
                "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
                 -c fsync=off -c max_connections=40",
                pg.port,
                pg.dir.path().display()
            );
            let status = pg
                .tool("pg_ctl")
                .args(["start", "-w", "-t", "60", "-D"])
                .arg(pg.data())
                .arg("-l")
                .arg(pg.log())
                .args(["-o", &options])
                .output()
                .expect("run pg_ctl");
            if status.status.success() {
                return pg;
            }
            if attempt == 3 {
                panic!(
                    "pg_ctl start failed: {}\n{}",
                    String::from_utf8_lossy(&status.stderr),
                    std::fs::read_to_string(pg.log()).unwrap_or_default()
                );
            }
        }
        unreachable!("the loop returns or panics")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of database `name` as the superuser `postgres` (trust authentication).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates an empty database and returns its URL: one per test keeps tests apart.
    pub fn create_database(&self, name: &str) -> String {
        let mut client = ::postgres::Client::connect(&self.url("postgres"), ::postgres::NoTls)
            .expect("connect to the test cluster");
        client
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .expect("create database");
        self.url(name)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log(&self) -> PathBuf {
        self.dir.path().join("server.log")
    }

    /// A PostgreSQL program, as the `postgres` user when we are root.
    fn tool(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        if self.as_postgres {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", "postgres", "--"]).arg(program);
            cmd
        } else {
            Command::new(program)
        }
    }

    fn run(&self, cmd: &mut Command, what: &str) {
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
        assert!(
            out.status.success(),
            "{what} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if self.port != 0 {
            // Immediate: the data is thrown away, so nothing needs to be flushed.
            let _ = self
                .tool("pg_ctl")
                .args(["stop", "-m", "immediate", "-w", "-D"])
                .arg(self.data())
                .output();
        }
    }
}

/// The directory holding initdb and pg_ctl: `pg_config --bindir`, else the newest
/// Debian version under /usr/lib/postgresql.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}
