//! Instructions whose time depends on their operands, and what their time is
//! under each core's documented model. QEMU's plugins read no registers, so
//! the operands come from a second, logged run ([`super::operands`]).
//!
//! - Cortex-M3 and M4: UDIV and SDIV take 2 to 12 cycles, ending early by the
//!   operands' leading zeros and ones (ARM's Technical Reference Manuals,
//!   "Instruction timings"). ARM publishes no formula: the leading-zero counts
//!   of both operands are the class a run is judged by, and the cycles shown
//!   spread the quotient's significant bits linearly over 2..12, the shape of
//!   the formula ARM does publish for the Cortex-R4 (DDI 0363G, C.8).
//! - Cortex-M3: UMULL and SMULL take 3 to 5 cycles, UMLAL and SMLAL 4 to 7,
//!   ending early when an operand's upper halfword is not significant; the
//!   class is which operands are wide. The M4's take one cycle.
//! - riscv32imc (ESP32-C3): DIV, DIVU, REM and REMU. Espressif publishes no
//!   timing, so the check assumes a divider that ends early, as the M3's
//!   does: the class is the operands' leading-zero counts, the cycles unknown.

use crate::Target;
use device_facts::target::Family;

/// One execution of a variable-latency instruction, priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latency {
    pub pc: u32,
    pub instruction: &'static str,
    /// What the time follows (see the module's models): two runs whose
    /// classes differ take other times.
    pub class: [u32; 2],
    /// The cycles under the model, where the core's maker publishes one.
    pub cycles: Option<u32>,
}

/// `insn` at `pc`, run with `registers` (R`n` or x`n`), priced on `target`;
/// `None` if it is not variable-latency there.
pub fn price(target: Target, pc: u32, insn: &[u8], registers: &[u32]) -> Option<Latency> {
    let instruction = variable(target, insn)?;
    let (rn, rm) = source_registers(target, insn)?;
    let (a, b) = (*registers.get(rn)?, *registers.get(rm)?);
    let signed = matches!(instruction, "SDIV" | "SMULL" | "SMLAL" | "DIV" | "REM");
    let magnitude = |x: u32| if signed { (x as i32).unsigned_abs() } else { x };
    let (class, cycles) = match instruction {
        "UMULL" | "SMULL" | "UMLAL" | "SMLAL" => {
            let wide = |x: u32| {
                u32::from(if signed {
                    x as i32 != i32::from(x as i16)
                } else {
                    x >> 16 != 0
                })
            };
            let base = if instruction.ends_with("LAL") { 4 } else { 3 };
            let class = [wide(a), wide(b)];
            (class, Some(base + class[0] + class[1]))
        }
        _ => {
            let (n, d) = (magnitude(a), magnitude(b));
            let class = [n.leading_zeros(), d.leading_zeros()];
            let cycles = target.variable_latency_published().then(|| {
                let quotient_bits = (class[1] + 1).saturating_sub(class[0]).min(32);
                if d == 0 {
                    2
                } else {
                    2 + (quotient_bits * 10).div_ceil(32)
                }
            });
            (class, cycles)
        }
    };
    Some(Latency {
        pc,
        instruction,
        class,
        cycles,
    })
}

/// The two source registers of a variable-latency `insn`: Rn and Rm in
/// Thumb-2's long multiply and divide, rs1 and rs2 in RV32M.
fn source_registers(target: Target, insn: &[u8]) -> Option<(usize, usize)> {
    if target.is_riscv() {
        let word = u32::from_le_bytes(insn.get(..4)?.try_into().ok()?);
        return Some((((word >> 15) & 31) as usize, ((word >> 20) & 31) as usize));
    }
    let first = u16::from_le_bytes([*insn.first()?, *insn.get(1)?]);
    let second = u16::from_le_bytes([*insn.get(2)?, *insn.get(3)?]);
    Some((usize::from(first & 0xf), usize::from(second & 0xf)))
}

/// The mnemonic of `insn` (its first bytes) when it is variable-latency on
/// `target`: decoded by the core's instruction set, kept when the target's
/// file lists it (data/targets/, `variable_latency`).
pub fn variable(target: Target, insn: &[u8]) -> Option<&'static str> {
    let mnemonic = match target.family() {
        Family::Arm => thumb2_variable(insn),
        Family::Riscv => rv32m_divide(insn),
        Family::Avr => None,
    }?;
    target
        .variable_latency()
        .iter()
        .any(|v| v == mnemonic)
        .then_some(mnemonic)
}

