//! EAX (Bellare, Rogaway & Wagner) over a 128-bit block cipher, counting
//! with the in-project byte-wise big-endian counter ([`CtrWholeBlock`])
//! instead of the `eax` crate's `u128` counter step, which the nightly AVR
//! back end miscompiles (firmware/README.md). The sealing core and the
//! firmware use it on every target; the firmware's `aes-*-eax-crate` builds
//! keep the `eax` crate, so the fault stays measured.
//!
//! EAX: N = OMAC⁰(nonce), H = OMAC¹(AD), C = CTR_N(M), tag = N ⊕ H ⊕ OMAC²(C),
//! with OMACᵗ(X) = CMAC(K, [t]₁₂₈ ‖ X). Full-length (16-byte) tags.

use crate::CtrWholeBlock;
use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use cipher::{Array, BlockCipherEncrypt, BlockSizeUser, InnerIvInit, StreamCipher};

type Block = Array<u8, U16>;

/// Doubling in GF(2¹²⁸) (CMAC's subkeys), one byte at a time. The reduction
/// is masked, not branched on: the bit shifted out is one of E_K(0)'s, a
/// secret (`ciphermeter ct` caught the branch this replaced on every core).
fn dbl(b: &Block) -> Block {
    let mut out = Block::default();
    let mut carry = 0u8;
    for i in (0..16).rev() {
        out[i] = (b[i] << 1) | carry;
        carry = b[i] >> 7;
    }
    // Opaque to the optimiser, which would turn a 0/1 mask back into a branch.
    let mask = core::hint::black_box(0u8.wrapping_sub(carry));
    out[15] ^= 0x87 & mask;
    out
}

/// EAX over the block cipher `C` (16-byte nonce, 16-byte tag).
#[derive(Clone)]
pub struct Eax<C> {
    cipher: C,
    /// CMAC's subkeys K1 = 2·E(0), K2 = 4·E(0).
    k1: Block,
    k2: Block,
}

impl<C> Eax<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    /// OMACᵗ(data) = CMAC(K, [t]₁₂₈ ‖ data).
    fn omac(&self, t: u8, data: &[u8]) -> Block {
        let mut acc = Block::default();
        acc[15] = t;
        if data.is_empty() {
            // [t] is the only, full block.
            xor(&mut acc, &self.k1);
            self.cipher.encrypt_block(&mut acc);
            return acc;
        }
        self.cipher.encrypt_block(&mut acc);
        let mut chunks = data.chunks(16).peekable();
        while let Some(chunk) = chunks.next() {
            for (a, d) in acc.iter_mut().zip(chunk) {
                *a ^= d;
            }
            if chunks.peek().is_none() {
                if chunk.len() == 16 {
                    xor(&mut acc, &self.k1);
                } else {
                    acc[chunk.len()] ^= 0x80;
                    xor(&mut acc, &self.k2);
                }
            }
            self.cipher.encrypt_block(&mut acc);
        }
        acc
    }

    fn ctr(&self, n: &Block, data: &mut [u8]) {
        CtrWholeBlock::<&C>::inner_iv_init(&self.cipher, n).apply_keystream(data);
    }
}

fn xor(a: &mut Block, b: &Block) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= y;
    }
}

impl<C: KeySizeUser> KeySizeUser for Eax<C> {
    type KeySize = C::KeySize;
}

impl<C> KeyInit for Eax<C>
where
    C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    fn new(key: &Key<Self>) -> Self {
        let cipher = C::new(key);
        let mut l = Block::default();
        cipher.encrypt_block(&mut l);
        let k1 = dbl(&l);
        let k2 = dbl(&k1);
        l.as_mut_slice().zeroize();
        Self { cipher, k1, k2 }
    }
}

/// The subkeys are the key's (E_K(0) doubled); the cipher wipes its own
/// round keys (its `Drop`).
impl<C> Drop for Eax<C> {
    fn drop(&mut self) {
        self.k1.as_mut_slice().zeroize();
        self.k2.as_mut_slice().zeroize();
    }
}

impl<C: ZeroizeOnDrop> ZeroizeOnDrop for Eax<C> {}

