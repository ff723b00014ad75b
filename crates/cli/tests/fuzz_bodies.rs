//! CI's fuzz smoke: every fuzz target's body (`fuzz/src/lib.rs`, the code libFuzzer
//! runs through `scripts/fuzz`) on its seed corpus and on deterministic mutations of
//! each seed, in this test build. A panic anywhere fails the test with the input.
//!
//! libFuzzer's coverage-guided runs are a sweep (`scripts/fuzz`: a million executions
//! a target, with ASan); what a few seconds of them found in CI was a panic on
//! something near a seed, which this finds without a second, instrumented build of
//! the workspace (about 200 s of CI's time).

#[path = "../../../fuzz/src/lib.rs"]
mod fuzz;

use std::path::{Path, PathBuf};

use rand::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Mutations per target, spread over its seeds.
const MUTATIONS: usize = 4000;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = fuzz_dir().join("corpus-seed").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// A seeded generator: the same mutations on every run, so a failure reproduces.
struct Rng(ChaCha8Rng);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(ChaCha8Rng::seed_from_u64(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four of libFuzzer's simplest mutations: flip a bit, set a byte to an edge
/// value or a random one, cut a range out, insert random bytes, repeat a range,
/// truncate.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(m.len());
        match rng.below(6) {
            0 if !m.is_empty() => m[at] ^= 1 << rng.below(8),
            1 if !m.is_empty() => m[at] = [0, 0x7f, 0x80, 0xff, rng.next() as u8][rng.below(5)],
            2 if !m.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(m.len());
                m.drain(at..end);
            }
            3 => {
                let bytes: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                m.splice(at..at, bytes);
            }
            4 if !m.is_empty() => {
                let end = (at + 1 + rng.below(32)).min(m.len());
                let copy = m[at..end].to_vec();
                m.splice(end..end, copy);
            }
            _ => m.truncate(at),
        }
    }
    m
}

thread_local! {
    /// The target and input a body is running on, for the panic hook.
    static RUNNING: std::cell::RefCell<Option<(String, Vec<u8>)>> =
        const { std::cell::RefCell::new(None) };
}

fn run(name: &str, body: fuzz::Body, input: &[u8]) {
    // A panic inside an `extern "C"` body (the C library's) cannot unwind: the
    // process aborts and libtest's captured output is lost. The hook runs
    // before that and writes the input to the real stderr.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = RUNNING.try_with(|r| {
                if let Ok(r) = r.try_borrow()
                    && let Some((name, input)) = r.as_ref()
                {
                    use std::io::Write as _;
                    let _ = writeln!(
                        std::io::stderr(),
                        "fuzz target {name} panicked on {}",
                        hex::encode(input)
                    );
                }
            });
            previous(info);
        }));
    });
    RUNNING.with(|r| *r.borrow_mut() = Some((name.to_string(), input.to_vec())));
    let outcome = std::panic::catch_unwind(|| body(input));
    RUNNING.with(|r| *r.borrow_mut() = None);
    if outcome.is_err() {
        panic!("fuzz target {name} panicked on {}", hex::encode(input));
    }
}

#[test]
fn every_target_survives_its_seeds_and_their_mutations() {
    let mut on_disk: Vec<String> = std::fs::read_dir(fuzz_dir().join("fuzz_targets"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    on_disk.sort();
    let bodies: Vec<&str> = fuzz::TARGETS.iter().map(|(n, _)| *n).collect();
    assert_eq!(on_disk, bodies, "every fuzz target has its body in TARGETS");
    for (name, body) in fuzz::TARGETS {
        let seeds = seeds(name);
        assert!(!seeds.is_empty(), "{name} has no seeds in fuzz/corpus-seed");
        // Wrapping: a name of 13 letters or more overflows u64 (the shorter
        // ones keep the seeds they always had).
        let seed = name
            .bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
        let mut rng = Rng::new(seed);
        for seed in &seeds {
            run(name, body, seed);
        }
        for i in 0..MUTATIONS {
            let input = mutate(&seeds[i % seeds.len()], &mut rng);
            run(name, body, &input);
        }
    }
}

#[test]
fn mutations_change_inputs_and_repeat_by_seed() {
    let seed = b"{\"a\": [1, 2, 3]}";
    let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    let first: Vec<_> = (0..50).map(|_| mutate(seed, &mut a)).collect();
    let again: Vec<_> = (0..50).map(|_| mutate(seed, &mut b)).collect();
    assert_eq!(first, again);
    assert!(first.iter().filter(|m| m.as_slice() != seed).count() > 40);
}
