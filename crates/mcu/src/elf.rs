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

/// Where the bytes of the symbol `name` lie in the ELF file: its section's
/// file offset plus its distance from the section's address. `None` when the
/// symbol is missing or has no bytes in the file (.bss).
pub fn symbol_file_range(b: &[u8], name: &str) -> Option<std::ops::Range<usize>> {
    if b.get(0..4)? != b"\x7fELF" || b[4] != 1 || b[5] != 1 {
        return None;
    }
    let shoff = u32_at(b, 0x20)? as usize;
    let shentsize = u16_at(b, 0x2e)? as usize;
    let shnum = u16_at(b, 0x30)? as usize;
    let section = |i: usize| shoff + i * shentsize;
    let symtab = (0..shnum).find(|&i| u32_at(b, section(i) + 4) == Some(SHT_SYMTAB))?;
    let (sym_off, sym_size) = (
        u32_at(b, section(symtab) + 16)? as usize,
        u32_at(b, section(symtab) + 20)? as usize,
    );
    let strtab = u32_at(b, section(symtab) + 24)? as usize;
    let str_off = u32_at(b, section(strtab) + 16)? as usize;
    for sym in (sym_off..sym_off + sym_size).step_by(16) {
        let at = str_off + u32_at(b, sym)? as usize;
        let end = at + b.get(at..)?.iter().position(|&c| c == 0)?;
        if &b[at..end] != name.as_bytes() {
            continue;
        }
        let (value, size) = (u32_at(b, sym + 4)? as usize, u32_at(b, sym + 8)? as usize);
        let shndx = u16_at(b, sym + 14)? as usize;
        let sh = section(shndx);
        if u32_at(b, sh + 4)? as u32 == SHT_NOBITS {
            return None;
        }
        let (addr, off) = (u32_at(b, sh + 12)? as usize, u32_at(b, sh + 16)? as usize);
        let start = off + value.checked_sub(addr)?;
        return b.get(start..start + size).map(|_| start..start + size);
    }
    None
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
}
