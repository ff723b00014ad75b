//! The shipped device cost tables (data/device-costs/) hold exactly what the
//! simulators count today: a few entries are re-simulated and compared. A
//! firmware, primitives or toolchain change that moves a count fails here
//! with the command that regenerates the tables.

use ciphermeter_mcu as mcu;
use mcu::cost_table::{CostTable, shipped};
use mcu::{Request, Target, toolchain};

fn table(target: Target) -> CostTable {
    shipped(target).unwrap().unwrap_or_else(|| {
        panic!(
            "no shipped device cost table for {target}: run scripts/device-costs {}",
            target.name()
        )
    })
}

/// A table made with another rustc or C compiler is not compared as if this
/// machine had made it: that is said, not "the counts moved".
fn same_toolchains(target: Target, table: &CostTable) {
    let other = toolchain::differences(&table.environment, &toolchain::versions(target));
    assert!(
        other.is_empty(),
        "data/device-costs/{}.json cannot be checked here: {}",
        target.name(),
        other.join("; ")
    );
}

#[test]
fn every_table_was_made_with_this_machines_toolchains() {
    for target in Target::ALL {
        same_toolchains(target, &table(target));
    }
}

/// Re-simulates `algorithm` at the table's sizes and requires every count of
/// `operation` to equal the table's.
fn resimulate(target: Target, algorithm: &str, operation: &str) {
    if let Err(e) = toolchain::require(target) {
        panic!("device tests need the {target} toolchain (run scripts/setup): {e}");
    }
    let table = table(target);
    same_toolchains(target, &table);
    // `sha512@monocypher`: another implementation's row.
    let (plain, implementation) = mcu::implementation::split_build_id(algorithm);
    let entry = table
        .entry_of(plain, implementation, operation)
        .unwrap_or_else(|| panic!("{algorithm} {operation} is not in the {target} table"));
    // The counts are compared, not the cycle estimate: no execution log.
    mcu::cycles::counts_only();
    // The build as scripts/device-costs made it, at its sizes: they are
    // compiled into the firmware (its buffers), which can move a count by an
    // instruction or two, a key setup's too. (A sealing build measures its
    // chain readings whatever the sizes say.)
    let sizes = vec![16, 64, 256, 1024];
    let rows = mcu::measure(
        &Request {
            target,
            algorithms: vec![algorithm.into()],
            sizes,
        },
        |_| {},
    )
    .unwrap();
    let mut now: Vec<(usize, u64)> = rows
        .iter()
        .filter(|r| r.operation == operation && r.error.is_none())
        .map(|r| (r.size_bytes, r.cycles))
        .collect();
    now.sort();
    assert_eq!(
        now,
        entry.points,
        "{algorithm} {operation} on {target} no longer matches data/device-costs/{}.json \
         (table firmware {}, {}): the firmware or the toolchain changed; regenerate with `{}`",
        target.name(),
        table.firmware_revision,
        table.environment["rustc"],
        table.regenerate
    );
}

