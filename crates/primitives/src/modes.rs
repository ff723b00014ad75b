//! Two stream modes over any cipher 0.5 block cipher that the RustCrypto mode
//! crates do not offer in libmcrypt's form:
//!
//! * [`Ofb8`]: 8-bit output feedback (libmcrypt `ofb`, OpenSSL `ofb8`). The
//!   register starts as the IV; each keystream byte is the first byte of
//!   E(register), which is then shifted into the register from the right.
//! * [`CtrWholeBlock`]: counter mode whose counter is the *whole* block,
//!   big-endian, carrying through every byte (libmcrypt `ctr`). The `ctr`
//!   crate's flavours count in the last 32/64/128 bits only, which differs
//!   for 256-bit blocks such as Rijndael-256.
//!
//! Both implement [`cipher::StreamCipher`] (so `apply_keystream` works) and
//! `KeyIvInit` / `InnerIvInit` like the RustCrypto mode crates; the IV is one
//! block. Neither has a usable end of keystream in practice, so
//! `check_remaining` always succeeds (the CTR counter wraps like libmcrypt's).

use cipher::common::InnerUser;
use cipher::inout::InOutBuf;
use cipher::typenum::Unsigned;
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use cipher::{
    AlgorithmName, Block, BlockCipherEncrypt, InnerIvInit, Iv, IvSizeUser, StreamCipher,
    StreamCipherError,
};

/// 8-bit output feedback mode over the block cipher `C`.
pub struct Ofb8<C: BlockCipherEncrypt> {
    cipher: C,
    register: Block<C>,
}

impl<C: BlockCipherEncrypt> Ofb8<C> {
    fn next_byte(&mut self) -> u8 {
        let mut out = self.register.clone();
        self.cipher.encrypt_block(&mut out);
        let k = out[0];
        self.register.copy_within(1.., 0);
        let last = C::BlockSize::USIZE - 1;
        self.register[last] = k;
        out.zeroize();
        k
    }
}

impl<C: BlockCipherEncrypt> InnerUser for Ofb8<C> {
    type Inner = C;
}

impl<C: BlockCipherEncrypt> IvSizeUser for Ofb8<C> {
    type IvSize = C::BlockSize;
}

impl<C: BlockCipherEncrypt> InnerIvInit for Ofb8<C> {
    fn inner_iv_init(cipher: C, iv: &Iv<Self>) -> Self {
        Self {
            cipher,
            register: iv.clone(),
        }
    }
}

impl<C: BlockCipherEncrypt> StreamCipher for Ofb8<C> {
    fn check_remaining(&self, _data_len: usize) -> Result<(), StreamCipherError> {
        Ok(())
    }

    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        for b in buf.into_out_with_copied_in() {
            *b ^= self.next_byte();
        }
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next_byte();
        }
    }
}

impl<C: BlockCipherEncrypt + AlgorithmName> AlgorithmName for Ofb8<C> {
    fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Ofb8<")?;
        C::write_alg_name(f)?;
        f.write_str(">")
    }
}

impl<C: BlockCipherEncrypt> core::fmt::Debug for Ofb8<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Ofb8 { .. }")
    }
}

impl<C: BlockCipherEncrypt> Drop for Ofb8<C> {
    fn drop(&mut self) {
        self.register.zeroize();
    }
}

impl<C: BlockCipherEncrypt + ZeroizeOnDrop> ZeroizeOnDrop for Ofb8<C> {}

/// Counter mode with a big-endian counter spanning the whole block of `C`.
pub struct CtrWholeBlock<C: BlockCipherEncrypt> {
    cipher: C,
    counter: Block<C>,
    keystream: Block<C>,
    /// Next unused byte of `keystream`; the block size when it is used up.
    pos: usize,
}

impl<C: BlockCipherEncrypt> CtrWholeBlock<C> {
    fn refill(&mut self) {
        self.keystream = self.counter.clone();
        self.cipher.encrypt_block(&mut self.keystream);
        // Every byte, carry or not: EAX starts the counter at OMAC_K(nonce),
        // a secret, whose trailing 0xff bytes an early exit would time.
        let mut carry = 1u16;
        for byte in self.counter.iter_mut().rev() {
            let sum = u16::from(*byte) + carry;
            *byte = sum as u8;
            carry = sum >> 8;
        }
        self.pos = 0;
    }

    fn apply(&mut self, mut data: &mut [u8], overwrite: bool) {
        let bs = C::BlockSize::USIZE;
        while !data.is_empty() {
            if self.pos == bs {
                self.refill();
            }
            let n = (bs - self.pos).min(data.len());
            let (head, tail) = data.split_at_mut(n);
            for (d, k) in head.iter_mut().zip(&self.keystream[self.pos..]) {
                *d = if overwrite { *k } else { *d ^ k };
            }
            self.pos += n;
            data = tail;
        }
    }
}

impl<C: BlockCipherEncrypt> InnerUser for CtrWholeBlock<C> {
    type Inner = C;
}

impl<C: BlockCipherEncrypt> IvSizeUser for CtrWholeBlock<C> {
    type IvSize = C::BlockSize;
}

impl<C: BlockCipherEncrypt> InnerIvInit for CtrWholeBlock<C> {
    fn inner_iv_init(cipher: C, iv: &Iv<Self>) -> Self {
        Self {
            cipher,
            counter: iv.clone(),
            keystream: Block::<C>::default(),
            pos: C::BlockSize::USIZE,
        }
    }
}

impl<C: BlockCipherEncrypt> StreamCipher for CtrWholeBlock<C> {
    fn check_remaining(&self, _data_len: usize) -> Result<(), StreamCipherError> {
        Ok(())
    }

    fn unchecked_apply_keystream_inout(&mut self, buf: InOutBuf<'_, '_, u8>) {
        self.apply(buf.into_out_with_copied_in(), false);
    }

    fn unchecked_write_keystream(&mut self, buf: &mut [u8]) {
        self.apply(buf, true);
    }
}

impl<C: BlockCipherEncrypt + AlgorithmName> AlgorithmName for CtrWholeBlock<C> {
    fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CtrWholeBlock<")?;
        C::write_alg_name(f)?;
        f.write_str(">")
    }
}

impl<C: BlockCipherEncrypt> core::fmt::Debug for CtrWholeBlock<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CtrWholeBlock { .. }")
    }
}

impl<C: BlockCipherEncrypt> Drop for CtrWholeBlock<C> {
    fn drop(&mut self) {
        self.counter.zeroize();
        self.keystream.zeroize();
    }
}

impl<C: BlockCipherEncrypt + ZeroizeOnDrop> ZeroizeOnDrop for CtrWholeBlock<C> {}
