//! Flash footprint of a firmware ELF: the bytes a programmer writes, i.e. the
//! allocated sections with contents (what avr-size reports as text + data).

use std::path::Path;

use crate::McuError;

const SHF_WRITE: u32 = 0x1;
const SHF_ALLOC: u32 = 0x2;
const SHT_NOBITS: u32 = 8;

pub fn flash_bytes(path: &Path) -> Result<u64, McuError> {
    let bytes = std::fs::read(path)?;
    flash_bytes_of(&bytes).ok_or_else(|| {
        McuError::Failed(format!(
            "{} is not a 32-bit little-endian ELF",
            path.display()
        ))
    })
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as u64)
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as u64)
}

/// Static RAM of a firmware ELF: its writable allocated sections (.data and
/// .bss), which the stack must not run into.
pub fn static_ram_bytes(path: &Path) -> Result<u64, McuError> {
    let bytes = std::fs::read(path)?;
    sum_sections(&bytes, |_, flags| {
        flags & SHF_ALLOC != 0 && flags & SHF_WRITE != 0
    })
    .ok_or_else(|| {
        McuError::Failed(format!(
            "{} is not a 32-bit little-endian ELF",
            path.display()
        ))
    })
}

pub fn flash_bytes_of(b: &[u8]) -> Option<u64> {
    sum_sections(b, |kind, flags| {
        flags & SHF_ALLOC != 0 && kind != SHT_NOBITS
    })
}

/// The total size of the sections `keep(type, flags)` selects.
fn sum_sections(b: &[u8], keep: impl Fn(u32, u32) -> bool) -> Option<u64> {
    // ELF32 (class 1), little endian (data 1): both AVR and ARM firmware.
    if b.get(0..4)? != b"\x7fELF" || b[4] != 1 || b[5] != 1 {
        return None;
    }
    let shoff = u32_at(b, 0x20)? as usize;
    let shentsize = u16_at(b, 0x2e)? as usize;
    let shnum = u16_at(b, 0x30)? as usize;
    let mut total = 0;
    for i in 0..shnum {
        let sh = shoff + i * shentsize;
        let kind = u32_at(b, sh + 4)? as u32;
        let flags = u32_at(b, sh + 8)? as u32;
        let size = u32_at(b, sh + 20)?;
        if keep(kind, flags) {
            total += size;
        }
    }
    Some(total)
}

/// The section the Cortex-M firmware records its timer-sample addresses in
/// (firmware/src/platform/arm.rs): the measured regions' boundaries.
pub const MARKS_SECTION: &str = ".ciphermeter.marks";

/// The contents of the section `name`, if the ELF has it.
pub fn section_of<'a>(b: &'a [u8], name: &str) -> Option<&'a [u8]> {
    if b.get(0..4)? != b"\x7fELF" || b[4] != 1 || b[5] != 1 {
        return None;
    }
    let shoff = u32_at(b, 0x20)? as usize;
    let shentsize = u16_at(b, 0x2e)? as usize;
    let shnum = u16_at(b, 0x30)? as usize;
    let shstrndx = u16_at(b, 0x32)? as usize;
    let names = u32_at(b, shoff + shstrndx * shentsize + 16)? as usize;
    (0..shnum).find_map(|i| {
        let sh = shoff + i * shentsize;
        let at = names + u32_at(b, sh)? as usize;
        let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
        if &b[at..end] != name.as_bytes() {
            return None;
        }
        let (off, size) = (u32_at(b, sh + 16)? as usize, u32_at(b, sh + 20)? as usize);
        b.get(off..off + size)
    })
}

const SHT_SYMTAB: u64 = 2;

/// The `len` bytes at `addr` in a section the program loads, as the file
/// holds them (an instruction's encoding).
pub fn bytes_at(b: &[u8], addr: u32, len: usize) -> Option<&[u8]> {
    let shnum = u16_at(b, 0x30)? as usize;
    (0..shnum).find_map(|i| {
        let sh = section_header(b, i)?;
        let (kind, flags) = (u32_at(b, sh + 4)? as u32, u32_at(b, sh + 8)? as u32);
        let (start, off, size) = (
            u32_at(b, sh + 12)? as u32,
            u32_at(b, sh + 16)? as usize,
            u32_at(b, sh + 20)? as u32,
        );
        if kind == SHT_NOBITS || flags & SHF_ALLOC == 0 || !(start..start + size).contains(&addr) {
            return None;
        }
        let at = off + (addr - start) as usize;
        b.get(at..at + len)
    })
}

/// Where the bytes of the symbol `name` lie in the ELF file: its section's
/// file offset plus its distance from the section's address. `None` when the
/// symbol is missing or has no bytes in the file (.bss).
pub fn symbol_file_range(b: &[u8], name: &str) -> Option<std::ops::Range<usize>> {
    let sym = symbols(b)?.find(|s| s.name == name.as_bytes())?;
    let sh = section_header(b, sym.section)?;
    if u32_at(b, sh + 4)? as u32 == SHT_NOBITS {
        return None;
    }
    let (addr, off) = (u32_at(b, sh + 12)? as usize, u32_at(b, sh + 16)? as usize);
    let start = off + (sym.value as usize).checked_sub(addr)?;
    let size = sym.size as usize;
    b.get(start..start + size).map(|_| start..start + size)
}

