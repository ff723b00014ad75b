//! The RabbitMQ guard: a node that completes an AMQP handshake on its loopback port
//! while the guard lives, listens on loopback only, and leaves no process behind (node,
//! epmd, Erlang's helpers, not even a zombie) once it is dropped.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use ciphermeter_testkit::RabbitMq;

/// Every process: pid, parent, process group, command line.
fn processes() -> Vec<(i32, i32, i32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let (Ok(stat), Ok(cmdline)) = (
            std::fs::read_to_string(entry.path().join("stat")),
            std::fs::read(entry.path().join("cmdline")),
        ) else {
            continue;
        };
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let mut fields = after.split(' ').skip(1);
        let ppid = fields.next().unwrap().parse().unwrap();
        let pgrp = fields.next().unwrap().parse().unwrap();
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        out.push((pid, ppid, pgrp, cmdline));
    }
    out
}

/// The node's processes: its epmd (named by its port), the process group epmd leads
/// (the node joins it), and everything they started.
fn node_tree(epmd_port: u16) -> BTreeSet<i32> {
    let procs = processes();
    let epmd = format!("-port {epmd_port} ");
    let leader = procs
        .iter()
        .find(|p| p.3.contains(&epmd))
        .expect("the node's epmd runs")
        .0;
    let mut tree: BTreeSet<i32> = procs
        .iter()
        .filter(|p| p.0 == leader || p.2 == leader)
        .map(|p| p.0)
        .collect();
    loop {
        let n = tree.len();
        for p in &procs {
            if tree.contains(&p.1) {
                tree.insert(p.0);
            }
        }
        if tree.len() == n {
            return tree;
        }
    }
}

/// The local addresses (hex, as /proc/net/tcp{,6} print them) of every TCP socket
/// that `pids` hold in LISTEN state.
fn listening(pids: &BTreeSet<i32>) -> Vec<String> {
    let mut inodes = BTreeSet::new();
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.to_string_lossy().into_owned();
                if let Some(inode) = t.strip_prefix("socket:[").and_then(|s| s.strip_suffix(']')) {
                    inodes.insert(inode.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        for line in std::fs::read_to_string(table).unwrap().lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f[3] == "0A" && inodes.contains(f[9]) {
                out.push(f[1].to_string());
            }
        }
    }
    out
}

#[test]
fn a_node_answers_amqp_on_loopback_and_leaves_nothing_behind() {
    let Some(rabbit) = RabbitMq::start() else {
        return;
    };
    eprintln!(
        "RabbitMQ started in {:.1} s",
        rabbit.started_in().as_secs_f64()
    );
    let port = rabbit.port();
    assert_eq!(rabbit.url("q"), format!("amqp://127.0.0.1:{port}/q"));

    // The protocol header is answered with Connection.Start (class 10, method 10).
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"AMQP\x00\x00\x09\x01").unwrap();
    let mut head = [0u8; 11];
    s.read_exact(&mut head).unwrap();
    assert_eq!((head[0], &head[7..11]), (1, &[0, 10, 0, 10][..]));
    drop(s);

    // The node (beam, its helpers) and its epmd run, and listen on loopback only:
    // AMQP, Erlang distribution and epmd, nothing on 0.0.0.0 or [::].
    let node = rabbit.node().to_string();
    let epmd = rabbit.epmd_port();
    let tree = node_tree(epmd);
    assert!(tree.len() >= 3, "the node's processes: {tree:?}");
    let listeners = listening(&tree);
    assert!(listeners.len() >= 3, "{listeners:?}");
    for l in &listeners {
        let loopback =
            l.starts_with("0100007F:") || l.starts_with("00000000000000000000000001000000:");
        assert!(
            loopback,
            "listening beyond loopback: {l} (all: {listeners:?})"
        );
    }
    assert!(rabbit.log().contains(&node), "{}", rabbit.log());

    drop(rabbit);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
    assert!(TcpStream::connect(("127.0.0.1", epmd)).is_err());
    // Gone for good: not running, and not left as a zombie either.
    let left: Vec<String> = tree
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .collect();
    assert!(left.is_empty(), "still there after drop: {left:?}");
}
