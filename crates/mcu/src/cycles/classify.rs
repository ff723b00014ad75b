//! Puts each executed Thumb instruction (as QEMU's disassembler prints it,
//! e.g. `ldr.w fp, [r1]`, `pop {r4, r5, pc}`, `bls #0x578`) in a timing class.

pub use device_facts::cycle_model::Class;

/// What an instruction is, before knowing whether it branched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    /// The class when it runs (for a branch: when taken).
    pub class: Class,
    /// Registers in an LDM/STM/PUSH/POP list.
    pub registers: u32,
    /// It may change the flow: a branch, or a write to PC. Whether it did is
    /// seen from the next executed address.
    pub may_branch: bool,
    /// POP/LDM/LDR into PC: the load plus a pipeline refill.
    pub loads_pc: bool,
    /// A single load's destination and base registers (r0..r15), to tell a
    /// load whose address needs the load before it, which cannot pipeline
    /// with it (Cortex-M3/M4 TRM 3.3.2).
    pub load_registers: Option<(u8, u8)>,
}

const CONDITIONS: [&str; 16] = [
    "eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le",
];

fn base_class(m: &str) -> Option<Class> {
    use Class::*;
    Some(match m {
        "mov" | "movw" | "movt" | "mvn" | "add" | "addw" | "adc" | "adr" | "sub" | "subw"
        | "sbc" | "rsb" | "neg" | "cmp" | "cmn" | "tst" | "teq" | "and" | "orr" | "orn" | "eor"
        | "bic" | "lsl" | "lsr" | "asr" | "ror" | "rrx" | "sxtb" | "sxth" | "uxtb" | "uxth"
        | "sxtab" | "sxtah" | "uxtab" | "uxtah" | "rev" | "rev16" | "revsh" | "rbit" | "clz"
        | "bfi" | "bfc" | "ubfx" | "sbfx" | "ssat" | "usat" | "sel" | "pkhbt" | "pkhtb"
        | "cpsid" | "cpsie" => Alu,
        "nop" => Nop,
        "mul" => Mul,
        "mla" | "mls" => MulAccumulate,
        "umull" | "smull" => MulLong,
        "umlal" | "smlal" | "umaal" => MulLongAccumulate,
        "sdiv" | "udiv" => Divide,
        "ldr" | "ldrb" | "ldrh" | "ldrsb" | "ldrsh" | "ldrex" | "ldrexb" | "ldrexh" | "ldrt"
        | "ldrbt" | "ldrht" | "ldrsbt" | "ldrsht" => Load,
        "ldrd" => LoadDouble,
        "str" | "strb" | "strh" | "strex" | "strexb" | "strexh" | "strt" | "strbt" | "strht" => {
            Store
        }
        "strd" => StoreDouble,
        "ldm" | "ldmia" | "ldmfd" | "ldmdb" | "ldmea" | "pop" => LoadMultiple,
        "stm" | "stmia" | "stmea" | "stmdb" | "stmfd" | "push" => StoreMultiple,
        "b" | "cbz" | "cbnz" => BranchTaken,
        "bl" | "blx" => BranchLink,
        "bx" => BranchExchange,
        "tbb" | "tbh" => TableBranch,
        _ if is_it(m) => It,
        _ => return None,
    })
}

/// `it`, `itt`, `ite`, … `iteee`: IT plus up to three then/else letters.
fn is_it(m: &str) -> bool {
    m.len() <= 5 && m.starts_with("it") && m[2..].chars().all(|c| c == 't' || c == 'e')
}

/// The base mnemonic: `.w`/`.n` dropped, then as printed, without its
/// condition (`bls` → `b`), without the flag-setting `s` (`lsls` → `lsl`), or
/// both (`addseq` → `add`). The exact name is tried first (`bl`, `teq`).
fn base(mnemonic: &str) -> Option<(Class, &str)> {
    let m = mnemonic.split('.').next().unwrap_or(mnemonic);
    let no_cond = CONDITIONS
        .iter()
        .find_map(|c| m.strip_suffix(c))
        .filter(|s| !s.is_empty());
    let candidates = [
        Some(m),
        no_cond,
        m.strip_suffix('s'),
        no_cond.and_then(|s| s.strip_suffix('s')),
    ];
    candidates
        .into_iter()
        .flatten()
        .find_map(|c| base_class(c).map(|class| (class, c)))
}

/// Registers in a `{r4, r5, pc}` list (ranges `r4-r7` counted too).
fn register_list(operands: &str) -> (u32, bool) {
    let Some(list) = operands
        .split_once('{')
        .and_then(|(_, rest)| rest.split_once('}'))
        .map(|(l, _)| l)
    else {
        return (0, false);
    };
    let mut n = 0;
    let mut pc = false;
    for reg in list.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        pc |= reg == "pc";
        n += match reg.split_once('-') {
            Some((a, b)) => {
                let num = |r: &str| r.trim().trim_start_matches('r').parse::<u32>().ok();
                match (num(a), num(b)) {
                    (Some(a), Some(b)) if b >= a => b - a + 1,
                    _ => 1,
                }
            }
            None => 1,
        };
    }
    (n, pc)
}