/// Thumb-2's divides and long multiplies (ARMv7-M ARM, A5.3.15 and A5.3.16).
fn thumb2_variable(insn: &[u8]) -> Option<&'static str> {
    let hw = |i: usize| Some(u16::from_le_bytes([*insn.get(i)?, *insn.get(i + 1)?]));
    let (first, second) = (hw(0)?, hw(2)?);
    let divide = second & 0x00f0 == 0x00f0;
    let long_multiply = second & 0x00f0 == 0x0000;
    match (first & 0xfff0, divide, long_multiply) {
        (0xfbb0, true, _) => Some("UDIV"),
        (0xfb90, true, _) => Some("SDIV"),
        (0xfba0, _, true) => Some("UMULL"),
        (0xfb80, _, true) => Some("SMULL"),
        (0xfbe0, _, true) => Some("UMLAL"),
        (0xfbc0, _, true) => Some("SMLAL"),
        _ => None,
    }
}

/// RV32M's divides and remainders.
fn rv32m_divide(insn: &[u8]) -> Option<&'static str> {
    let word = u32::from_le_bytes(insn.get(..4)?.try_into().ok()?);
    let (opcode, funct7, funct3) = (word & 0x7f, word >> 25, (word >> 12) & 7);
    match (opcode, funct7, funct3) {
        (0x33, 1, 4) => Some("DIV"),
        (0x33, 1, 5) => Some("DIVU"),
        (0x33, 1, 6) => Some("REM"),
        (0x33, 1, 7) => Some("REMU"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thumb(first: u16, second: u16) -> Vec<u8> {
        [first.to_le_bytes(), second.to_le_bytes()].concat()
    }

    #[test]
    fn knows_each_cores_variable_instructions_by_their_encoding() {
        // udiv r0, r1, r2 / sdiv r0, r1, r2 (ARMv7-M, T1).
        let udiv = thumb(0xfbb1, 0xf0f2);
        let sdiv = thumb(0xfb91, 0xf0f2);
        // umull r0, r1, r2, r3 and mul r0, r1, r2 (constant on both).
        let umull = thumb(0xfba2, 0x0103);
        let mul = thumb(0xfb01, 0xf002);
        assert_eq!(variable(Target::CortexM3, &udiv), Some("UDIV"));
        assert_eq!(variable(Target::CortexM4, &sdiv), Some("SDIV"));
        assert_eq!(variable(Target::CortexM3, &umull), Some("UMULL"));
        assert_eq!(
            variable(Target::CortexM4, &umull),
            None,
            "single-cycle on the M4"
        );
        assert_eq!(variable(Target::CortexM3, &mul), None);
        // divu a0, a0, a1 and mul a0, a0, a1 (RV32M).
        let divu = 0x02b5_5533u32.to_le_bytes();
        let rv_mul = 0x02b5_0533u32.to_le_bytes();
        assert_eq!(variable(Target::Riscv32imc, &divu), Some("DIVU"));
        assert_eq!(variable(Target::Riscv32imc, &rv_mul), None);
        assert_eq!(variable(Target::CortexM0plus, &udiv), None);
    }

    #[test]
    fn prices_each_instruction_by_its_operands() {
        // udiv r0, r1, r2: 3329 / 3329 is one quotient bit; 65535 / 3329 five.
        let udiv = thumb(0xfbb1, 0xf0f2);
        let regs = |r1: u32, r2: u32| vec![0, r1, r2, 0];
        let small = price(Target::CortexM3, 0x10, &udiv, &regs(3329, 3329)).unwrap();
        let large = price(Target::CortexM3, 0x10, &udiv, &regs(65535, 3329)).unwrap();
        assert_eq!((small.instruction, small.cycles), ("UDIV", Some(3)));
        assert_eq!(large.cycles, Some(4));
        assert_ne!(small.class, large.class);
        let full = price(Target::CortexM4, 0x10, &udiv, &regs(u32::MAX, 1)).unwrap();
        assert_eq!(full.cycles, Some(12));
        // umull r0, r1, r2, r3 on the M3: 3 cycles on two short operands, 5 on two wide.
        let umull = thumb(0xfba2, 0x0103);
        let short = price(Target::CortexM3, 0, &umull, &[0, 0, 7, 9]).unwrap();
        let wide = price(Target::CortexM3, 0, &umull, &[0, 0, 1 << 20, 1 << 31]).unwrap();
        assert_eq!((short.cycles, wide.cycles), (Some(3), Some(5)));
        // smull: -1 is short (its upper halfword is only sign).
        let smull = thumb(0xfb82, 0x0103);
        let minus_one = price(Target::CortexM3, 0, &smull, &[0, 0, u32::MAX, 2]).unwrap();
        assert_eq!(minus_one.cycles, Some(3));
        // divu a3, a3, a5 (x13 / x15): classed, not priced.
        let divu = 0x02f6_d6b3u32.to_le_bytes();
        let mut x = vec![0u32; 32];
        x[13] = 0xd01;
        x[15] = 7;
        let rv = price(Target::Riscv32imc, 0, &divu, &x).unwrap();
        assert_eq!(rv.class, [20, 29]);
        assert_eq!(rv.cycles, None);
        assert_eq!(price(Target::CortexM4, 0, &umull, &[0, 0, 7, 9]), None);
    }
}
