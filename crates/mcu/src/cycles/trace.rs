//! Reads QEMU's execution log (`-d in_asm,exec,nochain`) line by line and
//! counts the instructions of each measured region by class.
//!
//! The log prints each translation block's instructions once (`IN:` then
//! `0x00000c2c:  b580  push {r7, lr}` lines) and a `Trace 0: <host ptr>
//! [cs_base/pc/flags/cflags]` line on every execution. Two other lines say
//! a block did not run to its end: `cpu_io_recompile: rewound execution of
//! TB to <pc>` (a timer read in the middle of a block under -icount: the
//! instructions from <pc> on run again in a new block) and `Stopped
//! execution of TB chain before <ptr> [<pc>]` (the block did not run).
//!
//! A region starts at an instruction whose address is a mark (the timer
//! sample, recorded by the firmware in `.ciphermeter.marks`), which counts,
//! and ends at the next mark, which does not. The same convention holds for
//! the empty calibration region, so the host's subtraction removes it.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::classify::{Decoded, decode};
use super::{Class, Mix};

#[derive(Debug, Clone, Copy)]
struct Insn {
    addr: u32,
    size: u32,
    decoded: Decoded,
}

type Block = Rc<Vec<Insn>>;

/// Streams the log; [`RegionTracer::finish`] gives one [`Mix`] per region.
pub struct RegionTracer {
    marks: HashSet<u32>,
    /// Translations by the host address QEMU prints on each execution.
    blocks: HashMap<u64, Block>,
    /// Being read (`IN:` seen), then waiting for its first execution.
    translating: Option<Vec<Insn>>,
    translated: Option<Block>,
    /// The block executing now, and where it was cut short, if it was.
    current: Option<(Block, Option<u32>)>,
    region: Option<Mix>,
    regions: Vec<Mix>,
    /// The destination of the instruction before, when it was a single load
    /// that may pipeline with a load after it.
    previous_load: Option<u8>,
    /// Each ended region's flash reads and its code and data footprints in
    /// lines, as the plugin printed them.
    flash_loads: Vec<(i64, i64, i64)>,
    /// Non-log lines (QEMU's own errors), kept for error messages.
    pub other_lines: Vec<String>,
    unknown_blocks: usize,
}

/// The flash-loads plugin's line at each region's end (firmware/cycle-trace).
pub const FLASH_LOADS: &str = "ciphermeter-flash-loads ";

/// Where flash ends on every Cortex-M target: ARMv7-M and ARMv6-M put code
/// in the Code region below 0x2000_0000 and SRAM from there (ARM DDI 0403,
/// B3.1 "The system address map"), as the firmware's link scripts do.
pub const FLASH_END: u32 = 0x2000_0000;

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok()
}

/// One line of QEMU's disassembly (`-d in_asm`): where, how long, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disassembled {
    pub addr: u32,
    pub size: u32,
    /// As QEMU prints it (`udivne`, `ldr.w`).
    pub mnemonic: String,
    pub decoded: Decoded,
}

/// `0x00000c2c:  b580       push     {r7, lr}` → the instruction. RISC-V
/// prints a 32-bit instruction as one word of 8 digits.
pub fn disassembled(line: &str) -> Option<Disassembled> {
    let (addr, rest) = line.split_once(':')?;
    let addr = hex(addr)? as u32;
    let mut words = rest.split_whitespace().peekable();
    let mut size = 0;
    while let Some(w) = words.peek() {
        if (w.len() == 4 || w.len() == 8) && w.chars().all(|c| c.is_ascii_hexdigit()) {
            size += w.len() as u32 / 2;
            words.next();
        } else {
            break;
        }
    }
    let mnemonic = words.next()?;
    let operands: Vec<&str> = words.collect();
    (size > 0).then(|| Disassembled {
        addr,
        size,
        mnemonic: mnemonic.to_string(),
        decoded: decode(mnemonic, &operands.join(" ")),
    })
}

