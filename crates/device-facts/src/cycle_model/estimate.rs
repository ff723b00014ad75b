//! Prices an instruction mix on a core and a part's memory.
//!
//! - **low**: the low end of every range in the ARM table (P = 1, loads
//!   pipelined where neighbours allow, IT folded) and no flash wait state, as
//!   if every fetch and read hit a cache.
//! - **estimate**: low, plus what the part's flash adds (firmware/README.md
//!   "Cycles on Cortex-M"): without a cache, the wait states once per
//!   pipeline refill and the stream of flash lines the code needs when it
//!   is slower than the core, and the data wait on every read from flash;
//!   with a cache, the same for the share of the footprint the cache cannot
//!   hold (a line's first fetch is streamed by the prefetch buffer), and a
//!   data cache still waits once for each line's first read.
//! - **high**: the high end of every range, and every fetch and read missing
//!   the caches at the part's longest wait with no prefetch: each flash line
//!   waits in turn, and each refill waits and throws away the line in flight.

use serde::{Deserialize, Serialize};

use super::timing::Board;
use super::{Class, CoreTiming, Mix};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Estimate {
    pub low: u64,
    pub estimate: u64,
    pub high: u64,
}

/// Σ count × cost + registers × per-register, at the low or high end.
fn core_cycles(mix: &Mix, core: &CoreTiming, high: bool) -> i64 {
    let per_class: i64 = mix
        .by_class
        .iter()
        .map(|(&class, &n)| {
            let c = core.cost(class);
            n * i64::from(if high { c.high } else { c.low })
        })
        .sum();
    let per_register: i64 = mix
        .registers
        .iter()
        .map(|(&class, &n)| n * i64::from(core.cost(class).per_register))
        .sum();
    per_class + per_register
}

pub fn estimate(mix: &Mix, core: &CoreTiming) -> Estimate {
    price(mix, core, &core.board)
}

/// Bytes in a footprint line (firmware/cycle-trace counts 16-byte lines).
const LINE: f64 = 16.0;

/// The share of fetches a cache of `cache` bytes misses on a footprint of
/// `lines`: none when it fits (after each line's first fetch), else the
/// part beyond it (a loop larger than the cache evicts what it needs next).
fn miss_share(cache: u32, lines: i64) -> f64 {
    let footprint = lines.max(0) as f64 * LINE;
    if cache == 0 {
        1.0
    } else if footprint <= f64::from(cache) {
        0.0
    } else {
        1.0 - f64::from(cache) / footprint
    }
}

/// What the flash adds to `core` cycles when no cache holds the code: a
/// refill waits for the flash, and straight-line code cannot run faster
/// than its lines stream in (`flash_line_bytes` per `wait` + 1 cycles).
fn uncached_fetch(mix: &Mix, board: &Board, wait: u32, core: f64) -> f64 {
    let wait = f64::from(wait);
    let refills = wait * mix.refills as f64;
    let lines = (mix.bytes.max(0) as f64 / f64::from(board.flash_line_bytes.value)).ceil();
    let stream = lines * (wait + 1.0);
    refills + (stream - core).max(0.0)
}

/// `mix` on `core` with `board`'s clockless memory (a cycle count).
pub fn price(mix: &Mix, core: &CoreTiming, board: &Board) -> Estimate {
    let low = core_cycles(mix, core, false) as f64;
    let high_core = core_cycles(mix, core, true) as f64;
    let data_wait = f64::from(board.flash_data_wait.value);
    let icache = board.instruction_cache_bytes.value;
    let dcache = board.data_cache_bytes.value;
    let wait_high = board
        .wait_states_high
        .as_ref()
        .map_or(board.wait_states.value, |w| w.value);
    let fetch = uncached_fetch(mix, board, board.wait_states.value, low);
    let first_reads = if dcache > 0 {
        data_wait * mix.flash_data_lines.max(0) as f64
    } else {
        0.0
    };
    let reads = data_wait * mix.flash_loads.max(0) as f64;
    let estimate = low
        + miss_share(icache, mix.code_lines) * fetch
        + miss_share(dcache, mix.flash_data_lines) * reads
        + first_reads;
    let reads_high = (data_wait + f64::from(wait_high - board.wait_states.value))
        * mix.flash_loads.max(0) as f64;
    // No prefetch (several parts start with it off, and their vendors'
    // set-up keeps it off: parts.toml): every line waits in turn, and a
    // refill also throws away the line in flight.
    let wait_high = f64::from(wait_high);
    let lines = (mix.bytes.max(0) as f64 / f64::from(board.flash_line_bytes.value)).ceil();
    let serial_fetch = wait_high * (lines + 2.0 * mix.refills.max(0) as f64);
    let high = high_core + serial_fetch + reads_high;
    let clamp = |c: f64| c.max(0.0).round() as u64;
    Estimate {
        low: clamp(low),
        estimate: clamp(estimate),
        high: clamp(high),
    }
}

/// The core's own cycles for a mix with no flash wait state: every class at
/// its low end, and at its high end (a board clocked for zero wait states
/// sits between them: `mcu --compare`).
pub fn zero_wait(mix: &Mix, core: &CoreTiming) -> (u64, u64) {
    let clamp = |c: i64| c.max(0) as u64;
    (
        clamp(core_cycles(mix, core, false)),
        clamp(core_cycles(mix, core, true)),
    )
}

