//! Interop with an independent SCHC implementation: microschc 0.22.0 (PyPI;
//! scripts/setup installs it), reading the same default rule file itself
//! (`tests/python/microschc_peer.py`). On random OSCORE readings and 2.04
//! answers, as the device and the gateway send them, and on the readings'
//! plaintexts (RFC 8824 §7.2's inner compression), each side's compressed
//! bytes are the other's, and each decompresses what the other compressed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use ciphermeter_schc::rules_file::default_rules;
use ciphermeter_schc::{Direction, compress, decompress, inner, oscore};
use seal::host::oscore::{OscoreKey, changed_reply, open_request, seal_request};
use seal::oscore::context::Alg;
use seal::oscore::replay::ReplayWindow;

const MESSAGES: usize = 120;

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

struct Peer {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
}

impl Peer {
    fn start() -> Peer {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let ready = Command::new("python3")
            .args(["-c", "import microschc"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            ready,
            "python3 with microschc 0.22.0 is needed: scripts/setup installs it"
        );
        let mut child = Command::new("python3")
            .arg(dir.join("tests/python/microschc_peer.py"))
            .arg(dir.join("../../data/schc/default-rules.json"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Peer { child, out }
    }

    fn ask(&mut self, op: &str, way: Direction, bytes: &[u8]) -> Vec<u8> {
        let way_name = if way == Direction::Up { "up" } else { "down" };
        let line = format!(
            "{{\"op\":\"{op}\",\"way\":\"{way_name}\",\"hex\":\"{}\"}}\n",
            hex(bytes)
        );
        self.child
            .stdin
            .as_mut()
            .unwrap()
            .write_all(line.as_bytes())
            .unwrap();
        let mut answer = String::new();
        self.out.read_line(&mut answer).unwrap();
        let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
        match v["hex"].as_str() {
            Some(h) => unhex(h),
            None => panic!("microschc could not {op} {}: {}", hex(bytes), v["error"]),
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn microschc_and_ciphermeter_compress_alike_and_decompress_each_other() {
    let rules = default_rules().unwrap();
    let mut peer = Peer::start();
    let (device, gateway) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut by_rule = std::collections::BTreeMap::new();
    let mut by_inner_rule = std::collections::BTreeMap::new();
    for i in 0..MESSAGES {
        // Sequence numbers of one, two and three bytes; readings of 1 to 60 bytes.
        let sequence = next() % [256, 65_536, 1 << 24][i % 3];
        let reading: Vec<u8> = (0..1 + next() % 60)
            .map(|_| b'0' + (next() % 10) as u8)
            .collect();
        // Inside OSCORE: the plaintext of a JSON, octet or CBOR reading, now
        // and then to a path no inner rule describes (rule 22).
        let format = [50, 42, 60][(next() % 3) as usize];
        let path = if next() % 8 == 0 {
            "elsewhere"
        } else {
            "readings"
        };
        let plaintext = oscore::reading_plaintext(&reading, path, format).unwrap();
        let ours = inner::compress(&rules, &plaintext, Direction::Up).unwrap();
        *by_inner_rule
            .entry(ours.rule_id.to_uint().unwrap())
            .or_insert(0) += 1;
        let theirs = peer.ask("compress-inner", Direction::Up, &plaintext);
        assert_eq!(hex(&theirs), hex(&ours.to_bytes()), "{}", hex(&plaintext));
        let back = peer.ask("decompress-inner", Direction::Up, &ours.to_bytes());
        assert_eq!(hex(&back), hex(&plaintext));
        let back = inner::decompress(&rules, &theirs, Direction::Up).unwrap();
        assert_eq!(hex(&back), hex(&plaintext));
        let request = seal_request(&device, sequence, &reading, "readings", 50).unwrap();
        // Random sequence numbers, so a window of their own: this is no replay test.
        let opened = open_request(&gateway, &mut ReplayWindow::new(), &request.bytes).unwrap();
        let answer = changed_reply(&gateway, &opened, (next() % 512) as u16).unwrap();
        for (message, way) in [(request.bytes, Direction::Up), (answer, Direction::Down)] {
            let ours = compress(&rules, &message, way).unwrap();
            *by_rule.entry(ours.rule_id.to_uint().unwrap()).or_insert(0) += 1;
            let theirs = peer.ask("compress", way, &message);
            assert_eq!(
                hex(&theirs),
                hex(&ours.to_bytes()),
                "{way:?} {}",
                hex(&message)
            );
            assert_eq!(
                hex(&peer.ask("decompress", way, &ours.to_bytes())),
                hex(&message)
            );
            assert_eq!(
                hex(&decompress(&rules, &theirs, way).unwrap()),
                hex(&message)
            );
        }
    }
    // Every rule of the set took part.
    assert_eq!(
        by_rule.keys().copied().collect::<Vec<_>>(),
        [22, 101, 102, 103],
        "{by_rule:?}"
    );
    assert_eq!(
        by_inner_rule.keys().copied().collect::<Vec<_>>(),
        [22, 110, 111, 112],
        "{by_inner_rule:?}"
    );
}