/// r0..r15 by any of the names QEMU prints.
fn register_number(name: &str) -> Option<u8> {
    Some(match name.trim() {
        "sb" => 9,
        "sl" => 10,
        "fp" => 11,
        "ip" => 12,
        "sp" => 13,
        "lr" => 14,
        "pc" => 15,
        r => r.strip_prefix('r')?.parse().ok().filter(|n| *n < 16)?,
    })
}

/// `r2, [r1, #4]` → (2, 1): a single load's destination and base.
fn load_registers(operands: &str) -> Option<(u8, u8)> {
    let dest = register_number(first_operand(operands))?;
    let inside = operands.split_once('[')?.1;
    let base = inside.split([',', ']']).next()?;
    Some((dest, register_number(base)?))
}

fn first_operand(operands: &str) -> &str {
    operands.split(',').next().unwrap_or("").trim()
}

pub fn decode(mnemonic: &str, operands: &str) -> Decoded {
    let mnemonic = mnemonic.to_ascii_lowercase();
    let (class, name) = base(&mnemonic).unwrap_or((Class::Other, ""));
    let mut d = Decoded {
        class,
        registers: 0,
        may_branch: false,
        loads_pc: false,
        load_registers: None,
    };
    if class == Class::Load {
        d.load_registers = load_registers(operands);
    }
    match class {
        Class::LoadMultiple | Class::StoreMultiple => {
            let (n, pc) = register_list(operands);
            d.registers = n;
            d.loads_pc = pc && class == Class::LoadMultiple;
            d.may_branch = d.loads_pc;
        }
        Class::Load if first_operand(operands) == "pc" => {
            d.loads_pc = true;
            d.may_branch = true;
        }
        Class::Alu
            if first_operand(operands) == "pc"
                && !matches!(name, "cmp" | "cmn" | "tst" | "teq") =>
        {
            d.class = Class::PcWrite;
            d.may_branch = true;
        }
        Class::BranchTaken | Class::BranchLink | Class::BranchExchange | Class::TableBranch => {
            d.may_branch = true;
        }
        _ => {}
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use Class::*;

    fn class(m: &str, ops: &str) -> Class {
        decode(m, ops).class
    }

    #[test]
    fn conditions_and_flag_suffixes_are_stripped_without_eating_mnemonics() {
        assert_eq!(class("bls", "#0x578"), BranchTaken);
        assert_eq!(class("bl", "#0xc2c"), BranchLink);
        assert_eq!(class("bllt", "#0xc2c"), BranchLink);
        assert_eq!(class("bxeq", "lr"), BranchExchange);
        assert_eq!(class("bics", "r0, r1"), Alu);
        assert_eq!(class("movs", "r0, #1"), Alu);
        assert_eq!(class("lsls", "r1, r1, #15"), Alu);
        assert_eq!(class("teq", "r0, r1"), Alu);
        assert_eq!(class("ldr.w", "fp, [r1]"), Load);
        assert_eq!(class("ldrbeq", "r0, [r1]"), Load);
        assert_eq!(class("umlal", "r0, r1, r2, r3"), MulLongAccumulate);
        assert_eq!(class("muls", "r0, r1, r0"), Mul);
        assert_eq!(class("itte", "ne"), It);
        assert_eq!(class("vadd.f32", "s0, s1, s2"), Other);
    }

    #[test]
    fn register_lists_and_writes_to_pc_are_seen() {
        let pop = decode("pop", "{r4, r5, r7, pc}");
        assert_eq!(
            (pop.class, pop.registers, pop.loads_pc),
            (LoadMultiple, 4, true)
        );
        assert!(pop.may_branch);
        let push = decode("push.w", "{r4, r5, r6, r7, r8, sb, sl, fp, lr}");
        assert_eq!(
            (push.class, push.registers, push.may_branch),
            (StoreMultiple, 9, false)
        );
        assert_eq!(decode("stmdb", "sp!, {r4-r7}").registers, 4);
        assert!(decode("ldr", "pc, [sp], #4").loads_pc);
        assert_eq!(class("mov", "pc, lr"), PcWrite);
        assert_eq!(class("cmp", "pc, r0"), Alu);
        assert!(!decode("ldr", "r0, [pc, #0x20]").may_branch);
    }

    #[test]
    fn a_single_loads_destination_and_base_are_read() {
        assert_eq!(decode("ldr", "r2, [r1, #4]").load_registers, Some((2, 1)));
        assert_eq!(decode("ldr.w", "fp, [sb]").load_registers, Some((11, 9)));
        assert_eq!(decode("ldrb", "r0, [r3, r2]").load_registers, Some((0, 3)));
        assert_eq!(
            decode("ldr", "r0, [pc, #0x20]").load_registers,
            Some((0, 15))
        );
        assert_eq!(decode("ldm", "r0, {r1, r2}").load_registers, None);
    }
}
