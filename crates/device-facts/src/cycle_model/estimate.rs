//! Prices an instruction mix on a core and board.
//!
//! - **low**: the low end of every range in the ARM table (P = 1, loads
//!   pipelined where neighbours allow, IT folded) and no flash wait state, as
//!   if a flash accelerator or cache hid every one.
//! - **estimate**: low, plus the board's wait states once per pipeline refill
//!   (taken branch, call, return): sequential fetches are hidden by the
//!   prefetch buffer, a branch target is not.
//! - **high**: the high end of every range, plus the wait states on every
//!   fetch (executed bytes / fetch width, rounded up: no prefetch and no
//!   cache) and once more per refill for the fetch the branch throws away.

use serde::{Deserialize, Serialize};

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

/// ⌈n / d⌉ for any sign of n (a net mix can be negative in a component).
fn ceil_div(n: i64, d: i64) -> i64 {
    -((-n).div_euclid(d))
}

pub fn estimate(mix: &Mix, core: &CoreTiming) -> Estimate {
    let wait = i64::from(core.board.wait_states.value);
    let fetch = i64::from(core.board.fetch_bytes.value);
    let low = core_cycles(mix, core, false);
    let estimate = low + wait * mix.refills;
    let high =
        core_cycles(mix, core, true) + ceil_div(wait * mix.bytes, fetch) + wait * mix.refills;
    let clamp = |c: i64| c.max(0) as u64;
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
    use crate::cycle_model::timing::for_target;

    /// The firmware's calibration loop (firmware/src/platform/arm.rs) as a
    /// mix: push {r0-r3}, sub, movs, 10 × (ldr, ldr, adds, str, eors, subs,
    /// bne), add, pop {r0-r3}; 75 instructions, 150 bytes.
    fn calibration_loop() -> Mix {
        let mut m = Mix {
            instructions: 75,
            bytes: 150,
            refills: 9,
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
        assert_eq!(est(Target::CortexM0plus), e(122, 131, 169));
        assert_eq!(est(Target::CortexM3), e(102, 120, 233));
        assert_eq!(est(Target::CortexM4), e(102, 138, 326));
    }

    #[test]
    fn ceil_div_rounds_up_for_either_sign() {
        assert_eq!(ceil_div(150, 4), 38);
        assert_eq!(ceil_div(-150, 4), -37);
        assert_eq!(ceil_div(8, 4), 2);
    }
}
