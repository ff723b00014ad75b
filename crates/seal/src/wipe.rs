//! A wipe for keyed values whose crates give them none.
//!
//! Every keyed value the core keeps is wiped when dropped (issue 66, item 5):
//! most wipe themselves (`ZeroizeOnDrop`: the RustCrypto ciphers and AEADs
//! with their `zeroize` features, `crates/primitives`, `crates/clib`), some
//! through their only secret field (the `ccm` and `aes-gcm-siv` crates keep
//! just the block cipher, which wipes itself; the block-level `hmac::Hmac`
//! keeps hash cores that wipe themselves with the hashes' `zeroize`
//! features). Two keep secrets they never wipe: `ocb3` (its L table,
//! E_K(0) doubled) and, without `std`, `ascon-aead` (the key; its `zeroize`
//! feature needs `std`). [`Wiped`] holds those and writes zeros over the
//! whole value after its own `Drop` has run. `tests/wipes.rs` lists which
//! is which and fails on a keyed type in none of the lists.

use core::mem::{MaybeUninit, size_of};

use zeroize::{Zeroize, ZeroizeOnDrop};

/// `T`, whose bytes are overwritten with zeros when it is dropped. For the
/// AEADs that hold secrets without wiping them (`ocb3`, `ascon-aead`
/// without `std`); it keys and seals as `T` does.
pub struct Wiped<T>(MaybeUninit<T>);

impl<T> Wiped<T> {
    pub fn new(value: T) -> Self {
        Wiped(MaybeUninit::new(value))
    }

    pub fn get(&self) -> &T {
        // SAFETY: initialized by `new`; only `drop` ends it.
        unsafe { self.0.assume_init_ref() }
    }
}

impl<T> Drop for Wiped<T> {
    fn drop(&mut self) {
        // SAFETY: initialized by `new` and dropped here only, once.
        unsafe { self.0.assume_init_drop() };
        // SAFETY: the value's own `size_of::<T>()` bytes, no longer a `T`:
        // `MaybeUninit<u8>` takes any bytes, and the zeros are written
        // volatile (`zeroize`), so they are not left out as dead stores.
        let bytes = unsafe {
            core::slice::from_raw_parts_mut(
                self.0.as_mut_ptr().cast::<MaybeUninit<u8>>(),
                size_of::<T>(),
            )
        };
        bytes.zeroize();
    }
}

impl<T> ZeroizeOnDrop for Wiped<T> {}

impl<T: cipher::KeySizeUser> cipher::KeySizeUser for Wiped<T> {
    type KeySize = T::KeySize;
}

impl<T: cipher::KeyInit> cipher::KeyInit for Wiped<T> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Wiped::new(T::new(key))
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, cipher::InvalidLength> {
        T::new_from_slice(key).map(Wiped::new)
    }
}

impl<T: aead::AeadCore> aead::AeadCore for Wiped<T> {
    type NonceSize = T::NonceSize;
    type TagSize = T::TagSize;
    const TAG_POSITION: aead::TagPosition = T::TAG_POSITION;
}

impl<T: aead::AeadInOut> aead::AeadInOut for Wiped<T> {
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        ad: &[u8],
        buffer: aead::inout::InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        self.get().encrypt_inout_detached(nonce, ad, buffer)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        ad: &[u8],
        buffer: aead::inout::InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        self.get().decrypt_inout_detached(nonce, ad, buffer, tag)
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use zeroize::ZeroizeOnDrop;

