//! Mbed TLS and Monocypher as implementations: their functions, through our
//! shims (`c/shim_*.c`), dressed in RustCrypto's traits (`KeyInit`,
//! `BlockCipherEncrypt`, `AeadInOut`, `Digest`, `Mac`), so the firmware's one
//! benchmark and the sealing core's backends use them as they use any crate.
//!
//! Each keyed value owns its C context, held as opaque bytes of a size
//! build.rs fixes for C and Rust alike (the shims assert the struct fits):
//! two keys never share a context, a hash or HMAC state forks by copying,
//! and the host may seal on several threads. No C struct is mirrored here.

#![no_std]

#[allow(dead_code)] // each library uses its own
mod contexts {
    include!(concat!(env!("OUT_DIR"), "/contexts.rs"));
}

#[cfg(feature = "mbedtls")]
pub mod mbedtls;
#[cfg(feature = "monocypher")]
pub mod monocypher;

/// A C context's bytes: 8-byte aligned, as any of the structs needs. Wiped
/// when dropped: a hash or HMAC context holds the key's state (HMAC's padded
/// key, or the message so far), and the AEADs' contexts their key schedules
/// (Mbed TLS's `*_free`, which the owners call first, wipes those too).
#[allow(dead_code)]
#[derive(Clone)]
pub(crate) struct Context<const WORDS: usize>([u64; WORDS]);

impl<const WORDS: usize> Drop for Context<WORDS> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

impl<const WORDS: usize> zeroize::ZeroizeOnDrop for Context<WORDS> {}

#[allow(dead_code)]
impl<const WORDS: usize> Context<WORDS> {
    pub(crate) const fn new() -> Self {
        Context([0; WORDS])
    }

    pub(crate) fn ptr(&mut self) -> *mut core::ffi::c_void {
        self.0.as_mut_ptr().cast()
    }
}

/// A hash over a plain C context: started by `Default`, forked by `Clone`.
#[allow(unused_macros)]
macro_rules! digest_adapter {
    ($(#[$meta:meta])* $name:ident, $words:expr, $out:ty, $block:ty, $start:path, $update:path, $finish:path) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(crate::Context<{ $words }>);

        /// Its context wipes itself (`Context`'s `Drop`).
        impl zeroize::ZeroizeOnDrop for $name {}

        impl Default for $name {
            fn default() -> Self {
                let mut ctx = crate::Context::new();
                // SAFETY: a context of the size the shim asserts.
                unsafe { $start(ctx.ptr()) };
                $name(ctx)
            }
        }

        impl digest::HashMarker for $name {}

        impl digest::OutputSizeUser for $name {
            type OutputSize = $out;
        }

        impl digest::common::BlockSizeUser for $name {
            type BlockSize = $block;
        }

        impl digest::Update for $name {
            fn update(&mut self, data: &[u8]) {
                // SAFETY: the context, and a live slice with its length.
                unsafe { $update(self.0.ptr(), data.as_ptr(), data.len()) };
            }
        }

        impl digest::FixedOutput for $name {
            fn finalize_into(mut self, out: &mut digest::Output<Self>) {
                // SAFETY: the context; `out` holds the digest's whole output.
                unsafe { $finish(self.0.ptr(), out.as_mut_ptr()) };
            }
        }
    };
}

/// An AEAD over an in-place C encrypt/decrypt with a detached tag. `$state`
/// is the value's own field the shim works on (`&mut` through a cell: the
/// traits seal through `&self`, and the C side updates its context).
#[allow(unused_macros)]
macro_rules! aead_adapter {
    (
        $name:ident<$($param:ident: $bound:path),*>, key: $key:ty, nonce: $nonce:ty, tag: $tag:ty,
        new: |$k:ident| $new:expr,
        encrypt: |$es:ident, $en:ident, $ea:ident, $eb:ident, $et:ident| $encrypt:expr,
        decrypt: |$ds:ident, $dn:ident, $da:ident, $db:ident, $dt:ident| $decrypt:expr $(,)?
    ) => {
        impl<$($param: $bound),*> aead::KeySizeUser for $name<$($param),*> {
            type KeySize = $key;
        }

        impl<$($param: $bound),*> aead::KeyInit for $name<$($param),*> {
            fn new($k: &aead::Key<Self>) -> Self {
                let $k: &[u8] = $k;
                $new
            }
        }

        impl<$($param: $bound),*> aead::AeadCore for $name<$($param),*> {
            type NonceSize = $nonce;
            type TagSize = $tag;
            const TAG_POSITION: aead::TagPosition = aead::TagPosition::Postfix;
        }

        impl<$($param: $bound),*> aead::AeadInOut for $name<$($param),*> {
            fn encrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                ad: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                let mut tag = aead::Tag::<Self>::default();
                let ($en, $ea, $et): (&[u8], &[u8], &mut [u8]) = (nonce, ad, &mut tag);
                // The C side works in place: the input is copied out first if apart.
                let $eb = buffer.into_out_with_copied_in();
                let $es = self;
                // SAFETY: the value's own context and live slices with their lengths.
                if !self.ok || unsafe { $encrypt } != 0 {
                    return Err(aead::Error);
                }
                Ok(tag)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                ad: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                let ($dn, $da, $dt): (&[u8], &[u8], &[u8]) = (nonce, ad, tag);
                let $db = buffer.into_out_with_copied_in();
                let $ds = self;
                // SAFETY: as above; the C side compares the tag in constant time.
                if !self.ok || unsafe { $decrypt } != 0 {
                    return Err(aead::Error);
                }
                Ok(())
            }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use {aead_adapter, digest_adapter};
