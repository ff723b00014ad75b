//! Ascon-AEAD128 (NIST SP 800-232, August 2025), for small cores: 16-byte
//! key, nonce and tag; the 320-bit state as five little-endian 64-bit words,
//! a 128-bit rate (words 0 and 1), p\[12\] to initialize and finalize and
//! p\[8\] per block, padding `0x01` after the last byte, the domain
//! separation bit at the top of word 4. Not Ascon-128 v1.2 ([`crate::Ascon128V12`]).
//!
//! Two forms of the state behind one mode (`State`):
//! - on the 8-bit AVR, each word as eight bit slices (module `slices`): every
//!   rotation of the linear layer is a choice of source byte and a one-byte
//!   rotation, every step works on `u8` values in registers;
//! - elsewhere, `u64` words, which the 32-bit cores split into halves.
//!
//! Written from SP 800-232 sections 3 (the permutation) and 4.1 (the AEAD).

use aead::consts::U16;
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use subtle::ConstantTimeEq;

#[cfg_attr(not(any(target_arch = "avr", test)), allow(dead_code))]
mod slices;

/// The IV of Ascon-AEAD128 (SP 800-232 eq. 4.2: k = 128, r = 128, a = 12, b = 8).
const IV: u64 = 0x0000_1000_808c_0001;
/// Ascon-p\[8\] per block, p\[12\] around.
const ROUNDS_BLOCK: usize = 8;
const ROUNDS_INIT: usize = 12;
const RATE: usize = 16;
/// Domain separation: bit 63 of word 4.
const DSEP: [u8; 8] = [0, 0, 0, 0, 0, 0, 0, 0x80];

#[inline(always)]
fn half(bytes: &[u8]) -> [u8; 8] {
    [
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
    ]
}