/// One entry of an ELF32 symbol table.
struct Symbol<'a> {
    name: &'a [u8],
    value: u32,
    size: u32,
    kind: u8,
    section: usize,
}

const STT_FUNC: u8 = 2;
const STT_NOTYPE: u8 = 0;

/// The file offset of section `i`'s header.
fn section_header(b: &[u8], i: usize) -> Option<usize> {
    Some(u32_at(b, 0x20)? as usize + i * u16_at(b, 0x2e)? as usize)
}

/// The symbols of a little-endian ELF32 file; `None` when it has no table.
fn symbols(b: &[u8]) -> Option<impl Iterator<Item = Symbol<'_>>> {
    if b.get(0..4)? != b"\x7fELF" || b[4] != 1 || b[5] != 1 {
        return None;
    }
    let shnum = u16_at(b, 0x30)? as usize;
    let symtab = (0..shnum)
        .filter_map(|i| section_header(b, i))
        .find(|&sh| u32_at(b, sh + 4) == Some(SHT_SYMTAB))?;
    let (sym_off, sym_size) = (
        u32_at(b, symtab + 16)? as usize,
        u32_at(b, symtab + 20)? as usize,
    );
    let str_off = u32_at(b, section_header(b, u32_at(b, symtab + 24)? as usize)? + 16)? as usize;
    Some(
        (sym_off..sym_off + sym_size)
            .step_by(16)
            .map_while(move |sym| {
                let at = str_off + u32_at(b, sym)? as usize;
                let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
                Some(Symbol {
                    name: &b[at..end],
                    value: u32_at(b, sym + 4)? as u32,
                    size: u32_at(b, sym + 8)? as u32,
                    kind: *b.get(sym + 12)? & 0xf,
                    section: u16_at(b, sym + 14)? as usize,
                })
            }),
    )
}

/// A function of the firmware: where its code starts, how long it is, and
/// its name (demangled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub start: u32,
    pub size: u32,
    pub name: String,
}

/// The functions of an ELF, by address, to name where an instruction is
/// (Thumb's bit 0 cleared).
pub fn functions(path: &Path) -> Result<Vec<Function>, McuError> {
    let bytes = std::fs::read(path)?;
    let mut all: Vec<Function> = symbols(&bytes)
        .ok_or_else(|| McuError::Failed(format!("{} has no symbol table", path.display())))?
        // Assembly routines (libgcc's) are often typed NOTYPE, with a size.
        .filter(|s| (s.kind == STT_FUNC || s.kind == STT_NOTYPE) && s.size > 0)
        .map(|s| Function {
            start: s.value & !1,
            size: s.size,
            name: demangle(&String::from_utf8_lossy(s.name)),
        })
        .collect();
    all.sort_by_key(|f| f.start);
    Ok(all)
}

/// The function holding `addr` in `functions` (sorted by start).
pub fn function_at(functions: &[Function], addr: u32) -> Option<&Function> {
    let i = functions
        .partition_point(|f| f.start <= addr)
        .checked_sub(1)?;
    let f = &functions[i];
    (addr < f.start + f.size).then_some(f)
}

/// A Rust symbol as a path without its hash (legacy or v0 mangling);
/// other names (libgcc's `__udivmodsi4`) as they are.
pub fn demangle(name: &str) -> String {
    format!("{:#}", rustc_demangle::demangle(name))
}

/// The addresses of the timer samples (Thumb bit cleared).
pub fn marks(path: &Path) -> Result<Vec<u32>, McuError> {
    let bytes = std::fs::read(path)?;
    let section = section_of(&bytes, MARKS_SECTION).ok_or_else(|| {
        McuError::Failed(format!(
            "{} has no {MARKS_SECTION} section (firmware too old for the cycle model?)",
            path.display()
        ))
    })?;
    Ok(section
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) & !1)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_is_not_elf32() {
        assert_eq!(flash_bytes_of(b"not an elf at all, really"), None);
    }

    #[test]
    fn demangles_rust_symbols_without_the_hash() {
        assert_eq!(
            demangle("_ZN20ciphermeter_firmware2ct6plants17branch_on_key_bit17h0123456789abcdefE"),
            "ciphermeter_firmware::ct::plants::branch_on_key_bit"
        );
        assert_eq!(
            demangle("_RNvNtNtCs4vvN1bKRT8D_20ciphermeter_firmware2ct6plants12table_lookup"),
            "ciphermeter_firmware::ct::plants::table_lookup"
        );
        assert_eq!(demangle("__udivmodsi4"), "__udivmodsi4");
    }

    #[test]
    fn finds_the_function_holding_an_address() {
        let f = |start, size, name: &str| Function {
            start,
            size,
            name: name.into(),
        };
        let all = [f(0x100, 0x10, "a"), f(0x120, 0x8, "b")];
        assert_eq!(function_at(&all, 0x10f).map(|f| f.name.as_str()), Some("a"));
        assert_eq!(function_at(&all, 0x110), None);
        assert_eq!(function_at(&all, 0x127).map(|f| f.name.as_str()), Some("b"));
        assert_eq!(function_at(&all, 0x80), None);
    }
}
