//! ACORN-128 v3, word-parallel: 32 StateUpdate128 steps per call.
//!
//! The same cipher as [`crate::Acorn128`] (known-answer identical), built the
//! way the designers' optimized description builds it ("ACORN: A Lightweight
//! Authenticated Cipher (v3)", Hongjun Wu, CAESAR round 3, 2016): the 293-bit
//! state is seven LFSRs of 61, 46, 47, 39, 37, 59 and 4 bits (positions 0,
//! 61, 107, 154, 193, 230 and 289 up), each held in one integer whose bit `i`
//! is the state bit at the LFSR's lowest position plus `i`. Written here from
//! that description.
//!
//! Why 32 steps fit in one call: in a step every in-place update sits at the
//! bottom of an LFSR and leaves it at once (it shifts into the LFSR below),
//! and every tap lies at least 32 positions below the top of its LFSR. So
//! for steps `t = 0..32` a tap at offset `k` of an LFSR reads bit `k + t` of
//! that LFSR as it was before the call: a 32-bit window. The only exception
//! is the 4-bit LFSR at 289, which the new bits `f ^ m` enter after 4 steps;
//! its update only feeds the top of the 59-bit LFSR, which no tap of the same
//! call reads, so it is computed after `f`.

use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use subtle::ConstantTimeEq;

/// Lengths of the seven LFSRs, lowest position first (sum 293).
const LEN: [u32; 7] = [61, 46, 47, 39, 37, 59, 4];

/// `n` steps' worth of bits `k..k + n` of `r`, as the low bits of a word.
#[inline(always)]
fn window(r: u64, k: u32) -> u32 {
    (r >> k) as u32
}

#[inline(always)]
fn maj(x: u32, y: u32, z: u32) -> u32 {
    (x & y) ^ (x & z) ^ (y & z)
}

#[inline(always)]
fn ch(x: u32, y: u32, z: u32) -> u32 {
    (x & y) ^ (!x & z)
}

/// What the input bits of a call are: given, or recovered from ciphertext.
#[derive(Clone, Copy, PartialEq)]
enum Feed {
    Plain,
    Cipher,
}

/// All-ones or zero: the control bits `ca`, `cb` for a whole call.
const ON: u32 = u32::MAX;
const OFF: u32 = 0;

#[derive(Default)]
struct State {
    r: [u64; 7],
}

impl State {
    /// `N` (8 or 32) StateUpdate128 steps at once. Bit `t` of `input` is the
    /// message bit (or ciphertext bit with `Feed::Cipher`) of step `t`;
    /// returns the `N` keystream bits the same way.
    #[inline(always)]
    fn steps<const N: u32>(&mut self, input: u32, ca: u32, cb: u32, feed: Feed) -> u32 {
        let mask: u32 = if N == 32 { u32::MAX } else { (1 << N) - 1 };
        let [r0, r1, r2, r3, r4, r5, r6] = self.r;
        // In-place updates at the LFSRs' bottoms (positions 61, 107, 154,
        // 193, 230), from the values before them, as the specification orders them.
        let s61 = window(r1, 0) ^ window(r0, 23) ^ window(r0, 0);
        let s107 = window(r2, 0) ^ window(r1, 5) ^ window(r1, 0);
        let s154 = window(r3, 0) ^ window(r2, 4) ^ window(r2, 0);
        let s193 = window(r4, 0) ^ window(r3, 6) ^ window(r3, 0);
        let s230 = window(r5, 0) ^ window(r4, 3) ^ window(r4, 0);
        // Taps no step of the call writes.
        let (s0, s12, s23) = (window(r0, 0), window(r0, 12), window(r0, 23));
        let s66 = window(r1, 5);
        let s111 = window(r2, 4);
        let s160 = window(r3, 6);
        let s196 = window(r4, 3);
        let (s235, s244) = (window(r5, 5), window(r5, 14));

        let ks = s12 ^ s154 ^ maj(s235, s61, s193) ^ ch(s230, s111, s66);
        let f = s0 ^ !s107 ^ maj(s244, s23, s160) ^ (ca & s196) ^ (cb & ks);
        let m = match feed {
            Feed::Plain => input,
            Feed::Cipher => input ^ ks,
        };
        let fm = (f ^ m) & mask;
        // The 4-bit LFSR at 289 followed by the new bits; its update (with
        // S235 and the old S230) enters the top of the LFSR at 230.
        let top = r6 | (u64::from(fm) << LEN[6]);
        let s289 = window(top, 0) ^ window(r5, 5) ^ window(r5, 0);

        let shift = |r: u64, new: u32, len: u32| -> u64 {
            let keep = (r >> N) | (u64::from(new & mask) << (len - N));
            keep & ((1u64 << len) - 1)
        };
        self.r = [
            shift(r0, s61, LEN[0]),
            shift(r1, s107, LEN[1]),
            shift(r2, s154, LEN[2]),
            shift(r3, s193, LEN[3]),
            shift(r4, s230, LEN[4]),
            shift(r5, s289, LEN[5]),
            (top >> N) & 0xf,
        ];
        ks & mask
    }

