//! Keyed ciphers and MACs, in place, without allocation. Each algorithm's
//! code is behind its crate feature (see `algorithm`); keying one that this
//! build does not carry is `Error::NotBuilt`, never a substitute.
//!
//! The block modes are written here over any RustCrypto block cipher: one
//! implementation of CBC, CTR (big-endian counter over the whole block),
//! CFB, CFB8, OFB and OFB8 on every target, byte-wise where a carry crosses
//! bytes (the `ctr` crate's `u128` step is miscompiled on AVR).

// A build with some algorithms (a firmware's one scheme) leaves the others'
// dispatch and imports unused.
#![cfg_attr(
    any(only_scheme, not(feature = "all")),
    allow(
        dead_code,
        unused_imports,
        unused_variables,
        unused_mut,
        unreachable_code
    )
)]

use cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockSizeUser, KeyInit};
use zeroize::{ZeroizeOnDrop, Zeroizing};

use crate::algorithm::{AeadAlg, BlockAlg, CipherAlg, MacAlg, Mode, StreamAlg};
use crate::backend::Backend;
use crate::error::Error;

// Unused in a build without a block cipher (an AEAD-only firmware).
#[allow(dead_code)]
type Blk<C> = Array<u8, <C as BlockSizeUser>::BlockSize>;

#[allow(dead_code)]
mod modes {
    use super::*;

    fn load<C: BlockSizeUser>(bytes: &[u8]) -> Blk<C> {
        let mut b = Blk::<C>::default();
        b[..bytes.len()].copy_from_slice(bytes);
        b
    }

    fn xor_into(dst: &mut [u8], ks: &[u8]) {
        for (d, k) in dst.iter_mut().zip(ks) {
            *d ^= k;
        }
    }

    /// Adds one to the whole block as a big-endian integer, wrapping.
    fn increment(counter: &mut [u8]) {
        for byte in counter.iter_mut().rev() {
            let (next, carry) = byte.overflowing_add(1);
            *byte = next;
            if !carry {
                break;
            }
        }
    }

    /// Encrypts `buf[..len]` in place; ECB and CBC append PKCS#7 padding
    /// (the caller sized `buf` with `CipherAlg::body_len`). Returns the body length.
    pub fn encrypt<C: BlockCipherEncrypt>(
        c: &C,
        mode: Mode,
        iv: &[u8],
        buf: &mut [u8],
        len: usize,
    ) -> Result<usize, Error> {
        let bs = C::block_size();
        let body = if mode.pads() {
            (len / bs + 1) * bs
        } else {
            len
        };
        let buf = buf
            .get_mut(..body)
            .ok_or(Error::BufferTooSmall { need: body })?;
        if mode.pads() {
            let pad = (body - len) as u8;
            buf[len..].fill(pad);
        }
        let mut reg = load::<C>(iv);
        match mode {
            Mode::Ecb => {
                for chunk in buf.chunks_exact_mut(bs) {
                    let mut b = load::<C>(chunk);
                    c.encrypt_block(&mut b);
                    chunk.copy_from_slice(&b);
                }
            }
            Mode::Cbc => {
                for chunk in buf.chunks_exact_mut(bs) {
                    xor_into(&mut reg, chunk);
                    c.encrypt_block(&mut reg);
                    chunk.copy_from_slice(&reg);
                }
            }
            Mode::Ctr => {
                for chunk in buf.chunks_mut(bs) {
                    let mut ks = reg.clone();
                    c.encrypt_block(&mut ks);
                    xor_into(chunk, &ks);
                    increment(&mut reg);
                }
            }
            Mode::Cfb => {
                for chunk in buf.chunks_mut(bs) {
                    c.encrypt_block(&mut reg);
                    xor_into(chunk, &reg);
                    reg[..chunk.len()].copy_from_slice(chunk);
                }
            }
            Mode::Ofb => {
                for chunk in buf.chunks_mut(bs) {
                    c.encrypt_block(&mut reg);
                    xor_into(chunk, &reg);
                }
            }
            Mode::Cfb8 | Mode::Ofb8 => {
                for byte in buf.iter_mut() {
                    let mut ks = reg.clone();
                    c.encrypt_block(&mut ks);
                    *byte ^= ks[0];
                    reg.copy_within(1.., 0);
                    reg[bs - 1] = if mode == Mode::Cfb8 { *byte } else { ks[0] };
                }
            }
        }
        Ok(body)
    }

