//! The elliptic-curve schemes: X25519 (RFC 7748), Ed25519 (RFC 8032) and
//! ECDSA over P-256 with SHA-256 (FIPS 186-5, deterministic nonces of RFC 6979).
//! ECDSA signatures are the fixed 64-byte r || s form (IEEE P1363, as in COSE
//! and JOSE), not DER: on a radio link every byte counts and the size is constant.

use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use p256::ecdsa::signature::{Signer, Verifier};
use zeroize::Zeroizing;

use super::{
    AGREEING, SIGNING, bad_private_key, bad_public_key, bad_signature, invalid, rng, unsupported,
};
use crate::error::Error;
use crate::ops::{AsymOp, AsymmetricScheme, KeyPair, PrivateKey, PublicKey};

fn encode_failed(algorithm: &str, e: impl std::fmt::Display) -> Error {
    Error::Backend {
        algorithm: algorithm.to_string(),
        detail: format!("cannot encode the key: {e}"),
    }
}

fn raw32(algorithm: &str, bytes: &[u8], what: &str) -> Result<[u8; 32], Error> {
    bytes.try_into().map_err(|_| {
        invalid(
            algorithm,
            format!(
                "{what} must be 32 raw bytes (RFC 7748), got {}",
                bytes.len()
            ),
        )
    })
}

// ---------------------------------------------------------------- X25519

pub(crate) struct X25519;

const X25519_ID: &str = "x25519";

impl AsymmetricScheme for X25519 {
    fn operations(&self) -> &'static [AsymOp] {
        AGREEING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let secret = x25519_dalek::StaticSecret::random_from_rng(&mut rng(X25519_ID)?);
        let public = x25519_dalek::PublicKey::from(&secret);
        Ok(KeyPair {
            private: Zeroizing::new(secret.to_bytes().to_vec()),
            public: public.as_bytes().to_vec(),
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let bytes = Zeroizing::new(raw32(X25519_ID, der, "an X25519 private key")?);
        Ok(Box::new(X25519Private(x25519_dalek::StaticSecret::from(
            *bytes,
        ))))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        raw32(X25519_ID, der, "an X25519 public key")?;
        Ok(Box::new(AgreementOnly))
    }
}

/// StaticSecret zeroizes itself on drop.
struct X25519Private(x25519_dalek::StaticSecret);

impl PrivateKey for X25519Private {
    fn sign(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(X25519_ID, AsymOp::Sign))
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(X25519_ID, AsymOp::Decrypt))
    }

    fn agree(&self, peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        let peer =
            x25519_dalek::PublicKey::from(raw32(X25519_ID, peer_public, "the peer's public key")?);
        let shared = self.0.diffie_hellman(&peer);
        // A low-order peer key forces an all-zero secret (RFC 7748 §6.1 check).
        if !shared.was_contributory() {
            return Err(invalid(
                X25519_ID,
                "the peer's public key is a low-order point: no shared secret",
            ));
        }
        Ok(Zeroizing::new(shared.as_bytes().to_vec()))
    }
}

/// An X25519 public key only takes part in agreement, from the private side.
struct AgreementOnly;

impl PublicKey for AgreementOnly {
    fn verify(&self, _message: &[u8], _signature: &[u8]) -> Result<(), Error> {
        Err(unsupported(X25519_ID, AsymOp::Verify))
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(X25519_ID, AsymOp::Encrypt))
    }
}

// ---------------------------------------------------------------- Ed25519

pub(crate) struct Ed25519;

const ED25519_ID: &str = "ed25519";

/// The SPKI DER document of a raw Ed25519 public key (RFC 8410 §4).
pub(crate) fn ed25519_spki(raw: &[u8]) -> Result<Vec<u8>, Error> {
    let raw = raw32(ED25519_ID, raw, "an Ed25519 public key")?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(&raw)
        .map_err(|_| bad_public_key(ED25519_ID, "Ed25519"))?;
    Ok(key
        .to_public_key_der()
        .map_err(|e| encode_failed(ED25519_ID, e))?
        .into_vec())
}

/// The raw 32-byte key inside an Ed25519 SPKI document.
pub(crate) fn ed25519_public_raw(spki: &[u8]) -> Result<[u8; 32], Error> {
    let key = ed25519_dalek::VerifyingKey::from_public_key_der(spki)
        .map_err(|_| bad_public_key(ED25519_ID, "SPKI DER Ed25519"))?;
    Ok(key.to_bytes())
}