fn parse_insn(line: &str) -> Option<Insn> {
    disassembled(line).map(|d| Insn {
        addr: d.addr,
        size: d.size,
        decoded: d.decoded,
    })
}

impl RegionTracer {
    pub fn new(marks: impl IntoIterator<Item = u32>) -> Self {
        RegionTracer {
            marks: marks.into_iter().map(|m| m & !1).collect(),
            blocks: HashMap::new(),
            translating: None,
            translated: None,
            current: None,
            region: None,
            regions: Vec::new(),
            previous_load: None,
            flash_loads: Vec::new(),
            other_lines: Vec::new(),
            unknown_blocks: 0,
        }
    }

    pub fn feed(&mut self, line: &str) {
        if let Some(insns) = &mut self.translating {
            if line.trim().is_empty() {
                self.translated = self.translating.take().map(Rc::new);
            } else if let Some(insn) = parse_insn(line) {
                insns.push(insn);
            }
            return;
        }
        if line.starts_with("IN:") {
            self.translating = Some(Vec::new());
        } else if let Some(n) = line.strip_prefix(FLASH_LOADS) {
            // Printed when the region's end mark runs, before the host has
            // stepped that block: the regions and counts pair up in order.
            let counts: Vec<i64> = n
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect();
            match counts[..] {
                [loads, code, data] => self.flash_loads.push((loads, code, data)),
                _ => self.other_lines.push(line.to_string()),
            }
        } else if let Some(rest) = line.strip_prefix("Trace ") {
            self.execute(rest);
        } else if let Some(pc) = line.strip_prefix("cpu_io_recompile: rewound execution of TB to ")
        {
            if let (Some((_, cut)), Some(pc)) = (&mut self.current, hex(pc)) {
                *cut = Some(pc as u32);
            }
        } else if line.starts_with("Stopped execution of TB chain before ") {
            // The block was entered but none of it ran (the -icount budget ran out).
            self.current = None;
        } else if !line.starts_with("----")
            && !line.trim().is_empty()
            && self.other_lines.len() < 20
        {
            self.other_lines.push(line.to_string());
        }
    }

    /// `0: 0x7fd5f4000100 [00800400/00000400/00000110/ff020200] Reset`
    fn execute(&mut self, rest: &str) {
        let mut words = rest.split_whitespace();
        let ptr = words.nth(1).and_then(hex);
        let pc = words
            .next()
            .and_then(|b| b.trim_matches(|c| c == '[' || c == ']').split('/').nth(1))
            .and_then(hex)
            .map(|pc| pc as u32);
        let (Some(ptr), Some(pc)) = (ptr, pc) else {
            return;
        };
        self.run_current(Some(pc));
        if let Some(block) = self.translated.take()
            && block.first().map(|i| i.addr) == Some(pc)
        {
            self.blocks.insert(ptr, block);
        }
        match self
            .blocks
            .get(&ptr)
            .filter(|b| b.first().map(|i| i.addr) == Some(pc))
        {
            Some(block) => self.current = Some((block.clone(), None)),
            None => self.unknown_blocks += 1,
        }
    }

    /// Steps through the block that just ran; `next_pc` is where it went.
    fn run_current(&mut self, next_pc: Option<u32>) {
        let Some((block, cut)) = self.current.take() else {
            return;
        };
        let ran = block
            .iter()
            .take_while(|i| cut.is_none_or(|c| i.addr != c))
            .copied()
            .collect::<Vec<_>>();
        for (k, insn) in ran.iter().enumerate() {
            let next = ran.get(k + 1).map(|i| i.addr).or(cut).or(next_pc);
            self.step(insn, next);
        }
    }

