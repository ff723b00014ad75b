//! The operands of variable-latency instructions, and the flags of the
//! instructions in IT blocks, which QEMU's plugins cannot read: a second run
//! logs the CPU's registers before each execution of those instructions only
//! (`emulate::run_qemu_operands`), with QEMU's disassembly of each, and the
//! plugin numbers the executions inside each region, so each region's
//! executions are found in the log, priced with the core's latency model
//! ([`super::latency`]) and judged run or skipped ([`super::conditional`]).

use std::collections::HashMap;

use super::conditional::{self, Conditional};
use super::latency::{self, Latency};
use crate::Target;
use crate::cycles::trace::{Disassembled, disassembled};

/// The registers before one instruction ran: `values[n]` is R`n` on a
/// Cortex-M and x`n` on RISC-V.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registers {
    pub pc: u32,
    pub values: Vec<u32>,
    /// The XPSR on a Cortex-M (flags and IT state).
    pub xpsr: Option<u32>,
}

/// Reads QEMU's `-d cpu` log as it streams: ARM's `R00=… R15=…` lines and
/// RISC-V's ` pc …` and ` x10/a0 …` lines. Anything else is the simulator
/// speaking, kept for the error message.
#[derive(Debug, Default)]
pub struct LogReader {
    entries: Vec<Registers>,
    current: Option<Registers>,
    other: Vec<String>,
    /// QEMU's disassembly (`-d in_asm`) of each logged instruction.
    code: HashMap<u32, Disassembled>,
}

impl LogReader {
    pub fn feed(&mut self, line: &str) {
        if line.starts_with("0x")
            && let Some(insn) = disassembled(line)
        {
            self.code.insert(insn.addr, insn);
            return;
        }
        if line.starts_with("IN:") || line.trim().is_empty() {
            return;
        }
        let mut tokens = line.split_whitespace().peekable();
        let logged =
            line.starts_with(' ') || arm_register(line).is_some() || line.starts_with("XPSR=");
        if !logged {
            self.other.push(line.to_string());
            return;
        }
        while let Some(token) = tokens.next() {
            if let Some((n, value)) = arm_register(token) {
                if n == 0 {
                    self.start();
                }
                self.set(n, value);
                if n == 15 {
                    self.current.get_or_insert_default().pc = value;
                }
            } else if let Some(value) = token.strip_prefix("XPSR=").and_then(hex) {
                self.current.get_or_insert_default().xpsr = Some(value);
            } else if token == "pc" {
                self.start();
                let value = tokens.next().and_then(hex);
                self.current.get_or_insert_default().pc = value.unwrap_or(0);
            } else if let Some(n) = riscv_register(token)
                && let Some(value) = tokens.next().and_then(hex)
            {
                self.set(n, value);
            }
        }
    }

    fn start(&mut self) {
        if let Some(done) = self.current.take() {
            self.entries.push(done);
        }
        self.current = Some(Registers::default());
    }

    fn set(&mut self, n: usize, value: u32) {
        let entry = self.current.get_or_insert_default();
        if entry.values.len() <= n {
            entry.values.resize(n + 1, 0);
        }
        entry.values[n] = value;
    }

    /// Every entry in order, and the lines that were not the log. An entry
    /// repeated whole may be a loop calling the same code on the same values,
    /// so none is dropped: a block QEMU logged and then stopped before it ran
    /// would make the log longer than the plugin's count, which [`price`]
    /// refuses.
    pub fn finish(mut self) -> Log {
        self.start();
        Log {
            entries: std::mem::take(&mut self.entries),
            code: std::mem::take(&mut self.code),
            other: self.other.join("\n"),
        }
    }
}

/// The operand run's log: each logged execution's registers in order, the
/// disassembly of each instruction logged, and what was not the log.
#[derive(Debug, Default)]
pub struct Log {
    pub entries: Vec<Registers>,
    pub code: HashMap<u32, Disassembled>,
    pub other: String,
}

/// What one region's watched executions were: each variable-latency one
/// that ran, priced, and each one in an IT block, run or skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Watched {
    pub latencies: Vec<Latency>,
    pub conditions: Vec<Conditional>,
}

/// `R07=2000fe50` as (7, 0x2000fe50).
fn arm_register(token: &str) -> Option<(usize, u32)> {
    let (name, value) = token.split_once('=')?;
    let n = name.strip_prefix('R')?.parse().ok()?;
    Some((n, hex(value.split_whitespace().next()?)?))
}

/// `x10/a0` as 10.
fn riscv_register(token: &str) -> Option<usize> {
    token.strip_prefix('x')?.split_once('/')?.0.parse().ok()
}

