//! The Cortex-M cycle model against a hand count. The firmware's
//! calibration loop (firmware/src/platform/arm.rs, `calibration_loop`) is
//! priced by hand from the ARM tables in data/cycle-timings/cortex-m.toml;
//! the estimate the runner makes from QEMU's execution log must equal that
//! count exactly at all three points (low, estimate, high). A class priced
//! wrong in the table, an instruction put in the wrong class, a branch
//! missed as taken or a region boundary off by one instruction fails it.
//! These need qemu-system-arm (scripts/setup); a missing piece fails the
//! test with the install command, as in device.rs.

use ciphermeter_mcu as mcu;
use mcu::cycles::{Class, Estimate, estimate::estimate, timing};
use mcu::{Target, compile, emulate, parse, results, toolchain};

/// (target, low, estimate, high): the hand count in the firmware's comment.
const HAND_COUNT: [(Target, u64, u64, u64); 4] = [
    (Target::CortexM0plus, 122, 122, 159),
    (Target::CortexM3, 102, 120, 214),
    (Target::CortexM33, 80, 80, 222),
    (Target::CortexM4, 102, 102, 288),
];

fn calibration_loop(target: Target) -> (mcu::cycles::Mix, Estimate) {
    if let Err(e) = toolchain::require(target) {
        panic!("cycle-model tests need the {target} toolchain (run scripts/setup): {e}");
    }
    let elf = compile::firmware(target, "identity", &[16]).expect("identity builds");
    let (out, mixes) = emulate::run_traced(target, &elf).expect("qemu runs");
    let run = parse::parse(&out.stdout).expect("the firmware's stream parses");
    let mixes = mixes.expect("the execution log is complete");
    let nets = results::net_mixes(&run, &mixes).expect("one mix per region");
    let (_, mix) = nets
        .into_iter()
        .find(|(name, _)| name == "calibrate-loop")
        .expect("the Cortex-M firmware measures its calibration loop");
    // The log agrees with the timer: 75 instructions, as the 100 nops are 100.
    let exact = target.to_counter(run.calibrate_loop.unwrap())
        - target.to_counter(run.calibrate_empty.unwrap());
    assert_eq!((mix.instructions, exact), (75, 75), "{target}: {mix:?}");
    let e = estimate(&mix, timing::for_target(target).unwrap());
    (mix, e)
}

#[test]
fn the_calibration_loop_costs_the_hand_count_on_every_cortex_m() {
    for (target, low, est, high) in HAND_COUNT {
        let (mix, e) = calibration_loop(target);
        // The mix itself, class by class, as the comment lists it.
        assert_eq!(mix.count(Class::Load), 10, "{target}: {mix:?}");
        assert_eq!(mix.count(Class::LoadPipelined), 10, "{target}");
        assert_eq!(mix.count(Class::Store), 10, "{target}");
        assert_eq!(mix.count(Class::Alu), 33, "{target}");
        assert_eq!(mix.count(Class::BranchTaken), 9, "{target}");
        assert_eq!(mix.count(Class::BranchNotTaken), 1, "{target}");
        assert_eq!((mix.bytes, mix.refills), (150, 9), "{target}");
        // 32 bytes of code, from the stack: 2 flash lines, no read from flash.
        assert_eq!(
            (mix.code_lines, mix.flash_loads),
            (2, 0),
            "{target}: {mix:?}"
        );
        assert_eq!(
            e,
            Estimate {
                low,
                estimate: est,
                high
            },
            "{target}: {mix:?}"
        );
    }
}

/// The rows of a real run carry the estimate, its range brackets it, and
/// time is taken from it.
#[test]
fn cortex_m_rows_carry_a_bracketed_estimate_timed_by_it() {
    let target = Target::CortexM0plus;
    if let Err(e) = toolchain::require(target) {
        panic!("needs the {target} toolchain (run scripts/setup): {e}");
    }
    let req = mcu::Request {
        target,
        algorithms: vec!["aes-128-ecb".into()],
        sizes: vec![16],
    };
    let rows = mcu::measure(&req, |_| {}).expect("measure");
    let enc = rows
        .iter()
        .find(|r| r.operation == "encrypt")
        .expect("an encrypt row");
    let (lo, est, hi) = (
        enc.cycles_low.unwrap(),
        enc.cycles_estimate.unwrap(),
        enc.cycles_high.unwrap(),
    );
    assert!(lo <= est && est <= hi && lo >= enc.cycles, "{enc:?}");
    assert_eq!(enc.time_basis, "cycles_estimate");
    assert_eq!(enc.time_us, est as f64 * 1e6 / target.clock_hz() as f64);
    let table = results::table(&rows);
    assert!(table.contains(&format!("{est} [{lo}-{hi}]")), "{table}");
}
