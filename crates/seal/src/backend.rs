//! Whose code runs a scheme's primitives. The patterns and containers never
//! name a backend: they seal through RustCrypto's traits (`KeyInit`,
//! `BlockCipherEncrypt`/`Decrypt`, `AeadInOut`, `Mac`), which every backend's
//! types implement, and `keyed` lists each backend's type per algorithm.
//!
//! - **RustCrypto** has every algorithm.
//! - **ciphermeter** (crates/primitives: byte-oriented AES, GCM with its own
//!   4-bit-table GHASH, ChaCha20-Poly1305 with 8-bit Poly1305 limbs on AVR,
//!   Ascon-AEAD128 and SHA-3 on bit-sliced byte lanes on AVR) has AES in every
//!   mode the core runs (CBC, CTR, CFB, OFB, CCM, EAX, OCB, GCM-SIV and CMAC
//!   are RustCrypto's generic code over its block cipher), ChaCha20-Poly1305,
//!   Ascon-AEAD128 and HMAC-SHA-3.
//! - **Mbed TLS** (crates/clib, compiled from its C sources for the target)
//!   has AES in every block mode the core writes (its block function),
//!   its own AES-GCM, AES-CCM and ChaCha20-Poly1305, and HMAC over its
//!   SHA-256 and SHA-512.
//! - **Monocypher** (crates/clib) has ChaCha20-Poly1305 (RFC 8439's nonce)
//!   and its own HMAC-SHA-512.
//! - **AWS-LC** (crates/aws-lc, host only) has AES-128/256-GCM,
//!   ChaCha20-Poly1305 and HMAC-SHA-256/512: the fastest here, so the host
//!   seals and the gateway opens with it where it covers the scheme
//!   ([`Backend::host_default`]).
//!
//! A scheme runs on a backend only if that backend has every keyed primitive
//! of it ([`Backend::covers`]); there is no silent fallback to another
//! backend's code (`Error::NotInBackend`). Hardware engines are further
//! variants once their code is reachable from this crate.
//!
//! A firmware build of one scheme compiles one backend's code only: the
//! environment variable `CIPHERMETER_BACKEND` (build.rs) sets
//! `cfg(backend = "…")`, and [`Backend::BUILT`] is it. The host has every
//! backend and chooses at run time (`seal --impl`).

use crate::algorithm::{AeadAlg, BlockAlg, CipherAlg, MacAlg};
use crate::spec::Spec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Backend {
    RustCrypto,
    Ciphermeter,
    Mbedtls,
    Monocypher,
    AwsLc,
}

impl Backend {
    pub const ALL: [Backend; 5] = [
        Backend::RustCrypto,
        Backend::Ciphermeter,
        Backend::Mbedtls,
        Backend::Monocypher,
        Backend::AwsLc,
    ];

    /// The backend this build seals with by default: a one-scheme firmware
    /// build's (`CIPHERMETER_BACKEND`), else RustCrypto.
    #[cfg(backend = "ciphermeter")]
    pub const BUILT: Backend = Backend::Ciphermeter;
    #[cfg(backend = "mbedtls")]
    pub const BUILT: Backend = Backend::Mbedtls;
    #[cfg(backend = "monocypher")]
    pub const BUILT: Backend = Backend::Monocypher;
    #[cfg(not(any(backend = "ciphermeter", backend = "mbedtls", backend = "monocypher")))]
    pub const BUILT: Backend = Backend::RustCrypto;

