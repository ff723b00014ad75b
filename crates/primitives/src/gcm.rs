//! AES-GCM (NIST SP 800-38D) over any 16-byte block cipher: 12-byte nonce,
//! 16-byte tag, the same trait surface as `aes_gcm::AesGcm<C, U12>`.
//!
//! GHASH multiplies by H with Shoup's 4-bit tables, one input byte per step:
//! `hi[n] = n·H` for the byte's high nibble and `lo[n] = n·x⁴·H` for its low
//! nibble (32 entries of 16 bytes: 512 bytes per key, built at `KeyInit`),
//! so a step is the accumulator times x⁸ (a one-byte shift), the 8-bit
//! reduction of the byte shifted out (computed with shifts, no table), and
//! two table rows xored in. Two forms of the same steps:
//! - on the 8-bit AVR, bytes (`table_bytes`): the shift is byte moves, the
//!   reduction 8-bit shifts, no `u32`/`u64` arithmetic;
//! - elsewhere, four big-endian `u32` words (`table_words`).
//!
//! Measured (`mcu --impl ciphermeter`, encrypt, fitted slope): AES-128-GCM
//! 508 cycles/byte on the ATmega1284P (0.29x rweather's GCM<AES128>, the
//! anchor; 2,677 with RustCrypto's `ghash` over the same AES), 295 on the
//! Cortex-M0+ (383 before).
//!
//! Timing: the table rows are chosen by the bytes of Y ⊕ X (the running
//! GHASH value xored with the next block of AAD or ciphertext), never by the
//! cipher key or by H directly; but Y depends on H, so, like every table
//! GHASH (Mbed TLS's, OpenSSL's 4-bit), the loads' addresses depend on
//! secret data. That is constant-time only where a load takes the same time
//! at every address: true of the cache-less cores this crate is written for
//! (AVR, Cortex-M0+/M3/M4 SRAM, the ESP32-C3's SRAM), not of CPUs with data
//! caches. The reduction uses no table.
//!
//! The counter is GCM's inc32 (last four bytes, big-endian, byte-wise carry).
//! The cipher's round keys and the H table are wiped on drop; tags are
//! compared in constant time (`subtle`).

use aead::consts::{U12, U16};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use cipher::{Array, BlockCipherEncrypt, BlockSizeUser};
use subtle::ConstantTimeEq;

mod table_bytes;
mod table_words;

/// The H table the AEAD uses: bytes on the 8-bit AVR (LLVM's AVR `u32` and
/// `u64` shifts are library calls or long sequences), `u32` words elsewhere.
#[cfg(target_arch = "avr")]
type Table = table_bytes::Table;
#[cfg(not(target_arch = "avr"))]
type Table = table_words::Table;

/// Longest plaintext (SP 800-38D: 2³⁹ − 256 bits).
const P_MAX: u64 = (1 << 36) - 32;
/// Longest associated data (2⁶⁴ − 1 bits, as `aes-gcm` bounds it).
const A_MAX: u64 = (1 << 61) - 1;

/// The 8-bit reduction of a byte `r` shifted out past x¹²⁷ by a step of x⁸:
/// `r`'s bit for x^(128+m) (m = 0 the most significant bit) folds back as
/// x^m·(1 + x + x² + x⁷), i.e. `0xE100 >> m` in the two leading bytes.
/// Together: clmul(r, 0xE1) << 1 = r<<8 ^ r<<7 ^ r<<6 ^ r<<1, returned as
/// (byte 0, byte 1). Branch-free, no table.
#[inline(always)]
fn reduce8(r: u8) -> (u8, u8) {
    (
        r ^ (r >> 1) ^ (r >> 2) ^ (r >> 7),
        (r << 7) ^ (r << 6) ^ (r << 1),
    )
}

/// H·x in GCM's bit order (x⁰ is the top bit of byte 0): a one-bit shift
/// towards byte 15, and R = 0xE1 ‖ 0¹²⁰ folded in if a bit fell off.
/// Branch-free (H is secret).
fn times_x(v: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut carry = 0u8;
    for (o, b) in out.iter_mut().zip(v) {
        *o = (b >> 1) | carry;
        carry = b << 7;
    }
    out[0] ^= 0xe1 & (0u8.wrapping_sub(v[15] & 1));
    out
}

