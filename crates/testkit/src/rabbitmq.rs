//! A throwaway RabbitMQ node: Debian's server in a fresh temp dir (its database, logs,
//! config, plugin list and Erlang cookie there), its AMQP listener, its distribution
//! port and its own `epmd` on free ports of 127.0.0.1, and every process of it killed
//! when the guard is dropped. No system service, system epmd or system directory is used.
//!
//! - The node runs Debian's real start script (`/usr/lib/rabbitmq/bin/rabbitmq-server`):
//!   the `rabbitmq-server` on PATH (`/usr/sbin`) is only a wrapper that switches user
//!   and logs to `/var/log/rabbitmq`. A tree unpacked elsewhere is used as it is.
//! - Broker settings are RabbitMQ's defaults (the `guest` user, loopback only; the
//!   default vhost `/`), except the listeners (127.0.0.1 only) and no plugins.
//! - Erlang's `epmd` is started by the guard (`epmd -port P -address 127.0.0.1`) before
//!   the node, so the node (and the helper node RabbitMQ starts to make sure an epmd
//!   runs) find it on `ERL_EPMD_PORT` and no epmd daemon of their own outlives the guard.
//! - As root, both run as the `rabbitmq` user, which the Debian package creates (the
//!   user is set in the child, so both are this process's children).
//! - Stop: the data is thrown away, so nothing needs a clean stop: SIGKILL to the
//!   process group (epmd leads it; the node joins it) and to every descendant found in
//!   `/proc` (Erlang's `erl_child_setup` and its port programs run in a session of their
//!   own). The test process becomes a child subreaper, so the node's orphans are
//!   reaped here instead of lingering as zombies under an init that does not reap.
//! - Start: 4.7-5.5 s on the 2-core machine (Erlang, then RabbitMQ's boot steps);
//!   [`RabbitMq::started_in`] says how long one took.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Where Debian keeps RabbitMQ's real scripts (the one on PATH only switches user).
const DEBIAN_SCRIPTS: &str = "/usr/lib/rabbitmq/bin";
/// The user the Debian package creates; a root test runs the node as it.
const USER: &str = "rabbitmq";
/// A node's boot is slow (Erlang, then RabbitMQ's boot steps) and slower on a busy machine.
const BOOT_LIMIT: Duration = Duration::from_secs(90);
/// Erlang distribution on loopback also for the helper nodes RabbitMQ starts (its
/// epmd check runs `erl -sname epmd-starter-N`), which read no advanced config.
const ERL_FLAGS: &str = "-kernel inet_dist_use_interface {127,0,0,1}";

/// Nodes started by this process so far: part of each node's unique name.
static NODES: AtomicU32 = AtomicU32::new(0);
/// The programs of a node's tree, by the name the kernel gives them (`comm`): what an
/// adopted orphan of a node is recognised by when the node runs as our own user.
const NODE_PROGRAMS: &[&str] = &["beam.smp", "epmd", "erl_child_setup", "inet_gethost"];
/// Every guard's own children (epmd, start script): waited for by their `Child`, never
/// reaped as orphans.
static SPAWNED: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

pub struct RabbitMq {
    /// The process group of epmd and the node (epmd's pid); 0 when none runs.
    group: i32,
    /// Our children: epmd, then the start script.
    children: Vec<Child>,
    /// The `rabbitmq` user's uid and gid, when root.
    user: Option<(u32, u32)>,
    port: u16,
    epmd_port: u16,
    node: String,
    started_in: Duration,
    // Dropped after `drop` has killed the node.
    dir: tempfile::TempDir,
}

struct Programs {
    server: PathBuf,
    epmd: PathBuf,
}

impl RabbitMq {
    /// Starts a node and returns once it completes an AMQP handshake. When
    /// `rabbitmq-server` or `epmd` is not on PATH the test fails (`crate::missing`:
    /// skipped only when asked to). Any other failure panics with the node's log.
    pub fn start() -> Option<RabbitMq> {
        let (Some(server), Some(epmd)) =
            (crate::on_path("rabbitmq-server"), crate::on_path("epmd"))
        else {
            return crate::missing(
                "rabbitmq-server and epmd were not found on PATH (Debian puts rabbitmq-server in \
                 /usr/sbin, epmd in /usr/bin); scripts/setup installs them",
            );
        };
        let debian = Path::new(DEBIAN_SCRIPTS).join("rabbitmq-server");
        let server = if debian.is_file() { debian } else { server };
        Some(RabbitMq::start_with(&Programs { server, epmd }))
    }

