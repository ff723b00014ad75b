//! Where a case's input and output bytes sit in memory, fixed so that every
//! process measures the same layout.
//!
//! Left to the allocator, the distance between the input and the output
//! buffer modulo 4 KiB changes from process to process (it depends on what
//! was allocated before, and hash maps are seeded randomly). When the two
//! land a small multiple of 4 KiB apart, the core's store-to-load check
//! confuses them ("4K aliasing") and a copy-like loop runs up to 25 % slower:
//! the identity baseline at 4 KiB was bimodal across six processes, 1.00× or
//! 1.26×. A comparison of two runs then reports a change that is only the
//! allocator's. Here the output starts on a cache line and the input starts
//! half a page after the output's page offset, in every process.

/// Cache line the output buffer starts on.
const LINE: usize = 64;
const PAGE: usize = 4096;
/// Input start minus output start, modulo a page: as far from aliasing as a
/// page allows.
const INPUT_OFFSET: usize = PAGE / 2;
/// Allocations tried before accepting an unaligned output buffer (glibc's
/// malloc aligns to 16 bytes, so one in four is on a line).
const TRIES: usize = 32;

/// An empty output vector with `capacity`, starting on a cache line when the
/// allocator offers one within a few tries.
pub fn output_buffer(capacity: usize) -> Vec<u8> {
    // Keep the rejected allocations alive until the end, so the allocator
    // offers a new address each time instead of the one just freed.
    let mut rejected = Vec::new();
    for _ in 0..TRIES {
        let v: Vec<u8> = Vec::with_capacity(capacity.max(1));
        if (v.as_ptr() as usize).is_multiple_of(LINE) {
            return v;
        }
        rejected.push(v);
    }
    rejected.pop().unwrap_or_default()
}

/// Input bytes placed `INPUT_OFFSET` after the output's page offset.
pub struct PlacedInput {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl PlacedInput {
    /// Copies `bytes` to the place fixed relative to `output` (whose buffer
    /// must not move afterwards: callers only `clear` and refill it within
    /// its capacity).
    pub fn new(bytes: &[u8], output: &[u8]) -> PlacedInput {
        let mut buf = vec![0u8; bytes.len() + PAGE];
        let want = (output.as_ptr() as usize + INPUT_OFFSET) % PAGE;
        let have = buf.as_ptr() as usize % PAGE;
        let start = (want + PAGE - have) % PAGE;
        buf[start..start + bytes.len()].copy_from_slice(bytes);
        PlacedInput {
            buf,
            start,
            len: bytes.len(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_sits_half_a_page_after_the_output_in_page_offset() {
        for len in [0, 1, 16, 4096, 16384] {
            let out = output_buffer(len + 64);
            let data: Vec<u8> = (0..len).map(|i| i as u8).collect();
            let input = PlacedInput::new(&data, &out);
            assert_eq!(input.bytes(), &data[..], "content kept at {len}");
            let distance =
                (input.bytes().as_ptr() as usize + PAGE - out.as_ptr() as usize % PAGE) % PAGE;
            assert_eq!(distance, INPUT_OFFSET, "placement at {len}");
        }
    }

    #[test]
    fn output_buffer_has_the_capacity_asked_for() {
        let out = output_buffer(1000);
        assert!(out.capacity() >= 1000 && out.is_empty());
    }
}
