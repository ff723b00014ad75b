//! Shared RustCrypto trait plumbing for the in-project block ciphers.
//!
//! Each cipher only provides `expand(&[u8; K]) -> Self`, `encrypt_bytes`,
//! `decrypt_bytes` on `[u8; B]` and `wipe()`; this macro turns that into the
//! cipher 0.5 `KeyInit` / `BlockCipherEncrypt` / `BlockCipherDecrypt` traits
//! (single-block backends), a key-free `Debug`, and zeroize-on-drop.

macro_rules! block_cipher {
    (
        $(#[$meta:meta])*
        $name:ident, key: $key_size:ty, block: $block_size:ty, alg: $alg:literal
    ) => {
        impl cipher::KeySizeUser for $name {
            type KeySize = $key_size;
        }

        impl cipher::KeyInit for $name {
            #[inline]
            fn new(key: &cipher::Key<Self>) -> Self {
                Self::expand(&key.0)
            }
        }

        impl cipher::BlockSizeUser for $name {
            type BlockSize = $block_size;
        }

        impl cipher::ParBlocksSizeUser for $name {
            type ParBlocksSize = cipher::consts::U1;
        }

        impl cipher::BlockCipherEncrypt for $name {
            #[inline]
            fn encrypt_with_backend(
                &self,
                f: impl cipher::BlockCipherEncClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(self)
            }
        }

        impl cipher::BlockCipherEncBackend for $name {
            #[inline]
            fn encrypt_block(&self, mut block: cipher::InOut<'_, '_, cipher::Block<Self>>) {
                let mut bytes = block.get_in().0;
                self.encrypt_bytes(&mut bytes);
                block.get_out().0 = bytes;
            }
        }

        impl cipher::BlockCipherDecrypt for $name {
            #[inline]
            fn decrypt_with_backend(
                &self,
                f: impl cipher::BlockCipherDecClosure<BlockSize = Self::BlockSize>,
            ) {
                f.call(self)
            }
        }

        impl cipher::BlockCipherDecBackend for $name {
            #[inline]
            fn decrypt_block(&self, mut block: cipher::InOut<'_, '_, cipher::Block<Self>>) {
                let mut bytes = block.get_in().0;
                self.decrypt_bytes(&mut bytes);
                block.get_out().0 = bytes;
            }
        }

        impl cipher::AlgorithmName for $name {
            fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($alg)
            }
        }

        // Never print round keys.
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!($alg, " { .. }"))
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.wipe();
            }
        }

        impl cipher::zeroize::ZeroizeOnDrop for $name {}
    };
}

pub(crate) use block_cipher;