    fn start_with(programs: &Programs) -> RabbitMq {
        let began = Instant::now();
        let dir = tempfile::Builder::new()
            .prefix("ciphermeter-rabbitmq")
            .tempdir()
            .expect("temp dir");
        for sub in ["mnesia", "log", "home"] {
            std::fs::create_dir(dir.path().join(sub)).expect("node directories");
        }
        std::fs::write(dir.path().join("enabled_plugins"), "[].\n").expect("plugins file");
        std::fs::write(dir.path().join("rabbitmq-env.conf"), "").expect("env file");
        // SAFETY: geteuid has no preconditions and cannot fail.
        let user = (unsafe { libc::geteuid() } == 0).then(|| {
            let ids = user_ids(USER);
            hand_to_user(dir.path(), ids);
            ids
        });
        adopt_orphans();
        let node = format!(
            "cm{}n{}@localhost",
            std::process::id(),
            NODES.fetch_add(1, Ordering::Relaxed)
        );
        let mut rabbit = RabbitMq {
            group: 0,
            children: Vec::new(),
            user,
            port: 0,
            epmd_port: 0,
            node,
            started_in: Duration::ZERO,
            dir,
        };
        // A port found free can be taken before the node binds it: try a few.
        for attempt in 1..=3 {
            let [amqp, dist, epmd_port] = free_ports();
            rabbit.port = amqp;
            rabbit.epmd_port = epmd_port;
            rabbit.write_config(amqp);
            let epmd_args =
                ["-port", &epmd_port.to_string(), "-address", "127.0.0.1"].map(String::from);
            let epmd = rabbit.spawn(&programs.epmd, &epmd_args, &[], 0, "epmd.log");
            rabbit.group = epmd.id() as i32;
            rabbit.children.push(epmd);
            let up = wait_until(&mut rabbit.children, Duration::from_secs(10), || {
                TcpStream::connect(("127.0.0.1", epmd_port)).is_ok()
            });
            if up {
                let env = rabbit.environment(amqp, dist, epmd_port);
                let server = rabbit.spawn(&programs.server, &[], &env, rabbit.group, "server.out");
                rabbit.children.push(server);
                if wait_until(&mut rabbit.children, BOOT_LIMIT, || amqp_handshake(amqp)) {
                    rabbit.started_in = began.elapsed();
                    return rabbit;
                }
            }
            let why = format!(
                "RabbitMQ did not complete an AMQP handshake on 127.0.0.1:{amqp} within {} s \
                 (its epmd on {epmd_port} {}):\n{}",
                BOOT_LIMIT.as_secs(),
                if up { "listened" } else { "never listened" },
                rabbit.everything_logged()
            );
            rabbit.kill();
            if attempt == 3 {
                panic!("{why}");
            }
            eprintln!("testkit: retrying RabbitMQ with other ports: {why}");
        }
        unreachable!("the loop returns or panics")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `amqp://127.0.0.1:PORT/NAME`, the form `gateway --listen` (NAME a queue) and
    /// `send --to` (NAME an exchange) take.
    pub fn url(&self, name: &str) -> String {
        format!("amqp://127.0.0.1:{}/{name}", self.port)
    }

    /// The node's own log (boot, connections, errors), for a failing test's message.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log").join("rabbit.log")).unwrap_or_default()
    }

    /// The Erlang node's name, `cm<pid>n<k>@localhost`: unique per guard.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// The port of the guard's own epmd.
    pub fn epmd_port(&self) -> u16 {
        self.epmd_port
    }

    /// How long `start` took, from the temp dir to the first AMQP handshake.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// The AMQP listener on loopback only (the default listens on every interface);
    /// everything else is RabbitMQ's default. The advanced config keeps the node's
    /// Erlang distribution on loopback too.
    fn write_config(&self, port: u16) {
        let write = |name: &str, text: String| {
            let path = self.dir.path().join(name);
            std::fs::write(&path, text).expect("write config");
            if let Some((uid, gid)) = self.user {
                std::os::unix::fs::chown(&path, Some(uid), Some(gid)).expect("chown config");
            }
        };
        write(
            "rabbitmq.conf",
            format!("listeners.tcp.1 = 127.0.0.1:{port}\n"),
        );
        write(
            "advanced.config",
            "[{kernel, [{inet_dist_use_interface, {127,0,0,1}}]}].\n".into(),
        );
    }