fn hex(s: &str) -> Option<u32> {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

const END: u32 = 0xFFFF_FFFF;
const ESCAPE: u32 = 0xFFFF_FFFE;

/// The plugin's index (firmware/ct-trace): per region, the numbers of the
/// watched executions inside it; then how many ran in all.
pub fn read_index(bytes: &[u8]) -> Result<(Vec<Vec<u32>>, u32), String> {
    let mut words = super::trace::words(bytes, "the operand index")?;
    let mut regions = Vec::new();
    let mut region = Vec::new();
    while let Some(w) = words.next() {
        match w {
            END => regions.push(std::mem::take(&mut region)),
            ESCAPE => {
                let total = words.next().ok_or("the operand index ends early")?;
                if !region.is_empty() || words.next().is_some() {
                    return Err("the operand index goes on after its count".into());
                }
                return Ok((regions, total));
            }
            k => region.push(k),
        }
    }
    Err("the operand index has no count: QEMU did not finish".into())
}

/// Each region's watched executions: the index's numbers looked up in the
/// log, a variable-latency one priced by the instruction at its address (one
/// in an IT block only if it ran), one in an IT block judged run or skipped
/// from its XPSR and QEMU's disassembly. Another watched instruction (the IT
/// itself, logged with its block) says nothing.
pub fn price<'a>(
    target: Target,
    index: &[Vec<u32>],
    total: u32,
    log: &Log,
    code: impl Fn(u32, usize) -> Option<&'a [u8]>,
) -> Result<Vec<Watched>, String> {
    if log.entries.len() != total as usize {
        return Err(format!(
            "QEMU's log holds {} executions of the watched instructions and the \
             plugin counted {total}: the operands cannot be matched to their runs",
            log.entries.len()
        ));
    }
    index
        .iter()
        .map(|region| {
            let mut watched = Watched::default();
            for &k in region {
                let regs = &log.entries[k as usize];
                let insn = code(regs.pc, 4)
                    .ok_or_else(|| format!("no code at {:#x} in the ELF", regs.pc))?;
                let priced = latency::price(target, regs.pc, insn, &regs.values);
                let condition = match (regs.xpsr, log.code.get(&regs.pc)) {
                    (Some(xpsr), Some(insn)) => {
                        conditional::judge(target, insn, xpsr, priced.and_then(|p| p.cycles))
                    }
                    (Some(xpsr), None) if conditional::condition(xpsr).is_some() => {
                        return Err(format!(
                            "QEMU logged no disassembly of the instruction at {:#x}",
                            regs.pc
                        ));
                    }
                    _ => None,
                };
                if let Some(p) = priced
                    && condition.as_ref().is_none_or(|c| c.passed)
                {
                    watched.latencies.push(p);
                }
                watched.conditions.extend(condition);
            }
            Ok(watched)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_arm_entries_and_keeps_what_is_not_the_log() {
        let mut r = LogReader::default();
        for line in [
            "R00=00000000 R01=cccccccd R02=000000f6 R03=00000009",
            "R04=00000009 R05=2000fdc8 R06=0000138f R07=2000fe50",
            "R08=00000000 R09=2000fe5c R10=00000000 R11=00000000",
            "R12=00000000 R13=2000fdc8 R14=00000b05 R15=00000b4a",
            "XPSR=61000000 -ZC- T priv-thread",
            "qemu-system-arm: a warning",
            "R00=00000001 R01=cccccccd R02=000000f6 R03=00000009",
            "R12=00000000 R13=2000fdc8 R14=00000b05 R15=00000d00",
        ] {
            r.feed(line);
        }
        let Log { entries, other, .. } = r.finish();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].xpsr, Some(0x6100_0000));
        assert_eq!(entries[0].pc, 0xb4a);
        assert_eq!(entries[0].values[1], 0xcccc_cccd);
        assert_eq!(entries[0].values[6], 0x138f);
        assert_eq!(entries[1].pc, 0xd00);
        assert_eq!(entries[1].values[0], 1);
        assert_eq!(other, "qemu-system-arm: a warning");
    }

    #[test]
    fn reads_riscv_entries_and_keeps_a_repeated_one() {
        let entry = [
            " V      =   0",
            " pc       80000bb0",
            " mstatus  00000000",
            " x0/zero  00000000 x1/ra    8000084a x2/sp    80463eb0 x3/gp    80400800",
            " x12/a2   00000010 x13/a3   00000007 x14/a4   00000d01 x15/a5   00000d01",
        ];
        let mut r = LogReader::default();
        for line in entry.iter().chain(&entry) {
            r.feed(line);
        }
        let entries = r.finish().entries;
        assert_eq!(
            entries.len(),
            2,
            "a loop may run one division on one value twice"
        );
        assert_eq!(entries[0].pc, 0x8000_0bb0);
        assert_eq!(entries[0].values[13], 7);
        assert_eq!(entries[0].values[15], 0xd01);
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn an_index_gives_each_regions_executions_and_checks_its_count() {
        let (regions, total) = read_index(&words(&[2, 3, END, END, 7, END, ESCAPE, 9])).unwrap();
        assert_eq!(regions, [vec![2, 3], vec![], vec![7]]);
        assert_eq!(total, 9);
        assert!(read_index(&words(&[2, END])).is_err(), "no count");
        assert!(read_index(&words(&[END, ESCAPE])).is_err());
        assert!(read_index(&[1, 2]).is_err());
        let log = Log {
            entries: vec![Registers::default(); 3],
            ..Log::default()
        };
        let err = price(Target::CortexM3, &[vec![0]], 4, &log, |_, _| None).unwrap_err();
        assert!(err.contains("counted 4"), "{err}");
    }
}
