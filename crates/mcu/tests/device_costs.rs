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
    let entry = table
        .entry(algorithm, operation)
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

/// Study 004's raw RSA: one exponentiation per row, at the modulus size.
#[test]
fn rsa_1024_private_on_cortex_m0plus_matches_the_shipped_table() {
    resimulate(Target::CortexM0plus, "rsa-1024", "decrypt");
}

/// EDHOC run whole on the device (both parties, RFC 9529's keys): the
/// initiator reading message_2, its two P-256 ECDHs; the ATmega1284P's row
/// says why it has no build.
#[test]
fn edhoc_on_riscv32imc_matches_the_shipped_table_and_the_avr_says_why_not() {
    resimulate(Target::Riscv32imc, "edhoc-m3-s2", "m2-read");
    let avr = table(Target::Atmega1284p);
    let why = avr.failure("edhoc-m3-s2").expect("a failure row");
    assert!(why.contains("16-bit target"), "{why}");
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