    /// The environment of the start script: everything the node writes or reads lives
    /// in the temp dir, and nothing listens beyond 127.0.0.1.
    fn environment(&self, amqp: u16, dist: u16, epmd: u16) -> Vec<(String, String)> {
        let d = |p: &str| self.dir.path().join(p).display().to_string();
        [
            ("RABBITMQ_NODENAME", self.node.clone()),
            ("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1".into()),
            ("RABBITMQ_NODE_PORT", amqp.to_string()),
            ("RABBITMQ_DIST_PORT", dist.to_string()),
            ("RABBITMQ_CONF_ENV_FILE", d("rabbitmq-env.conf")),
            ("RABBITMQ_CONFIG_FILE", d("rabbitmq.conf")),
            ("RABBITMQ_ADVANCED_CONFIG_FILE", d("advanced.config")),
            ("RABBITMQ_ENABLED_PLUGINS_FILE", d("enabled_plugins")),
            ("RABBITMQ_MNESIA_BASE", d("mnesia")),
            ("RABBITMQ_LOG_BASE", d("log")),
            ("RABBITMQ_LOGS", d("log/rabbit.log")),
            ("RABBITMQ_PID_FILE", d("rabbit.pid")),
            ("HOME", d("home")),
            ("ERL_EPMD_PORT", epmd.to_string()),
            ("ERL_EPMD_ADDRESS", "127.0.0.1".into()),
            ("ERL_FLAGS", ERL_FLAGS.into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    /// Spawns `program` in process group `group` (0: a new group led by it), as the
    /// `rabbitmq` user when root, its output to `out` in the temp dir.
    fn spawn(
        &self,
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        group: i32,
        out: &str,
    ) -> Child {
        let mut cmd = Command::new(program);
        if let Some((uid, gid)) = self.user {
            // std drops root's supplementary groups when it changes the user.
            cmd.uid(uid).gid(gid);
        }
        let log = std::fs::File::create(self.dir.path().join(out)).expect("output file");
        let err = log.try_clone().expect("output file");
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .process_group(group);
        let mut spawned = SPAWNED.lock().unwrap_or_else(|e| e.into_inner());
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        spawned.insert(child.id() as i32);
        child
    }

    fn everything_logged(&self) -> String {
        let read = |p: &str| std::fs::read_to_string(self.dir.path().join(p)).unwrap_or_default();
        format!(
            "--- start script:\n{}\n--- node log:\n{}\n--- epmd:\n{}",
            read("server.out"),
            self.log(),
            read("epmd.log")
        )
    }

    /// Kills the node's whole process tree (with the orphans of nodes this process
    /// adopted), reaps our children and those orphans, and waits (at most 5 s) until
    /// none of them is left.
    fn kill(&mut self) {
        let ours: BTreeSet<i32> = self.children.iter().map(|c| c.id() as i32).collect();
        let mut seen = BTreeSet::new();
        let end = Instant::now() + Duration::from_secs(5);
        loop {
            // Killed again until nothing new turns up: a process forked while we
            // looked is found on the next round.
            let mut roots: Vec<i32> = ours.iter().copied().collect();
            roots.extend(adopted(self.user));
            let tree = tree_of(&roots, self.group);
            let fresh: Vec<i32> = tree.difference(&seen).copied().collect();
            if self.group > 0 {
                // SAFETY: killpg only sends a signal, to the group epmd leads.
                unsafe { libc::killpg(self.group, libc::SIGKILL) };
            }
            for pid in &fresh {
                // SAFETY: kill only sends a signal, to a process of a node's tree.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            seen.extend(fresh.iter().copied());
            if fresh.is_empty() || Instant::now() > end {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        self.children.clear();
        if let Ok(mut spawned) = SPAWNED.lock() {
            spawned.retain(|p| !ours.contains(p));
        }
        for pid in seen.difference(&ours) {
            reap(*pid, end);
        }
        // Orphans that had died before (helper nodes, their epmd attempts) are zombies
        // of ours by now.
        for pid in adopted(self.user) {
            reap(pid, end);
        }
        self.group = 0;
    }
}

impl Drop for RabbitMq {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `pid`'s parent, process group and state from `/proc/PID/stat`.
fn stat(pid: i32) -> Option<(i32, i32, char)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: read after the last ')'.
    let mut rest = text.get(text.rfind(')')? + 2..)?.split(' ');
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgrp = rest.next()?.parse().ok()?;
    Some((ppid, pgrp, state))
}

/// The children of this process that are a node's orphans it adopted as a subreaper:
/// not spawned by a guard, and run by the node's user (as root) or a node's program.
fn adopted(user: Option<(u32, u32)>) -> Vec<i32> {
    let me = std::process::id() as i32;
    let spawned = SPAWNED.lock().map(|s| s.clone()).unwrap_or_default();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| !spawned.contains(pid))
        .filter(|pid| stat(*pid).is_some_and(|(ppid, _, _)| ppid == me))
        .filter(|pid| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
            let field = |name: &str| {
                status
                    .lines()
                    .find_map(|l| l.strip_prefix(name))
                    .map(|v| v.trim().to_string())
            };
            match user {
                Some((uid, _)) => {
                    field("Uid:").and_then(|u| u.split_whitespace().next()?.parse::<u32>().ok())
                        == Some(uid)
                }
                None => field("Name:").is_some_and(|n| NODE_PROGRAMS.contains(&n.as_str())),
            }
        })
        .collect()
}

/// Every live process in group `group` or descended from `roots` (by parent links, so
/// also those that made a session of their own), zombies left out.
fn tree_of(roots: &[i32], group: i32) -> BTreeSet<i32> {
    let procs: Vec<(i32, i32, i32, char)> = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
                .filter_map(|pid| stat(pid).map(|(ppid, pgrp, st)| (pid, ppid, pgrp, st)))
                .collect()
        })
        .unwrap_or_default();
    let mut tree: BTreeSet<i32> = roots.iter().copied().collect();
    tree.extend(
        procs
            .iter()
            .filter(|p| group > 0 && p.2 == group)
            .map(|p| p.0),
    );
    loop {
        let before = tree.len();
        for p in &procs {
            if tree.contains(&p.1) {
                tree.insert(p.0);
            }
        }
        if tree.len() == before {
            break;
        }
    }
    tree.retain(|pid| procs.iter().any(|p| p.0 == *pid && p.3 != 'Z'));
    tree
}

/// Waits for a killed process of the node: reaped here when it became our child
/// (adopted as a subreaper), else until it is gone or a zombie of another parent.
fn reap(pid: i32, end: Instant) {
    loop {
        let mut status = 0;
        // SAFETY: waitpid on one pid this guard killed; WNOHANG never blocks.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        let gone = r == pid || (r < 0 && stat(pid).is_none_or(|(_, _, st)| st == 'Z'));
        if gone || Instant::now() > end {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Makes this process a child subreaper (Linux): the node's orphans (its processes
/// whose parent died first) become its children, so `reap` can collect them.
fn adopt_orphans() {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER only sets a flag of this process.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// The uid and gid of `name`.
fn user_ids(name: &str) -> (u32, u32) {
    let cname = std::ffi::CString::new(name).expect("a user name");
    // SAFETY: getpwnam reads the user database; the entry is copied out at once.
    let pw = unsafe { libc::getpwnam(cname.as_ptr()) };
    assert!(
        !pw.is_null(),
        "there is no user {name}: Debian's rabbitmq-server package creates it (scripts/setup)"
    );
    // SAFETY: pw is a valid entry returned just above.
    unsafe { ((*pw).pw_uid, (*pw).pw_gid) }
}

/// As root: the node's user owns the temp dir and can reach it.
fn hand_to_user(dir: &Path, (uid, gid): (u32, u32)) {
    for entry in walk(dir) {
        std::os::unix::fs::chown(&entry, Some(uid), Some(gid))
            .unwrap_or_else(|e| panic!("chown {USER} {}: {e}", entry.display()));
    }
    let reachable = Command::new("test")
        .arg("-w")
        .arg(dir)
        .uid(uid)
        .gid(gid)
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        reachable,
        "the {USER} user cannot write {}: every directory above it must be searchable by \
         others (point TMPDIR at such a directory)",
        dir.display()
    );
}

/// `dir` and everything in it.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Polls `ready` until it holds; false if a child exited or `limit` passed.
fn wait_until(children: &mut [Child], limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if children
            .iter_mut()
            .any(|c| matches!(c.try_wait(), Ok(Some(_))))
        {
            return false;
        }
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// True when the broker answers the AMQP 0-9-1 protocol header with Connection.Start
/// (a method frame on channel 0, class 10, method 10): the node has booted.
fn amqp_handshake(port: u16) -> bool {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let Ok(mut s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    if s.write_all(b"AMQP\x00\x00\x09\x01").is_err() {
        return false;
    }
    // Frame header (type, channel, size) and the method's class and method ids.
    let mut head = [0u8; 11];
    s.read_exact(&mut head).is_ok()
        && head[0] == 1
        && head[1..3] == [0, 0]
        && head[7..9] == 10u16.to_be_bytes()
        && head[9..11] == 10u16.to_be_bytes()
}

/// Three distinct free loopback ports: AMQP, Erlang distribution, epmd.
fn free_ports() -> [u16; 3] {
    // Held open together, so the three differ.
    let listeners: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free loopback port"))
        .collect();
    let port = |i: usize| listeners[i].local_addr().expect("local address").port();
    [port(0), port(1), port(2)]
}