impl AsymmetricScheme for Ed25519 {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let key = ed25519_dalek::SigningKey::generate(&mut rng(ED25519_ID)?);
        let private = key
            .to_pkcs8_der()
            .map_err(|e| encode_failed(ED25519_ID, e))?;
        let public = key
            .verifying_key()
            .to_public_key_der()
            .map_err(|e| encode_failed(ED25519_ID, e))?;
        Ok(KeyPair {
            private: Zeroizing::new(private.as_bytes().to_vec()),
            public: public.into_vec(),
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let key = ed25519_dalek::SigningKey::from_pkcs8_der(der)
            .map_err(|_| bad_private_key(ED25519_ID, "PKCS#8 DER Ed25519"))?;
        Ok(Box::new(Ed25519Private(key)))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        let key = ed25519_dalek::VerifyingKey::from_public_key_der(der)
            .map_err(|_| bad_public_key(ED25519_ID, "SPKI DER Ed25519"))?;
        Ok(Box::new(Ed25519Public(key)))
    }
}

struct Ed25519Private(ed25519_dalek::SigningKey);

impl PrivateKey for Ed25519Private {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let signature: ed25519_dalek::Signature = self.0.sign(message);
        Ok(signature.to_bytes().to_vec())
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(ED25519_ID, AsymOp::Decrypt))
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(ED25519_ID, AsymOp::Agree))
    }
}

struct Ed25519Public(ed25519_dalek::VerifyingKey);

impl PublicKey for Ed25519Public {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error> {
        let signature = ed25519_dalek::Signature::from_slice(signature)
            .map_err(|_| bad_signature(ED25519_ID))?;
        // Strict: refuses small-order keys and non-canonical encodings.
        self.0
            .verify_strict(message, &signature)
            .map_err(|_| bad_signature(ED25519_ID))
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(ED25519_ID, AsymOp::Encrypt))
    }
}

// ---------------------------------------------------------------- ECDSA P-256

pub(crate) struct EcdsaP256;

const ECDSA_ID: &str = "ecdsa-p256-sha256";

/// The SPKI DER document of an uncompressed SEC1 P-256 point.
pub(crate) fn p256_spki(sec1: &[u8]) -> Result<Vec<u8>, Error> {
    let key = p256::PublicKey::from_sec1_bytes(sec1)
        .map_err(|_| bad_public_key(ECDSA_ID, "SEC1 P-256"))?;
    Ok(key
        .to_public_key_der()
        .map_err(|e| encode_failed(ECDSA_ID, e))?
        .into_vec())
}

/// The uncompressed SEC1 point (65 bytes) inside a P-256 SPKI document.
pub(crate) fn p256_public_sec1(spki: &[u8]) -> Result<Vec<u8>, Error> {
    let key = p256::PublicKey::from_public_key_der(spki)
        .map_err(|_| bad_public_key(ECDSA_ID, "SPKI DER P-256"))?;
    Ok(key.to_sec1_bytes().into_vec())
}

impl AsymmetricScheme for EcdsaP256 {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        use p256::elliptic_curve::Generate;
        let key = p256::ecdsa::SigningKey::try_generate_from_rng(&mut getrandom::SysRng).map_err(
            |e| Error::Backend {
                algorithm: ECDSA_ID.into(),
                detail: format!("random generator: {e}"),
            },
        )?;
        let private = key.to_pkcs8_der().map_err(|e| encode_failed(ECDSA_ID, e))?;
        let public = key
            .verifying_key()
            .to_public_key_der()
            .map_err(|e| encode_failed(ECDSA_ID, e))?;
        Ok(KeyPair {
            private: Zeroizing::new(private.as_bytes().to_vec()),
            public: public.into_vec(),
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let key = p256::ecdsa::SigningKey::from_pkcs8_der(der)
            .map_err(|_| bad_private_key(ECDSA_ID, "PKCS#8 DER P-256"))?;
        Ok(Box::new(EcdsaPrivate(key)))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        let key = p256::ecdsa::VerifyingKey::from_public_key_der(der)
            .map_err(|_| bad_public_key(ECDSA_ID, "SPKI DER P-256"))?;
        Ok(Box::new(EcdsaPublic(key)))
    }
}

struct EcdsaPrivate(p256::ecdsa::SigningKey);

impl PrivateKey for EcdsaPrivate {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let signature: p256::ecdsa::Signature =
            self.0.try_sign(message).map_err(|e| Error::Backend {
                algorithm: ECDSA_ID.into(),
                detail: e.to_string(),
            })?;
        Ok(signature.to_bytes().to_vec())
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(ECDSA_ID, AsymOp::Decrypt))
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(ECDSA_ID, AsymOp::Agree))
    }
}

struct EcdsaPublic(p256::ecdsa::VerifyingKey);

impl PublicKey for EcdsaPublic {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error> {
        let signature =
            p256::ecdsa::Signature::from_slice(signature).map_err(|_| bad_signature(ECDSA_ID))?;
        self.0
            .verify(message, &signature)
            .map_err(|_| bad_signature(ECDSA_ID))
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(ECDSA_ID, AsymOp::Encrypt))
    }
}
