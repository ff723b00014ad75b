//! Monocypher 4: ChaCha20-Poly1305 with RFC 8439's nonce, and, from its
//! optional part, SHA-512 and HMAC-SHA-512.

use core::ffi::{c_int, c_void};

use cipher::consts::{U12, U16, U32, U64, U128};
use zeroize::{ZeroizeOnDrop, Zeroizing};

use crate::contexts::{MONO_HMAC_BYTES, MONO_SHA512_BYTES};
use crate::{Context, aead_adapter, digest_adapter};

type Ctx = *mut c_void;

unsafe extern "C" {
    fn cm_monocypher_aead_encrypt(
        k: *const u8,
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
    );
    fn cm_monocypher_aead_decrypt(
        k: *const u8,
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
    ) -> c_int;
    fn cm_monocypher_sha512_start(ctx: Ctx);
    fn cm_monocypher_sha512_update(ctx: Ctx, p: *const u8, n: usize);
    fn cm_monocypher_sha512_finish(ctx: Ctx, out: *mut u8);
    fn cm_monocypher_hmac_setkey(ctx: Ctx, key: *const u8, len: usize);
    fn cm_monocypher_hmac_update(ctx: Ctx, p: *const u8, n: usize);
    fn cm_monocypher_hmac_finish(ctx: Ctx, out: *mut u8);
    fn cm_monocypher_wipe(p: Ctx, n: usize);
}

/// ChaCha20-Poly1305 (RFC 8439): `crypto_aead_init_ietf` from the kept key
/// for each message, then write or read.
pub struct ChaCha20Poly1305<K = U32> {
    key: Zeroizing<[u8; 32]>,
    ok: bool,
    kind: core::marker::PhantomData<K>,
}

/// The kept key is `Zeroizing`.
impl<K> ZeroizeOnDrop for ChaCha20Poly1305<K> {}

aead_adapter! {
    ChaCha20Poly1305<K: aead::array::ArraySize>, key: K, nonce: U12, tag: U16,
    new: |k| {
        let mut key = Zeroizing::new([0u8; 32]);
        let ok = k.len() == 32;
        if ok {
            key.copy_from_slice(k);
        }
        ChaCha20Poly1305 { key, ok, kind: core::marker::PhantomData }
    },
    encrypt: |s, n, a, b, t| { cm_monocypher_aead_encrypt(s.key.as_ptr(), n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_mut_ptr()); 0 },
    decrypt: |s, n, a, b, t| cm_monocypher_aead_decrypt(s.key.as_ptr(), n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_ptr()),
}

digest_adapter!(
    /// SHA-512.
    Sha512, MONO_SHA512_BYTES / 8, U64, U128, cm_monocypher_sha512_start, cm_monocypher_sha512_update, cm_monocypher_sha512_finish
);

/// Monocypher's HMAC-SHA-512 (`crypto_sha512_hmac_*`): the keyed context is
/// plain data, so a clone starts a message from the key's state.
#[derive(Clone)]
pub struct HmacSha512(Context<{ MONO_HMAC_BYTES / 8 }>);

impl Drop for HmacSha512 {
    fn drop(&mut self) {
        // SAFETY: the value's own context; it holds the padded key.
        unsafe { cm_monocypher_wipe(self.0.ptr(), MONO_HMAC_BYTES) };
    }
}

/// `Drop` wipes with Monocypher's `crypto_wipe`, then `Context` again.
impl ZeroizeOnDrop for HmacSha512 {}

impl digest::common::KeySizeUser for HmacSha512 {
    type KeySize = U128;
}

impl digest::KeyInit for HmacSha512 {
    fn new(key: &digest::Key<Self>) -> Self {
        Self::new_from_slice(key).expect("HMAC takes a key of any length")
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, digest::InvalidLength> {
        let mut ctx = Context::new();
        // SAFETY: the new context and a live key slice (any length: HMAC
        // hashes a long one).
        unsafe { cm_monocypher_hmac_setkey(ctx.ptr(), key.as_ptr(), key.len()) };
        Ok(HmacSha512(ctx))
    }
}

impl digest::MacMarker for HmacSha512 {}

impl digest::OutputSizeUser for HmacSha512 {
    type OutputSize = U64;
}

impl digest::Update for HmacSha512 {
    fn update(&mut self, data: &[u8]) {
        // SAFETY: the value's context and a live slice.
        unsafe { cm_monocypher_hmac_update(self.0.ptr(), data.as_ptr(), data.len()) };
    }
}

impl digest::FixedOutput for HmacSha512 {
    fn finalize_into(mut self, out: &mut digest::Output<Self>) {
        // SAFETY: the value's context; `out` holds the whole tag.
        unsafe { cm_monocypher_hmac_finish(self.0.ptr(), out.as_mut_ptr()) };
    }
}
