//! C libraries as device implementations (`impl-mbedtls`, `impl-monocypher`):
//! their functions, through our shims (`clib/shim_*.c`), dressed in the same
//! RustCrypto traits as the crates, so one benchmark and one set of known
//! answers measure every implementation.
//!
//! The shims hold each algorithm's C context in static storage: a firmware
//! runs one algorithm, one message at a time, so a value here is a handle
//! to that context, not the context itself. Keying a new value re-keys the
//! context for every value: a benchmark runs its known answers before it
//! sets the key it times.

#[cfg(feature = "impl-mbedtls")]
pub mod mbedtls;
#[cfg(feature = "impl-monocypher")]
pub mod monocypher;

/// The pieces every adapter is made of.
#[allow(unused_macros)]
macro_rules! digest_adapter {
    ($(#[$meta:meta])* $name:ident, $out:ty, $block:ty, $start:path, $update:path, $finish:path) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name;

        impl Default for $name {
            fn default() -> Self {
                // SAFETY: the shim's context is static; no pointer is kept.
                unsafe { $start() };
                $name
            }
        }

        impl digest::HashMarker for $name {}

        impl digest::OutputSizeUser for $name {
            type OutputSize = $out;
        }

        impl digest::block_api::BlockSizeUser for $name {
            type BlockSize = $block;
        }

        impl digest::Update for $name {
            fn update(&mut self, data: &[u8]) {
                // SAFETY: pointer and length of a live slice.
                unsafe { $update(data.as_ptr(), data.len()) };
            }
        }

        impl digest::FixedOutput for $name {
            fn finalize_into(self, out: &mut digest::Output<Self>) {
                // SAFETY: `out` holds the digest's whole output.
                unsafe { $finish(out.as_mut_ptr()) };
            }
        }
    };
}

/// An AEAD whose C side encrypts and decrypts in place with a detached tag.
#[allow(unused_macros)]
macro_rules! aead_adapter {
    (
        $name:ident<$($param:ident: $bound:path),*>, key: $key:ty, nonce: $nonce:ty, tag: $tag:ty,
        setkey: |$k:ident| $setkey:expr,
        encrypt: |$en:ident, $ea:ident, $eb:ident, $et:ident| $encrypt:expr,
        decrypt: |$dn:ident, $da:ident, $db:ident, $dt:ident| $decrypt:expr $(,)?
    ) => {
        impl<$($param: $bound),*> aead::KeySizeUser for $name<$($param),*> {
            type KeySize = $key;
        }

        impl<$($param: $bound),*> aead::KeyInit for $name<$($param),*> {
            fn new($k: &aead::Key<Self>) -> Self {
                let $k: &[u8] = $k;
                // SAFETY: the key is a live slice of the key size.
                let ok = unsafe { $setkey } == 0;
                $name { ok, kind: core::marker::PhantomData }
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
                // SAFETY: live slices with their lengths; the shim works in place.
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
