//! The board build (firmware/examples/board: SysTick or Timer1, the UART,
//! the marker pin) in the simulators that have its core and peripherals,
//! read through a pseudo-terminal as a board's serial port would be: its
//! known answers pass, and its counts are the shipped simulator rows' to
//! within the counter's documented overhead (docs/boards/README.md).

use ciphermeter_mcu as mcu;
use mcu::board::Counts;
use mcu::board::{self, Outcome, Request};
use mcu::{Board, Implementation, McuResult, cost_table, toolchain};

/// The build linked apart from the cost builds may differ at a region's
/// edges by this many cycles or instructions (measured on aes-128-ecb:
/// up to 7 on the M0, 2 on the M4, 16 on the AVR).
const EDGES: i64 = 20;

/// The counter's interrupt per wrap: the AVR's Timer1 overflow handler
/// (measured: 35 cycles every 65,536), SysTick's exception on Cortex-M.
fn per_wrap(b: Board) -> (i64, u64) {
    match b {
        Board::SodaqMbili => (40, 1 << 16),
        _ => (20, 1 << 24),
    }
}

/// The sizes the shipped tables measure (`scripts/device-costs`): they are
/// compiled into the build, so the board's build is made at them too.
const TABLE_SIZES: [usize; 4] = [16, 64, 256, 1024];

fn measure_on(b: Board, build: &str) -> Vec<McuResult> {
    if let Err(e) = toolchain::require(b.target()) {
        panic!(
            "board tests need the {} toolchain (run scripts/setup): {e}",
            b.target()
        );
    }
    let alg = mcu::algorithms::resolve(&[build.to_string()]).unwrap()[0];
    let sizes = mcu::build_sizes(alg, &TABLE_SIZES);
    let elf = mcu::compile::board(b, build, &sizes).unwrap();
    let sim = board::simulate(b, &elf).unwrap();
    let req = Request {
        board: b,
        build: build.into(),
        sizes: TABLE_SIZES.to_vec(),
        serial: Some(sim.path.clone()),
        serial_number: Some("simulated".into()),
    };
    match board::run(&req, None, |_| {}).unwrap() {
        Outcome::Measured(rows) => rows,
        other => panic!("{other:?}"),
    }
}

/// Every row passed its known answers, carries the board's label, and is
/// within the overhead of the shipped simulator row of the same build.
fn holds_to_the_table(b: Board, build: &str, rows: &[McuResult]) {
    let table = cost_table::shipped(b.target()).unwrap().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert!(
            r.kat_passed && r.known_answers > 0 && r.error.is_none(),
            "{r:?}"
        );
        assert_eq!(
            r.measured_on.as_deref(),
            Some(format!("measured on board {b}, serial simulated").as_str())
        );
        assert_eq!(r.counter, b.counter());
        let entry = table
            .entry_of(build, Implementation::RustCrypto, &r.operation)
            .unwrap_or_else(|| panic!("{build} {} not in the table", r.operation));
        let (_, simulated) = *entry
            .points
            .iter()
            .find(|(size, _)| *size == r.size_bytes)
            .unwrap_or_else(|| panic!("{build} {} {} not in the table", r.operation, r.size_bytes));
        let (cost, period) = per_wrap(b);
        // The counter's ticks per count: QEMU's per instruction on Cortex-M.
        let t = b.target();
        let per_count = match b.counts() {
            Counts::Cycles => 1.0,
            Counts::QemuTicks => f64::from(1u32 << t.icount_shift()) / t.timer_tick_ns().unwrap(),
        };
        let wraps = (r.cycles as f64 * per_count / period as f64) as i64 + 1;
        let delta = r.cycles as i64 - simulated as i64;
        eprintln!("{b} {build} {} {} B: {delta:+}", r.operation, r.size_bytes);
        assert!(
            (-EDGES..=EDGES + wraps * cost).contains(&delta),
            "{b} {build} {} {} B: board {} against the simulator's {simulated} ({delta:+})",
            r.operation,
            r.size_bytes,
            r.cycles
        );
    }
}

#[test]
fn the_mbili_build_under_simavr_counts_the_simulator_s_cycles_with_timer1() {
    let rows = measure_on(Board::SodaqMbili, "aes-128-ecb");
    holds_to_the_table(Board::SodaqMbili, "aes-128-ecb", &rows);
    assert_eq!(rows[0].clock_hz, 8_000_000);
}

#[test]
fn the_m4_board_code_under_qemu_counts_the_simulator_s_instructions_with_systick() {
    let rows = measure_on(Board::QemuMps2An386, "aes-128-ecb");
    holds_to_the_table(Board::QemuMps2An386, "aes-128-ecb", &rows);
}

#[test]
fn the_nrf_uart_and_systick_on_qemu_s_microbit_count_the_m0_s_instructions() {
    let rows = measure_on(Board::QemuMicrobit, "aes-128-ecb");
    holds_to_the_table(Board::QemuMicrobit, "aes-128-ecb", &rows);
}

/// The three boards of the studies' devices link for their parts; the one
/// no simulator runs (the MKR's SAMD21) is said to be so.
#[test]
fn each_board_s_build_links_and_fits_its_part() {
    for b in [Board::Nrf52840Dk, Board::MkrWan1300, Board::SodaqMbili] {
        let req = Request {
            board: b,
            build: "aes-128-ecb".into(),
            sizes: vec![16],
            serial: None,
            serial_number: None,
        };
        match board::run(&req, None, |_| {}).unwrap() {
            Outcome::Built(how) => {
                let elf = how.lines().next().unwrap();
                assert!(std::path::Path::new(elf).exists(), "{how}");
                assert!(how.lines().nth(1).unwrap().contains(elf), "{how}");
            }
            other => panic!("{other:?}"),
        }
    }
    let elf = mcu::compile::board(Board::MkrWan1300, "aes-128-ecb", &[16]).unwrap();
    let e = board::simulate(Board::MkrWan1300, &elf)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("no simulator"), "{e}");
}
