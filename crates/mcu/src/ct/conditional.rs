//! Conditional execution on ARMv7-M (the Cortex-M3 and M4): the instructions
//! an IT block makes conditional. One whose condition fails does not execute
//! and takes a NOP's time (ARMv7-M Architecture Reference Manual, DDI 0403E,
//! A7.3 "Conditional execution"), so a skipped UDIV, load or LDM is quicker
//! than a run one, on the same instruction addresses.
//!
//! QEMU 7.2's plugins read no registers and see a skipped instruction as
//! executed: its callback fires, as it comes before the condition's test in
//! the translated code, and only its memory accesses are missing. So the
//! operand run ([`super::operands`]) logs the CPU before each instruction of
//! an IT block too: the logged XPSR holds the flags and the IT state, whose
//! upper four bits are the condition of the instruction about to run.
//! Each instruction is priced from the core's timing table
//! (`data/cycle-timings/cortex-m.toml`) by its class, from QEMU's disassembly.

use crate::Target;
use crate::cycles::timing::{self, Cost};
use crate::cycles::{Class, trace::Disassembled};

/// One execution of an instruction inside an IT block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditional {
    pub pc: u32,
    /// As QEMU disassembles it (`udivne`).
    pub instruction: String,
    /// Whether its condition held, so that it ran.
    pub passed: bool,
    /// Its cycles when it runs (the class's high end, or its operands'
    /// price where it is variable-latency) and when it does not (a NOP's).
    pub cycles: [u32; 2],
}

impl Conditional {
    /// The cycles it took.
    pub fn took(&self) -> u32 {
        if self.passed {
            self.cycles[0]
        } else {
            self.cycles[1]
        }
    }

    /// Run or skipped, it takes the same cycles (a MOV, an ADD): whether
    /// it ran does not show in time.
    pub fn same_either_way(&self) -> bool {
        self.cycles[0] == self.cycles[1]
    }
}

/// The number of instructions the IT instruction `insn` makes conditional
/// (1 to 4), or None if it is no IT (`0xbfxy` with a mask `y` that is not
/// zero; a zero mask is a hint such as NOP or WFI).
pub fn it_block_length(insn: &[u8]) -> Option<usize> {
    let hw = u16::from_le_bytes([*insn.first()?, *insn.get(1)?]);
    let mask = hw & 0xf;
    (hw & 0xff00 == 0xbf00 && mask != 0).then(|| 4 - mask.trailing_zeros() as usize)
}

/// Each IT block a path ran: the IT instruction's address and those of the
/// instructions it makes conditional, as they ran.
pub fn it_blocks<'p, 'a>(
    path: &'p [u32],
    code: impl Fn(u32, usize) -> Option<&'a [u8]>,
) -> Vec<&'p [u32]> {
    let mut blocks = Vec::new();
    for (i, &pc) in path.iter().enumerate() {
        if let Some(n) = code(pc, 2).and_then(it_block_length)
            && let Some(block) = path.get(i..=i + n)
            && block[n] > pc
        {
            blocks.push(block);
        }
    }
    blocks
}

/// The condition of the instruction about to run, from the XPSR QEMU logs
/// before it (IT[7:4] is XPSR[15:12]), if it is inside an IT block
/// (IT[3:0], XPSR[11:10] and [26:25], not zero).
pub fn condition(xpsr: u32) -> Option<u32> {
    let it = ((xpsr >> 8) & 0xfc) | ((xpsr >> 25) & 3);
    (it & 0xf != 0).then_some(it >> 4)
}

/// Whether condition `cond` (ARM's encoding, EQ = 0 … AL = 14) holds under
/// the flags of `xpsr` (ARMv7-M ARM A7.3, Table A7-1).
pub fn holds(cond: u32, xpsr: u32) -> bool {
    let flag = |bit: u32| xpsr >> bit & 1 == 1;
    let (n, z, c, v) = (flag(31), flag(30), flag(29), flag(28));
    let base = match cond >> 1 {
        0 => z,
        1 => c,
        2 => n,
        3 => v,
        4 => c && !z,
        5 => n == v,
        6 => !z && n == v,
        _ => true,
    };
    if cond & 1 == 1 && cond != 15 {
        !base
    } else {
        base
    }
}

