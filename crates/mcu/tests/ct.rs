//! The constant-time check catches each planted leak and names its function,
//! and passes each constant-time twin (firmware/src/ct/plants.rs), on every
//! target, as far as that target's model sees (crates/mcu `ct::model`).
//! Needs the toolchain scripts/setup installs.

use ciphermeter_mcu as mcu;
use mcu::Target;
use mcu::ct::compare::Difference;
use mcu::ct::{self, PLANTED, Report, Verdict};

/// A fixed seed: the same secrets every run of the test.
const SEED: u64 = 0x5eed_0123_4567_89ab;

/// What the check must find in a planted leak on a target.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// A leak of this kind, in the planted function.
    Leak(Difference),
    /// No leak under the model, and a warning in the planted function
    /// (a secret data address on a core without a cache).
    Warning,
    /// Nothing: the plant is constant time on this core (a long multiply
    /// whose time is fixed everywhere but on the Cortex-M3).
    Clean,
}

use Difference::{Branch, ConditionalExecution, DataAddress, OperandLatency};
use Expect::{Clean, Leak, Warning};

fn plants(target: Target) -> Report {
    if let Err(e) = mcu::toolchain::require(target) {
        panic!("ct tests need the {target} toolchain (run scripts/setup): {e}");
    }
    let report = ct::check(target, ct::PLANTS, SEED).expect("check");
    assert_eq!(report.reason, None, "{}", ct::table(&report));
    report
}