/// The whole seal path of every backend of the sealing core on every target
/// (serialize, seal, wrap), re-simulated against the shipped tables. Each
/// run's known answer is the host's bytes for the same reading, key and
/// nonce in every container (mcu `seal_check`: RustCrypto's, which
/// crates/seal/tests/backends.rs holds every backend to on the host), and a
/// run whose bytes differ has no counts (`results::rows`): so this also
/// proves that every backend seals the same bytes on every device. Each
/// pattern (aead, etm, hmac) and container meets every target.
const SEAL_PATHS: &[(Target, &str, &str)] = &[
    // The core's AES-GCM on AVR (the GHASH-key bug of f339a9e).
    (Target::Atmega1284p, "aead:aes-128-gcm", "seal-binary"),
    // Our byte-oriented AES in the core.
    (
        Target::Atmega1284p,
        "aead:aes-128-ccm@ciphermeter",
        "seal-binary",
    ),
    // Mbed TLS's GCM on AVR: its cipher layer's heap (the 16-bit allocator hang).
    (Target::Atmega1284p, "aead:aes-128-gcm@mbedtls", "seal-json"),
    // Monocypher's SHA-512 on AVR: 64-bit libgcc helpers (the register-convention clash).
    (
        Target::Atmega1284p,
        "hmac:hmac-sha512@monocypher",
        "seal-cose",
    ),
    (Target::CortexM0plus, "hmac:hmac-sha256", "seal-binary"),
    // An OSCORE build: the reading as a protected CoAP POST (OSCORE's
    // 8-byte-tag CCM, the `ccm` crate's), its bytes the host's.
    (
        Target::CortexM0plus,
        "oscore:aes-ccm-16-64-128",
        "seal-oscore",
    ),
    // Our GCM (its own GHASH) through the sealing core.
    (
        Target::CortexM0plus,
        "aead:aes-128-gcm@ciphermeter",
        "seal-binary",
    ),
    (
        Target::CortexM0plus,
        "aead:aes-128-ccm@mbedtls",
        "seal-cose",
    ),
    (
        Target::CortexM0plus,
        "hmac:hmac-sha512@monocypher",
        "seal-json",
    ),
    (Target::CortexM3, "etm:aes-128-ctr+hmac-sha256", "seal-json"),
    (
        Target::CortexM3,
        "hmac:cmac-aes-128@ciphermeter",
        "seal-binary",
    ),
    // Mbed TLS's AES under our CTR, HMAC over its SHA-256.
    (
        Target::CortexM3,
        "etm:aes-128-ctr+hmac-sha256@mbedtls",
        "seal-binary",
    ),
    (
        Target::CortexM3,
        "hmac:hmac-sha512@monocypher",
        "seal-binary",
    ),
    (Target::CortexM4, "aead:aes-128-ccm", "seal-cose"),
    (
        Target::CortexM4,
        "aead:chacha20-poly1305@ciphermeter",
        "seal-json",
    ),
    (
        Target::CortexM4,
        "aead:chacha20-poly1305@mbedtls",
        "seal-binary",
    ),
    (
        Target::CortexM4,
        "aead:chacha20-poly1305@monocypher",
        "seal-cose",
    ),
    // The Cortex-M33 (ARMv8-M Mainline, QEMU mps2-an505 in its Secure state).
    (Target::CortexM33, "aead:aes-128-gcm", "seal-binary"),
    (
        Target::CortexM33,
        "aead:ascon-aead128@ciphermeter",
        "seal-cose",
    ),
    (Target::CortexM33, "hmac:hmac-sha256@mbedtls", "seal-json"),
    (
        Target::CortexM33,
        "aead:chacha20-poly1305@monocypher",
        "seal-binary",
    ),
    (Target::Riscv32imc, "aead:ascon-aead128", "seal-binary"),
    (
        Target::Riscv32imc,
        "aead:ascon-aead128@ciphermeter",
        "seal-json",
    ),
    (
        Target::Riscv32imc,
        "hmac:hmac-sha512@mbedtls",
        "seal-binary",
    ),
    (
        Target::Riscv32imc,
        "aead:chacha20-poly1305@monocypher",
        "seal-json",
    ),
    // The ESP32-C6's RV32IMAC: each implementation once, in the containers
    // riscv32imc's paths leave out.
    (Target::Riscv32imac, "aead:aes-128-ccm", "seal-cose"),
    (
        Target::Riscv32imac,
        "aead:chacha20-poly1305@ciphermeter",
        "seal-binary",
    ),
    (Target::Riscv32imac, "aead:aes-128-gcm@mbedtls", "seal-json"),
    (
        Target::Riscv32imac,
        "hmac:hmac-sha512@monocypher",
        "seal-cose",
    ),
];

#[test]
fn every_backend_seals_the_hosts_bytes_on_every_target_at_the_tables_counts() {
    for &(target, build, operation) in SEAL_PATHS {
        resimulate(target, build, operation);
    }
}

#[test]
fn the_seal_paths_cover_every_target_and_backend() {
    for target in Target::ALL {
        // A host-only backend (AWS-LC) has no device build to measure.
        for backend in seal::Backend::ALL.into_iter().filter(|b| !b.host_only()) {
            assert!(
                SEAL_PATHS.iter().any(|&(t, build, _)| t == target
                    && mcu::implementation::split_build_id(build)
                        .1
                        .sealing_backend()
                        == Some(backend)),
                "{target} never seals with {}",
                backend.name()
            );
        }
    }
}

