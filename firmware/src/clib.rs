//! The C libraries (crates/clib, one copy for the firmware and the sealing
//! core) as the benchmark uses them, with the glue to this firmware's own
//! traits: Mbed TLS's own CTR, and the elliptic curves.

/// Mbed TLS 2.28 (`impl-mbedtls`).
#[cfg(feature = "impl-mbedtls")]
pub mod mbedtls {
    pub use cm_clib::mbedtls::*;

    /// Mbed TLS's own CTR (`mbedtls_aes_crypt_ctr`) over the key of the [`Aes`] given.
    #[cfg(ctr_mode)]
    pub struct Ctr;

    #[cfg(ctr_mode)]
    impl<K> crate::algorithms::block::CtrMode<Aes<K>> for Ctr {
        fn apply(cipher: &Aes<K>, iv: &[u8], buf: &mut [u8]) -> Result<(), &'static str> {
            let iv: &[u8; 16] = iv.try_into().map_err(|_| "iv length")?;
            if cipher.ctr(iv, buf) {
                Ok(())
            } else {
                Err("mbedtls_aes_crypt_ctr failed")
            }
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
            fn cm_mbedtls_p256_verify(
                pk: *const u8,
                m: *const u8,
                n: usize,
                sig: *const u8,
            ) -> c_int;
        }

        /// P-256 ECDH with uncompressed points (SEC 1), the peer's point checked.
        pub struct P256Ecdh;

        impl crate::algorithms::public_key::KeyAgreement for P256Ecdh {
            const PK: usize = 65;

            fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
                // SAFETY: a 32-byte scalar and a 65-byte point.
                pk.len() == 65
                    && unsafe { cm_mbedtls_p256_public(sk.as_ptr(), pk.as_mut_ptr()) } == 0
            }

            fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
                // SAFETY: as above.
                peer.len() == 65
                    && unsafe {
                        cm_mbedtls_p256_shared(sk.as_ptr(), peer.as_ptr(), out.as_mut_ptr())
                    } == 0
            }
        }

        /// P-256 ECDSA over SHA-256, deterministic (RFC 6979); signatures r || s.
        pub struct P256Ecdsa;

        impl crate::algorithms::public_key::Signer for P256Ecdsa {
            const PK: usize = 65;
            type Key = [u8; 64];
            const EMPTY: [u8; 64] = [0; 64];

            fn keypair(secret: &[u8; 32], expanded: &mut [u8; 64], pk: &mut [u8]) -> bool {
                expanded[..32].copy_from_slice(secret);
                // SAFETY: a 32-byte scalar and a 65-byte point.
                pk.len() == 65
                    && unsafe { cm_mbedtls_p256_public(secret.as_ptr(), pk.as_mut_ptr()) } == 0
            }

            fn sign(expanded: &[u8; 64], msg: &[u8], sig: &mut [u8; 64]) -> bool {
                // SAFETY: the scalar, a live message and a 64-byte signature.
                unsafe {
                    cm_mbedtls_p256_sign(
                        expanded.as_ptr(),
                        msg.as_ptr(),
                        msg.len(),
                        sig.as_mut_ptr(),
                    ) == 0
                }
            }

            fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
                // SAFETY: as above.
                pk.len() == 65
                    && unsafe {
                        cm_mbedtls_p256_verify(pk.as_ptr(), msg.as_ptr(), msg.len(), sig.as_ptr())
                            == 0
                    }
            }
        }
    }

    #[cfg(public_key)]
    pub use curves::*;
}

/// Monocypher 4 (`impl-monocypher`).
#[cfg(feature = "impl-monocypher")]
pub mod monocypher {
    pub use cm_clib::monocypher::*;

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
            type Key = [u8; 64];
            const EMPTY: [u8; 64] = [0; 64];

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
                    cm_monocypher_ed25519_check(sig.as_ptr(), pk.as_ptr(), msg.as_ptr(), msg.len())
                        == 0
                }
            }
        }
    }

    #[cfg(public_key)]
    pub use curves::*;
}