/// The 16 multiples `n·V` of a nibble `n` whose top bit stands for `V`
/// (row 8 = V, 4 = V·x, 2 = V·x², 1 = V·x³, the others their sums), written
/// into `rows` in place (no 256-byte values moved: memory copies are slow on
/// the AVR). Returns V·x⁴, the next nibble's top row.
// Indices: row i + j is written from rows i and j of the same array.
#[allow(clippy::needless_range_loop)]
fn nibble_rows(rows: &mut [[u8; 16]; 16], v: &[u8; 16]) -> [u8; 16] {
    rows[0] = [0; 16];
    rows[8] = *v;
    rows[4] = times_x(&rows[8]);
    rows[2] = times_x(&rows[4]);
    rows[1] = times_x(&rows[2]);
    for i in [2usize, 4, 8] {
        for j in 1..i {
            for k in 0..16 {
                rows[i + j][k] = rows[i][k] ^ rows[j][k];
            }
        }
    }
    times_x(&rows[1])
}

/// GCM over the 16-byte block cipher `C`: 12-byte nonce, 16-byte tag (appended).
#[derive(Clone)]
pub struct Gcm<C> {
    cipher: C,
    table: Table,
}

/// AES-128-GCM over the byte-oriented [`Aes128`](crate::Aes128).
pub type Aes128Gcm = Gcm<crate::Aes128>;
/// AES-256-GCM over the byte-oriented [`Aes256`](crate::Aes256).
pub type Aes256Gcm = Gcm<crate::Aes256>;

impl<C> From<C> for Gcm<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    fn from(cipher: C) -> Self {
        let mut h = [0u8; 16];
        cipher.encrypt_block((&mut h).into());
        // Filled in place: the 512-byte table is not built and then moved.
        let mut gcm = Self {
            cipher,
            table: Table::ZERO,
        };
        gcm.table.init(&h);
        h.zeroize();
        gcm
    }
}

impl<C> Gcm<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    /// J0 = nonce ‖ 0³¹1; returns E(K, J0) (the tag mask) and J0.
    fn start(&self, nonce: &[u8]) -> ([u8; 16], [u8; 16]) {
        let mut j0 = [0u8; 16];
        j0[..12].copy_from_slice(nonce);
        j0[15] = 1;
        let mut mask = j0;
        self.cipher.encrypt_block((&mut mask).into());
        (mask, j0)
    }

    /// CTR from inc32(J0): XORs the keystream into `data`.
    fn ctr(&self, mut counter: [u8; 16], data: &mut [u8]) {
        let mut ks = [0u8; 16];
        for chunk in data.chunks_mut(16) {
            inc32(&mut counter);
            ks = counter;
            self.cipher.encrypt_block((&mut ks).into());
            for (d, k) in chunk.iter_mut().zip(&ks) {
                *d ^= k;
            }
        }
        ks.zeroize();
    }

    /// GHASH(AAD, C) with the lengths block, xored with the mask.
    fn tag(&self, mask: &[u8; 16], ad: &[u8], ct: &[u8]) -> [u8; 16] {
        let mut y = [0u8; 16];
        self.absorb(&mut y, ad);
        self.absorb(&mut y, ct);
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(ad.len() as u64 * 8).to_be_bytes());
        lengths[8..].copy_from_slice(&(ct.len() as u64 * 8).to_be_bytes());
        self.absorb(&mut y, &lengths);
        for (t, m) in y.iter_mut().zip(mask) {
            *t ^= m;
        }
        y
    }

    /// Y = (Y ⊕ Xᵢ)·H for each block of `data`, the last zero-padded.
    fn absorb(&self, y: &mut [u8; 16], data: &[u8]) {
        for block in data.chunks(16) {
            for (a, b) in y.iter_mut().zip(block) {
                *a ^= b;
            }
            self.table.mul(y);
        }
    }
}

/// GCM's inc32: the last four bytes as a big-endian counter mod 2³².
#[inline(always)]
fn inc32(counter: &mut [u8; 16]) {
    for b in counter[12..].iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

fn too_long(data: usize, ad: usize) -> bool {
    data as u64 > P_MAX || ad as u64 > A_MAX
}

impl<C: KeySizeUser> KeySizeUser for Gcm<C> {
    type KeySize = C::KeySize;
}

impl<C> KeyInit for Gcm<C>
where
    C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    fn new(key: &Key<Self>) -> Self {
        C::new(key).into()
    }
}