    /// Decrypts `buf` in place; returns the plaintext length (padding removed).
    pub fn decrypt<C: BlockCipherEncrypt + BlockCipherDecrypt>(
        c: &C,
        mode: Mode,
        iv: &[u8],
        buf: &mut [u8],
    ) -> Result<usize, Error> {
        let bs = C::block_size();
        let mut reg = load::<C>(iv);
        match mode {
            Mode::Ecb | Mode::Cbc => {
                if buf.is_empty() || !buf.len().is_multiple_of(bs) {
                    return Err(Error::Rejected);
                }
                for chunk in buf.chunks_exact_mut(bs) {
                    let mut b = load::<C>(chunk);
                    let saved = b.clone();
                    c.decrypt_block(&mut b);
                    if mode == Mode::Cbc {
                        xor_into(&mut b, &reg);
                        reg = saved;
                    }
                    chunk.copy_from_slice(&b);
                }
                // Checked after the MAC (EtM), so no padding oracle is exposed.
                let pad = buf[buf.len() - 1] as usize;
                if pad == 0 || pad > bs || buf[buf.len() - pad..].iter().any(|&b| b as usize != pad)
                {
                    return Err(Error::Rejected);
                }
                Ok(buf.len() - pad)
            }
            Mode::Ctr | Mode::Ofb | Mode::Ofb8 => encrypt(c, mode, iv, buf, buf.len()),
            Mode::Cfb => {
                for chunk in buf.chunks_mut(bs) {
                    c.encrypt_block(&mut reg);
                    let mut next = reg.clone();
                    next[..chunk.len()].copy_from_slice(chunk);
                    xor_into(chunk, &reg);
                    reg = next;
                }
                Ok(buf.len())
            }
            Mode::Cfb8 => {
                for byte in buf.iter_mut() {
                    let mut ks = reg.clone();
                    c.encrypt_block(&mut ks);
                    let cipher_byte = *byte;
                    *byte ^= ks[0];
                    reg.copy_within(1.., 0);
                    reg[bs - 1] = cipher_byte;
                }
                Ok(buf.len())
            }
        }
    }
}

/// Declares the keyed block ciphers: one enum variant per (backend,
/// cipher), present only with its features (and, in a one-scheme firmware
/// build, only for its cipher and backend), and the dispatch to the
/// generic modes.
macro_rules! block_ciphers {
    ($($backend:ident $bname:literal [$($feature:literal),+] $id:literal $alg:ident => $name:ident $ty:ty;)*) => {
        pub enum BlockKey {
            $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] $name($ty),)*
        }

        impl BlockKey {
            pub fn new(alg: BlockAlg, key: &[u8], backend: Backend) -> Result<BlockKey, Error> {
                let _ = key;
                match (alg, backend) {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))]
                    (BlockAlg::$alg, Backend::$backend) => Ok(BlockKey::$name(
                        <$ty as KeyInit>::new_from_slice(key).map_err(|_| Error::KeyLength)?,
                    )),)*
                    #[allow(unreachable_patterns)]
                    _ => Err(missing(backend)),
                }
            }

            pub fn encrypt(&self, mode: Mode, iv: &[u8], buf: &mut [u8], len: usize) -> Result<usize, Error> {
                let _ = (mode, iv, &buf, len);
                match *self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] BlockKey::$name(ref c) => modes::encrypt(c, mode, iv, buf, len),)*
                }
            }

            pub fn decrypt(&self, mode: Mode, iv: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
                let _ = (mode, iv, &buf);
                match *self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] BlockKey::$name(ref c) => modes::decrypt(c, mode, iv, buf),)*
                }
            }
        }
    };
}

/// Why a backend has no key for an algorithm: not compiled into this build
/// (RustCrypto, which has them all, or a backend this build lacks), or not
/// one of the backend's.
fn missing(backend: Backend) -> Error {
    if backend == Backend::RustCrypto || !backend.built() {
        Error::NotBuilt
    } else {
        Error::NotInBackend
    }
}