    fn step32(&mut self, input: u32, ca: u32, cb: u32, feed: Feed) -> u32 {
        self.steps::<32>(input, ca, cb, feed)
    }

    fn step8(&mut self, input: u8, ca: u32, cb: u32, feed: Feed) -> u8 {
        self.steps::<8>(u32::from(input), ca, cb, feed) as u8
    }

    /// Whole bytes, LSB first: four per call, then one per call.
    fn absorb(&mut self, bytes: &[u8], ca: u32, cb: u32) {
        let (words, tail) = bytes.as_chunks::<4>();
        for w in words {
            self.step32(u32::from_le_bytes(*w), ca, cb, Feed::Plain);
        }
        for &b in tail {
            self.step8(b, ca, cb, Feed::Plain);
        }
    }

    /// Encrypts (`Feed::Plain`) or decrypts (`Feed::Cipher`) in place.
    fn crypt(&mut self, data: &mut [u8], feed: Feed) {
        let (words, tail) = data.as_chunks_mut::<4>();
        for w in words {
            let ks = self.step32(u32::from_le_bytes(*w), ON, OFF, feed);
            *w = (u32::from_le_bytes(*w) ^ ks).to_le_bytes();
        }
        for b in tail {
            *b ^= self.step8(*b, ON, OFF, feed);
        }
    }

    /// 256 padding steps after AD (cb = 1) or message (cb = 0): one 1 bit,
    /// then zeros; ca = 1 for the first 128 steps only.
    fn pad(&mut self, cb: u32) {
        for i in 0..8 {
            let m = if i == 0 { 1 } else { 0 };
            self.step32(m, if i < 4 { ON } else { OFF }, cb, Feed::Plain);
        }
    }

    fn start(key: &[u8; 16], nonce: &[u8], ad: &[u8]) -> Self {
        let mut s = Self::default();
        s.absorb(key, ON, ON);
        s.absorb(nonce, ON, ON);
        // 1536 more steps feed the key again, the first bit complemented.
        let k: [u32; 4] = core::array::from_fn(|i| {
            u32::from_le_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]])
        });
        for i in 0..48 {
            let w = k[i % 4] ^ if i == 0 { 1 } else { 0 };
            s.step32(w, ON, ON, Feed::Plain);
        }
        s.absorb(ad, ON, ON);
        s.pad(ON);
        s
    }

    /// 768 steps with ca = cb = 1; the tag is the last 128 keystream bits.
    fn tag(mut self) -> [u8; 16] {
        let mut tag = [0u8; 16];
        for i in 0..24 {
            let ks = self.step32(0, ON, ON, Feed::Plain);
            if i >= 20 {
                tag[4 * (i - 20)..4 * (i - 19)].copy_from_slice(&ks.to_le_bytes());
            }
        }
        tag
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.r.zeroize();
    }
}

/// ACORN-128 v3 AEAD, word-parallel (32 steps per call): 16-byte key,
/// 16-byte nonce, 16-byte tag (appended). Same output as [`crate::Acorn128`].
#[derive(Clone)]
pub struct Acorn128Wide {
    key: [u8; 16],
}

impl KeySizeUser for Acorn128Wide {
    type KeySize = U16;
}

impl KeyInit for Acorn128Wide {
    fn new(key: &Key<Self>) -> Self {
        Self { key: key.0 }
    }
}

impl AeadCore for Acorn128Wide {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Acorn128Wide {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let mut s = State::start(&self.key, nonce, associated_data);
        s.crypt(buffer.into_out_with_copied_in(), Feed::Plain);
        s.pad(OFF);
        Ok(s.tag().into())
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let mut s = State::start(&self.key, nonce, associated_data);
        let data = buffer.into_out_with_copied_in();
        s.crypt(data, Feed::Cipher);
        s.pad(OFF);
        if bool::from(s.tag().ct_eq(tag.as_slice())) {
            Ok(())
        } else {
            data.zeroize();
            Err(aead::Error)
        }
    }
}

impl core::fmt::Debug for Acorn128Wide {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Acorn128Wide { .. }")
    }
}

impl Drop for Acorn128Wide {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl ZeroizeOnDrop for Acorn128Wide {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LFSR lengths add up to the specification's 293 bits, and every
    /// tap read in a call lies within its LFSR for all 32 steps.
    #[test]
    fn the_lfsrs_hold_the_whole_state_and_every_window() {
        assert_eq!(LEN.iter().sum::<u32>(), 293);
        // (LFSR, offset) of every tap the 32 steps read from the old state.
        for (l, k) in [
            (0, 23),
            (0, 12),
            (1, 5),
            (2, 4),
            (3, 6),
            (4, 3),
            (5, 5),
            (5, 14),
        ] {
            assert!(k + 32 <= LEN[l], "tap {k} of LFSR {l}");
        }
    }
}
