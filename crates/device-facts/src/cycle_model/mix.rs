//! An instruction mix: what ran in one measured region, counted for pricing.
//! Kept in the device cost tables beside each count, so a change to the
//! model or a device's memory prices the same run again without simulating.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Class;

/// The instructions of a region, counted for pricing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mix {
    pub instructions: i64,
    pub by_class: BTreeMap<Class, i64>,
    /// Registers moved by LDM/STM/PUSH/POP, per class.
    pub registers: BTreeMap<Class, i64>,
    /// Bytes of instructions executed (the fetch stream).
    pub bytes: i64,
    /// Pipeline refills: taken branches and other writes to PC.
    pub refills: i64,
    /// Data reads from flash (constant tables, literal pools), counted by the
    /// flash-loads plugin (firmware/cycle-trace) where QEMU's log cannot see
    /// an address.
    pub flash_loads: i64,
    /// Distinct 16-byte lines of flash the region executed: the code's
    /// footprint, against an instruction cache's size.
    pub code_lines: i64,
    /// Distinct 16-byte lines of flash the region read as data: the constant
    /// tables' footprint, against a data cache's size.
    pub flash_data_lines: i64,
}

impl Mix {
    pub fn add(&mut self, class: Class, n: i64) {
        *self.by_class.entry(class).or_default() += n;
    }

    /// `self - other`, class by class: a region less the empty region.
    pub fn minus(&self, other: &Mix) -> Mix {
        let sub = |a: &BTreeMap<Class, i64>, b: &BTreeMap<Class, i64>| {
            let mut out = a.clone();
            for (k, v) in b {
                *out.entry(*k).or_default() -= v;
            }
            out.retain(|_, v| *v != 0);
            out
        };
        Mix {
            instructions: self.instructions - other.instructions,
            by_class: sub(&self.by_class, &other.by_class),
            registers: sub(&self.registers, &other.registers),
            bytes: self.bytes - other.bytes,
            refills: self.refills - other.refills,
            flash_loads: self.flash_loads - other.flash_loads,
            code_lines: self.code_lines - other.code_lines,
            flash_data_lines: self.flash_data_lines - other.flash_data_lines,
        }
    }

    pub fn count(&self, class: Class) -> i64 {
        self.by_class.get(&class).copied().unwrap_or(0)
    }
}