block_ciphers! {
    RustCrypto "rustcrypto" ["aes"] "aes-128" Aes128 => Aes128 aes::Aes128;
    RustCrypto "rustcrypto" ["aes"] "aes-192" Aes192 => Aes192 aes::Aes192;
    RustCrypto "rustcrypto" ["aes"] "aes-256" Aes256 => Aes256 aes::Aes256;
    RustCrypto "rustcrypto" ["serpent"] "serpent-128" Serpent128 => Serpent128 serpent::Serpent;
    RustCrypto "rustcrypto" ["serpent"] "serpent-192" Serpent192 => Serpent192 serpent::Serpent;
    RustCrypto "rustcrypto" ["serpent"] "serpent-256" Serpent256 => Serpent256 serpent::Serpent;
    RustCrypto "rustcrypto" ["in-project"] "twofish-128" Twofish128 => Twofish128 primitives::Twofish128;
    RustCrypto "rustcrypto" ["in-project"] "twofish-192" Twofish192 => Twofish192 primitives::Twofish192;
    RustCrypto "rustcrypto" ["in-project"] "twofish-256" Twofish256 => Twofish256 primitives::Twofish256;
    RustCrypto "rustcrypto" ["camellia"] "camellia-128" Camellia128 => Camellia128 camellia::Camellia128;
    RustCrypto "rustcrypto" ["in-project"] "clefia-128" Clefia128 => Clefia128 primitives::Clefia128;
    RustCrypto "rustcrypto" ["speck"] "speck128-128" Speck128_128 => Speck128_128 speck_cipher::Speck128_128;
    RustCrypto "rustcrypto" ["speck"] "speck64-128" Speck64_128 => Speck64_128 speck_cipher::Speck64_128;
    RustCrypto "rustcrypto" ["in-project"] "present-80" Present80 => Present80 primitives::Present80;
    RustCrypto "rustcrypto" ["in-project"] "present-128" Present128 => Present128 primitives::Present128;
    RustCrypto "rustcrypto" ["in-project"] "piccolo-80" Piccolo80 => Piccolo80 primitives::Piccolo80;
    RustCrypto "rustcrypto" ["in-project"] "piccolo-128" Piccolo128 => Piccolo128 primitives::Piccolo128;
    RustCrypto "rustcrypto" ["blowfish"] "bf" Blowfish => Blowfish blowfish::Blowfish;
    RustCrypto "rustcrypto" ["des"] "des" Des => Des des::Des;
    RustCrypto "rustcrypto" ["des"] "des-ede3" TdesEde3 => TdesEde3 des::TdesEde3;
    RustCrypto "rustcrypto" ["rc2"] "rc2" Rc2 => Rc2 rc2::Rc2;
    RustCrypto "rustcrypto" ["idea"] "idea" Idea => Idea idea::Idea;
    RustCrypto "rustcrypto" ["xtea"] "xtea" Xtea => Xtea xtea::Xtea;
    RustCrypto "rustcrypto" ["in-project"] "rijndael-256" Rijndael256 => Rijndael256 primitives::Rijndael256K256;
    Ciphermeter "ciphermeter" ["backend-ciphermeter"] "aes-128" Aes128 => OursAes128 primitives::Aes128;
    Ciphermeter "ciphermeter" ["backend-ciphermeter"] "aes-256" Aes256 => OursAes256 primitives::Aes256;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-128" Aes128 => MbedtlsAes128 clib::mbedtls::Aes128;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-256" Aes256 => MbedtlsAes256 clib::mbedtls::Aes256;
}

/// Declares the keyed AEADs, as `block_ciphers!` does for block ciphers.
macro_rules! aeads {
    ($($backend:ident $bname:literal [$($feature:literal),+] $id:literal $alg:ident => $name:ident $ty:ty;)*) => {
        // No allocator to box with; a firmware build has one variant, so its
        // size is exactly its algorithm's.
        #[allow(clippy::large_enum_variant)]
        pub enum AeadKey {
            $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] $name($ty),)*
        }

        impl AeadKey {
            pub fn new(alg: AeadAlg, key: &[u8], backend: Backend) -> Result<AeadKey, Error> {
                let _ = key;
                match (alg, backend) {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))]
                    (AeadAlg::$alg, Backend::$backend) => Ok(AeadKey::$name(
                        <$ty as KeyInit>::new_from_slice(key).map_err(|_| Error::KeyLength)?,
                    )),)*
                    #[allow(unreachable_patterns)]
                    _ => Err(missing(backend)),
                }
            }

            /// Encrypts `buf` in place and writes the tag.
            pub fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
                let _ = (nonce, ad, &buf, &tag);
                match *self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] AeadKey::$name(ref a) => aead_seal(a, nonce, ad, buf, tag),)*
                }
            }

            /// Checks the tag, then decrypts `buf` in place.
            pub fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
                let _ = (nonce, ad, &buf, tag);
                match *self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] AeadKey::$name(ref a) => aead_open(a, nonce, ad, buf, tag),)*
                }
            }
        }
    };
}

