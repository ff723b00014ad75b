//! Applies and removes the block paddings, using the `block-padding` crate's
//! schemes on the final block.

use block_padding::{AnsiX923, Iso7816, Pkcs7, ZeroPadding};

use crate::error::Error;
use crate::ops::Padding;

/// A ciphertext for a block mode must be whole blocks before it is decrypted.
pub fn require_whole_blocks(algorithm: &str, len: usize, block: usize) -> Result<(), Error> {
    if len.is_multiple_of(block) {
        return Ok(());
    }
    Err(Error::InvalidInput {
        algorithm: algorithm.to_string(),
        what: format!("ciphertext of {len} bytes is not a whole number of {block}-byte blocks"),
    })
}

/// Pads `buf[start..]` in place to whole `block`-byte blocks.
pub fn pad(buf: &mut Vec<u8>, start: usize, block: usize, padding: Padding) {
    let msg_len = buf.len() - start;
    let padded = padding.padded_len(msg_len, block);
    if padded == msg_len {
        return;
    }
    buf.resize(start + padded, 0);
    let last = start + padded - block;
    let pos = msg_len - (padded - block);
    let tail = &mut buf[last..];
    match padding {
        Padding::None => {}
        Padding::Pkcs7 => <Pkcs7 as block_padding::Padding>::raw_pad(tail, pos),
        Padding::Zero => <ZeroPadding as block_padding::Padding>::raw_pad(tail, pos),
        Padding::Iso7816 => <Iso7816 as block_padding::Padding>::raw_pad(tail, pos),
        Padding::X923 => <AnsiX923 as block_padding::Padding>::raw_pad(tail, pos),
    }
}

/// Returns the unpadded length of `buf`, or `None` when the padding is malformed.
pub fn unpadded_len(buf: &[u8], block: usize, padding: Padding) -> Option<usize> {
    if padding == Padding::None || (padding == Padding::Zero && buf.is_empty()) {
        return Some(buf.len());
    }
    if buf.is_empty() || !buf.len().is_multiple_of(block) {
        return None;
    }
    let last = &buf[buf.len() - block..];
    let kept = match padding {
        Padding::None => last.len(),
        Padding::Pkcs7 => <Pkcs7 as block_padding::Padding>::raw_unpad(last)
            .ok()?
            .len(),
        Padding::Zero => <ZeroPadding as block_padding::Padding>::raw_unpad(last)
            .ok()?
            .len(),
        Padding::Iso7816 => <Iso7816 as block_padding::Padding>::raw_unpad(last)
            .ok()?
            .len(),
        Padding::X923 => <AnsiX923 as block_padding::Padding>::raw_unpad(last)
            .ok()?
            .len(),
    };
    Some(buf.len() - block + kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkcs7_adds_a_full_block_to_whole_blocks() {
        let mut buf = vec![0xAA; 16];
        pad(&mut buf, 0, 16, Padding::Pkcs7);
        assert_eq!(buf.len(), 32);
        assert!(buf[16..].iter().all(|&b| b == 16));
        assert_eq!(unpadded_len(&buf, 16, Padding::Pkcs7), Some(16));
    }

    #[test]
    fn each_padding_round_trips_every_length() {
        for padding in [Padding::Pkcs7, Padding::Iso7816, Padding::X923] {
            for len in 0..40 {
                let mut buf = vec![0x5A; len];
                pad(&mut buf, 0, 8, padding);
                assert_eq!(buf.len() % 8, 0);
                assert_eq!(
                    unpadded_len(&buf, 8, padding),
                    Some(len),
                    "{padding:?} {len}"
                );
            }
        }
    }

    #[test]
    fn known_layouts() {
        let mut iso = vec![1, 2, 3];
        pad(&mut iso, 0, 8, Padding::Iso7816);
        assert_eq!(iso, [1, 2, 3, 0x80, 0, 0, 0, 0]);
        let mut x923 = vec![1, 2, 3];
        pad(&mut x923, 0, 8, Padding::X923);
        assert_eq!(x923, [1, 2, 3, 0, 0, 0, 0, 5]);
        let mut zero = vec![1, 2, 3];
        pad(&mut zero, 0, 8, Padding::Zero);
        assert_eq!(zero, [1, 2, 3, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn malformed_pkcs7_is_rejected() {
        let buf = [0u8; 16];
        assert_eq!(unpadded_len(&buf, 16, Padding::Pkcs7), None);
        assert_eq!(unpadded_len(&[], 16, Padding::Pkcs7), None);
    }
}
