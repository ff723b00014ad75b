//! Instructions whose time depends on their operands, which the constant-time
//! check cannot see (QEMU's plugins read no registers): where one runs in a
//! region, the verdict says so beside it instead of passing it in silence.
//!
//! - Cortex-M3 and M4: UDIV and SDIV take 2 to 12 cycles by the operands'
//!   leading bits (ARM's Technical Reference Manuals, "Instruction timings").
//! - Cortex-M3: UMULL, SMULL, UMLAL and SMLAL finish early on small operands
//!   (3 to 5 cycles, and 4 to 7 for the accumulating ones); the M4's take one.
//! - riscv32imc (ESP32-C3): DIV, DIVU, REM, REMU, whose timing Espressif does
//!   not publish.

use crate::Target;

/// The first instruction of `path` that is variable-latency on `target`, with
/// its mnemonic; `code` reads an instruction's bytes at an address.
pub fn first_variable<'a>(
    target: Target,
    path: &[u32],
    code: impl Fn(u32, usize) -> Option<&'a [u8]>,
) -> Option<(u32, &'static str)> {
    let mut seen = std::collections::HashSet::new();
    path.iter()
        .filter(|pc| seen.insert(**pc))
        .find_map(|&pc| Some((pc, variable(target, code(pc, 4)?)?)))
}

/// The mnemonic of `insn` (its first bytes) when it is variable-latency on `target`.
pub fn variable(target: Target, insn: &[u8]) -> Option<&'static str> {
    match target {
        Target::CortexM3 | Target::CortexM4 => {
            let hw = |i: usize| Some(u16::from_le_bytes([*insn.get(i)?, *insn.get(i + 1)?]));
            let (first, second) = (hw(0)?, hw(2)?);
            let divide = second & 0x00f0 == 0x00f0;
            let long_multiply = second & 0x00f0 == 0x0000 && target == Target::CortexM3;
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
        Target::Riscv32imc => {
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
        Target::Atmega1284p | Target::CortexM0plus => None,
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
    fn names_the_first_in_the_path() {
        let code = |pc: u32, _| -> Option<&'static [u8]> {
            match pc {
                0x10 => Some(&[0xb1, 0xfb, 0xf2, 0xf0]),
                _ => Some(&[0, 0, 0, 0]),
            }
        };
        assert_eq!(
            first_variable(Target::CortexM4, &[0x8, 0xc, 0x10, 0x8], code),
            Some((0x10, "UDIV"))
        );
        assert_eq!(first_variable(Target::CortexM4, &[0x8, 0xc], code), None);
    }
}