impl<C> AeadCore for Eax<C> {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<C> AeadInOut for Eax<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let n = self.omac(0, nonce);
        let h = self.omac(1, associated_data);
        let data = buffer.into_out_with_copied_in();
        self.ctr(&n, data);
        let mut tag = self.omac(2, data);
        xor(&mut tag, &n);
        xor(&mut tag, &h);
        Ok(tag)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let n = self.omac(0, nonce);
        let h = self.omac(1, associated_data);
        let data = buffer.into_out_with_copied_in();
        let mut expected = self.omac(2, data);
        xor(&mut expected, &n);
        xor(&mut expected, &h);
        // Constant time: every byte is compared.
        let diff = expected.iter().zip(tag).fold(0u8, |d, (a, b)| d | (a ^ b));
        if diff != 0 {
            return Err(aead::Error);
        }
        self.ctr(&n, data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// The EAX paper's AES-128 vectors (empty message, empty header, several
    /// blocks): OMAC's empty and partial last blocks.
    #[test]
    fn vectors_of_the_eax_paper() {
        let cases = [
            (
                "233952dee4d5ed5f9b9c6d6ff80ff478",
                "62ec67f9c3a4a407fcb2a8c49031a8b3",
                "6bfb914fd07eae6b",
                "",
                "e037830e8389f27b025a2d6527e79d01",
            ),
            (
                "01f74ad64077f2e704c0f60ada3dd523",
                "70c3db4f0d26368400a10ed05d2bff5e",
                "234a3463c1264ac6",
                "1a47cb4933",
                "d851d5bae03a59f238a23e39199dc9266626c40f80",
            ),
            (
                "8395fcf1e95bebd697bd010bc766aac3",
                "22e7add93cfc6393c57ec0b3c17d6b44",
                "126735fcc320d25a",
                "ca40d7446e545ffaed3bd12a740a659ffbbb3ceab7",
                "cb8920f87a6c75cff39627b56e3ed197c552d295a7cfc46afc253b4652b1af3795b124ab6e",
            ),
        ];
        for (key, nonce, ad, pt, ct_tag) in cases {
            let (key, nonce, ad, pt, ct_tag) = (h(key), h(nonce), h(ad), h(pt), h(ct_tag));
            let e = Eax::<aes::Aes128>::new_from_slice(&key).unwrap();
            let nonce = Nonce::<Eax<aes::Aes128>>::try_from(nonce.as_slice()).unwrap();
            let mut buf = pt.clone();
            let tag = e
                .encrypt_inout_detached(&nonce, &ad, buf.as_mut_slice().into())
                .unwrap();
            assert_eq!([buf.as_slice(), tag.as_slice()].concat(), ct_tag);
            e.decrypt_inout_detached(&nonce, &ad, buf.as_mut_slice().into(), &tag)
                .unwrap();
            assert_eq!(buf, pt);
            let mut forged = tag;
            forged[0] ^= 1;
            assert!(
                e.decrypt_inout_detached(&nonce, &ad, buf.as_mut_slice().into(), &forged)
                    .is_err()
            );
        }
    }

    /// Agreement with the `eax` crate on the host (where its counter is
    /// right) for every length 0..=80, AD lengths 0..=20, and nonces whose
    /// counter crosses byte carries.
    #[test]
    fn agrees_with_the_eax_crate() {
        let key = [0x5au8; 16];
        let ours = Eax::<aes::Aes128>::new_from_slice(&key).unwrap();
        let theirs = eax::Eax::<aes::Aes128>::new_from_slice(&key).unwrap();
        for n in 0..=80usize {
            let mut nonce = [0u8; 16];
            nonce[0] = n as u8;
            nonce[14] = 0xff;
            nonce[15] = 0xff - n as u8;
            let ad: Vec<u8> = (0..(n % 21) as u8).collect();
            let msg: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            let (mut a, mut b) = (msg.clone(), msg.clone());
            let ta = ours
                .encrypt_inout_detached(&nonce.into(), &ad, a.as_mut_slice().into())
                .unwrap();
            let tb = theirs
                .encrypt_inout_detached(&nonce.into(), &ad, b.as_mut_slice().into())
                .unwrap();
            assert_eq!((a, ta.as_slice()), (b, tb.as_slice()), "{n} bytes");
        }
    }
}
