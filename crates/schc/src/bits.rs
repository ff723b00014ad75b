//! Bit strings, most significant bit first: SCHC packs rule ids, residues
//! and the payload at bit level, with no alignment between them (RFC 8724
//! §7.3).

use alloc::vec::Vec;

/// `len` bits, left-aligned in `bytes` (the unused low bits of the last byte are zero).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits {
    bytes: Vec<u8>,
    len: usize,
}

impl Bits {
    pub fn new() -> Bits {
        Bits::default()
    }

    /// Every bit of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Bits {
        Bits {
            bytes: bytes.to_vec(),
            len: bytes.len() * 8,
        }
    }

    /// The low `len` bits of `value` (`len` ≤ 64).
    pub fn from_uint(value: u64, len: usize) -> Bits {
        let mut b = Bits::new();
        b.push_uint(value, len);
        b
    }

    /// The last `len` bits of `bytes`: a value right-aligned in whole bytes,
    /// as RFC 9363 writes a field shorter than its bytes.
    pub fn right_aligned(bytes: &[u8], len: usize) -> Option<Bits> {
        let all = Bits::from_bytes(bytes);
        let skip = all.len.checked_sub(len)?;
        // The bits dropped must be zero: else the value does not fit `len`.
        (0..skip)
            .all(|i| !all.bit(i))
            .then(|| all.slice(skip, all.len))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes, the last one padded with zero bits.
    pub fn as_padded_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, when the length is whole bytes.
    pub fn whole_bytes(&self) -> Option<&[u8]> {
        self.len.is_multiple_of(8).then_some(&self.bytes[..])
    }

    pub fn bit(&self, i: usize) -> bool {
        self.bytes[i / 8] & (0x80 >> (i % 8)) != 0
    }

    /// Bits `from..to`.
    pub fn slice(&self, from: usize, to: usize) -> Bits {
        let mut out = Bits::new();
        for i in from..to {
            out.push_bit(self.bit(i));
        }
        out
    }

    /// The value, when it has at most 64 bits.
    pub fn to_uint(&self) -> Option<u64> {
        (self.len <= 64).then(|| (0..self.len).fold(0, |v, i| (v << 1) | u64::from(self.bit(i))))
    }

    pub fn starts_with(&self, prefix: &Bits) -> bool {
        prefix.len <= self.len && (0..prefix.len).all(|i| self.bit(i) == prefix.bit(i))
    }

    pub fn push_bit(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            self.bytes[self.len / 8] |= 0x80 >> (self.len % 8);
        }
        self.len += 1;
    }

    /// The low `len` bits of `value`, most significant first.
    pub fn push_uint(&mut self, value: u64, len: usize) {
        for i in (0..len).rev() {
            self.push_bit(i < 64 && (value >> i) & 1 == 1);
        }
    }

    pub fn push(&mut self, other: &Bits) {
        let n = other.len.div_ceil(8);
        let shift = self.len % 8;
        if shift == 0 {
            // Byte-aligned: copy whole bytes.
            self.bytes.extend_from_slice(&other.bytes[..n]);
        } else {
            // Each byte split across two: its high bits end this byte, its
            // low bits start the next (a payload after a residue of 44 bits
            // is copied a byte at a time, not a bit: crates/mcu schc_probe).
            for &b in &other.bytes[..n] {
                if let Some(last) = self.bytes.last_mut() {
                    *last |= b >> shift;
                }
                self.bytes.push(b << (8 - shift));
            }
        }
        self.len += other.len;
        self.bytes.truncate(self.len.div_ceil(8));
        // Bits past the end stay zero, whatever `other` kept past its own.
        if !self.len.is_multiple_of(8)
            && let Some(last) = self.bytes.last_mut()
        {
            *last &= 0xff << (8 - self.len % 8);
        }
    }
}

/// Reads bits in order from a byte string.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }

    pub fn remaining(&self) -> usize {
        self.data.len() * 8 - self.pos
    }

    /// The next `n` bits, or `None` when fewer are left.
    pub fn read(&mut self, n: usize) -> Option<Bits> {
        if n > self.remaining() {
            return None;
        }
        let mut out = Bits::new();
        for i in self.pos..self.pos + n {
            out.push_bit(self.data[i / 8] & (0x80 >> (i % 8)) != 0);
        }
        self.pos += n;
        Some(out)
    }

    pub fn read_uint(&mut self, n: usize) -> Option<u64> {
        self.read(n)?.to_uint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_pack_and_read_back_unaligned() {
        let mut b = Bits::from_uint(0b101, 3);
        b.push(&Bits::from_bytes(&[0xff, 0x01]));
        b.push_uint(0b01, 2);
        assert_eq!(b.len(), 21);
        assert_eq!(b.as_padded_bytes(), [0b1011_1111, 0b1110_0000, 0b0010_1000]);
        let mut r = Reader::new(b.as_padded_bytes());
        assert_eq!(r.read_uint(3), Some(0b101));
        assert_eq!(r.read(16).unwrap(), Bits::from_bytes(&[0xff, 0x01]));
        assert_eq!(r.read_uint(2), Some(1));
        assert_eq!(r.remaining(), 3);
        assert!(r.read(4).is_none());
        assert_eq!(Bits::right_aligned(&[0x01], 2), Some(Bits::from_uint(1, 2)));
        assert_eq!(Bits::right_aligned(&[0x09], 2), None, "0x09 needs 4 bits");
        assert!(Bits::from_bytes(&[0xab, 0xcd]).starts_with(&Bits::from_uint(0xa, 4)));
    }

    /// `push` a byte at a time is `push_bit` bit by bit, at every offset
    /// and length, the bits past the end left zero.
    #[test]
    fn push_is_bit_by_bit_at_every_offset() {
        let data = [0xa5, 0xff, 0x3c, 0x81, 0x7e];
        for head in 0..17 {
            for len in 0..=data.len() * 8 {
                let other = Bits::from_bytes(&data).slice(0, len);
                let mut fast = Bits::from_uint(0x1_5555, head);
                fast.push(&other);
                let mut slow = Bits::from_uint(0x1_5555, head);
                for i in 0..len {
                    slow.push_bit(other.bit(i));
                }
                assert_eq!(fast, slow, "head {head}, len {len}");
            }
        }
    }
}