impl<C> AeadCore for Gcm<C> {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<C> AeadInOut for Gcm<C>
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>,
{
    fn encrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<Tag<Self>> {
        if too_long(buffer.len(), associated_data.len()) {
            return Err(aead::Error);
        }
        let (mut mask, j0) = self.start(nonce);
        let data = buffer.into_out_with_copied_in();
        self.ctr(j0, data);
        let tag = self.tag(&mask, associated_data, data);
        mask.zeroize();
        Ok(Array(tag))
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &Tag<Self>,
    ) -> aead::Result<()> {
        if too_long(buffer.len(), associated_data.len()) {
            return Err(aead::Error);
        }
        let (mut mask, j0) = self.start(nonce);
        let expected = self.tag(&mask, associated_data, buffer.get_in());
        mask.zeroize();
        if bool::from(expected.ct_eq(tag.as_slice())) {
            self.ctr(j0, buffer.into_out_with_copied_in());
            Ok(())
        } else {
            // Never release unauthenticated data, as the other AEADs here
            // (`aes-gcm` leaves the output as it was; here it is zeroed).
            let mut buffer = buffer;
            buffer.get_out().zeroize();
            Err(aead::Error)
        }
    }
}

impl<C> core::fmt::Debug for Gcm<C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Gcm { .. }")
    }
}

impl<C> Drop for Gcm<C> {
    fn drop(&mut self) {
        // The cipher wipes its own round keys (its `Drop`).
        self.table.zeroize();
    }
}

impl<C: ZeroizeOnDrop> ZeroizeOnDrop for Gcm<C> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Y·H bit by bit (SP 800-38D algorithm 1), the reference for both tables.
    fn mul_bitwise(x: &[u8; 16], h: &[u8; 16]) -> [u8; 16] {
        let mut z = [0u8; 16];
        let mut v = *h;
        for i in 0..128 {
            if x[i / 8] >> (7 - i % 8) & 1 == 1 {
                for (a, b) in z.iter_mut().zip(&v) {
                    *a ^= b;
                }
            }
            v = times_x(&v);
        }
        z
    }

    fn next(state: &mut u64) -> u8 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 24) as u8
    }

    /// Both table forms (the AVR's bytes and the `u32` words) against the
    /// bit-serial product, on random, all-ones and single-bit operands.
    #[test]
    fn both_tables_agree_with_the_bitwise_product() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for round in 0..3_000 {
            let h: [u8; 16] = match round {
                0 => [0xff; 16],
                1 => {
                    let mut h = [0; 16];
                    h[15] = 1;
                    h
                }
                _ => core::array::from_fn(|_| next(&mut s)),
            };
            let x: [u8; 16] = match round % 5 {
                0 => [0xff; 16],
                1 => {
                    let mut x = [0; 16];
                    x[round % 16] = 1 << (round % 8);
                    x
                }
                _ => core::array::from_fn(|_| next(&mut s)),
            };
            let want = mul_bitwise(&x, &h);
            let (mut a, mut b) = (x, x);
            table_bytes::Table::with(&h).mul(&mut a);
            table_words::Table::with(&h).mul(&mut b);
            assert_eq!(a, want, "bytes, round {round}");
            assert_eq!(b, want, "words, round {round}");
        }
    }

    #[test]
    fn reduce8_folds_each_bit() {
        for m in 0..8 {
            let (hi, lo) = reduce8(0x80 >> m);
            assert_eq!(u16::from_be_bytes([hi, lo]), 0xe100 >> m, "bit {m}");
        }
    }

    #[test]
    fn inc32_wraps_in_the_last_four_bytes() {
        let mut c = [0xffu8; 16];
        inc32(&mut c);
        assert_eq!(c[..12], [0xff; 12]);
        assert_eq!(c[12..], [0; 4]);
        let mut c = [0u8; 16];
        c[15] = 0xff;
        c[14] = 0x01;
        inc32(&mut c);
        assert_eq!(c[12..], [0, 0, 2, 0]);
    }
}
