//! Reads a constant-time trace: per region, every instruction's address and
//! the data address of its memory accesses. Two writers, one shape:
//!
//! - the simavr harness's `--trace` (firmware/simavr-harness/harness.c): a
//!   data address is its word with bit 31 set (AVR addresses are small);
//! - the QEMU plugin (firmware/ct-trace/qemu-plugin.c): a data address
//!   follows the escape word 0xFFFFFFFE, as 32-bit cores use every bit.
//!
//! 0xFFFFFFFF ends each region in both.

use super::compare::Observed;

const END: u32 = 0xFFFF_FFFF;
const ESCAPE: u32 = 0xFFFF_FFFE;
const TAGGED: u32 = 0x8000_0000;

/// Which writer made the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// The simavr harness: data addresses tagged by bit 31.
    Tagged,
    /// The QEMU plugin: data addresses after an escape word.
    Escaped,
}

/// The regions in the order they ran: instruction addresses, and each data
/// access as (the instruction's address, the data address).
pub fn read(bytes: &[u8], encoding: Encoding) -> Result<Vec<Observed>, String> {
    let mut words = words(bytes, "the trace")?;
    let mut regions = Vec::new();
    let mut region = Observed::default();
    while let Some(w) = words.next() {
        let data = match (encoding, w) {
            (_, END) => {
                regions.push(std::mem::take(&mut region));
                continue;
            }
            (Encoding::Escaped, ESCAPE) => {
                Some(words.next().ok_or("the trace ends after an escape")?)
            }
            (Encoding::Tagged, w) if w & TAGGED != 0 => Some(w & !TAGGED),
            _ => None,
        };
        match data {
            Some(address) => {
                let pc = *region
                    .path
                    .last()
                    .ok_or("the trace has a data address before any instruction")?;
                region.data.push((pc, address));
            }
            None => region.path.push(w),
        }
    }
    if !region.path.is_empty() {
        return Err("the trace's last region never ended".into());
    }
    Ok(regions)
}

/// A file of little-endian 32-bit words (the plugin's and the harness's), or
/// why `what` is not one.
pub fn words<'a>(bytes: &'a [u8], what: &str) -> Result<impl Iterator<Item = u32> + 'a, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!("{what} ends inside a word ({} bytes)", bytes.len()));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn splits_regions_and_ties_each_access_to_its_instruction() {
        let t = words(&[
            0x100,
            0x102,
            TAGGED | 0x0123,
            0x104,
            END,
            0x200,
            TAGGED | 0x0100_0042,
            END,
        ]);
        let r = read(&t, Encoding::Tagged).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].path, [0x100, 0x102, 0x104]);
        assert_eq!(r[0].data, [(0x102, 0x123)]);
        assert_eq!(r[1].data, [(0x200, 0x0100_0042)]);
    }

    #[test]
    fn an_escaped_address_may_use_every_bit() {
        let t = words(&[0x8000_0000, ESCAPE, 0x8040_0010, 0x8000_0004, END]);
        let r = read(&t, Encoding::Escaped).unwrap();
        assert_eq!(r[0].path, [0x8000_0000, 0x8000_0004]);
        assert_eq!(r[0].data, [(0x8000_0000, 0x8040_0010)]);
    }

    #[test]
    fn a_cut_trace_is_an_error() {
        assert!(read(&words(&[0x100]), Encoding::Tagged).is_err());
        assert!(read(&[1, 2, 3], Encoding::Tagged).is_err());
        assert!(read(&words(&[TAGGED | 4, END]), Encoding::Tagged).is_err());
        assert!(read(&words(&[0x100, ESCAPE]), Encoding::Escaped).is_err());
    }
}
