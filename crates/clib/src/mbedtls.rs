//! Mbed TLS 2.28: AES (block and its own CTR), GCM, CCM, ChaCha20-Poly1305,
//! SHA-256 and SHA-512, and HMAC over those hashes.

use core::cell::UnsafeCell;
use core::ffi::{c_int, c_uint, c_void};
use core::marker::PhantomData;

use cipher::consts::{U12, U16, U32, U64, U128};
use zeroize::ZeroizeOnDrop;

use crate::contexts::{
    AES_BYTES, CCM_BYTES, CHACHAPOLY_BYTES, GCM_BYTES, SHA256_BYTES, SHA512_BYTES,
};
use crate::{Context, aead_adapter, digest_adapter};

type Ctx = *mut c_void;

unsafe extern "C" {
    fn cm_mbedtls_aes_setkey(enc: Ctx, dec: Ctx, key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_aes_encrypt(enc: Ctx, block: *mut u8);
    fn cm_mbedtls_aes_decrypt(dec: Ctx, block: *mut u8);
    fn cm_mbedtls_aes_ctr(enc: Ctx, iv: *const u8, buf: *mut u8, len: usize) -> c_int;
    fn cm_mbedtls_aes_free(ctx: Ctx);
    fn cm_mbedtls_gcm_setkey(ctx: Ctx, key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_gcm_free(ctx: Ctx);
    fn cm_mbedtls_ccm_setkey(ctx: Ctx, key: *const u8, bits: c_uint) -> c_int;
    fn cm_mbedtls_ccm_free(ctx: Ctx);
    fn cm_mbedtls_chachapoly_setkey(ctx: Ctx, key: *const u8) -> c_int;
    fn cm_mbedtls_chachapoly_free(ctx: Ctx);
    fn cm_mbedtls_sha256_start(ctx: Ctx);
    fn cm_mbedtls_sha256_update(ctx: Ctx, p: *const u8, n: usize);
    fn cm_mbedtls_sha256_finish(ctx: Ctx, out: *mut u8);
    fn cm_mbedtls_sha512_start(ctx: Ctx);
    fn cm_mbedtls_sha512_update(ctx: Ctx, p: *const u8, n: usize);
    fn cm_mbedtls_sha512_finish(ctx: Ctx, out: *mut u8);
}

/// GCM's and CCM's encrypt and decrypt: context, nonce, AD, buffer, tag.
type AeadFn<T> = unsafe extern "C" fn(
    Ctx,
    *const u8,
    usize,
    *const u8,
    usize,
    *mut u8,
    usize,
    T,
    usize,
) -> c_int;

unsafe extern "C" {
    fn cm_mbedtls_gcm_encrypt(
        c: Ctx,
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
        c: Ctx,
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
        c: Ctx,
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
        c: Ctx,
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
        c: Ctx,
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
    ) -> c_int;
    fn cm_mbedtls_chachapoly_decrypt(
        c: Ctx,
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
    ) -> c_int;
}

/// A context the C side updates while the traits hold `&self`.
struct Cell<const WORDS: usize>(UnsafeCell<Context<WORDS>>);

impl<const WORDS: usize> Cell<WORDS> {
    fn new() -> Self {
        Cell(UnsafeCell::new(Context::new()))
    }

    /// The context for one C call. The value is not `Sync` (the cell), and
    /// no call keeps the pointer, so no two calls share it at once.
    fn ptr(&self) -> Ctx {
        self.0.get().cast()
    }
}

/// AES with a key of `K` bytes (16 or 32): Mbed TLS's tables and rounds,
/// a schedule per direction.
pub struct Aes<K> {
    enc: Cell<{ AES_BYTES / 8 }>,
    dec: Cell<{ AES_BYTES / 8 }>,
    key: PhantomData<K>,
}
pub type Aes128 = Aes<U16>;
pub type Aes256 = Aes<U32>;

impl<K> Aes<K> {
    /// Mbed TLS's own CTR (`mbedtls_aes_crypt_ctr`): a 128-bit big-endian
    /// counter from `iv`, in place.
    pub fn ctr(&self, iv: &[u8; 16], buf: &mut [u8]) -> bool {
        // SAFETY: the encryption context, a 16-byte counter block, a live buffer.
        unsafe { cm_mbedtls_aes_ctr(self.enc.ptr(), iv.as_ptr(), buf.as_mut_ptr(), buf.len()) == 0 }
    }
}

/// `Drop` frees the context with Mbed TLS's `*_free` (which wipes it),
/// then `Context` wipes the bytes again.
impl<K> ZeroizeOnDrop for Aes<K> {}

impl<K> Drop for Aes<K> {
    fn drop(&mut self) {
        // SAFETY: contexts set up by `new`; the free wipes them.
        unsafe {
            cm_mbedtls_aes_free(self.enc.ptr());
            cm_mbedtls_aes_free(self.dec.ptr());
        }
    }
}

impl<K: aead::array::ArraySize> cipher::KeySizeUser for Aes<K> {
    type KeySize = K;
}

impl<K: aead::array::ArraySize> cipher::KeyInit for Aes<K> {
    fn new(key: &cipher::Key<Self>) -> Self {
        let aes = Aes {
            enc: Cell::new(),
            dec: Cell::new(),
            key: PhantomData,
        };
        // SAFETY: the value's contexts and a live key of K bytes (16 or 32,
        // which Mbed TLS takes).
        unsafe {
            cm_mbedtls_aes_setkey(
                aes.enc.ptr(),
                aes.dec.ptr(),
                key.as_ptr(),
                (K::USIZE * 8) as c_uint,
            )
        };
        aes
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
        // SAFETY: the encryption context and one 16-byte block, in place.
        unsafe { cm_mbedtls_aes_encrypt(self.enc.ptr(), bytes.as_mut_ptr()) };
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
        // SAFETY: as above, with the decryption context.
        unsafe { cm_mbedtls_aes_decrypt(self.dec.ptr(), bytes.as_mut_ptr()) };
        *block.get_out() = bytes;
    }
}

/// AES-GCM with a key of `K` bytes and a nonce of `N` bytes (16-byte tag).
pub struct Gcm<K, N> {
    ctx: Cell<{ GCM_BYTES / 8 }>,
    ok: bool,
    kind: PhantomData<(K, N)>,
}
pub type Aes128Gcm = Gcm<U16, U12>;
pub type Aes256Gcm = Gcm<U32, U12>;

aead_adapter! {
    Gcm<K: aead::array::ArraySize, N: aead::array::ArraySize>, key: K, nonce: N, tag: U16,
    new: |k| {
        let ctx = Cell::new();
        // SAFETY: the new context and a live key of K bytes.
        let ok = unsafe { cm_mbedtls_gcm_setkey(ctx.ptr(), k.as_ptr(), (K::USIZE * 8) as c_uint) } == 0;
        Gcm { ctx, ok, kind: PhantomData }
    },
    encrypt: |s, n, a, b, t| call(cm_mbedtls_gcm_encrypt, s.ctx.ptr(), n, a, b, t.as_mut_ptr(), t.len()),
    decrypt: |s, n, a, b, t| call(cm_mbedtls_gcm_decrypt, s.ctx.ptr(), n, a, b, t.as_ptr(), t.len()),
}

/// `Drop` frees the context with Mbed TLS's `*_free` (which wipes it),
/// then `Context` wipes the bytes again.
impl<K, N> ZeroizeOnDrop for Gcm<K, N> {}

impl<K, N> Drop for Gcm<K, N> {
    fn drop(&mut self) {
        // SAFETY: set up by `new` (a failed setkey leaves it freeable); frees
        // the cipher layer's block and wipes the context.
        unsafe { cm_mbedtls_gcm_free(self.ctx.ptr()) };
    }
}

/// AES-CCM with a key of `K` bytes, a tag of `T` and a nonce of `N` bytes.
pub struct Ccm<K, T, N> {
    ctx: Cell<{ CCM_BYTES / 8 }>,
    ok: bool,
    kind: PhantomData<(K, T, N)>,
}

aead_adapter! {
    Ccm<K: aead::array::ArraySize, T: aead::array::ArraySize, N: aead::array::ArraySize>, key: K, nonce: N, tag: T,
    new: |k| {
        let ctx = Cell::new();
        // SAFETY: as for GCM.
        let ok = unsafe { cm_mbedtls_ccm_setkey(ctx.ptr(), k.as_ptr(), (K::USIZE * 8) as c_uint) } == 0;
        Ccm { ctx, ok, kind: PhantomData }
    },
    encrypt: |s, n, a, b, t| call(cm_mbedtls_ccm_encrypt, s.ctx.ptr(), n, a, b, t.as_mut_ptr(), t.len()),
    decrypt: |s, n, a, b, t| call(cm_mbedtls_ccm_decrypt, s.ctx.ptr(), n, a, b, t.as_ptr(), t.len()),
}

/// `Drop` frees the context with Mbed TLS's `*_free` (which wipes it),
/// then `Context` wipes the bytes again.
impl<K, T, N> ZeroizeOnDrop for Ccm<K, T, N> {}

impl<K, T, N> Drop for Ccm<K, T, N> {
    fn drop(&mut self) {
        // SAFETY: as for GCM.
        unsafe { cm_mbedtls_ccm_free(self.ctx.ptr()) };
    }
}

/// AES-128-CCM and AES-256-CCM as the sealing core uses them (16-byte tag, 13-byte nonce).
pub type Aes128Ccm = Ccm<U16, U16, cipher::consts::U13>;
pub type Aes256Ccm = Ccm<U32, U16, cipher::consts::U13>;

/// ChaCha20-Poly1305 (RFC 8439).
pub struct ChaCha20Poly1305<K = U32> {
    ctx: Cell<{ CHACHAPOLY_BYTES / 8 }>,
    ok: bool,
    kind: PhantomData<K>,
}

aead_adapter! {
    ChaCha20Poly1305<K: aead::array::ArraySize>, key: K, nonce: U12, tag: U16,
    new: |k| {
        let ctx = Cell::new();
        // SAFETY: the new context and a live 32-byte key.
        let ok = k.len() == 32 && unsafe { cm_mbedtls_chachapoly_setkey(ctx.ptr(), k.as_ptr()) } == 0;
        ChaCha20Poly1305 { ctx, ok, kind: PhantomData }
    },
    encrypt: |s, n, a, b, t| cm_mbedtls_chachapoly_encrypt(s.ctx.ptr(), n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_mut_ptr()),
    decrypt: |s, n, a, b, t| cm_mbedtls_chachapoly_decrypt(s.ctx.ptr(), n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_ptr()),
}

/// `Drop` frees the context with Mbed TLS's `*_free` (which wipes it),
/// then `Context` wipes the bytes again.
impl<K> ZeroizeOnDrop for ChaCha20Poly1305<K> {}

impl<K> Drop for ChaCha20Poly1305<K> {
    fn drop(&mut self) {
        // SAFETY: the value's context; the free wipes it.
        unsafe { cm_mbedtls_chachapoly_free(self.ctx.ptr()) };
    }
}

/// # Safety
/// `ctx` is the value's own context; `tag` points to `tag_len` bytes.
unsafe fn call<T>(
    f: AeadFn<T>,
    ctx: Ctx,
    nonce: &[u8],
    ad: &[u8],
    buf: &mut [u8],
    tag: T,
    tag_len: usize,
) -> c_int {
    // SAFETY: live slices with their lengths; the caller vouches for the rest.
    unsafe {
        f(
            ctx,
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
    Sha256, SHA256_BYTES / 8, U32, U64, cm_mbedtls_sha256_start, cm_mbedtls_sha256_update, cm_mbedtls_sha256_finish
);
digest_adapter!(
    /// SHA-512.
    Sha512, SHA512_BYTES / 8, U64, U128, cm_mbedtls_sha512_start, cm_mbedtls_sha512_update, cm_mbedtls_sha512_finish
);

/// HMAC (RFC 2104) over Mbed TLS's SHA-256: the keyed inner state is kept and
/// forked per message, as Mbed TLS's md layer keeps its inner pad; the same
/// compressions, without the md layer's heap. `primitives::Hmac` (what
/// `hmac::SimpleHmac` computes, but K ⊕ opad is wiped on drop; the hash
/// contexts wipe themselves).
pub type HmacSha256 = primitives::Hmac<Sha256>;
/// HMAC over Mbed TLS's SHA-512.
pub type HmacSha512 = primitives::Hmac<Sha512>;
