//! Reads the simavr harness's `--trace` file: per region, every instruction's
//! address and the data addresses of its loads and stores through X, Y and Z
//! (firmware/simavr-harness/harness.c says the format).

use super::compare::Observed;

const END: u32 = 0xFFFF_FFFF;
const DATA: u32 = 0x8000_0000;

/// The regions in the order they ran: instruction addresses, and each data
/// access as (the instruction's address, the data address).
pub fn read(bytes: &[u8]) -> Result<Vec<Observed>, String> {
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "the trace ends inside a word ({} bytes)",
            bytes.len()
        ));
    }
    let mut regions = Vec::new();
    let mut region = Observed::default();
    for word in bytes.chunks_exact(4) {
        let w = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        if w == END {
            regions.push(std::mem::take(&mut region));
        } else if w & DATA != 0 {
            let pc = *region
                .path
                .last()
                .ok_or("the trace has a data address before any instruction")?;
            region.data.push((pc, w & !DATA));
        } else {
            region.path.push(w);
        }
    }
    if !region.path.is_empty() {
        return Err("the trace's last region never ended".into());
    }
    Ok(regions)
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
            DATA | 0x0123,
            0x104,
            END,
            0x200,
            DATA | 0x0100_0042,
            END,
        ]);
        let r = read(&t).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].path, [0x100, 0x102, 0x104]);
        assert_eq!(r[0].data, [(0x102, 0x123)]);
        assert_eq!(r[1].data, [(0x200, 0x0100_0042)]);
    }

    #[test]
    fn a_cut_trace_is_an_error() {
        assert!(read(&words(&[0x100])).is_err());
        assert!(read(&[1, 2, 3]).is_err());
        assert!(read(&words(&[DATA | 4, END])).is_err());
    }
}