aeads! {
    RustCrypto "rustcrypto" ["gcm"] "aes-128-gcm" Aes128Gcm => Aes128Gcm GcmKey<aes_gcm::Aes128Gcm>;
    RustCrypto "rustcrypto" ["gcm"] "aes-256-gcm" Aes256Gcm => Aes256Gcm GcmKey<aes_gcm::Aes256Gcm>;
    RustCrypto "rustcrypto" ["ccm"] "aes-128-ccm" Aes128Ccm => Aes128Ccm ccm::Ccm<aes::Aes128, ccm::consts::U16, ccm::consts::U13>;
    RustCrypto "rustcrypto" ["ccm"] "aes-256-ccm" Aes256Ccm => Aes256Ccm ccm::Ccm<aes::Aes256, ccm::consts::U16, ccm::consts::U13>;
    RustCrypto "rustcrypto" ["eax"] "aes-128-eax" Aes128Eax => Aes128Eax primitives::Eax<aes::Aes128>;
    RustCrypto "rustcrypto" ["eax"] "aes-256-eax" Aes256Eax => Aes256Eax primitives::Eax<aes::Aes256>;
    RustCrypto "rustcrypto" ["ocb"] "aes-128-ocb" Aes128Ocb => Aes128Ocb crate::wipe::Wiped<ocb3::Ocb3<aes::Aes128>>;
    RustCrypto "rustcrypto" ["ocb"] "aes-256-ocb" Aes256Ocb => Aes256Ocb crate::wipe::Wiped<ocb3::Ocb3<aes::Aes256>>;
    RustCrypto "rustcrypto" ["gcm-siv"] "aes-256-gcm-siv" Aes256GcmSiv => Aes256GcmSiv aes_gcm_siv::Aes256GcmSiv;
    RustCrypto "rustcrypto" ["chacha20poly1305"] "chacha20-poly1305" ChaCha20Poly1305 => ChaCha20Poly1305 chacha20poly1305::ChaCha20Poly1305;
    RustCrypto "rustcrypto" ["chacha20poly1305"] "xchacha20-poly1305" XChaCha20Poly1305 => XChaCha20Poly1305 chacha20poly1305::XChaCha20Poly1305;
    RustCrypto "rustcrypto" ["ascon"] "ascon-aead128" AsconAead128 => AsconAead128 crate::wipe::Wiped<ascon_aead::AsconAead128>;
    RustCrypto "rustcrypto" ["in-project"] "ascon-128-v1.2" Ascon128V12 => Ascon128V12 primitives::Ascon128V12;
    RustCrypto "rustcrypto" ["in-project"] "acorn-128" Acorn128 => Acorn128 primitives::Acorn128;
    RustCrypto "rustcrypto" ["in-project"] "acorn-128-wide" Acorn128Wide => Acorn128Wide primitives::Acorn128Wide;
    Ciphermeter "ciphermeter" ["gcm", "backend-ciphermeter"] "aes-128-gcm" Aes128Gcm => OursAes128Gcm primitives::Aes128Gcm;
    Ciphermeter "ciphermeter" ["gcm", "backend-ciphermeter"] "aes-256-gcm" Aes256Gcm => OursAes256Gcm primitives::Aes256Gcm;
    Ciphermeter "ciphermeter" ["ccm", "backend-ciphermeter"] "aes-128-ccm" Aes128Ccm => OursAes128Ccm ccm::Ccm<primitives::Aes128, ccm::consts::U16, ccm::consts::U13>;
    Ciphermeter "ciphermeter" ["ccm", "backend-ciphermeter"] "aes-256-ccm" Aes256Ccm => OursAes256Ccm ccm::Ccm<primitives::Aes256, ccm::consts::U16, ccm::consts::U13>;
    Ciphermeter "ciphermeter" ["eax", "backend-ciphermeter"] "aes-128-eax" Aes128Eax => OursAes128Eax primitives::Eax<primitives::Aes128>;
    Ciphermeter "ciphermeter" ["eax", "backend-ciphermeter"] "aes-256-eax" Aes256Eax => OursAes256Eax primitives::Eax<primitives::Aes256>;
    Ciphermeter "ciphermeter" ["ocb", "backend-ciphermeter"] "aes-128-ocb" Aes128Ocb => OursAes128Ocb crate::wipe::Wiped<ocb3::Ocb3<primitives::Aes128>>;
    Ciphermeter "ciphermeter" ["ocb", "backend-ciphermeter"] "aes-256-ocb" Aes256Ocb => OursAes256Ocb crate::wipe::Wiped<ocb3::Ocb3<primitives::Aes256>>;
    Ciphermeter "ciphermeter" ["gcm-siv", "backend-ciphermeter"] "aes-256-gcm-siv" Aes256GcmSiv => OursAes256GcmSiv aes_gcm_siv::AesGcmSiv<primitives::Aes256>;
    Ciphermeter "ciphermeter" ["backend-ciphermeter"] "chacha20-poly1305" ChaCha20Poly1305 => OursChaCha20Poly1305 primitives::ChaCha20Poly1305;
    Ciphermeter "ciphermeter" ["backend-ciphermeter"] "ascon-aead128" AsconAead128 => OursAsconAead128 primitives::AsconAead128;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-128-gcm" Aes128Gcm => MbedtlsAes128Gcm clib::mbedtls::Aes128Gcm;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-256-gcm" Aes256Gcm => MbedtlsAes256Gcm clib::mbedtls::Aes256Gcm;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-128-ccm" Aes128Ccm => MbedtlsAes128Ccm clib::mbedtls::Aes128Ccm;
    Mbedtls "mbedtls" ["backend-mbedtls"] "aes-256-ccm" Aes256Ccm => MbedtlsAes256Ccm clib::mbedtls::Aes256Ccm;
    Mbedtls "mbedtls" ["backend-mbedtls"] "chacha20-poly1305" ChaCha20Poly1305 => MbedtlsChaCha20Poly1305 clib::mbedtls::ChaCha20Poly1305;
    Monocypher "monocypher" ["backend-monocypher"] "chacha20-poly1305" ChaCha20Poly1305 => MonocypherChaCha20Poly1305 clib::monocypher::ChaCha20Poly1305;
    AwsLc "aws-lc" ["backend-aws-lc"] "aes-128-gcm" Aes128Gcm => AwsLcAes128Gcm aws_lc::Aes128Gcm;
    AwsLc "aws-lc" ["backend-aws-lc"] "aes-256-gcm" Aes256Gcm => AwsLcAes256Gcm aws_lc::Aes256Gcm;
    AwsLc "aws-lc" ["backend-aws-lc"] "chacha20-poly1305" ChaCha20Poly1305 => AwsLcChaCha20Poly1305 aws_lc::ChaCha20Poly1305;
}