    /// As `--impl` and the device tables spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::RustCrypto => "rustcrypto",
            Backend::Ciphermeter => "ciphermeter",
            Backend::Mbedtls => "mbedtls",
            Backend::Monocypher => "monocypher",
            Backend::AwsLc => "aws-lc",
        }
    }

    /// What it has, for a refusal's message.
    pub const fn summary(self) -> &'static str {
        match self {
            Backend::RustCrypto => "every algorithm",
            Backend::Ciphermeter => {
                "AES-128/256 in every mode, ChaCha20-Poly1305, Ascon-AEAD128, HMAC-SHA3-256/512 and CMAC-AES"
            }
            Backend::Mbedtls => {
                "AES-128/256 in the block modes, AES-GCM, AES-CCM, ChaCha20-Poly1305 and HMAC-SHA-256/512"
            }
            Backend::Monocypher => "ChaCha20-Poly1305 and HMAC-SHA-512",
            Backend::AwsLc => "AES-128/256-GCM, ChaCha20-Poly1305 and HMAC-SHA-256/512 (host only)",
        }
    }

    /// Whether this build carries the backend's code (its feature; the host
    /// binary has them all, an ARM board's lacks the C libraries).
    pub const fn built(self) -> bool {
        match self {
            Backend::RustCrypto => true,
            Backend::Ciphermeter => cfg!(feature = "backend-ciphermeter"),
            Backend::Mbedtls => cfg!(feature = "backend-mbedtls"),
            Backend::Monocypher => cfg!(feature = "backend-monocypher"),
            Backend::AwsLc => cfg!(feature = "backend-aws-lc"),
        }
    }

    /// Whether the backend runs only on a host (it has no device build, so
    /// no device table measures it).
    pub const fn host_only(self) -> bool {
        matches!(self, Backend::AwsLc)
    }

    /// Whose code a host seals and opens `spec` with when nobody names one:
    /// AWS-LC where this build has it and it covers the scheme (the fastest
    /// here, `scripts/bench-reference`), else RustCrypto, which has every
    /// algorithm. The bytes are the same either way (`tests/backends.rs`).
    pub fn host_default(spec: &Spec<'_>) -> Backend {
        if Backend::AwsLc.built() && Backend::AwsLc.covers(spec) {
            Backend::AwsLc
        } else {
            Backend::RustCrypto
        }
    }

    pub fn from_name(name: &str) -> Option<Backend> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(name))
    }

    /// Whether this backend has the code of `alg` (its block cipher, for a
    /// block mode).
    pub fn has_cipher(self, alg: CipherAlg) -> bool {
        match self {
            Backend::RustCrypto => true,
            Backend::Ciphermeter => match alg {
                CipherAlg::Block(b, _) => matches!(b, BlockAlg::Aes128 | BlockAlg::Aes256),
                CipherAlg::Stream(_) => false,
                CipherAlg::Aead(a) => matches!(
                    a,
                    AeadAlg::Aes128Gcm
                        | AeadAlg::Aes256Gcm
                        | AeadAlg::Aes128Ccm
                        | AeadAlg::Aes256Ccm
                        | AeadAlg::Aes128Eax
                        | AeadAlg::Aes256Eax
                        | AeadAlg::Aes128Ocb
                        | AeadAlg::Aes256Ocb
                        | AeadAlg::Aes256GcmSiv
                        | AeadAlg::ChaCha20Poly1305
                        | AeadAlg::AsconAead128
                ),
            },
            Backend::Mbedtls => match alg {
                CipherAlg::Block(b, _) => matches!(b, BlockAlg::Aes128 | BlockAlg::Aes256),
                CipherAlg::Stream(_) => false,
                CipherAlg::Aead(a) => matches!(
                    a,
                    AeadAlg::Aes128Gcm
                        | AeadAlg::Aes256Gcm
                        | AeadAlg::Aes128Ccm
                        | AeadAlg::Aes256Ccm
                        | AeadAlg::ChaCha20Poly1305
                ),
            },
            Backend::Monocypher => alg == CipherAlg::Aead(AeadAlg::ChaCha20Poly1305),
            Backend::AwsLc => matches!(
                alg,
                CipherAlg::Aead(
                    AeadAlg::Aes128Gcm | AeadAlg::Aes256Gcm | AeadAlg::ChaCha20Poly1305
                )
            ),
        }
    }

    pub fn has_mac(self, alg: MacAlg) -> bool {
        match self {
            Backend::RustCrypto => true,
            Backend::Ciphermeter => matches!(
                alg,
                MacAlg::HmacSha3_256
                    | MacAlg::HmacSha3_512
                    | MacAlg::CmacAes128
                    | MacAlg::CmacAes256
            ),
            Backend::Mbedtls => matches!(alg, MacAlg::HmacSha256 | MacAlg::HmacSha512),
            Backend::Monocypher => alg == MacAlg::HmacSha512,
            Backend::AwsLc => matches!(alg, MacAlg::HmacSha256 | MacAlg::HmacSha512),
        }
    }

    /// Whether every keyed primitive of `spec` is this backend's. (The
    /// core's own HKDF-SHA-256, which derives EtM's two keys once per key,
    /// and the binary container's scheme id are always RustCrypto's sha2.)
    pub fn covers(self, spec: &Spec<'_>) -> bool {
        spec.cipher.is_none_or(|c| self.has_cipher(c)) && spec.mac.is_none_or(|m| self.has_mac(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for b in Backend::ALL {
            assert_eq!(Backend::from_name(b.name()), Some(b));
        }
        assert_eq!(Backend::from_name("wolfssl"), None);
        assert_eq!(Backend::BUILT, Backend::RustCrypto);
    }

    #[test]
    fn ciphermeter_covers_only_schemes_whose_every_primitive_it_has() {
        let covers = |name| Backend::Ciphermeter.covers(&Spec::parse(name).unwrap());
        assert!(covers("aead:aes-128-ccm"));
        assert!(covers("aead:chacha20-poly1305"));
        assert!(covers("etm:aes-128-cbc+hmac-sha3-256"));
        assert!(covers("hmac:cmac-aes-128"));
        assert!(covers("aead:ascon-aead128"));
        assert!(!covers("aead:ascon-128-v1.2"), "Ascon-128 v1.2 is not ours");
        assert!(
            !covers("etm:aes-128-cbc+hmac-sha256"),
            "HMAC-SHA-256 is not ours"
        );
        assert!(
            !covers("etm:aes-192-cbc+hmac-sha3-256"),
            "no AES-192 of ours"
        );
        assert!(Backend::RustCrypto.covers(&Spec::parse("aead:ascon-aead128").unwrap()));
    }
}
