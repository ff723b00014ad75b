//! ACORN-128 v3 (Hongjun Wu, CAESAR final portfolio, lightweight use case):
//! 128-bit key, 128-bit nonce, 128-bit tag.
//!
//! Written from "ACORN: A Lightweight Authenticated Cipher (v3)", 2016. The
//! 293-bit state is kept one bit per byte in a sliding buffer. None of the
//! taps read in a step lies within 8 positions below a position written by
//! the previous 7 steps (except S289, whose update only matters 54 steps
//! later), so eight consecutive steps are computed at once with 64-bit SWAR
//! operations on eight bit-bytes: one message byte per batch, LSB first.

use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use subtle::ConstantTimeEq;

const STATE_BITS: usize = 293;
/// Sliding buffer: the state plus room for 32 batches before compacting.
const CAPACITY: usize = STATE_BITS + 8 * 32;
/// Eight bit-bytes, all set: the SWAR "true".
const ONES: u64 = 0x0101_0101_0101_0101;

/// Spreads the bits of `b` (LSB first) over eight bytes holding 0 or 1.
fn spread(b: u8) -> u64 {
    (0..8).fold(0, |acc, t| acc | (((b >> t) & 1) as u64) << (8 * t))
}

/// Inverse of [`spread`].
fn gather(x: u64) -> u8 {
    (0..8).fold(0, |acc, t| acc | (((x >> (8 * t)) & 1) as u8) << t)
}

fn maj(x: u64, y: u64, z: u64) -> u64 {
    (x & y) ^ (x & z) ^ (y & z)
}

fn ch(x: u64, y: u64, z: u64) -> u64 {
    (x & y) ^ ((x ^ ONES) & z)
}

struct State {
    bits: [u8; CAPACITY],
    head: usize,
}

/// What the message bits of a batch are: given, or recovered from ciphertext.
#[derive(Clone, Copy, PartialEq)]
enum Feed {
    Plain,
    Cipher,
}

impl State {
    fn new() -> Self {
        Self {
            bits: [0; CAPACITY],
            head: 0,
        }
    }

    fn get(&self, p: usize) -> u64 {
        let i = self.head + p;
        u64::from_le_bytes(self.bits[i..i + 8].try_into().expect("8 bytes"))
    }

    fn set(&mut self, p: usize, v: u64) {
        let i = self.head + p;
        self.bits[i..i + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// Eight StateUpdate128 steps. `input` holds the message bits (or the
    /// ciphertext bits with `Feed::Cipher`); `ca`/`cb` are 0 or ONES.
    /// Returns the eight keystream bits, spread.
    fn step8(&mut self, input: u64, ca: u64, cb: u64, feed: Feed) -> u64 {
        // Linear feedback of the six LFSRs, in the specification's order.
        let (s235, s230_pre) = (self.get(235), self.get(230));
        let fb289 = s235 ^ s230_pre; // applied after the new bits are in place
        let (s196, s193_pre) = (self.get(196), self.get(193));
        let s230 = s230_pre ^ s196 ^ s193_pre;
        self.set(230, s230);
        let (s160, s154_pre) = (self.get(160), self.get(154));
        let s193 = s193_pre ^ s160 ^ s154_pre;
        self.set(193, s193);
        let (s111, s107_pre) = (self.get(111), self.get(107));
        let s154 = s154_pre ^ s111 ^ s107_pre;
        self.set(154, s154);
        let (s66, s61_pre) = (self.get(66), self.get(61));
        let s107 = s107_pre ^ s66 ^ s61_pre;
        self.set(107, s107);
        let (s23, s0) = (self.get(23), self.get(0));
        let s61 = s61_pre ^ s23 ^ s0;
        self.set(61, s61);

        let ks = self.get(12) ^ s154 ^ maj(s235, s61, s193) ^ ch(s230, s111, s66);
        let f = s0 ^ s107 ^ ONES ^ maj(self.get(244), s23, s160) ^ (ca & s196) ^ (cb & ks);
        let m = match feed {
            Feed::Plain => input,
            Feed::Cipher => input ^ ks,
        };
        self.set(STATE_BITS, f ^ m);
        let s289 = self.get(289) ^ fb289;
        self.set(289, s289);

        self.head += 8;
        if self.head + STATE_BITS + 8 > CAPACITY {
            self.bits.copy_within(self.head..self.head + STATE_BITS, 0);
            self.bits[STATE_BITS..].fill(0);
            self.head = 0;
        }
        ks
    }

    fn absorb(&mut self, bytes: &[u8], ca: u64, cb: u64) {
        for &b in bytes {
            self.step8(spread(b), ca, cb, Feed::Plain);
        }
    }

    /// 256 padding steps after AD (cb = 1) or message (cb = 0): one 1 bit,
    /// then zeros; ca = 1 for the first 128 steps only.
    fn pad(&mut self, cb: u64) {
        for i in 0..32 {
            let m = if i == 0 { 1 } else { 0 };
            self.step8(m, if i < 16 { ONES } else { 0 }, cb, Feed::Plain);
        }
    }

    fn start(key: &[u8; 16], nonce: &[u8], ad: &[u8]) -> Self {
        let mut s = Self::new();
        s.absorb(key, ONES, ONES);
        s.absorb(nonce, ONES, ONES);
        // 1536 more steps feed the key again, the first bit complemented.
        for i in 0..192 {
            let b = key[i % 16] ^ if i == 0 { 1 } else { 0 };
            s.step8(spread(b), ONES, ONES, Feed::Plain);
        }
        s.absorb(ad, ONES, ONES);
        s.pad(ONES);
        s
    }

    fn tag(mut self) -> [u8; 16] {
        let mut tag = [0u8; 16];
        for i in 0..96 {
            let ks = self.step8(0, ONES, ONES, Feed::Plain);
            if i >= 80 {
                tag[i - 80] = gather(ks);
            }
        }
        tag
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.bits.zeroize();
    }
}

/// ACORN-128 v3 AEAD: 16-byte key, 16-byte nonce, 16-byte tag (appended).
#[derive(Clone)]
pub struct Acorn128 {
    key: [u8; 16],
}

impl KeySizeUser for Acorn128 {
    type KeySize = U16;
}

impl KeyInit for Acorn128 {
    fn new(key: &Key<Self>) -> Self {
        Self { key: key.0 }
    }
}

impl AeadCore for Acorn128 {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Acorn128 {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let mut s = State::start(&self.key, nonce, associated_data);
        let data = buffer.into_out_with_copied_in();
        for b in data.iter_mut() {
            *b ^= gather(s.step8(spread(*b), ONES, 0, Feed::Plain));
        }
        s.pad(0);
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
        for b in data.iter_mut() {
            *b ^= gather(s.step8(spread(*b), ONES, 0, Feed::Cipher));
        }
        s.pad(0);
        if bool::from(s.tag().ct_eq(tag.as_slice())) {
            Ok(())
        } else {
            data.zeroize();
            Err(aead::Error)
        }
    }
}

impl core::fmt::Debug for Acorn128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Acorn128 { .. }")
    }
}

impl Drop for Acorn128 {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl ZeroizeOnDrop for Acorn128 {}