/// AES-GCM's keyed state holds 16-byte-aligned GHASH field elements
/// (`polyval`'s `repr(align(16))`). Kept inside the sealer on AVR, whose back
/// end mishandles over-aligned values moved between frames, the key read
/// back empty; there the key is kept and GCM keyed per message instead (the
/// device's seal time includes that key schedule). Elsewhere it is kept keyed.
#[cfg(not(target_arch = "avr"))]
pub(crate) type GcmKey<A> = A;
#[cfg(target_arch = "avr")]
pub(crate) type GcmKey<A> = PerMessage<A>;

/// An AEAD keyed afresh for each message from its stored key.
#[allow(dead_code)]
pub struct PerMessage<A> {
    key: Zeroizing<[u8; 32]>,
    len: usize,
    aead: core::marker::PhantomData<A>,
}

impl<A: KeyInit> cipher::KeySizeUser for PerMessage<A> {
    type KeySize = A::KeySize;
}

impl<A: KeyInit> KeyInit for PerMessage<A> {
    fn new(key: &cipher::Key<Self>) -> Self {
        let mut stored = Zeroizing::new([0u8; 32]);
        stored[..key.len()].copy_from_slice(key);
        PerMessage {
            key: stored,
            len: key.len(),
            aead: core::marker::PhantomData,
        }
    }
}

impl<A: aead::AeadCore> aead::AeadCore for PerMessage<A> {
    type NonceSize = A::NonceSize;
    type TagSize = A::TagSize;
    const TAG_POSITION: aead::TagPosition = A::TAG_POSITION;
}