#[inline(always)]
fn xor8(a: [u8; 8], b: &[u8]) -> [u8; 8] {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// An Ascon state as the mode uses it: words read, xored and replaced as
/// eight little-endian bytes.
trait State {
    fn new(words: [[u8; 8]; 5]) -> Self;
    fn xor_word(&mut self, i: usize, w: &[u8; 8]);
    fn word(&self, i: usize) -> [u8; 8];
    fn set_word(&mut self, i: usize, w: &[u8; 8]);
    fn permute(&mut self, rounds: usize);
    fn wipe(&mut self);

    /// Xors a whole block into the rate.
    fn absorb(&mut self, block: &[u8; RATE]) {
        self.xor_word(0, &half(&block[..8]));
        self.xor_word(1, &half(&block[8..]));
    }

    /// Encrypts a whole block in place: the rate takes the plaintext, the
    /// block the new rate.
    fn encrypt_block(&mut self, block: &mut [u8; RATE]) {
        self.absorb(block);
        block[..8].copy_from_slice(&self.word(0));
        block[8..].copy_from_slice(&self.word(1));
    }

    /// Decrypts a whole block in place: the block takes the plaintext, the
    /// rate the ciphertext.
    fn decrypt_block(&mut self, block: &mut [u8; RATE]) {
        let (w0, w1) = (self.word(0), self.word(1));
        self.set_word(0, &half(&block[..8]));
        self.set_word(1, &half(&block[8..]));
        for (b, w) in block.iter_mut().zip(w0.iter().chain(&w1)) {
            *b ^= w;
        }
    }
}

/// Five `u64` words: the 32-bit cores and the host.
#[cfg_attr(target_arch = "avr", allow(dead_code))]
struct Words([u64; 5]);

/// The last `rounds` rounds of Ascon-p\[12\] on `u64` words (SP 800-232 3.2-3.4).
#[cfg_attr(target_arch = "avr", allow(dead_code))]
fn permute_words(x: &mut [u64; 5], rounds: usize) {
    let [mut x0, mut x1, mut x2, mut x3, mut x4] = *x;
    for i in ROUNDS_INIT - rounds..ROUNDS_INIT {
        // Constant addition.
        x2 ^= 0xf0 - 0x0f * i as u64;
        // Substitution layer: the 5-bit S-box, bitsliced.
        x0 ^= x4;
        x4 ^= x3;
        x2 ^= x1;
        let (t0, t1, t2, t3, t4) = (!x0 & x1, !x1 & x2, !x2 & x3, !x3 & x4, !x4 & x0);
        x0 ^= t1;
        x1 ^= t2;
        x2 ^= t3;
        x3 ^= t4;
        x4 ^= t0;
        x1 ^= x0;
        x0 ^= x4;
        x3 ^= x2;
        x2 = !x2;
        // Linear diffusion layer.
        x0 ^= x0.rotate_right(19) ^ x0.rotate_right(28);
        x1 ^= x1.rotate_right(61) ^ x1.rotate_right(39);
        x2 ^= x2.rotate_right(1) ^ x2.rotate_right(6);
        x3 ^= x3.rotate_right(10) ^ x3.rotate_right(17);
        x4 ^= x4.rotate_right(7) ^ x4.rotate_right(41);
    }
    *x = [x0, x1, x2, x3, x4];
}

impl State for Words {
    fn new(words: [[u8; 8]; 5]) -> Self {
        Words(words.map(u64::from_le_bytes))
    }

    fn xor_word(&mut self, i: usize, w: &[u8; 8]) {
        self.0[i] ^= u64::from_le_bytes(*w);
    }

    fn word(&self, i: usize) -> [u8; 8] {
        self.0[i].to_le_bytes()
    }

    fn set_word(&mut self, i: usize, w: &[u8; 8]) {
        self.0[i] = u64::from_le_bytes(*w);
    }

    fn permute(&mut self, rounds: usize) {
        permute_words(&mut self.0, rounds);
    }

    fn encrypt_block(&mut self, block: &mut [u8; RATE]) {
        let (b0, b1) = block.split_at_mut(8);
        self.0[0] ^= u64::from_le_bytes(half(b0));
        self.0[1] ^= u64::from_le_bytes(half(b1));
        b0.copy_from_slice(&self.0[0].to_le_bytes());
        b1.copy_from_slice(&self.0[1].to_le_bytes());
    }

    fn decrypt_block(&mut self, block: &mut [u8; RATE]) {
        let (b0, b1) = block.split_at_mut(8);
        let (c0, c1) = (u64::from_le_bytes(half(b0)), u64::from_le_bytes(half(b1)));
        b0.copy_from_slice(&(c0 ^ self.0[0]).to_le_bytes());
        b1.copy_from_slice(&(c1 ^ self.0[1]).to_le_bytes());
        self.0[0] = c0;
        self.0[1] = c1;
    }

    fn wipe(&mut self) {
        self.0.zeroize();
    }
}

/// Five words as bit slices (module [`slices`]): the 8-bit AVR.
#[cfg_attr(not(any(target_arch = "avr", test)), allow(dead_code))]
struct Sliced(slices::Slices);

impl State for Sliced {
    fn new(words: [[u8; 8]; 5]) -> Self {
        Sliced(words.map(slices::transpose))
    }

    fn xor_word(&mut self, i: usize, w: &[u8; 8]) {
        let t = slices::transpose(*w);
        for (s, t) in self.0[i].iter_mut().zip(t) {
            *s ^= t;
        }
    }

    fn word(&self, i: usize) -> [u8; 8] {
        slices::transpose(self.0[i])
    }

    fn set_word(&mut self, i: usize, w: &[u8; 8]) {
        self.0[i] = slices::transpose(*w);
    }

    fn permute(&mut self, rounds: usize) {
        slices::permute(&mut self.0, rounds);
    }

    fn absorb(&mut self, block: &[u8; RATE]) {
        slices::absorb(&mut self.0, block);
    }

    fn encrypt_block(&mut self, block: &mut [u8; RATE]) {
        slices::encrypt_block(&mut self.0, block);
    }

    fn decrypt_block(&mut self, block: &mut [u8; RATE]) {
        slices::decrypt_block(&mut self.0, block);
    }

    fn wipe(&mut self) {
        self.0.zeroize();
    }
}

#[cfg(target_arch = "avr")]
type DefaultState = Sliced;
#[cfg(not(target_arch = "avr"))]
type DefaultState = Words;

/// Initialization and the associated data (SP 800-232 Algorithm 3, steps 1-3):
/// the state ready for the first message block.
fn start<S: State>(key: &[u8; 16], nonce: &[u8], ad: &[u8]) -> S {
    let (k0, k1) = (half(&key[..8]), half(&key[8..]));
    let mut s = S::new([
        IV.to_le_bytes(),
        k0,
        k1,
        half(&nonce[..8]),
        half(&nonce[8..16]),
    ]);
    s.permute(ROUNDS_INIT);
    s.xor_word(3, &k0);
    s.xor_word(4, &k1);
    if !ad.is_empty() {
        let mut blocks = ad.chunks_exact(RATE);
        for block in &mut blocks {
            s.absorb(block.try_into().expect("one block"));
            s.permute(ROUNDS_BLOCK);
        }
        let rest = blocks.remainder();
        let mut last = [0u8; RATE];
        last[..rest.len()].copy_from_slice(rest);
        last[rest.len()] = 0x01;
        s.absorb(&last);
        s.permute(ROUNDS_BLOCK);
    }
    s.xor_word(4, &DSEP);
    s
}

/// Finalization (Algorithm 3, step 6): the tag; the state is wiped.
fn finish<S: State>(mut s: S, key: &[u8; 16]) -> [u8; 16] {
    let (k0, k1) = (half(&key[..8]), half(&key[8..]));
    s.xor_word(2, &k0);
    s.xor_word(3, &k1);
    s.permute(ROUNDS_INIT);
    let mut tag = [0u8; 16];
    tag[..8].copy_from_slice(&xor8(s.word(3), &k0));
    tag[8..].copy_from_slice(&xor8(s.word(4), &k1));
    s.wipe();
    tag
}

/// Encrypts `data` in place and returns the tag.
fn encrypt<S: State>(key: &[u8; 16], nonce: &[u8], ad: &[u8], data: &mut [u8]) -> [u8; 16] {
    let mut s: S = start(key, nonce, ad);
    let mut blocks = data.chunks_exact_mut(RATE);
    for block in &mut blocks {
        s.encrypt_block(block.try_into().expect("one block"));
        s.permute(ROUNDS_BLOCK);
    }
    let rest = blocks.into_remainder();
    let n = rest.len();
    let mut last = [0u8; RATE];
    last[..n].copy_from_slice(rest);
    last[n] = 0x01;
    s.encrypt_block(&mut last);
    rest.copy_from_slice(&last[..n]);
    last.zeroize();
    finish(s, key)
}

/// Decrypts `data` in place and returns the expected tag.
fn decrypt<S: State>(key: &[u8; 16], nonce: &[u8], ad: &[u8], data: &mut [u8]) -> [u8; 16] {
    let mut s: S = start(key, nonce, ad);
    let mut blocks = data.chunks_exact_mut(RATE);
    for block in &mut blocks {
        s.decrypt_block(block.try_into().expect("one block"));
        s.permute(ROUNDS_BLOCK);
    }
    let rest = blocks.into_remainder();
    let n = rest.len();
    // The rate takes the ciphertext bytes, then the padding byte.
    let mut w = [0u8; RATE];
    w[..8].copy_from_slice(&s.word(0));
    w[8..].copy_from_slice(&s.word(1));
    for (c, w) in rest.iter_mut().zip(w.iter_mut()) {
        let p = *c ^ *w;
        *w = *c;
        *c = p;
    }
    w[n] ^= 0x01;
    s.set_word(0, &half(&w[..8]));
    s.set_word(1, &half(&w[8..]));
    w.zeroize();
    finish(s, key)
}

/// Ascon-AEAD128 (NIST SP 800-232): 16-byte key, 16-byte nonce, 16-byte tag (appended).
#[derive(Clone)]
pub struct AsconAead128 {
    key: [u8; 16],
}

impl KeySizeUser for AsconAead128 {
    type KeySize = U16;
}

impl KeyInit for AsconAead128 {
    fn new(key: &Key<Self>) -> Self {
        Self { key: (*key).into() }
    }
}

impl AeadCore for AsconAead128 {
    type NonceSize = U16;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for AsconAead128 {
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        let data = buffer.into_out_with_copied_in();
        let tag = encrypt::<DefaultState>(&self.key, nonce, associated_data, data);
        Ok(tag.into())
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        let data = buffer.into_out_with_copied_in();
        let expected = decrypt::<DefaultState>(&self.key, nonce, associated_data, data);
        if bool::from(expected.ct_eq(tag.as_slice())) {
            Ok(())
        } else {
            // Never release unauthenticated plaintext.
            data.zeroize();
            Err(aead::Error)
        }
    }
}

impl core::fmt::Debug for AsconAead128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("AsconAead128 { .. }")
    }
}

