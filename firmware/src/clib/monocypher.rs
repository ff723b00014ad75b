//! Monocypher 4 (`impl-monocypher`): ChaCha20-Poly1305 with RFC 8439's
//! nonce, and, from its optional part, SHA-512 and HMAC-SHA-512.

use core::marker::PhantomData;

use cipher::consts::{U12, U16, U32, U64, U128};

use super::{aead_adapter, digest_adapter};

unsafe extern "C" {
    fn cm_monocypher_aead_setkey(key: *const u8);
    fn cm_monocypher_aead_encrypt(
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *mut u8,
    );
    fn cm_monocypher_aead_decrypt(
        n: *const u8,
        a: *const u8,
        al: usize,
        b: *mut u8,
        l: usize,
        t: *const u8,
    ) -> core::ffi::c_int;
    fn cm_monocypher_sha512_start();
    fn cm_monocypher_sha512_update(p: *const u8, n: usize);
    fn cm_monocypher_sha512_finish(out: *mut u8);
    fn cm_monocypher_hmac_setkey(key: *const u8, len: usize);
    fn cm_monocypher_hmac_update(p: *const u8, n: usize);
    fn cm_monocypher_hmac_finish(out: *mut u8);
}

/// ChaCha20-Poly1305 (RFC 8439): `crypto_aead_init_ietf`, then write or read.
pub struct ChaCha20Poly1305<K = U32> {
    ok: bool,
    kind: PhantomData<K>,
}

aead_adapter! {
    ChaCha20Poly1305<K: aead::array::ArraySize>, key: K, nonce: U12, tag: U16,
    setkey: |k| { cm_monocypher_aead_setkey(k.as_ptr()); 0 },
    encrypt: |n, a, b, t| { cm_monocypher_aead_encrypt(n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_mut_ptr()); 0 },
    decrypt: |n, a, b, t| cm_monocypher_aead_decrypt(n.as_ptr(), a.as_ptr(), a.len(), b.as_mut_ptr(), b.len(), t.as_ptr()),
}

digest_adapter!(
    /// SHA-512.
    Sha512, U64, U128, cm_monocypher_sha512_start, cm_monocypher_sha512_update, cm_monocypher_sha512_finish
);

/// HMAC-SHA-512: the keyed state is kept, each message starts from it.
#[derive(Clone)]
pub struct HmacSha512;

impl digest::common::KeySizeUser for HmacSha512 {
    type KeySize = U128;
}

impl digest::KeyInit for HmacSha512 {
    fn new(key: &digest::Key<Self>) -> Self {
        Self::new_from_slice(key).unwrap_or(HmacSha512)
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, digest::InvalidLength> {
        // SAFETY: a live key slice (any length: HMAC hashes a long one).
        unsafe { cm_monocypher_hmac_setkey(key.as_ptr(), key.len()) };
        Ok(HmacSha512)
    }
}

impl digest::MacMarker for HmacSha512 {}

impl digest::OutputSizeUser for HmacSha512 {
    type OutputSize = U64;
}

impl digest::Update for HmacSha512 {
    fn update(&mut self, data: &[u8]) {
        // SAFETY: a live slice.
        unsafe { cm_monocypher_hmac_update(data.as_ptr(), data.len()) };
    }
}

impl digest::FixedOutput for HmacSha512 {
    fn finalize_into(self, out: &mut digest::Output<Self>) {
        // SAFETY: `out` holds the whole tag.
        unsafe { cm_monocypher_hmac_finish(out.as_mut_ptr()) };
    }
}

/// Elliptic curves (`public_key` builds only).
#[cfg(public_key)]
mod curves {
    unsafe extern "C" {
        fn cm_monocypher_x25519_public(pk: *mut u8, sk: *const u8);
        fn cm_monocypher_x25519(shared: *mut u8, sk: *const u8, pk: *const u8);
        fn cm_monocypher_ed25519_keypair(sk: *mut u8, pk: *mut u8, seed: *mut u8);
        fn cm_monocypher_ed25519_sign(sig: *mut u8, sk: *const u8, m: *const u8, n: usize);
        fn cm_monocypher_ed25519_check(
            sig: *const u8,
            pk: *const u8,
            m: *const u8,
            n: usize,
        ) -> core::ffi::c_int;
    }

    /// X25519 (RFC 7748).
    pub struct X25519;

    impl crate::algorithms::public_key::KeyAgreement for X25519 {
        const PK: usize = 32;

        fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
            let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
                return false;
            };
            // SAFETY: 32-byte arrays.
            unsafe { cm_monocypher_x25519_public(pk.as_mut_ptr(), sk.as_ptr()) };
            true
        }

        fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
            let Ok(peer) = <&[u8; 32]>::try_from(peer) else {
                return false;
            };
            // SAFETY: 32-byte arrays.
            unsafe { cm_monocypher_x25519(out.as_mut_ptr(), sk.as_ptr(), peer.as_ptr()) };
            true
        }
    }

    /// Ed25519 (RFC 8032) from Monocypher's optional part: the expanded key is
    /// Monocypher's 64-byte secret (seed || public key).
    pub struct Ed25519;

    impl crate::algorithms::public_key::Signer for Ed25519 {
        const PK: usize = 32;

        fn keypair(secret: &[u8; 32], expanded: &mut [u8; 64], pk: &mut [u8]) -> bool {
            let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
                return false;
            };
            // Monocypher wipes the seed it is given: a copy.
            let mut seed = *secret;
            // SAFETY: arrays of the sizes the function takes.
            unsafe {
                cm_monocypher_ed25519_keypair(
                    expanded.as_mut_ptr(),
                    pk.as_mut_ptr(),
                    seed.as_mut_ptr(),
                )
            };
            true
        }

        fn sign(expanded: &[u8; 64], msg: &[u8], sig: &mut [u8; 64]) -> bool {
            // SAFETY: arrays of the sizes the function takes, and a live message.
            unsafe {
                cm_monocypher_ed25519_sign(
                    sig.as_mut_ptr(),
                    expanded.as_ptr(),
                    msg.as_ptr(),
                    msg.len(),
                )
            };
            true
        }

        fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
            let Ok(pk) = <&[u8; 32]>::try_from(pk) else {
                return false;
            };
            // SAFETY: as above.
            unsafe {
                cm_monocypher_ed25519_check(sig.as_ptr(), pk.as_ptr(), msg.as_ptr(), msg.len()) == 0
            }
        }
    }
}

#[cfg(public_key)]
pub use curves::*;