impl<A: KeyInit + aead::AeadInOut> aead::AeadInOut for PerMessage<A> {
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        ad: &[u8],
        buffer: aead::inout::InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        let a = A::new_from_slice(&self.key[..self.len]).map_err(|_| aead::Error)?;
        let nonce = aead::Nonce::<A>::try_from(nonce.as_slice()).map_err(|_| aead::Error)?;
        let tag = a.encrypt_inout_detached(&nonce, ad, buffer)?;
        aead::Tag::<Self>::try_from(tag.as_slice()).map_err(|_| aead::Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        ad: &[u8],
        buffer: aead::inout::InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        let a = A::new_from_slice(&self.key[..self.len]).map_err(|_| aead::Error)?;
        let nonce = aead::Nonce::<A>::try_from(nonce.as_slice()).map_err(|_| aead::Error)?;
        let tag = aead::Tag::<A>::try_from(tag.as_slice()).map_err(|_| aead::Error)?;
        a.decrypt_inout_detached(&nonce, ad, buffer, &tag)
    }
}

#[allow(dead_code)]
pub(crate) fn aead_seal<A: aead::AeadInOut>(
    a: &A,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Error> {
    let nonce = aead::Nonce::<A>::try_from(nonce).map_err(|_| Error::NonceLength)?;
    let t = a
        .encrypt_inout_detached(&nonce, ad, buf.into())
        .map_err(|_| Error::TooLong)?;
    tag.get_mut(..t.len())
        .ok_or(Error::BufferTooSmall { need: t.len() })?
        .copy_from_slice(&t);
    Ok(())
}

#[allow(dead_code)]
pub(crate) fn aead_open<A: aead::AeadInOut>(
    a: &A,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> Result<(), Error> {
    let nonce = aead::Nonce::<A>::try_from(nonce).map_err(|_| Error::Rejected)?;
    let tag = aead::Tag::<A>::try_from(tag).map_err(|_| Error::Rejected)?;
    a.decrypt_inout_detached(&nonce, ad, buf.into(), &tag)
        .map_err(|_| Error::Rejected)
}

/// A stream cipher keeps its key and starts afresh from each message's nonce.
pub struct StreamKey {
    alg: StreamAlg,
    key: Zeroizing<[u8; 32]>,
}

impl StreamKey {
    pub fn new(alg: StreamAlg, key: &[u8]) -> Result<StreamKey, Error> {
        if key.len() != CipherAlg::Stream(alg).key_len() {
            return Err(Error::KeyLength);
        }
        if !Self::built(alg) {
            return Err(Error::NotBuilt);
        }
        let mut stored = Zeroizing::new([0u8; 32]);
        stored[..key.len()].copy_from_slice(key);
        Ok(StreamKey { alg, key: stored })
    }

    fn built(alg: StreamAlg) -> bool {
        match alg {
            StreamAlg::Identity => true,
            StreamAlg::Rc4 => cfg!(all(feature = "rc4", any(not(only_scheme), only = "rc4"))),
            StreamAlg::ChaCha20 => cfg!(all(
                feature = "chacha20",
                any(not(only_scheme), only = "chacha20")
            )),
            StreamAlg::XChaCha20 => cfg!(all(
                feature = "chacha20",
                any(not(only_scheme), only = "xchacha20")
            )),
            StreamAlg::Salsa20 => cfg!(all(
                feature = "salsa20",
                any(not(only_scheme), only = "salsa20")
            )),
            StreamAlg::XSalsa20 => cfg!(all(
                feature = "salsa20",
                any(not(only_scheme), only = "xsalsa20")
            )),
        }
    }

    /// XORs the keystream for `nonce` into `buf` (encrypting and decrypting alike).
    pub fn apply(&self, nonce: &[u8], buf: &mut [u8]) -> Result<(), Error> {
        #[allow(unused_imports)]
        use cipher::{KeyIvInit, StreamCipher};
        let key = &self.key[..CipherAlg::Stream(self.alg).key_len()];
        let _ = (&key, nonce, &buf);
        #[allow(unused_macros)]
        macro_rules! run {
            ($ty:ty) => {{
                let mut s = <$ty>::new_from_slices(key, nonce).map_err(|_| Error::NonceLength)?;
                s.try_apply_keystream(buf).map_err(|_| Error::TooLong)
            }};
        }
        match self.alg {
            StreamAlg::Identity => Ok(()),
            #[cfg(all(feature = "rc4", any(not(only_scheme), only = "rc4")))]
            StreamAlg::Rc4 => {
                let mut s = rc4::Rc4::new_from_slice(key).map_err(|_| Error::KeyLength)?;
                s.apply_keystream(buf);
                Ok(())
            }
            #[cfg(all(feature = "chacha20", any(not(only_scheme), only = "chacha20")))]
            StreamAlg::ChaCha20 => run!(chacha20::ChaCha20),
            #[cfg(all(feature = "chacha20", any(not(only_scheme), only = "xchacha20")))]
            StreamAlg::XChaCha20 => run!(chacha20::XChaCha20),
            #[cfg(all(feature = "salsa20", any(not(only_scheme), only = "salsa20")))]
            StreamAlg::Salsa20 => run!(salsa20::Salsa20),
            #[cfg(all(feature = "salsa20", any(not(only_scheme), only = "xsalsa20")))]
            StreamAlg::XSalsa20 => run!(salsa20::XSalsa20),
            #[allow(unreachable_patterns)]
            _ => Err(Error::NotBuilt),
        }
    }
}

/// A keyed cipher of any kind.
#[allow(clippy::large_enum_variant)] // no allocator to box with
pub enum CipherKey {
    Block(BlockKey, Mode),
    Stream(StreamKey),
    Aead(AeadKey),
}

impl CipherKey {
    pub fn new(alg: CipherAlg, key: &[u8], backend: Backend) -> Result<CipherKey, Error> {
        Ok(match alg {
            CipherAlg::Block(b, m) => CipherKey::Block(BlockKey::new(b, key, backend)?, m),
            // Only RustCrypto has stream ciphers here.
            CipherAlg::Stream(_) if backend != Backend::RustCrypto => {
                return Err(Error::NotInBackend);
            }
            CipherAlg::Stream(s) => CipherKey::Stream(StreamKey::new(s, key)?),
            CipherAlg::Aead(a) => CipherKey::Aead(AeadKey::new(a, key, backend)?),
        })
    }

    /// Encrypts `buf[..len]` in place (an unauthenticated cipher; AEADs go
    /// through `AeadKey`). Returns the ciphertext length.
    pub fn encrypt(&self, iv: &[u8], buf: &mut [u8], len: usize) -> Result<usize, Error> {
        match self {
            CipherKey::Block(b, m) => b.encrypt(*m, iv, buf, len),
            CipherKey::Stream(s) => {
                let buf = buf
                    .get_mut(..len)
                    .ok_or(Error::BufferTooSmall { need: len })?;
                s.apply(iv, buf).map(|()| len)
            }
            CipherKey::Aead(_) => Err(Error::NotBuilt),
        }
    }

    /// Decrypts `buf` in place; returns the plaintext length.
    pub fn decrypt(&self, iv: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        match self {
            CipherKey::Block(b, m) => b.decrypt(*m, iv, buf),
            CipherKey::Stream(s) => s.apply(iv, buf).map(|()| buf.len()),
            CipherKey::Aead(_) => Err(Error::NotBuilt),
        }
    }
}

/// Declares the keyed MACs, as `block_ciphers!` does.
macro_rules! macs {
    ($($backend:ident $bname:literal [$($feature:literal),+] $id:literal $alg:ident => $name:ident $ty:ty;)*) => {
        // No allocator to box with; a firmware build has one variant, so its
        // size is exactly its algorithm's.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone)]
        pub enum MacKey {
            $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] $name($ty),)*
        }

        impl MacKey {
            pub fn new(alg: MacAlg, key: &[u8], backend: Backend) -> Result<MacKey, Error> {
                #[allow(unused_imports)]
                use digest::KeyInit as _;
                let _ = key;
                Ok(match (alg, backend) {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))]
                    (MacAlg::$alg, Backend::$backend) => MacKey::$name(<$ty>::new_from_slice(key).map_err(|_| Error::KeyLength)?),)*
                    #[allow(unreachable_patterns)]
                    _ => return Err(missing(backend)),
                })
            }

            pub fn update(&mut self, data: &[u8]) {
                use digest::Mac as _;
                let _ = data;
                match *self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] MacKey::$name(ref mut m) => m.update(data),)*
                }
            }

            /// Writes the tag into `out` (its length is the MAC's).
            pub fn finish(self, out: &mut [u8]) {
                use digest::Mac as _;
                let _ = &out;
                match self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] MacKey::$name(m) => out.copy_from_slice(&m.finalize().into_bytes()),)*
                }
            }

            /// Compares with `tag` in constant time.
            pub fn verify(self, tag: &[u8]) -> Result<(), Error> {
                use digest::Mac as _;
                let _ = tag;
                let checked: Result<(), digest::MacError> = match self {
                    $(#[cfg(all($(feature = $feature,)+ any(not(only_scheme), all(only = $id, backend = $bname))))] MacKey::$name(m) => m.verify_slice(tag),)*
                };
                checked.map_err(|_| Error::Rejected)
            }
        }
    };
}