impl Drop for AsconAead128 {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl ZeroizeOnDrop for AsconAead128 {}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let b = s.as_bytes();
        core::array::from_fn(|i| {
            let d = |c: u8| (c as char).to_digit(16).unwrap() as u8;
            d(b[2 * i]) << 4 | d(b[2 * i + 1])
        })
    }

    /// `LWC_AEAD_KAT_128_128.txt` of ascon-c (see tests/vectors/ascon_aead128.txt),
    /// Count = 545 (16 bytes of AD, 16 of message) and Count = 1 (none), in both forms.
    #[test]
    fn both_forms_give_the_known_answers() {
        let key = hex::<16>("000102030405060708090A0B0C0D0E0F");
        let nonce = hex::<16>("101112131415161718191A1B1C1D1E1F");
        let ad = hex::<16>("303132333435363738393A3B3C3D3E3F");
        let pt = hex::<16>("202122232425262728292A2B2C2D2E2F");
        let want = hex::<32>("6373EBB28BE97C9BAC090CF399C13EF13ABFC0D209E8F4844C90814D13F32C59");
        let empty_tag = hex::<16>("4F9C278211BEC9316BF68F46EE8B2EC6");
        fn run<S: State>(key: &[u8; 16], nonce: &[u8; 16], ad: &[u8], pt: &[u8; 16]) -> [u8; 32] {
            let mut out = [0u8; 32];
            out[..16].copy_from_slice(pt);
            let tag = encrypt::<S>(key, nonce, ad, &mut out[..16]);
            out[16..].copy_from_slice(&tag);
            out
        }
        assert_eq!(run::<Words>(&key, &nonce, &ad, &pt), want);
        assert_eq!(run::<Sliced>(&key, &nonce, &ad, &pt), want);
        assert_eq!(encrypt::<Words>(&key, &nonce, &[], &mut []), empty_tag);
        assert_eq!(encrypt::<Sliced>(&key, &nonce, &[], &mut []), empty_tag);
    }

    #[test]
    fn transpose_is_an_involution_that_moves_bits() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..64 {
            x = x.rotate_left(7) ^ (x >> 3) ^ 0x5851_f42d_4c95_7f2d;
            let b = x.to_le_bytes();
            let t = slices::transpose(b);
            for (m, bm) in b.iter().enumerate() {
                for (j, tj) in t.iter().enumerate() {
                    assert_eq!(tj >> m & 1, bm >> j & 1);
                }
            }
            assert_eq!(slices::transpose(t), b);
        }
    }

    /// The slice form's permutation is the `u64` form's, for every round count used.
    #[test]
    fn sliced_permutation_agrees_with_words() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for rounds in [1, 6, 8, 12] {
            for _ in 0..16 {
                let words: [[u8; 8]; 5] = core::array::from_fn(|_| {
                    x = x.rotate_left(13) ^ (x >> 7) ^ 0x2545_f491_4f6c_dd1d;
                    x.to_le_bytes()
                });
                let mut a = Words::new(words);
                let mut b = Sliced::new(words);
                a.permute(rounds);
                b.permute(rounds);
                for i in 0..5 {
                    assert_eq!(a.word(i), b.word(i), "rounds {rounds}, word {i}");
                }
            }
        }
    }

    /// Both forms seal and open the same bytes at every length 0..300.
    #[test]
    fn both_forms_agree_at_every_length() {
        let key: [u8; 16] = core::array::from_fn(|i| i as u8 * 7 + 1);
        let mut a = [0u8; 300];
        let mut b = [0u8; 300];
        let ad: [u8; 300] = core::array::from_fn(|i| (i * 31) as u8);
        for len in 0..300 {
            let nonce = [len as u8; 16];
            let ad = &ad[..(len * 7) % 61];
            for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
                *x = (i ^ len) as u8;
                *y = *x;
            }
            let ta = encrypt::<Words>(&key, &nonce, ad, &mut a[..len]);
            let tb = encrypt::<Sliced>(&key, &nonce, ad, &mut b[..len]);
            assert_eq!(ta, tb, "{len}");
            assert_eq!(a[..len], b[..len], "{len}");
            assert_eq!(decrypt::<Sliced>(&key, &nonce, ad, &mut b[..len]), ta);
            assert_eq!(decrypt::<Words>(&key, &nonce, ad, &mut a[..len]), ta);
            for (i, x) in a[..len].iter().enumerate() {
                assert_eq!(*x, (i ^ len) as u8);
            }
            assert_eq!(a[..len], b[..len]);
        }
    }
}