/// `expect` in PLANTED's order: branch, table, compare, division, long
/// multiply, condition.
fn holds(target: Target, expect: [Expect; 6]) {
    let report = plants(target);
    let text = ct::table(&report);
    let op = |name: &str| {
        report
            .operations
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    for ((leak, twin), expect) in PLANTED.into_iter().zip(expect) {
        // The planted function: the region's name without `ct-`, as Rust spells it.
        let function = leak.trim_start_matches("ct-").replace('-', "_");
        let got = op(leak);
        match expect {
            Leak(kind) => {
                assert_eq!(got.verdict, Verdict::Leaks, "{leak} on {target}:\n{text}");
                let place = got.leak.as_ref().unwrap();
                assert_eq!(place.what, kind, "{leak} on {target}:\n{text}");
                assert!(place.names(&function), "{leak} on {target} names {place:?}");
            }
            Warning => {
                assert_eq!(
                    got.verdict,
                    Verdict::ConstantTime,
                    "{leak} on {target}:\n{text}"
                );
                let [place] = &got.warnings[..] else {
                    panic!("one warning for {leak} on {target}:\n{text}");
                };
                assert_eq!(place.what, DataAddress, "{leak} on {target}:\n{text}");
                assert!(place.names(&function), "{leak} on {target} names {place:?}");
            }
            Clean => {
                assert_eq!(
                    (got.verdict, &got.warnings[..]),
                    (Verdict::ConstantTime, &[][..]),
                    "{leak} on {target}:\n{text}"
                );
            }
        }
        let twin = op(twin);
        assert_eq!(
            twin.verdict,
            Verdict::ConstantTime,
            "{} on {target}:\n{text}",
            twin.name
        );
        assert_eq!(twin.warnings, [], "{} on {target}:\n{text}", twin.name);
        assert_eq!(twin.spread[0], twin.spread[1]);
    }
    assert_eq!(report.verdict, Verdict::Leaks);
}

#[test]
fn avr_sees_branches_cycles_and_data_addresses() {
    // No cache: a secret table index is a warning. Division is compiler-builtins'
    // shift-and-subtract loop, whose branches follow the dividend. MUL takes
    // two cycles whatever its operands. No conditional execution: a division
    // under a secret condition is a branch around it.
    holds(
        Target::Atmega1284p,
        [
            Leak(Branch),
            Warning,
            Leak(Branch),
            Leak(Branch),
            Clean,
            Leak(Branch),
        ],
    );
}

#[test]
fn cortex_m0plus_sees_branches_addresses_and_its_division_helper() {
    // No data cache: a secret index is a warning. No divide instruction: the
    // compiler's helper branches on the operands. ARMv6-M has no IT blocks.
    holds(
        Target::CortexM0plus,
        [
            Leak(Branch),
            Warning,
            Leak(Branch),
            Leak(Branch),
            Clean,
            Leak(Branch),
        ],
    );
}

#[test]
fn cortex_m3_sees_udiv_and_umull_operands_and_a_skipped_udiv() {
    // UDIV ends early by its operands' leading zeros, and the M3's long
    // multiplies by their width: both read from the logged registers. A UDIV
    // an IT block skips takes one cycle on the same instruction addresses:
    // the logged flags say whether it ran.
    holds(
        Target::CortexM3,
        [
            Leak(Branch),
            Warning,
            Leak(Branch),
            Leak(OperandLatency),
            Leak(OperandLatency),
            Leak(ConditionalExecution),
        ],
    );
}

#[test]
fn cortex_m4_sees_udiv_operands_a_skipped_udiv_and_its_single_cycle_multiply() {
    holds(
        Target::CortexM4,
        [
            Leak(Branch),
            Warning,
            Leak(Branch),
            Leak(OperandLatency),
            Clean,
            Leak(ConditionalExecution),
        ],
    );
}

#[test]
fn cortex_m33_sees_udiv_operands_a_skipped_udiv_and_a_secret_address_through_its_cache() {
    // As the M4 (its long multiplies are judged fixed-time), but the parts it
    // stands for read their flash through a cache: a secret index is a leak.
    // The IT-block check: a UDIV the block skips runs as a NOP.
    holds(
        Target::CortexM33,
        [
            Leak(Branch),
            Leak(DataAddress),
            Leak(Branch),
            Leak(OperandLatency),
            Clean,
            Leak(ConditionalExecution),
        ],
    );
}

#[test]
fn riscv32imc_sees_a_secret_address_as_a_leak_through_its_cache() {
    // The ESP32-C3 reads its flash through a cache; its divider's time is
    // unpublished, so operands of another size are taken to take another time.
    holds(
        Target::Riscv32imc,
        [
            Leak(Branch),
            Leak(DataAddress),
            Leak(Branch),
            Leak(OperandLatency),
            Clean,
            Leak(Branch),
        ],
    );
}

#[test]
fn a_report_is_reproduced_by_its_seed() {
    let a = plants(Target::Atmega1284p);
    let b = ct::check(Target::Atmega1284p, ct::PLANTS, SEED).unwrap();
    assert_eq!(a.seed, format!("{SEED:016x}"));
    assert_eq!(ct::table(&a), ct::table(&b));
    let other = ct::check(Target::Atmega1284p, ct::PLANTS, SEED ^ 1).unwrap();
    // The leak's cycles follow the secrets: the same for the extremes (runs
    // 0 and 1), other for the random runs.
    let counts = |r: &Report| r.operations[0].counts.clone();
    assert_eq!(counts(&a)[..2], counts(&other)[..2]);
    assert_ne!(
        counts(&a)[2..],
        counts(&other)[2..],
        "another seed draws other secrets"
    );
}

#[test]
fn what_is_no_scheme_is_refused() {
    for bad in ["aes-128-ecb", "aead:aes-128-gcm@nobody", "aead:nonsense"] {
        let err = ct::check(Target::Atmega1284p, bad, SEED).unwrap_err();
        assert!(matches!(err, mcu::McuError::Usage(_)), "{bad}: {err}");
    }
    assert!(ct::parse_seed("0123").is_err() && ct::parse_seed("zz23456789abcdef").is_err());
    assert_eq!(ct::parse_seed("00000000000000ff").unwrap(), 255);
}

#[test]
fn our_eax_no_longer_branches_on_its_key() {
    // CMAC's subkey doubling branched on a bit of E_K(0), and the CTR counter,
    // which EAX starts at the secret OMAC_K(nonce), stopped at its first
    // carry: ct caught both (on the ESP32-C3's build among others).
    let r = ct::check(Target::Riscv32imc, "aead:aes-128-eax", SEED).unwrap();
    let text = ct::table(&r);
    assert_eq!(r.verdict, Verdict::ConstantTime, "{text}");
    assert_eq!(r.operations.len(), 2, "{text}");
    for op in &r.operations {
        assert!(op.warnings.is_empty(), "{text}");
        assert_eq!(op.spread[0], op.spread[1], "{text}");
    }
}