/// Classes in a mix that the core has no row for (priced as `other`).
pub fn unpriced(mix: &Mix, core: &CoreTiming) -> Vec<Class> {
    mix.by_class
        .keys()
        .filter(|c| !core.cycles.contains_key(c))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Target;
    use crate::cycle_model::timing::{Board, for_target};

    /// The firmware's calibration loop (firmware/src/platform/arm.rs) as a
    /// mix: push {r0-r3}, sub, movs, 10 × (ldr, ldr, adds, str, eors, subs,
    /// bne), add, pop {r0-r3}; 75 instructions, 150 bytes run from 32 bytes
    /// of code (2 lines).
    fn calibration_loop() -> Mix {
        let mut m = Mix {
            instructions: 75,
            bytes: 150,
            refills: 9,
            code_lines: 2,
            ..Mix::default()
        };
        for (class, n) in [
            (Class::StoreMultiple, 1),
            (Class::LoadMultiple, 1),
            (Class::Alu, 3 + 30),
            (Class::Load, 10),
            (Class::LoadPipelined, 10),
            (Class::Store, 10),
            (Class::BranchTaken, 9),
            (Class::BranchNotTaken, 1),
        ] {
            m.by_class.insert(class, n);
        }
        m.registers.insert(Class::StoreMultiple, 4);
        m.registers.insert(Class::LoadMultiple, 4);
        m
    }

    #[test]
    fn the_table_prices_the_calibration_loop_as_counted_by_hand() {
        let est = |t| estimate(&calibration_loop(), for_target(t).unwrap());
        let e = |low, estimate, high| Estimate {
            low,
            estimate,
            high,
        };
        // M0+ (SAMD21, 1 WS, 64-byte NVM cache): 32 bytes of code fit the
        // cache; high: no cache and no prefetch, so the 19 8-byte lines of
        // the 150 bytes and the 9 refills (twice: the wait and the line
        // thrown away) wait 1 each: 122 + 37.
        assert_eq!(est(Target::CortexM0plus), e(122, 122, 159));
        // M3 (STM32F103, 2 WS, no cache): 2 × 9 refills; 19 lines × 3
        // cycles stream within the core's 102; high: core 140 + 2 × 37.
        assert_eq!(est(Target::CortexM3), e(102, 120, 214));
        // M4 (STM32L4, 4 WS, 1 KiB instruction cache): the loop fits; high:
        // core 140 + 4 × 37.
        assert_eq!(est(Target::CortexM4), e(102, 102, 288));
    }

    /// A board for the terms' tests: `wait` wait states, `line`-byte flash
    /// reads, the given caches and data wait.
    fn board(wait: u32, line: u32, icache: u32, dcache: u32, data_wait: u32) -> Board {
        let mut b = for_target(Target::CortexM4).unwrap().board.clone();
        b.wait_states.value = wait;
        b.flash_line_bytes.value = line;
        b.instruction_cache_bytes.value = icache;
        b.data_cache_bytes.value = dcache;
        b.flash_data_wait.value = data_wait;
        b
    }

    /// 1000 single loads and nothing else: 2000 core cycles, 2000 bytes.
    fn loads(flash_loads: i64, data_lines: i64, code_lines: i64) -> Mix {
        let mut m = Mix {
            instructions: 1000,
            bytes: 2000,
            flash_loads,
            flash_data_lines: data_lines,
            code_lines,
            ..Mix::default()
        };
        m.add(Class::Load, 1000);
        m
    }

    #[test]
    fn a_read_from_flash_waits_unless_a_data_cache_holds_its_table() {
        let core = for_target(Target::CortexM4).unwrap();
        let p = |m: &Mix, b: &Board| price(m, core, b).estimate;
        // 500 reads of a 4 KiB table (256 lines), 3 cycles each without a cache.
        let table = loads(500, 256, 4);
        assert_eq!(p(&table, &board(0, 8, 0, 0, 3)), 2000 + 1500);
        // A 256-byte data cache holds 1/16 of it: 15/16 of the reads wait,
        // and each of the 256 lines waits once when first read.
        assert_eq!(p(&table, &board(0, 8, 0, 256, 3)), 2000 + 1406 + 768);
        // A table that fits waits only for its first reads.
        assert_eq!(p(&loads(500, 8, 4), &board(0, 8, 0, 256, 3)), 2000 + 24);
        // The high end misses every cache.
        assert_eq!(
            price(&table, core, &board(0, 8, 0, 256, 3)).high,
            2000 + 1500
        );
    }

    #[test]
    fn straight_line_code_waits_for_its_flash_lines_without_a_cache() {
        let core = for_target(Target::CortexM4).unwrap();
        let p = |b: &Board| price(&loads(0, 0, 125), core, b).estimate;
        // 2000 bytes in 8-byte lines: 250 reads of 5 cycles at 4 wait
        // states stream in 1250 cycles, inside the core's 2000.
        assert_eq!(p(&board(4, 8, 0, 0, 0)), 2000);
        // In 4-byte lines at 4 wait states: 500 × 5 = 2500, the core waits 500.
        assert_eq!(p(&board(4, 4, 0, 0, 0)), 2500);
        // A cache that holds the code's 2000 bytes (125 lines) hides it.
        assert_eq!(p(&board(4, 4, 2048, 0, 0)), 2000);
        // One that holds half of it leaves half the wait.
        assert_eq!(p(&board(4, 4, 1000, 0, 0)), 2250);
    }

    #[test]
    fn a_refill_waits_for_the_flash_unless_the_cache_holds_the_code() {
        let core = for_target(Target::CortexM4).unwrap();
        let mut m = loads(0, 0, 10);
        m.refills = 100;
        assert_eq!(price(&m, core, &board(2, 16, 0, 0, 0)).estimate, 2000 + 200);
        assert_eq!(price(&m, core, &board(2, 16, 1024, 0, 0)).estimate, 2000);
    }
}
