//! "Does not fit": an algorithm that needs more flash or RAM than the target
//! has is a finding, so its row says so with the sizes that explain it,
//! instead of a bare linker error or a corrupted run.

use crate::Target;
use crate::parse::Run;

/// How every such reason starts, for readers that select on it
/// (`Target::short_of_ram` and `short_of_flash` say the memory too).
pub use device_facts::target::DOES_NOT_FIT;

/// A build the linker refused for want of memory ("region `text' overflowed
/// by 114694 bytes"), said as the memory it is short of.
pub fn link_overflow(target: Target, reason: &str) -> Option<String> {
    let at = reason.find("overflowed by ")?;
    let bytes: u64 = reason[at + "overflowed by ".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let region = reason[..at]
        .rsplit("region ")
        .next()?
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .find(|w| !w.is_empty())?;
    let short = match region.to_ascii_lowercase().as_str() {
        "text" | "flash" | "rom" => target.short_of_flash(),
        _ => target.short_of_ram(),
    };
    Some(format!(
        "{short}: the linker's region `{region}' overflowed by {bytes} B"
    ))
}

/// A run the simulator stopped because the stack ran past the end of RAM,
/// said as the RAM it lacks: simavr's "Invalid write address … out of ram",
/// or a Cortex-M lockup (a fault while faulting) with the stack pointer
/// below the start of RAM (QEMU prints `R13=…`; the target's `ram_origin`).
pub fn ran_out_of_ram(target: Target, simulator_said: &str, static_ram: u64) -> Option<String> {
    let stack_below_ram = || {
        let sp = simulator_said.split("R13=").nth(1)?.get(..8)?;
        let sp = u64::from(u32::from_str_radix(sp, 16).ok()?);
        (sp < target.facts().memory.ram_origin?).then_some(())
    };
    let out = simulator_said.contains("out of ram")
        || (simulator_said.contains("Lockup") && stack_below_ram().is_some());
    if !out {
        return None;
    }
    Some(format!(
        "{}: the stack ran past the end of RAM beside {static_ram} B of static data (the \
         simulator stopped the run)",
        target.short_of_ram()
    ))
}

/// A run the firmware ended as it started an algorithm whose bench frame
/// (its keys and buffers) reached `N <bytes>` below the end of the static
/// data, less the margin its calls need: said with the sizes.
pub fn frame_too_big(target: Target, firmware_said: &str, static_ram: u64) -> Option<String> {
    let short: u64 = firmware_said
        .lines()
        .find_map(|l| l.strip_prefix("N "))?
        .trim()
        .parse()
        .ok()?;
    Some(format!(
        "{}: the benchmark's frame for it (keys and buffers, before any measured operation) \
         reaches {short} B past what is free beside {static_ram} B of static data",
        target.short_of_ram()
    ))
}

/// A run whose stack reached the static data in some region: the region
/// used all the room it had, so its counts cannot be trusted and the
/// algorithm needs more RAM than the target has.
pub fn stack_overflow(target: Target, run: &Run, static_ram: u64) -> Option<String> {
    let op = run.ops.iter().find(|op| op.out_of_stack())?;
    let had = match op.room {
        Some(room) => format!("all {room} B of stack it had"),
        None => format!("all the stack it had (its peak reached {} B)", op.stack),
    };
    Some(format!(
        "{}: {} of {} B used {had} beside {static_ram} B of static data and the benchmark's \
         own frames, and ran into the data",
        target.short_of_ram(),
        op.operation,
        op.size
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    #[test]
    fn a_frame_past_the_static_data_does_not_fit_with_its_size() {
        let said = "A identity\nK identity pass\nA ml-dsa-44\nN 20480\n";
        let why = frame_too_big(Target::CortexM3, said, 512).unwrap();
        assert!(why.starts_with(DOES_NOT_FIT), "{why}");
        assert!(
            why.contains("65536 B") && why.contains("20480 B") && why.contains("512 B"),
            "{why}"
        );
        assert!(frame_too_big(Target::CortexM3, "A x\nE\n", 0).is_none());
    }

    #[test]
    fn a_stack_past_the_end_of_ram_does_not_fit() {
        let avr =
            "CORE: *** Invalid write address PC=0104 SP=da63 O=940e Address da63=84 out of ram";
        let why = ran_out_of_ram(Target::Atmega1284p, avr, 2110).unwrap();
        assert!(
            why.starts_with("does not fit in atmega1284p's RAM (16384 B)"),
            "{why}"
        );
        let arm = "qemu: fatal: Lockup: can't escalate 3 to HardFault (current priority -1)\nR12=00000000\nR13=1fffda38\n";
        assert!(ran_out_of_ram(Target::CortexM0plus, arm, 900).is_some());
        // A lockup with the stack inside RAM is some other fault, said as it is.
        let other = "qemu: fatal: Lockup: can't escalate 3 to HardFault\nR13=20003f00\n";
        assert_eq!(ran_out_of_ram(Target::CortexM0plus, other, 900), None);
        assert_eq!(ran_out_of_ram(Target::CortexM0plus, "exit 1", 900), None);
    }

    #[test]
    fn a_linker_overflow_names_the_memory_and_the_shortfall() {
        let avr = "error: linking with `avr-gcc` failed: exit status: 1; x.elf section `.text' will not fit \
                   in region `text'; region `text' overflowed by 114694 bytes";
        assert_eq!(
            link_overflow(Target::Atmega1284p, avr).unwrap(),
            "does not fit in atmega1284p's flash (131072 B): the linker's region `text' overflowed by 114694 B"
        );
        let arm = "rust-lld: error: section '.bss' will not fit in region 'RAM': overflowed by 2048 bytes";
        assert_eq!(
            link_overflow(Target::CortexM0plus, arm).unwrap(),
            "does not fit in cortex-m0plus's RAM (32768 B): the linker's region `RAM' overflowed by 2048 B"
        );
        assert_eq!(
            link_overflow(Target::CortexM3, "error[E0599]: no method"),
            None
        );
        // riscv32imc's own link script names its regions FLASH and RAM
        // (firmware/memory/esp32c3.x); rust-lld as it says it.
        let rv = "rust-lld: error: section '.text' will not fit in region 'FLASH': overflowed by 12640 bytes";
        assert_eq!(
            link_overflow(Target::Riscv32imc, rv).unwrap(),
            "does not fit in riscv32imc's flash (4194304 B): the linker's region `FLASH' overflowed by 12640 B"
        );
    }

    #[test]
    fn a_stack_that_used_all_its_room_does_not_fit() {
        let fits = parse("M decrypt 256\nC 10 3212 9000\nE\n").unwrap();
        assert_eq!(stack_overflow(Target::Atmega1284p, &fits, 2126), None);
        let full =
            parse("M encrypt 256\nC 10 100 9000\nM decrypt 256\nC 10 9000 9000\nE\n").unwrap();
        let why = stack_overflow(Target::Atmega1284p, &full, 2126).unwrap();
        assert!(
            why.starts_with(
                "does not fit in atmega1284p's RAM (16384 B): decrypt of 256 B used all 9000 B"
            ),
            "{why}"
        );
        // Without the room (a constant-time build) nothing is claimed unless
        // the firmware says so; with it, a peak short of the room fits.
        let arm = parse("M decrypt 256\nC 10 9000\nE\n").unwrap();
        assert_eq!(stack_overflow(Target::CortexM0plus, &arm, 0), None);
        let arm = parse("M decrypt 256\nC 10 9000 20000\nE\n").unwrap();
        assert_eq!(stack_overflow(Target::CortexM0plus, &arm, 0), None);
        // riscv32imc paints and flags like Cortex-M (`O`), in 400 KiB of SRAM.
        let rv = parse("M decrypt 256\nC 10 1232\nO\nE\n").unwrap();
        let why = stack_overflow(Target::Riscv32imc, &rv, 0).unwrap();
        assert!(
            why.starts_with("does not fit in riscv32imc's RAM (409600 B): decrypt of 256 B"),
            "{why}"
        );
        let arm = parse("M decrypt 256\nC 10 15000\nO\nE\n").unwrap();
        let why = stack_overflow(Target::CortexM0plus, &arm, 900).unwrap();
        assert!(
            why.starts_with("does not fit in cortex-m0plus's RAM (32768 B): decrypt of 256 B used all the stack it had (its peak reached 15000 B) beside 900 B"),
            "{why}"
        );
    }
}
