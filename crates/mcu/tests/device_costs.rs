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

/// Re-simulates `algorithm` at the table's sizes and requires every count of
/// `operation` to equal the table's.
fn resimulate(target: Target, algorithm: &str, operation: &str) {
    if let Err(e) = toolchain::require(target) {
        panic!("device tests need the {target} toolchain (run scripts/setup): {e}");
    }
    let table = table(target);
    // `sha512@monocypher`: another implementation's row.
    let (plain, implementation) = mcu::implementation::split_build_id(algorithm);
    let entry = table
        .entry_of(plain, implementation, operation)
        .unwrap_or_else(|| panic!("{algorithm} {operation} is not in the {target} table"));
    let mut sizes: Vec<usize> = entry.points.iter().map(|p| p.0).collect();
    // The message and sealing builds measure their chain readings whatever the sizes say.
    if algorithm.starts_with("message-") || algorithm.contains(':') {
        sizes = vec![16];
    }
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

#[test]
fn aes_256_gcm_seal_on_the_atmega1284p_matches_the_shipped_table() {
    resimulate(Target::Atmega1284p, "message-aes-256-gcm", "seal");
}

#[test]
fn chacha20_poly1305_on_cortex_m0plus_matches_the_shipped_table() {
    resimulate(Target::CortexM0plus, "chacha20-poly1305", "encrypt");
}

/// riscv32imc's table (the ESP32-C3's ISA): exact `minstret` instructions.
#[test]
fn chacha20_poly1305_on_riscv32imc_matches_the_shipped_table() {
    resimulate(Target::Riscv32imc, "chacha20-poly1305", "encrypt");
}

/// The sealing core's whole path (serialize, seal, wrap), one scheme per
/// pattern, in each container, on two instruction sets.
#[test]
fn the_cores_seal_path_matches_the_shipped_tables() {
    for container in ["seal-json", "seal-binary", "seal-cose"] {
        resimulate(Target::CortexM4, "aead:aes-128-ccm", container);
    }
    resimulate(
        Target::Atmega1284p,
        "etm:aes-128-ctr+hmac-sha256",
        "seal-cose",
    );
    resimulate(Target::CortexM0plus, "hmac:hmac-sha256", "seal-binary");
}

/// The C libraries compiled for the core (`mcu --impl`): Monocypher's
/// ChaCha20-Poly1305 on the Cortex-M0+.
#[test]
fn monocypher_chacha20_poly1305_on_cortex_m0plus_matches_the_shipped_table() {
    resimulate(
        Target::CortexM0plus,
        "chacha20-poly1305@monocypher",
        "encrypt",
    );
}

/// Every implementation's rows: each algorithm an implementation has is in
/// every table, measured or failed with its reason (a C library on
/// riscv32imc, which has no C cross compiler here, says so).
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
        }
    }
}

/// Study 004's raw RSA: one exponentiation per row, at the modulus size.
#[test]
fn rsa_1024_private_on_cortex_m0plus_matches_the_shipped_table() {
    resimulate(Target::CortexM0plus, "rsa-1024", "decrypt");
}

/// EDHOC run whole on the device (both parties, RFC 9529's keys): the
/// initiator reading message_2, its two P-256 ECDHs. The ATmega1284P's rows
/// (the firmware's own P-256, 40 s of simavr) are regenerated by
/// scripts/device-costs, not here: each of its steps is in its table.
#[test]
fn edhoc_on_riscv32imc_matches_the_shipped_table_and_every_target_has_each_step() {
    resimulate(Target::Riscv32imc, "edhoc-m3-s2", "m2-read");
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

/// ML-KEM-512 (RustCrypto's ml-kem): key generation re-simulated on
/// riscv32imc; where its decapsulation's stack (about 23.7 KB on Cortex-M)
/// outgrows 16 KB of RAM, the row says it does not fit, with the sizes.
#[test]
fn ml_kem_512_matches_the_shipped_table_or_does_not_fit_with_sizes() {
    resimulate(Target::Riscv32imc, "ml-kem-512", "keygen");
    for target in [Target::Atmega1284p, Target::CortexM0plus] {
        let t = table(target);
        let why = t.failure("ml-kem-512").expect("a does-not-fit row");
        assert!(
            why.contains("does not fit") && why.contains("16384 B"),
            "{why}"
        );
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