/// What CI re-simulates of the primitives on every run, beside
/// [`SEAL_PATHS`] (which cover every (target, implementation) pair and the
/// C libraries' AVR bug paths): each on a path that once hid a bug or that
/// no other check runs, against the shipped tables. (The Cortex-M0+'s four implementations of ChaCha20-Poly1305 and
/// riscv32imc's C libraries are re-simulated by
/// crates/cli/tests/implementations_cli.rs.)
const SAMPLE: &[(Target, &str, &str)] = &[
    // Study 003's message build.
    (Target::Atmega1284p, "message-aes-256-gcm", "seal"),
    // `compact-tables`, which every AVR seal build of an in-project cipher turns on.
    (
        Target::Atmega1284p,
        "etm:clefia-128-ctr+hmac-sha256",
        "seal-cose",
    ),
    // Our AVR primitives: byte-lane Keccak, 8-bit Poly1305.
    (Target::Atmega1284p, "sha3-256@ciphermeter", "hash"),
    (
        Target::Atmega1284p,
        "chacha20-poly1305@ciphermeter",
        "encrypt",
    ),
    (Target::CortexM0plus, "rsa-1024", "decrypt"),
    // The Cortex-M4's assembly: our own Curve25519 (the X25519 ladder; Ed25519's
    // comb lookup and inversion), salty's field code, Emill's P-256 (the C and
    // assembly its -sys crate builds with arm-none-eabi-gcc).
    (Target::CortexM4, "x25519@ciphermeter", "shared"),
    (Target::CortexM4, "ed25519@ciphermeter", "sign"),
    (Target::CortexM4, "x25519@salty", "shared"),
    (Target::CortexM4, "p256-ecdh@p256-cortex-m4", "shared"),
    // The same assembly on the Cortex-M33 (target-cpu=cortex-m33 turns DSP on).
    (Target::CortexM33, "x25519@salty", "shared"),
    (Target::CortexM33, "p256-ecdh@p256-cortex-m4", "shared"),
    (Target::Riscv32imc, "chacha20-poly1305", "encrypt"),
    (Target::Riscv32imc, "sha3-256@ciphermeter", "hash"),
    // P-256 (Mbed TLS's) and EDHOC whole, both parties' P-256 ECDHs.
    (Target::Riscv32imc, "p256-ecdh@mbedtls", "shared"),
    (Target::Riscv32imc, "edhoc-m3-s2", "m2-read"),
    (Target::Riscv32imc, "ml-kem-512", "keygen"),
];

#[test]
fn every_target_and_implementation_on_the_paths_that_hid_bugs() {
    for &(target, build, operation) in SAMPLE {
        resimulate(target, build, operation);
    }
}

#[test]
fn the_sample_covers_every_target_and_implementation() {
    for target in Target::ALL {
        for imp in mcu::Implementation::on(target) {
            assert!(
                SAMPLE
                    .iter()
                    .chain(SEAL_PATHS)
                    .any(|&(t, build, _)| t == target
                        && mcu::implementation::split_build_id(build).1 == imp),
                "{target} {imp} is never re-simulated"
            );
        }
    }
}

