//! riscv32imc (the ESP32-C3's ISA) on QEMU `virt`: real firmware, counted by
//! `minstret` under `-icount shift=0`. Needs what scripts/setup installs
//! (qemu-system-misc, the riscv32imc-unknown-none-elf target); a missing
//! piece fails the test with the install command, as in device.rs.

use ciphermeter_mcu as mcu;
use mcu::{McuResult, Request, Target, compile, emulate, fit, parse, toolchain};

const RV: Target = Target::Riscv32imc;

fn require() {
    if let Err(e) = toolchain::require(RV) {
        panic!("device tests need the {RV} toolchain (run scripts/setup): {e}");
    }
}

fn measure(algorithms: &[&str], sizes: &[usize]) -> Vec<McuResult> {
    require();
    let req = Request {
        target: RV,
        algorithms: algorithms.iter().map(|s| s.to_string()).collect(),
        sizes: sizes.to_vec(),
    };
    mcu::measure(&req, |_| {}).expect("measure")
}

/// The counter is exact: 100 `nop`s add exactly 100 instructions over the
/// empty region (one `csrr minstret` apart: 1), and a second run of the same
/// ELF counts every region the same.
#[test]
fn minstret_counts_exact_instructions_and_twice_the_same() {
    require();
    let elf = compile::firmware(RV, "identity", &[16, 64]).unwrap();
    let run = || {
        let out = emulate::run(RV, &elf, None).unwrap();
        assert!(out.exit_ok, "the test device's exit status: {}", out.stderr);
        parse::parse(&out.stdout).unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a.calibrate_empty, Some(1), "{a:?}");
    assert_eq!(a.calibrate_nop100, Some(101), "{a:?}");
    assert_eq!(
        a.calibrate_loop, None,
        "no cycle model, no calibration loop"
    );
    assert_eq!(a.ops, b.ops, "two runs differ");
    // The identity copy grows with the size (a word-by-word copy loop).
    let enc = |n| {
        a.ops
            .iter()
            .find(|o| o.operation == "encrypt" && o.size == n)
    };
    assert!(enc(64).unwrap().raw > enc(16).unwrap().raw + 48, "{a:?}");
}

/// Known answers pass on the device, rows count instructions with no cycle
/// estimate (none is published for the ESP32-C3's core), and the time is
/// the lower bound of one instruction per cycle at 160 MHz.
#[test]
fn riscv32imc_passes_known_answers_and_counts_instructions_only() {
    let algs = ["aes-128-gcm", "chacha20-poly1305", "sha256"];
    let rows = measure(&algs, &[16, 64]);
    for alg in algs {
        let mine: Vec<_> = rows.iter().filter(|r| r.algorithm == alg).collect();
        assert!(!mine.is_empty(), "no rows for {alg}");
        for r in mine {
            assert!(
                r.kat_passed && r.error.is_none(),
                "{alg} {}: {:?}",
                r.operation,
                r.error
            );
        }
    }
    for r in &rows {
        assert_eq!(r.counter, "instructions");
        assert_eq!(r.time_basis, "instructions");
        assert_eq!(
            (r.cycles_estimate, r.cycles_low, r.cycles_high),
            (None, None, None)
        );
        assert_eq!(r.clock_hz, 160_000_000);
        assert_eq!(r.time_us, r.cycles as f64 / 160.0);
        assert!(r.code_size_bytes.unwrap() > 0 && r.stack_bytes.is_some());
    }
    let gcm64 = rows
        .iter()
        .find(|r| r.algorithm == "aes-128-gcm" && r.operation == "encrypt" && r.size_bytes == 64)
        .unwrap();
    // Between the Cortex-M3 (about 21.8 k) and the AVR (about 274 k cycles).
    assert!(
        (15_000..100_000).contains(&gcm64.cycles),
        "aes-128-gcm encrypt 64 B: {}",
        gcm64.cycles
    );
}

/// Study 004's RSA fits the ESP32-C3's 400 KiB of SRAM, and its private
/// operation (tens of millions of instructions) is counted without wrapping.
#[test]
fn rsa_1024_runs_within_the_esp32_c3_memory_map() {
    let rows = measure(&["rsa-1024"], &[16]);
    assert!(
        rows.iter().all(|r| r.kat_passed && r.error.is_none()),
        "{rows:?}"
    );
    let private = rows.iter().find(|r| r.operation == "decrypt").unwrap();
    assert_eq!(private.size_bytes, 128);
    assert!(private.cycles > 1_000_000, "{private:?}");
    assert!(!rows.iter().any(|r| {
        r.error
            .as_deref()
            .is_some_and(|e| e.starts_with(fit::DOES_NOT_FIT))
    }));
}