/// The cycles `insn` takes on `target` when it runs, under the core's
/// timing table (the high end of its class, each listed register included);
/// `priced` is a variable-latency instruction's price from its operands.
fn run_cycles(cost: &Cost, insn: &Disassembled, priced: Option<u32>) -> u32 {
    priced.unwrap_or(cost.high + insn.decoded.registers * cost.per_register)
}

/// One logged execution of `insn` with `xpsr`: None outside an IT block
/// (or on a core whose timing the check does not hold).
pub fn judge(
    target: Target,
    insn: &Disassembled,
    xpsr: u32,
    priced: Option<u32>,
) -> Option<Conditional> {
    let cond = condition(xpsr)?;
    let core = timing::for_target(target)?;
    let ran = run_cycles(core.cost(insn.decoded.class), insn, priced);
    Some(Conditional {
        pc: insn.addr,
        instruction: insn.mnemonic.to_ascii_uppercase(),
        passed: holds(cond, xpsr),
        cycles: [ran, core.cost(Class::Nop).high],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycles::trace::disassembled;

    #[test]
    fn finds_it_blocks_by_their_mask() {
        // it ne (1), ite eq (2), itttt ne (4); a zero mask is NOP.
        assert_eq!(it_block_length(&0xbf18u16.to_le_bytes()), Some(1));
        assert_eq!(it_block_length(&0xbf0cu16.to_le_bytes()), Some(2));
        assert_eq!(it_block_length(&0xbf11u16.to_le_bytes()), Some(4));
        assert_eq!(it_block_length(&0xbf00u16.to_le_bytes()), None);
        assert_eq!(it_block_length(&0x4770u16.to_le_bytes()), None);
        // An IT at 0x10 and its one instruction; the path goes on.
        let code = |pc: u32, _| match pc {
            0x10 => Some(&[0x18u8, 0xbf][..]),
            _ => Some(&[0u8, 0][..]),
        };
        assert_eq!(
            it_blocks(&[0x0e, 0x10, 0x12, 0x16], code),
            [&[0x10, 0x12][..]]
        );
        assert!(it_blocks(&[0x0e, 0x10], code).is_empty(), "a cut path");
    }

    /// The XPSR with QEMU's condexec bits (architecturally IT[7:0]) in place.
    fn in_block(condexec: u32) -> u32 {
        ((condexec & 0xfc) << 8) | ((condexec & 3) << 25)
    }

    #[test]
    fn reads_the_condition_and_the_flags_from_the_xpsr() {
        // QEMU's condexec bits 0x18 (NE, one instruction left), Z clear.
        let ne_next = in_block(0x18) | 1 << 24;
        assert_eq!(condition(ne_next), Some(1));
        assert!(holds(1, ne_next));
        assert!(!holds(1, ne_next | 1 << 30), "Z set: NE fails");
        assert_eq!(condition(0x6100_0000), None, "outside an IT block");
        // GE: N == V; LT: N != V; HI: C and not Z; AL always.
        assert!(holds(10, 0x9000_0000) && !holds(11, 0x9000_0000));
        assert!(holds(8, 0x2000_0000) && !holds(8, 0x6000_0000));
        assert!(holds(14, 0));
    }

    #[test]
    fn a_skipped_multi_cycle_instruction_is_quicker_and_a_mov_is_not() {
        let xpsr_ne_z = in_block(0x18) | 1 << 30;
        let udiv = disassembled("0x00000c2c:  fbb1 f0f2  udivne r0, r1, r2").unwrap();
        let skipped = judge(Target::CortexM4, &udiv, xpsr_ne_z, Some(7)).unwrap();
        assert_eq!(
            (skipped.passed, skipped.cycles, skipped.took()),
            (false, [7, 1], 1)
        );
        assert_eq!(skipped.instruction, "UDIVNE");
        let ldr = disassembled("0x00000c30:  6808       ldrne r0, [r1]").unwrap();
        let load = judge(Target::CortexM3, &ldr, xpsr_ne_z & !(1 << 30), None).unwrap();
        assert!(load.passed && !load.same_either_way());
        let mov = disassembled("0x00000c32:  4608       movne r0, r1").unwrap();
        assert!(
            judge(Target::CortexM3, &mov, xpsr_ne_z, None)
                .unwrap()
                .same_either_way()
        );
        assert_eq!(judge(Target::CortexM3, &mov, 0x6100_0000, None), None);
    }
}
