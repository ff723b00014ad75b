//! Ascon-128 **v1.2** (CAESAR final portfolio / NIST LWC round-3 submission),
//! the version study 003 cites. This is *not* NIST SP 800-232 Ascon-AEAD128,
//! which changed the IV, the byte order (little-endian) and the padding; the
//! two produce different ciphertexts and must never be labelled as each other.
//!
//! Written from "Ascon v1.2: Submission to the NIST LWC competition"
//! (Dobraunig, Eichlseder, Mendel, Schläffer, 2021): 320-bit state of five
//! big-endian 64-bit words, rate 64 bits, p^12 for init/final and p^6 per block.

use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use subtle::ConstantTimeEq;

/// IV for Ascon-128: k = 128, r = 64, a = 12, b = 6.
const IV: u64 = 0x8040_0c06_0000_0000;
const RATE: usize = 8;

/// The Ascon permutation: `rounds` of constant addition, the 5-bit S-box
/// (bitsliced) and the linear diffusion layer.
pub(crate) fn permute(x: &mut [u64; 5], rounds: usize) {
    for r in 12 - rounds..12 {
        x[2] ^= 0xf0 - 0x0f * r as u64;
        // S-box layer.
        x[0] ^= x[4];
        x[4] ^= x[3];
        x[2] ^= x[1];
        let t = [
            !x[0] & x[1],
            !x[1] & x[2],
            !x[2] & x[3],
            !x[3] & x[4],
            !x[4] & x[0],
        ];
        for i in 0..5 {
            x[i] ^= t[(i + 1) % 5];
        }
        x[1] ^= x[0];
        x[0] ^= x[4];
        x[3] ^= x[2];
        x[2] = !x[2];
        // Linear diffusion layer.
        x[0] ^= x[0].rotate_right(19) ^ x[0].rotate_right(28);
        x[1] ^= x[1].rotate_right(61) ^ x[1].rotate_right(39);
        x[2] ^= x[2].rotate_right(1) ^ x[2].rotate_right(6);
        x[3] ^= x[3].rotate_right(10) ^ x[3].rotate_right(17);
        x[4] ^= x[4].rotate_right(7) ^ x[4].rotate_right(41);
    }
}

/// Big-endian load of a final partial block (0..=7 bytes), left-aligned,
/// with the 0x80 padding byte right after it.
fn load_padded(bytes: &[u8]) -> u64 {
    let mut w = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        w |= (b as u64) << (56 - 8 * i);
    }
    w | pad_bit(bytes.len())
}

/// The padding bit 1 right after `len` bytes of a 64-bit rate block.
fn pad_bit(len: usize) -> u64 {
    0x80u64 << (56 - 8 * len)
}

fn word(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes.try_into().expect("8-byte block"))
}

/// Ascon-128 v1.2 AEAD: 16-byte key, 16-byte nonce, 16-byte tag (appended).
#[derive(Clone)]
pub struct Ascon128V12 {
    key: [u64; 2],
}

impl Ascon128V12 {
    fn init(&self, nonce: &[u8], ad: &[u8]) -> [u64; 5] {
        let [k0, k1] = self.key;
        let mut x = [IV, k0, k1, word(&nonce[..8]), word(&nonce[8..])];
        permute(&mut x, 12);
        x[3] ^= k0;
        x[4] ^= k1;
        if !ad.is_empty() {
            let mut blocks = ad.chunks_exact(RATE);
            for block in &mut blocks {
                x[0] ^= word(block);
                permute(&mut x, 6);
            }
            x[0] ^= load_padded(blocks.remainder());
            permute(&mut x, 6);
        }
        x[4] ^= 1; // domain separation between AD and message
        x
    }

    fn finalize(&self, mut x: [u64; 5]) -> [u8; 16] {
        let [k0, k1] = self.key;
        x[1] ^= k0;
        x[2] ^= k1;
        permute(&mut x, 12);
        let mut tag = [0u8; 16];
        tag[..8].copy_from_slice(&(x[3] ^ k0).to_be_bytes());
        tag[8..].copy_from_slice(&(x[4] ^ k1).to_be_bytes());
        x.zeroize();
        tag
    }
}

impl KeySizeUser for Ascon128V12 {
    type KeySize = U16;
}

impl KeyInit for Ascon128V12 {
    fn new(key: &Key<Self>) -> Self {
        Self {
            key: [word(&key[..8]), word(&key[8..])],
        }
    }
}

impl AeadCore for Ascon128V12 {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Ascon128V12 {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let mut x = self.init(nonce, associated_data);
        let data = buffer.into_out_with_copied_in();
        let mut blocks = data.chunks_exact_mut(RATE);
        for block in &mut blocks {
            x[0] ^= word(block);
            block.copy_from_slice(&x[0].to_be_bytes());
            permute(&mut x, 6);
        }
        let last = blocks.into_remainder();
        x[0] ^= load_padded(last);
        let n = last.len();
        last.copy_from_slice(&x[0].to_be_bytes()[..n]);
        Ok(self.finalize(x).into())
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let mut x = self.init(nonce, associated_data);
        let data = buffer.into_out_with_copied_in();
        let mut blocks = data.chunks_exact_mut(RATE);
        for block in &mut blocks {
            let c = word(block);
            block.copy_from_slice(&(x[0] ^ c).to_be_bytes());
            x[0] = c;
            permute(&mut x, 6);
        }
        let last = blocks.into_remainder();
        let n = last.len();
        let s = x[0].to_be_bytes();
        for (i, b) in last.iter_mut().enumerate() {
            let c = *b;
            *b ^= s[i];
            // The state takes the ciphertext bytes; the padding bit follows.
            x[0] ^= ((s[i] ^ c) as u64) << (56 - 8 * i);
        }
        x[0] ^= pad_bit(n);
        let expected = self.finalize(x);
        if bool::from(expected.ct_eq(tag.as_slice())) {
            Ok(())
        } else {
            // Never release unauthenticated plaintext.
            data.zeroize();
            Err(aead::Error)
        }
    }
}

impl core::fmt::Debug for Ascon128V12 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Ascon128V12 { .. }")
    }
}

impl Drop for Ascon128V12 {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl ZeroizeOnDrop for Ascon128V12 {}