/// A few more entries of each table, drawn anew for every commit, so the
/// whole table is covered over time: the draw is the commit's hash (CI's
/// clean clone has one) modulo the table's measured entries of under ten
/// million counts (the slower ones are the sweep's: scripts/device-costs
/// --verify).
#[test]
fn a_sample_drawn_by_the_commit_matches_the_shipped_tables() {
    // CIPHERMETER_SAMPLE_SEED (hex) replays another commit's draw.
    let head = std::env::var("CIPHERMETER_SAMPLE_SEED")
        .ok()
        .or_else(|| {
            std::process::Command::new("git")
                .args(["rev-parse", "HEAD"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .unwrap_or_default();
    let seed = u64::from_str_radix(head.get(..12).unwrap_or("0"), 16).unwrap_or(0);
    for (i, target) in Target::ALL.into_iter().enumerate() {
        let t = table(target);
        let cheap: Vec<&mcu::cost_table::Entry> = t
            .entries
            .iter()
            .filter(|e| e.error.is_none() && e.points.iter().all(|p| p.1 < 10_000_000))
            .collect();
        let e = cheap[((seed >> i) as usize) % cheap.len()];
        let imp: mcu::Implementation = e.implementation.parse().unwrap();
        eprintln!(
            "commit {head:.12}: {target} {}@{imp} {}",
            e.algorithm, e.operation
        );
        resimulate(target, &imp.build_id(&e.algorithm), &e.operation);
    }
}

/// Every implementation's rows: each algorithm an implementation has is in
/// every table, measured or failed with its reason (the C libraries on
/// riscv32imc too, built with riscv64-unknown-elf-gcc).
#[test]
fn the_tables_cover_every_implementation_of_every_algorithm() {
    use mcu::Implementation;
    for target in Target::ALL {
        let table = table(target);
        for imp in Implementation::ALL {
            for alg in imp.offered() {
                if alg == "identity" {
                    continue;
                }
                assert!(
                    table
                        .entries
                        .iter()
                        .any(|e| e.algorithm == alg && e.implementation == imp.name()),
                    "{alg}@{imp} missing from the {target} table: run scripts/device-costs --impl {imp} {}",
                    target.name()
                );
            }
            // The whole seal path of every scheme a backend of the sealing
            // core covers, in every container (or its failure).
            for scheme in seal::safe_candidates().iter().filter(|s| imp.seals(s)) {
                for op in ["seal-json", "seal-binary", "seal-cose"] {
                    assert!(
                        table.entries.iter().any(|e| e.algorithm == *scheme
                            && e.implementation == imp.name()
                            && (e.operation == op || e.error.is_some())),
                        "{scheme}@{imp} {op} missing from the {target} table: run scripts/device-costs --impl {imp} {}",
                        target.name()
                    );
                }
            }
        }
    }
}

/// EDHOC run whole on the device (both parties, RFC 9529's keys): every step
/// in every table (riscv32imc's initiator reading message_2 is re-simulated
/// in the sample; the ATmega1284P's, the firmware's own P-256, 40 s of
/// simavr, by scripts/device-costs --verify).
#[test]
fn every_target_has_each_edhoc_step() {
    for target in Target::ALL {
        let t = table(target);
        for n in 1..=4 {
            for side in ["write", "read"] {
                let op = format!("m{n}-{side}");
                assert!(
                    t.entry("edhoc-m3-s2", &op).is_some(),
                    "edhoc-m3-s2 {op} is not in the {target} table"
                );
            }
        }
    }
}

/// ML-KEM-512 (RustCrypto's ml-kem; riscv32imc's key generation is in the
/// sample): where its decapsulation's stack (about 23.7 KB on the Cortex-M4,
/// more on the M0+) outgrows the ATmega1284P's 16 KB and the M0+'s 32 KB of
/// RAM, the row says it does not fit, with the sizes.
#[test]
fn ml_kem_512_does_not_fit_small_ram_with_sizes() {
    for (target, ram) in [
        (Target::Atmega1284p, "16384 B"),
        (Target::CortexM0plus, "32768 B"),
    ] {
        let t = table(target);
        let why = t.failure("ml-kem-512").expect("a does-not-fit row");
        assert!(why.contains("does not fit") && why.contains(ram), "{why}");
    }
    let m4 = table(Target::CortexM4);
    for op in ["keygen", "encapsulate", "decapsulate"] {
        assert!(m4.entry("ml-kem-512", op).is_some(), "{op}");
    }
}

/// Every table covers every firmware algorithm: measured, or failed with its reason.
#[test]
fn the_tables_cover_every_firmware_algorithm() {
    for target in Target::ALL {
        let table = table(target);
        assert_eq!(table.target, target);
        // `identity` is the baseline every code size is counted over, not a row.
        for alg in mcu::algorithms::ALL.iter().filter(|a| a.id != "identity") {
            assert!(
                table.entries.iter().any(|e| e.algorithm == alg.id),
                "{} missing from the {target} table: run {}",
                alg.id,
                table.regenerate
            );
        }
        // And every scheme a device may be told to use, in every container.
        for scheme in seal::safe_candidates() {
            let covered = |op: &str| {
                table
                    .entries
                    .iter()
                    .any(|e| e.algorithm == scheme && (e.operation == op || e.error.is_some()))
            };
            for op in ["seal-json", "seal-binary", "seal-cose"] {
                assert!(
                    covered(op),
                    "{scheme} {op} missing from the {target} table: run {}",
                    table.regenerate
                );
            }
        }
        // A measured entry has counts and a line; interpolation gives back
        // every measured count exactly.
        for e in table.entries.iter().filter(|e| e.error.is_none()) {
            assert!(e.fit.is_some(), "{} {}", e.algorithm, e.operation);
            for &(bytes, count) in &e.points {
                assert_eq!(e.count_at(bytes), Some(count as f64), "{}", e.algorithm);
            }
        }
    }
}
