//! AWS-LC's AES-GCM, ChaCha20-Poly1305 and HMAC-SHA-256/512 (aws-lc-rs),
//! dressed in RustCrypto's traits (`KeyInit`, `AeadInOut`, `Mac`) so that
//! the sealing core seals through it as through any other backend. The key
//! schedule runs once per key: aws-lc-rs keeps the expanded key (and GHASH's
//! table) for every message, and wipes it on drop.

use aead::array::Array;
use aead::consts::{U12, U16, U32, U64, U128};
use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey};
use aws_lc_rs::hmac;

/// Which AWS-LC AEAD a key is for, with its RustCrypto sizes.
pub trait AeadKind {
    type KeySize: aead::array::ArraySize;
    fn algorithm() -> &'static aws_lc_rs::aead::Algorithm;
}

macro_rules! aead_kind {
    ($(#[$meta:meta])* $name:ident, $key:ty, $alg:path) => {
        $(#[$meta])*
        pub struct $name(Aead<$name>);

        impl AeadKind for $name {
            type KeySize = $key;
            fn algorithm() -> &'static aws_lc_rs::aead::Algorithm {
                &$alg
            }
        }

        impl aead::KeySizeUser for $name {
            type KeySize = $key;
        }

        impl aead::KeyInit for $name {
            fn new(key: &aead::Key<Self>) -> Self {
                $name(Aead::new(key))
            }
        }

        impl aead::AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: aead::TagPosition = aead::TagPosition::Postfix;
        }

        impl aead::AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                ad: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                self.0.encrypt(nonce, ad, buffer.into_out_with_copied_in())
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                ad: &[u8],
                buffer: aead::inout::InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                self.0.decrypt(nonce, ad, buffer.into_out_with_copied_in(), tag)
            }
        }
    };
}

aead_kind!(
    /// AES-128-GCM, 96-bit nonce, 128-bit tag.
    Aes128Gcm, U16, aws_lc_rs::aead::AES_128_GCM
);
aead_kind!(
    /// AES-256-GCM, 96-bit nonce, 128-bit tag.
    Aes256Gcm, U32, aws_lc_rs::aead::AES_256_GCM
);
aead_kind!(
    /// ChaCha20-Poly1305 (RFC 8439).
    ChaCha20Poly1305, U32, aws_lc_rs::aead::CHACHA20_POLY1305
);

/// One expanded AEAD key of kind `K`.
pub struct Aead<K> {
    key: LessSafeKey,
    kind: core::marker::PhantomData<K>,
}

impl<K: AeadKind> Aead<K> {
    fn new(key: &[u8]) -> Self {
        // The key's length is the type's (`KeySize`), so AWS-LC accepts it.
        let unbound = UnboundKey::new(K::algorithm(), key).expect("key of the algorithm's length");
        Aead {
            key: LessSafeKey::new(unbound),
            kind: core::marker::PhantomData,
        }
    }

    fn encrypt(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8]) -> aead::Result<Array<u8, U16>> {
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| aead::Error)?;
        let tag = self
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(ad), buf)
            .map_err(|_| aead::Error)?;
        Array::try_from(tag.as_ref()).map_err(|_| aead::Error)
    }

    fn decrypt(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> aead::Result<()> {
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| aead::Error)?;
        // AWS-LC compares the tag in constant time. On failure the buffer
        // holds unauthenticated bytes "in an unspecified way": none is released.
        match self
            .key
            .open_in_place_separate_tag(nonce, Aad::from(ad), tag, buf)
        {
            Ok(_) => Ok(()),
            Err(_) => {
                buf.fill(0);
                Err(aead::Error)
            }
        }
    }
}

macro_rules! hmac_kind {
    ($(#[$meta:meta])* $name:ident, $alg:path, $out:ty, $block:ty) => {
        $(#[$meta])*
        #[derive(Clone)]
        pub struct $name(hmac::Context);

        impl digest::common::KeySizeUser for $name {
            type KeySize = $block;
        }

        impl digest::KeyInit for $name {
            fn new(key: &digest::Key<Self>) -> Self {
                Self::new_from_slice(key).expect("HMAC takes a key of any length")
            }

            fn new_from_slice(key: &[u8]) -> Result<Self, digest::InvalidLength> {
                // AWS-LC keeps the padded inner and outer key states; a clone
                // starts the next message from them.
                Ok($name(hmac::Context::with_key(&hmac::Key::new($alg, key))))
            }
        }

        impl digest::MacMarker for $name {}

        impl digest::OutputSizeUser for $name {
            type OutputSize = $out;
        }

        impl digest::Update for $name {
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }

        impl digest::FixedOutput for $name {
            fn finalize_into(self, out: &mut digest::Output<Self>) {
                out.copy_from_slice(self.0.sign().as_ref());
            }
        }
    };
}

hmac_kind!(
    /// HMAC-SHA-256 (RFC 2104 over FIPS 180-4).
    HmacSha256, hmac::HMAC_SHA256, U32, U64
);
hmac_kind!(
    /// HMAC-SHA-512.
    HmacSha512, hmac::HMAC_SHA512, U64, U128
);