    fn step(&mut self, insn: &Insn, next: Option<u32>) {
        let mut start = false;
        if self.marks.contains(&insn.addr) {
            match self.region.take() {
                Some(done) => {
                    self.regions.push(done);
                    self.previous_load = None;
                    return;
                }
                None => {
                    self.region = Some(Mix::default());
                    start = true;
                }
            }
        }
        let d = insn.decoded;
        // A load pipelines with the load before it unless its address needs
        // that load's result (Cortex-M3/M4 TRM 3.3.2: LDR r0,[r1]; LDR r2,[r0]).
        let after_load = match (self.previous_load, d.load_registers) {
            (Some(dest), Some((_, base))) => dest != base,
            (Some(_), None) => true,
            (None, _) => false,
        };
        self.previous_load = match d.load_registers {
            Some((dest, _)) if d.class == Class::Load && !d.loads_pc => Some(dest),
            _ if d.class == Class::Load && !d.loads_pc => Some(u8::MAX),
            _ => None,
        };
        let Some(mix) = &mut self.region else {
            return;
        };
        mix.instructions += 1;
        // The start sample's own bytes are left out: its encoding (16 or 32
        // bits) depends on the register the compiler gave it, so it would
        // not cancel against the empty region's.
        if !start {
            mix.bytes += i64::from(insn.size);
        }
        let taken = d.may_branch && next.is_some_and(|n| n != insn.addr + insn.size);
        if d.may_branch && !taken {
            mix.add(Class::BranchNotTaken, 1);
            return;
        }
        let class = match d.class {
            Class::Load if after_load && !d.loads_pc => Class::LoadPipelined,
            c => c,
        };
        mix.add(class, 1);
        if d.registers > 0 {
            *mix.registers.entry(class).or_default() += i64::from(d.registers);
        }
        if taken {
            mix.refills += 1;
            if d.loads_pc {
                mix.add(Class::ToPcExtra, 1);
            }
        }
    }

    /// Whether the flash-loads plugin's counts are in the log.
    pub fn flash_loads_counted(&self) -> bool {
        !self.flash_loads.is_empty()
    }

