//! Mbed TLS 2.28 (`impl-mbedtls`): AES (ECB, CTR), GCM, CCM,
//! ChaCha20-Poly1305, SHA-256, SHA-512 and HMAC through its md layer.

use core::ffi::{c_int, c_uint};
use core::marker::PhantomData;

use cipher::consts::{U12, U16, U32, U64, U128};

use super::{aead_adapter, digest_adapter};

unsafe extern "C" {
    fn cm_mbedtls_aes_setkey(key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_aes_encrypt(block: *mut u8);
    fn cm_mbedtls_aes_decrypt(block: *mut u8);
    fn cm_mbedtls_aes_ctr(iv: *const u8, buf: *mut u8, len: usize) -> c_int;
    fn cm_mbedtls_gcm_setkey(key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_ccm_setkey(key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_chachapoly_setkey(key: *const u8) -> c_int;
    fn cm_mbedtls_sha256_start();
    fn cm_mbedtls_sha256_update(p: *const u8, n: usize);
    fn cm_mbedtls_sha256_finish(out: *mut u8);
    fn cm_mbedtls_sha512_start();
    fn cm_mbedtls_sha512_update(p: *const u8, n: usize);
    fn cm_mbedtls_sha512_finish(out: *mut u8);
    fn cm_mbedtls_hmac_setkey(sha_bits: c_uint, key: *const u8, len: usize) -> c_int;
    fn cm_mbedtls_hmac_update(p: *const u8, n: usize);
    fn cm_mbedtls_hmac_finish(out: *mut u8);
}

unsafe extern "C" {
    fn cm_mbedtls_gcm_encrypt(
        n: *const u8,
        nl: usize,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
        tl: usize,
    ) -> c_int;
    fn cm_mbedtls_gcm_decrypt(
        n: *const u8,
        nl: usize,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
        tl: usize,
    ) -> c_int;
    fn cm_mbedtls_ccm_encrypt(
        n: *const u8,
        nl: usize,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
        tl: usize,
    ) -> c_int;
    fn cm_mbedtls_ccm_decrypt(
        n: *const u8,
        nl: usize,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
        tl: usize,
    ) -> c_int;
    fn cm_mbedtls_chachapoly_encrypt(
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
    ) -> c_int;
    fn cm_mbedtls_chachapoly_decrypt(
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
    ) -> c_int;
}

/// AES with a key of `K` bytes (16 or 32): Mbed TLS's tables and rounds.
pub struct Aes<K>(PhantomData<K>);
pub type Aes128 = Aes<U16>;
pub type Aes256 = Aes<U32>;

impl<K: aead::array::ArraySize> cipher::KeySizeUser for Aes<K> {
    type KeySize = K;
}

impl<K: aead::array::ArraySize> cipher::KeyInit for Aes<K> {
    fn new(key: &cipher::Key<Self>) -> Self {
        // SAFETY: a live key of K bytes. The schedules live in the shim.
        unsafe { cm_mbedtls_aes_setkey(key.as_ptr(), (K::USIZE * 8) as c_uint) };
        Aes(PhantomData)
    }
}

impl<K> cipher::BlockSizeUser for Aes<K> {
    type BlockSize = U16;
}

impl<K> cipher::ParBlocksSizeUser for Aes<K> {
    type ParBlocksSize = cipher::consts::U1;
}

impl<K> cipher::BlockCipherEncrypt for Aes<K> {
    fn encrypt_with_backend(&self, f: impl cipher::BlockCipherEncClosure<BlockSize = U16>) {
        f.call(self)
    }
}

impl<K> cipher::BlockCipherEncBackend for Aes<K> {
    fn encrypt_block(&self, mut block: cipher::InOut<'_, '_, cipher::Block<Self>>) {
        let mut bytes = *block.get_in();
        // SAFETY: one 16-byte block, encrypted in place.
        unsafe { cm_mbedtls_aes_encrypt(bytes.as_mut_ptr()) };
        *block.get_out() = bytes;
    }
}

impl<K> cipher::BlockCipherDecrypt for Aes<K> {
    fn decrypt_with_backend(&self, f: impl cipher::BlockCipherDecClosure<BlockSize = U16>) {
        f.call(self)
    }
}

impl<K> cipher::BlockCipherDecBackend for Aes<K> {
    fn decrypt_block(&self, mut block: cipher::InOut<'_, '_, cipher::Block<Self>>) {
        let mut bytes = *block.get_in();
        // SAFETY: as above.
        unsafe { cm_mbedtls_aes_decrypt(bytes.as_mut_ptr()) };
        *block.get_out() = bytes;
    }
}

/// Mbed TLS's own CTR (`mbedtls_aes_crypt_ctr`) over the key of the [`Aes`] given.
#[cfg(ctr_mode)]
pub struct Ctr;

#[cfg(ctr_mode)]
impl<K> crate::algorithms::block::CtrMode<Aes<K>> for Ctr {
    fn apply(_cipher: &Aes<K>, iv: &[u8], buf: &mut [u8]) -> Result<(), &'static str> {
        if iv.len() != 16 {
            return Err("iv length");
        }
        // SAFETY: a 16-byte counter block and a live buffer.
        match unsafe { cm_mbedtls_aes_ctr(iv.as_ptr(), buf.as_mut_ptr(), buf.len()) } {
            0 => Ok(()),
            _ => Err("mbedtls_aes_crypt_ctr failed"),
        }
    }
}

/// AES-GCM with a key of `K` bytes and a nonce of `N` bytes (16-byte tag).
pub struct Gcm<K, N> {
    ok: bool,
    kind: PhantomData<(K, N)>,
}
pub type Aes128Gcm = Gcm<U16, U12>;
pub type Aes256Gcm = Gcm<U32, U12>;

aead_adapter! {
    Gcm<K: aead::array::ArraySize, N: aead::array::ArraySize>, key: K, nonce: N, tag: U16,
    setkey: |k| cm_mbedtls_gcm_setkey(k.as_ptr(), (K::USIZE * 8) as c_uint),
    encrypt: |n, a, b, t| call(cm_mbedtls_gcm_encrypt, n, a, b, t.as_mut_ptr(), t.len()),
    decrypt: |n, a, b, t| call(cm_mbedtls_gcm_decrypt, n, a, b, t.as_ptr(), t.len()),
}

/// AES-CCM with a key of `K` bytes, a tag of `T` and a nonce of `N` bytes.
pub struct Ccm<K, T, N> {
    ok: bool,
    kind: PhantomData<(K, T, N)>,
}

aead_adapter! {
    Ccm<K: aead::array::ArraySize, T: aead::array::ArraySize, N: aead::array::ArraySize>, key: K, nonce: N, tag: T,
    setkey: |k| cm_mbedtls_ccm_setkey(k.as_ptr(), (K::USIZE * 8) as c_uint),
    encrypt: |n, a, b, t| call(cm_mbedtls_ccm_encrypt, n, a, b, t.as_mut_ptr(), t.len()),
    decrypt: |n, a, b, t| call(cm_mbedtls_ccm_decrypt, n, a, b, t.as_ptr(), t.len()),
}

/// ChaCha20-Poly1305 (RFC 8439).
pub struct ChaCha20Poly1305<K = U32> {
    ok: bool,
    kind: PhantomData<K>,
}

aead_adapter! {
    ChaCha20Poly1305<K: aead::array::ArraySize>, key: K, nonce: U12, tag: U16,
    setkey: |k| cm_mbedtls_chachapoly_setkey(k.as_ptr()),
    encrypt: |n, a, b, t| cm_mbedtls_chachapoly_encrypt(n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_mut_ptr()),
    decrypt: |n, a, b, t| cm_mbedtls_chachapoly_decrypt(n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_ptr()),
}

/// GCM's and CCM's shims share one shape: nonce, AD, buffer, tag.
///
/// # Safety
/// `tag` points to `tag_len` bytes.
unsafe fn call<T>(
    f: unsafe extern "C" fn(*const u8, usize, *const u8, usize, *mut u8, usize, T, usize) -> c_int,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
    tag: T,
    tag_len: usize,
) -> c_int {
    // SAFETY: live slices with their lengths; the caller vouches for the tag.
    unsafe {
        f(
            nonce.as_ptr(),
            nonce.len(),
            ad.as_ptr(),
            ad.len(),
            buf.as_mut_ptr(),
            buf.len(),
            tag,
            tag_len,
        )
    }
}

digest_adapter!(
    /// SHA-256.
    Sha256, U32, U64, cm_mbedtls_sha256_start, cm_mbedtls_sha256_update, cm_mbedtls_sha256_finish
);
digest_adapter!(
    /// SHA-512.
    Sha512, U64, U128, cm_mbedtls_sha512_start, cm_mbedtls_sha512_update, cm_mbedtls_sha512_finish
);

/// HMAC over SHA-256 (`BITS` = 256) or SHA-512 (512) through the md layer.
#[derive(Clone)]
pub struct Hmac<const BITS: u32>;
pub type HmacSha256 = Hmac<256>;
pub type HmacSha512 = Hmac<512>;

impl<const BITS: u32> digest::common::KeySizeUser for Hmac<BITS> {
    type KeySize = U64;
}

impl<const BITS: u32> digest::KeyInit for Hmac<BITS> {
    /// Only [`Self::new_from_slice`] is used: Mbed TLS may refuse a key.
    fn new(key: &digest::Key<Self>) -> Self {
        // SAFETY: a live key slice; the keyed context lives in the shim.
        unsafe { cm_mbedtls_hmac_setkey(BITS as c_uint, key.as_ptr(), key.len()) };
        Hmac
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, digest::InvalidLength> {
        // SAFETY: as above.
        match unsafe { cm_mbedtls_hmac_setkey(BITS as c_uint, key.as_ptr(), key.len()) } {
            0 => Ok(Hmac),
            _ => Err(digest::InvalidLength),
        }
    }
}

impl<const BITS: u32> digest::MacMarker for Hmac<BITS> {}

impl digest::OutputSizeUser for Hmac<256> {
    type OutputSize = U32;
}

impl digest::OutputSizeUser for Hmac<512> {
    type OutputSize = U64;
}

impl<const BITS: u32> digest::Update for Hmac<BITS> {
    fn update(&mut self, data: &[u8]) {
        // SAFETY: a live slice.
        unsafe { cm_mbedtls_hmac_update(data.as_ptr(), data.len()) };
    }
}

impl<const BITS: u32> digest::FixedOutput for Hmac<BITS>
where
    Self: digest::OutputSizeUser,
{
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        // SAFETY: `out` holds the whole tag.
        unsafe { cm_mbedtls_hmac_finish(out.as_mut_ptr()) };
    }
}

/// Elliptic curves (`public_key` builds only).
#[cfg(public_key)]
mod curves {
    use core::ffi::c_int;
    unsafe extern "C" {
        fn cm_mbedtls_p256_public(sk: *const u8, pk: *mut u8) -> c_int;
        fn cm_mbedtls_p256_shared(sk: *const u8, peer: *const u8, out: *mut u8) -> c_int;
        fn cm_mbedtls_p256_sign(sk: *const u8, m: *const u8, n: usize, sig: *mut u8) -> c_int;
        fn cm_mbedtls_p256_verify(pk: *const u8, m: *const u8, n: usize, sig: *const u8) -> c_int;
    }

    /// P-256 ECDH with uncompressed points (SEC 1), the peer's point checked.
    pub struct P256Ecdh;

    impl crate::algorithms::public_key::KeyAgreement for P256Ecdh {
        const PK: usize = 65;

        fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
            // SAFETY: a 32-byte scalar and a 65-byte point.
            pk.len() == 65 && unsafe { cm_mbedtls_p256_public(sk.as_ptr(), pk.as_mut_ptr()) } == 0
        }

        fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
            // SAFETY: as above.
            peer.len() == 65
                && unsafe { cm_mbedtls_p256_shared(sk.as_ptr(), peer.as_ptr(), out.as_mut_ptr()) }
                    == 0
        }
    }

    /// P-256 ECDSA over SHA-256, deterministic (RFC 6979); signatures r || s.
    pub struct P256Ecdsa;

    impl crate::algorithms::public_key::Signer for P256Ecdsa {
        const PK: usize = 65;

        fn keypair(secret: &[u8; 32], expanded: &mut [u8; 64], pk: &mut [u8]) -> bool {
            expanded[..32].copy_from_slice(secret);
            // SAFETY: a 32-byte scalar and a 65-byte point.
            pk.len() == 65
                && unsafe { cm_mbedtls_p256_public(secret.as_ptr(), pk.as_mut_ptr()) } == 0
        }

        fn sign(expanded: &[u8; 64], msg: &[u8], sig: &mut [u8; 64]) -> bool {
            // SAFETY: the scalar, a live message and a 64-byte signature.
            unsafe {
                cm_mbedtls_p256_sign(expanded.as_ptr(), msg.as_ptr(), msg.len(), sig.as_mut_ptr())
                    == 0
            }
        }

        fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
            // SAFETY: as above.
            pk.len() == 65
                && unsafe {
                    cm_mbedtls_p256_verify(pk.as_ptr(), msg.as_ptr(), msg.len(), sig.as_ptr()) == 0
                }
        }
    }
}

#[cfg(public_key)]
pub use curves::*;
