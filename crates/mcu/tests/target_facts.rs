//! The constant-time judge (crates/mcu/src/ct) reads its cores from the
//! targets' files: each variable-latency instruction a file lists must be one
//! the judge decodes for that core's instruction set (a name it cannot decode
//! would silently judge nothing), priced where the file says its cycles are
//! published, and the IT-block flag must reach the judge. Builds no firmware.

use ciphermeter_mcu as mcu;
use mcu::Target;
use mcu::ct::latency;

/// Each variable-latency instruction with an encoding of it (Thumb-2 T1
/// halfwords, or an RV32M word).
fn encodings() -> Vec<(&'static str, Vec<u8>)> {
    let thumb = |first: u16, second: u16| [first.to_le_bytes(), second.to_le_bytes()].concat();
    let rv32m = |funct3: u32| {
        ((1 << 25) | (funct3 << 12) | 0x33u32)
            .to_le_bytes()
            .to_vec()
    };
    vec![
        ("UDIV", thumb(0xfbb1, 0xf0f2)),
        ("SDIV", thumb(0xfb91, 0xf0f2)),
        ("UMULL", thumb(0xfba2, 0x0103)),
        ("SMULL", thumb(0xfb82, 0x0103)),
        ("UMLAL", thumb(0xfbe2, 0x0103)),
        ("SMLAL", thumb(0xfbc2, 0x0103)),
        ("DIV", rv32m(4)),
        ("DIVU", rv32m(5)),
        ("REM", rv32m(6)),
        ("REMU", rv32m(7)),
    ]
}

#[test]
fn the_files_name_the_variable_latency_instructions_the_judge_prices() {
    for t in Target::ALL {
        let judged: Vec<&str> = encodings()
            .iter()
            .filter_map(|(_, insn)| latency::variable(t, insn))
            .collect();
        assert_eq!(judged, t.variable_latency(), "{t}");
        for (name, insn) in encodings() {
            let Some(priced) = latency::price(t, 0, &insn, &[7; 32]) else {
                continue;
            };
            assert_eq!(
                priced.cycles.is_some(),
                t.facts().timing.variable_latency_published,
                "{t}: {name}"
            );
        }
    }
}

/// Thumb-2's IT blocks are ARMv7-M's and ARMv8-M Mainline's: the Cortex-M3,
/// M4 and M33 files say so, the ARMv6-M, AVR and RISC-V ones do not (the
/// judge reads the file).
#[test]
fn the_files_say_which_cores_have_it_blocks() {
    for t in Target::ALL {
        let thumb2 = matches!(t, Target::CortexM3 | Target::CortexM4 | Target::CortexM33);
        assert_eq!(t.has_it_blocks(), thumb2, "{t}");
    }
}