    /// The regions in the order they ran. Fails if the log had executions of
    /// blocks it never showed (the log is then not the whole run), or if the
    /// flash-loads plugin printed counts for other regions than the log's.
    pub fn finish(mut self) -> Result<Vec<Mix>, String> {
        self.run_current(None);
        if !self.flash_loads.is_empty() {
            if self.flash_loads.len() != self.regions.len() {
                return Err(format!(
                    "the flash-loads plugin counted {} regions, the QEMU log {}",
                    self.flash_loads.len(),
                    self.regions.len()
                ));
            }
            for (mix, &(loads, code, data)) in self.regions.iter_mut().zip(&self.flash_loads) {
                (mix.flash_loads, mix.code_lines, mix.flash_data_lines) = (loads, code, data);
            }
        }
        if self.unknown_blocks > 0 {
            return Err(format!(
                "{} executed blocks were never disassembled in the QEMU log",
                self.unknown_blocks
            ));
        }
        if self.region.is_some() {
            return Err("a measured region never ended in the QEMU log".into());
        }
        Ok(self.regions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written log in QEMU 7.2's format: a loop block run three times
    /// (taken, taken, not taken), with a block cut by an I/O rewind.
    const LOG: &str = "\
----------------
IN: f
0x00000100:  f240 0104  movw     r1, #4
0x00000104:  680c       ldr      r4, [r1]
0x00000106:  2003       movs     r0, #3

Trace 0: 0x7f0000000100 [00800400/00000100/00000110/ff020200] f
cpu_io_recompile: rewound execution of TB to 00000104
----------------
IN: f
0x00000104:  680c       ldr      r4, [r1]

Trace 0: 0x7f0000000200 [00800400/00000104/00000110/ff038201] f
----------------
IN: f
0x00000106:  2003       movs     r0, #3

Trace 0: 0x7f0000000300 [00800400/00000106/00000110/ff020200] f
----------------
IN: f
0x00000108:  6809       ldr      r1, [r1]
0x0000010a:  680a       ldr      r2, [r1]
0x0000010c:  3801       subs     r0, #1
0x0000010e:  d1fb       bne      #0x108

Trace 0: 0x7f0000000400 [00800400/00000108/00000110/ff020200] f
Trace 0: 0x7f0000000400 [00800400/00000108/00000110/ff020200] f
Stopped execution of TB chain before 0x7f0000000400 [00000108] f
Trace 0: 0x7f0000000400 [00800400/00000108/00000110/ff020200] f
Trace 0: 0x7f0000000400 [00800400/00000108/00000110/ff020200] f
----------------
IN: f
0x00000110:  680c       ldr      r4, [r1]

Trace 0: 0x7f0000000500 [00800400/00000110/00000110/ff020200] f
ciphermeter-flash-loads 7 5 2
";

    #[test]
    fn counts_a_region_between_marks_with_rewinds_and_stopped_blocks() {
        let mut t = RegionTracer::new([0x104, 0x110]);
        for line in LOG.lines() {
            t.feed(line);
        }
        let regions = t.finish().unwrap();
        assert_eq!(regions.len(), 1);
        let r = &regions[0];
        // ldr (start mark), movs, 3 × (ldr, ldr, subs, bne); the stop mark is not counted.
        assert_eq!(r.instructions, 2 + 3 * 4);
        // `ldr r2, [r1]` needs the `ldr r1, [r1]` before it: not pipelined.
        assert_eq!(r.count(Class::Load), 1 + 3 + 3);
        assert_eq!(r.count(Class::LoadPipelined), 0);
        assert_eq!(r.count(Class::Alu), 1 + 3);
        assert_eq!(r.count(Class::BranchTaken), 2);
        assert_eq!(r.count(Class::BranchNotTaken), 1);
        // The start sample's 2 bytes are not counted.
        assert_eq!((r.refills, r.bytes), (2, 2 * 14 - 2));
        assert_eq!(
            r.flash_loads, 7,
            "the plugin's count, paired with its region"
        );
    }

    #[test]
    fn plugin_counts_for_other_regions_than_the_logs_are_an_error() {
        let mut t = RegionTracer::new([0x104, 0x110]);
        for line in LOG.lines() {
            t.feed(line);
        }
        t.feed("ciphermeter-flash-loads 3 1 1");
        assert!(t.finish().unwrap_err().contains("counted 2 regions"));
    }

    #[test]
    fn a_load_pipelines_after_a_load_unless_its_address_needs_it() {
        let log = "IN: f\n\
0x00000100:  680c       ldr      r4, [r1]\n\
0x00000102:  6822       ldr      r2, [r4]\n\
0x00000104:  6848       ldr      r0, [r1, #4]\n\
0x00000106:  6888       ldr      r0, [r1, #8]\n\
0x00000108:  3801       subs     r0, #1\n\
\n\
Trace 0: 0x7f0000000100 [00800400/00000100/00000110/ff020200] f\n\
IN: f\n\
0x0000010a:  680c       ldr      r4, [r1]\n\
\n\
Trace 0: 0x7f0000000200 [00800400/0000010a/00000110/ff020200] f\n";
        let mut t = RegionTracer::new([0x100, 0x10a]);
        for line in log.lines() {
            t.feed(line);
        }
        let r = &t.finish().unwrap()[0];
        assert_eq!(
            r.count(Class::Load),
            2,
            "the first, and the one that needs r4"
        );
        assert_eq!(r.count(Class::LoadPipelined), 2);
    }

    #[test]
    fn a_risc_v_word_of_eight_digits_is_four_bytes() {
        let insn = parse_insn("0x80000000:  00401197          auipc  gp,4198400").unwrap();
        assert_eq!((insn.addr, insn.size), (0x8000_0000, 4));
        let short = parse_insn("0x80000004:  4281              mv     t0,zero").unwrap();
        assert_eq!(short.size, 2);
    }

    #[test]
    fn an_execution_of_a_block_never_shown_is_an_error() {
        let mut t = RegionTracer::new([]);
        t.feed("Trace 0: 0x7f0000000900 [00800400/00000900/00000110/ff020200] g");
        assert!(t.finish().is_err());
    }
}