macs! {
    RustCrypto "rustcrypto" ["sha256"] "hmac-sha256" HmacSha256 => HmacSha256 hmac::Hmac<sha2::Sha256>;
    RustCrypto "rustcrypto" ["sha512"] "hmac-sha512" HmacSha512 => HmacSha512 hmac::Hmac<sha2::Sha512>;
    RustCrypto "rustcrypto" ["sha3"] "hmac-sha3-256" HmacSha3_256 => HmacSha3_256 primitives::Hmac<sha3::Sha3_256>;
    RustCrypto "rustcrypto" ["sha3"] "hmac-sha3-512" HmacSha3_512 => HmacSha3_512 primitives::Hmac<sha3::Sha3_512>;
    RustCrypto "rustcrypto" ["sha1"] "hmac-sha1" HmacSha1 => HmacSha1 hmac::Hmac<sha1::Sha1>;
    RustCrypto "rustcrypto" ["md5"] "hmac-md5" HmacMd5 => HmacMd5 hmac::Hmac<md5::Md5>;
    RustCrypto "rustcrypto" ["blake2"] "hmac-blake2s256" HmacBlake2s256 => HmacBlake2s256 primitives::Hmac<blake2::Blake2s256>;
    RustCrypto "rustcrypto" ["blake2"] "hmac-blake2b512" HmacBlake2b512 => HmacBlake2b512 primitives::Hmac<blake2::Blake2b512>;
    RustCrypto "rustcrypto" ["ascon-hash"] "hmac-ascon-hash256" HmacAsconHash256 => HmacAsconHash256 primitives::Hmac<ascon_hash256::AsconHash256>;
    RustCrypto "rustcrypto" ["cmac"] "cmac-aes-128" CmacAes128 => CmacAes128 cmac::Cmac<aes::Aes128>;
    RustCrypto "rustcrypto" ["cmac"] "cmac-aes-256" CmacAes256 => CmacAes256 cmac::Cmac<aes::Aes256>;
    Ciphermeter "ciphermeter" ["sha3", "backend-ciphermeter"] "hmac-sha3-256" HmacSha3_256 => OursHmacSha3_256 primitives::Hmac<primitives::Sha3_256>;
    Ciphermeter "ciphermeter" ["sha3", "backend-ciphermeter"] "hmac-sha3-512" HmacSha3_512 => OursHmacSha3_512 primitives::Hmac<primitives::Sha3_512>;
    Ciphermeter "ciphermeter" ["cmac", "backend-ciphermeter"] "cmac-aes-128" CmacAes128 => OursCmacAes128 cmac::Cmac<primitives::Aes128>;
    Ciphermeter "ciphermeter" ["cmac", "backend-ciphermeter"] "cmac-aes-256" CmacAes256 => OursCmacAes256 cmac::Cmac<primitives::Aes256>;
    Mbedtls "mbedtls" ["backend-mbedtls"] "hmac-sha256" HmacSha256 => MbedtlsHmacSha256 clib::mbedtls::HmacSha256;
    Mbedtls "mbedtls" ["backend-mbedtls"] "hmac-sha512" HmacSha512 => MbedtlsHmacSha512 clib::mbedtls::HmacSha512;
    Monocypher "monocypher" ["backend-monocypher"] "hmac-sha512" HmacSha512 => MonocypherHmacSha512 clib::monocypher::HmacSha512;
    AwsLc "aws-lc" ["backend-aws-lc"] "hmac-sha256" HmacSha256 => AwsLcHmacSha256 aws_lc::HmacSha256;
    AwsLc "aws-lc" ["backend-aws-lc"] "hmac-sha512" HmacSha512 => AwsLcHmacSha512 aws_lc::HmacSha512;
}

// Every variant wipes itself or through its only secret field, and a build
// without variants holds nothing (crate::wipe's tests check each type).
impl ZeroizeOnDrop for BlockKey {}
impl ZeroizeOnDrop for AeadKey {}
impl ZeroizeOnDrop for MacKey {}
impl ZeroizeOnDrop for CipherKey {}
/// The stored key is `Zeroizing`.
impl ZeroizeOnDrop for StreamKey {}
/// The stored key is `Zeroizing`.
impl<A> ZeroizeOnDrop for PerMessage<A> {}