    mod secret_scan {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../primitives/tests/support/secret_scan.rs"
        ));
    }

    fn wipes<T: ZeroizeOnDrop>() {}

    /// Checks each type (those of a backend this build lacks are left out)
    /// and gives the names as written, to match against the tables.
    macro_rules! checked {
        ($($(#[$cfg:meta])* $ty:ty),* $(,)?) => {{
            $($(#[$cfg])* wipes::<$ty>();)*
            [$(stringify!($ty)),*]
        }};
    }

    /// The keyed types of `keyed.rs`'s tables (`block_ciphers!`, `aeads!`,
    /// `macs!`) that wipe themselves.
    fn self_wiping() -> Vec<&'static str> {
        checked![
            aes::Aes128,
            aes::Aes192,
            aes::Aes256,
            serpent::Serpent,
            camellia::Camellia128,
            speck_cipher::Speck128_128,
            speck_cipher::Speck64_128,
            blowfish::Blowfish,
            des::Des,
            des::TdesEde3,
            rc2::Rc2,
            idea::Idea,
            xtea::Xtea,
            primitives::Twofish128,
            primitives::Twofish192,
            primitives::Twofish256,
            primitives::Clefia128,
            primitives::Present80,
            primitives::Present128,
            primitives::Piccolo80,
            primitives::Piccolo128,
            primitives::Rijndael256K256,
            primitives::Aes128,
            primitives::Aes256,
            GcmKey<aes_gcm::Aes128Gcm>,
            GcmKey<aes_gcm::Aes256Gcm>,
            primitives::Eax<aes::Aes128>,
            primitives::Eax<aes::Aes256>,
            primitives::Eax<primitives::Aes128>,
            primitives::Eax<primitives::Aes256>,
            crate::wipe::Wiped<ocb3::Ocb3<aes::Aes128>>,
            crate::wipe::Wiped<ocb3::Ocb3<aes::Aes256>>,
            crate::wipe::Wiped<ocb3::Ocb3<primitives::Aes128>>,
            crate::wipe::Wiped<ocb3::Ocb3<primitives::Aes256>>,
            chacha20poly1305::ChaCha20Poly1305,
            chacha20poly1305::XChaCha20Poly1305,
            crate::wipe::Wiped<ascon_aead::AsconAead128>,
            primitives::Ascon128V12,
            primitives::Acorn128,
            primitives::Acorn128Wide,
            primitives::Aes128Gcm,
            primitives::Aes256Gcm,
            primitives::ChaCha20Poly1305,
            primitives::AsconAead128,
            primitives::Hmac<sha3::Sha3_256>,
            primitives::Hmac<sha3::Sha3_512>,
            primitives::Hmac<ascon_hash256::AsconHash256>,
            primitives::Hmac<primitives::Sha3_256>,
            primitives::Hmac<primitives::Sha3_512>,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes128,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes256,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes128Gcm,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes256Gcm,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes128Ccm,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::Aes256Ccm,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::ChaCha20Poly1305,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::HmacSha256,
            #[cfg(feature = "backend-mbedtls")]
            clib::mbedtls::HmacSha512,
            #[cfg(feature = "backend-monocypher")]
            clib::monocypher::ChaCha20Poly1305,
            #[cfg(feature = "backend-monocypher")]
            clib::monocypher::HmacSha512,
        ]
        .to_vec()
    }

    /// Not checked here: AWS-LC's keys live in its C heap objects, which
    /// aws-lc-rs frees and AWS-LC cleanses (crates/aws-lc, host only, is
    /// outside crates/seal, clib and primitives).
    const BY_AWS_LC: &[&str] = &[
        "aws_lc::Aes128Gcm",
        "aws_lc::Aes256Gcm",
        "aws_lc::ChaCha20Poly1305",
        "aws_lc::HmacSha256",
        "aws_lc::HmacSha512",
    ];

    /// The table types that wipe through what they hold, with that part,
    /// which is checked: the `ccm` and `aes-gcm-siv` crates keep only their
    /// block cipher; `hmac::Hmac` and `cmac::Cmac` keep the hash's (or the
    /// cipher's) block-level state and a block buffer, which wipe
    /// themselves with the crates' `zeroize` features (Cargo.toml);
    /// `primitives::Hmac` over BLAKE2 wipes its padded key, and the hash's
    /// core wipes itself.
    fn field_wiped() -> Vec<&'static str> {
        macro_rules! through {
            ($($ty:ty => $part:ty),* $(,)?) => {{
                $(wipes::<$part>();)*
                [$(stringify!($ty)),*]
            }};
        }
        through![
            ccm::Ccm<aes::Aes128, ccm::consts::U16, ccm::consts::U13> => aes::Aes128,
            ccm::Ccm<aes::Aes256, ccm::consts::U16, ccm::consts::U13> => aes::Aes256,
            ccm::Ccm<primitives::Aes128, ccm::consts::U16, ccm::consts::U13> => primitives::Aes128,
            ccm::Ccm<primitives::Aes256, ccm::consts::U16, ccm::consts::U13> => primitives::Aes256,
            aes_gcm_siv::Aes256GcmSiv => aes::Aes256,
            aes_gcm_siv::AesGcmSiv<primitives::Aes256> => primitives::Aes256,
            // BLAKE2's hash types do not say so, but their cores wipe (and
            // the block buffer does, with `zeroize`).
            primitives::Hmac<blake2::Blake2s256> => blake2::Blake2sVarCore,
            primitives::Hmac<blake2::Blake2b512> => blake2::Blake2bVarCore,
            hmac::Hmac<sha2::Sha256> => sha2::Sha256,
            hmac::Hmac<sha2::Sha512> => sha2::Sha512,
            hmac::Hmac<sha1::Sha1> => sha1::Sha1,
            hmac::Hmac<md5::Md5> => md5::Md5,
            cmac::Cmac<aes::Aes128> => cmac::block_api::CmacCore<aes::Aes128>,
            cmac::Cmac<aes::Aes256> => cmac::block_api::CmacCore<aes::Aes256>,
            cmac::Cmac<primitives::Aes128> => cmac::block_api::CmacCore<primitives::Aes128>,
            cmac::Cmac<primitives::Aes256> => cmac::block_api::CmacCore<primitives::Aes256>,
        ]
        .to_vec()
    }

    use crate::keyed::GcmKey;

    #[test]
    fn the_cores_keyed_types_wipe_on_drop() {
        wipes::<crate::keyed::BlockKey>();
        wipes::<crate::keyed::AeadKey>();
        wipes::<crate::keyed::MacKey>();
        wipes::<crate::keyed::CipherKey>();
        wipes::<crate::keyed::StreamKey>();
        wipes::<crate::keyed::PerMessage<aes_gcm::Aes128Gcm>>();
        wipes::<crate::Sealer>();
        wipes::<crate::oscore::context::Context>();
        wipes::<crate::SealKey>();
        wipes::<crate::HostSealer>();
        wipes::<crate::host::oscore::OscoreKey>();
        // OSCORE's own `ccm` AEADs (`Keyed`) keep only the block cipher.
        wipes::<aes::Aes128>();
        wipes::<aes::Aes256>();
    }

    /// Each keyed type in `keyed.rs`'s tables is in one of the lists above.
    #[test]
    fn every_table_type_is_listed() {
        let normal = |s: &str| s.split_whitespace().collect::<String>();
        let listed: Vec<String> = self_wiping()
            .into_iter()
            .chain(field_wiped())
            .chain(BY_AWS_LC.iter().copied())
            .map(normal)
            .collect();
        let source = include_str!("keyed.rs");
        let mut rows = 0;
        for line in source.lines() {
            let line = line.trim();
            let (Some(at), true) = (line.find("\" "), line.ends_with(';')) else {
                continue;
            };
            let Some((_, row)) = line[at..].split_once(" => ") else {
                continue;
            };
            // `Name Type;`
            let ty = row.trim_end_matches(';').split_once(' ').unwrap().1;
            rows += 1;
            assert!(
                listed.contains(&normal(ty)),
                "{ty} (keyed.rs) is in no list of crate::wipe's tests: check that it wipes on drop"
            );
        }
        assert!(rows > 50, "read {rows} table rows from keyed.rs");
    }

    /// The definitions the scan finds that are checked above.
    const WIPED: &[(&str, &str)] = &[
        ("src/keyed.rs", "BlockKey"),
        ("src/keyed.rs", "AeadKey"),
        ("src/keyed.rs", "MacKey"),
        ("src/keyed.rs", "CipherKey"),
        ("src/keyed.rs", "StreamKey"),
        ("src/keyed.rs", "PerMessage"),
        ("src/engine.rs", "Sealer"),
        ("src/oscore/context.rs", "Context"),
        ("src/host/keyfile.rs", "SealKey"),
        ("src/host/sealer.rs", "HostSealer"),
        ("src/host/oscore.rs", "OscoreKey"),
    ];

    /// Found by the scan but not checked above, and why.
    const ALLOWED: &[(&str, &str, &str)] = &[
        (
            "src/oscore/context.rs",
            "Keyed",
            "private; its variants wipe (ccm over aes, AeadKey), checked above",
        ),
        (
            "src/host/keyfile.rs",
            "KeyFileJson",
            "private; its Drop wipes the key's hex",
        ),
        (
            "src/host/oscore.rs",
            "ContextJson",
            "private; its Drop wipes the master secret's hex",
        ),
        (
            "src/oscore/context.rs",
            "Inputs",
            "borrows the master secret; owns no copy",
        ),
        // Names, errors and parsed messages: no key material.
        ("src/algorithm.rs", "CipherAlg", "an algorithm's name"),
        ("src/algorithm.rs", "MacAlg", "an algorithm's name"),
        ("src/backend.rs", "Backend", "a backend's name"),
        ("src/spec.rs", "Spec", "a scheme's names"),
        ("src/spec.rs", "Pattern", "a pattern's name"),
        (
            "src/host/scheme.rs",
            "Scheme",
            "a scheme's names and metadata",
        ),
        (
            "src/host/key_pair.rs",
            "KeyPairScheme",
            "a catalogue entry; keys are Zeroizing where read",
        ),
        ("src/error.rs", "Error", "an error"),
        ("src/host/error.rs", "SealError", "an error"),
        ("src/oscore/mod.rs", "OscoreError", "an error"),
        (
            "src/container/mod.rs",
            "Parsed",
            "borrowed parts of a received message",
        ),
        (
            "src/oscore/protect.rs",
            "OptionValue",
            "a CoAP option's value",
        ),
        (
            "src/counter.rs",
            "SlotCounter",
            "a nonce counter's storage (nonces are public)",
        ),
    ];

    #[test]
    fn every_secret_looking_type_is_wiped_or_allowed() {
        secret_scan::check(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            WIPED,
            ALLOWED,
        );
    }
}
