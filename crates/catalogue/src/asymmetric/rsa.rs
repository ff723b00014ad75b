//! RSA with SHA-256 from the `rsa` crate: OAEP encryption, PKCS#1 v1.5 and PSS
//! signatures. Each entry fixes the modulus size, so a key of another size is
//! refused rather than silently measured under the wrong name.

use rsa::pkcs1::EncodeRsaPublicKey;
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use rsa::sha2::Sha256;
use rsa::signature::{RandomizedSigner, SignatureEncoding, Verifier};
use rsa::traits::{Decryptor, PublicKeyParts, RandomizedEncryptor};
use rsa::{RsaPrivateKey, RsaPublicKey, oaep, pkcs1v15, pss};
use zeroize::Zeroizing;

use super::{
    ENCRYPTING, SIGNING, bad_private_key, bad_public_key, bad_signature, invalid, rng, unsupported,
};
use crate::error::Error;
use crate::ops::{AsymOp, AsymmetricScheme, KeyPair, PrivateKey, PublicKey};

/// The RSA padding scheme of an entry, always with SHA-256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RsaPad {
    /// RSAES-OAEP (RFC 8017 §7.1), SHA-256 for the hash and MGF1, empty label.
    Oaep,
    /// RSASSA-PKCS1-v1_5 (RFC 8017 §8.2).
    Pkcs1v15,
    /// RSASSA-PSS (RFC 8017 §8.1), MGF1-SHA-256, 32-byte salt.
    Pss,
}

impl RsaPad {
    pub(crate) const ALL: [RsaPad; 3] = [RsaPad::Oaep, RsaPad::Pkcs1v15, RsaPad::Pss];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RsaPad::Oaep => "oaep-sha256",
            RsaPad::Pkcs1v15 => "pkcs1v15-sha256",
            RsaPad::Pss => "pss-sha256",
        }
    }

    pub(crate) fn operations(self) -> &'static [AsymOp] {
        match self {
            RsaPad::Oaep => ENCRYPTING,
            RsaPad::Pkcs1v15 | RsaPad::Pss => SIGNING,
        }
    }
}

pub(crate) struct RsaScheme {
    id: String,
    bits: usize,
    pad: RsaPad,
}

impl RsaScheme {
    pub(crate) fn new(id: &str, bits: usize, pad: RsaPad) -> RsaScheme {
        RsaScheme {
            id: id.to_string(),
            bits,
            pad,
        }
    }

    fn check_size(&self, modulus_bytes: usize) -> Result<(), Error> {
        if modulus_bytes * 8 == self.bits {
            Ok(())
        } else {
            Err(invalid(
                &self.id,
                format!(
                    "key has a {}-bit modulus; this entry takes {}-bit keys",
                    modulus_bytes * 8,
                    self.bits
                ),
            ))
        }
    }
}

/// The PKCS#1 RSAPublicKey inside an SPKI document, as ring wants it, after
/// checking the modulus size.
pub(crate) fn rsa_public_to_pkcs1(id: &str, bits: usize, spki: &[u8]) -> Result<Vec<u8>, Error> {
    let key =
        RsaPublicKey::from_public_key_der(spki).map_err(|_| bad_public_key(id, "SPKI DER RSA"))?;
    RsaScheme::new(id, bits, RsaPad::Pkcs1v15).check_size(key.size())?;
    let der = key
        .to_pkcs1_der()
        .map_err(|e| invalid(id, format!("cannot re-encode the key: {e}")))?;
    Ok(der.as_bytes().to_vec())
}

impl AsymmetricScheme for RsaScheme {
    fn operations(&self) -> &'static [AsymOp] {
        self.pad.operations()
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let key =
            RsaPrivateKey::new(&mut rng(&self.id)?, self.bits).map_err(|e| Error::Backend {
                algorithm: self.id.clone(),
                detail: e.to_string(),
            })?;
        let encode_failed = |e: String| Error::Backend {
            algorithm: self.id.clone(),
            detail: e,
        };
        let private = key
            .to_pkcs8_der()
            .map_err(|e| encode_failed(e.to_string()))?;
        let public = key
            .to_public_key()
            .to_public_key_der()
            .map_err(|e| encode_failed(e.to_string()))?;
        Ok(KeyPair {
            private: Zeroizing::new(private.as_bytes().to_vec()),
            public: public.into_vec(),
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let key = RsaPrivateKey::from_pkcs8_der(der)
            .map_err(|_| bad_private_key(&self.id, "PKCS#8 DER RSA"))?;
        self.check_size(key.size())?;
        let key = match self.pad {
            RsaPad::Oaep => RsaPrivate::Oaep(oaep::DecryptingKey::new(key)),
            RsaPad::Pkcs1v15 => RsaPrivate::Pkcs1v15(pkcs1v15::SigningKey::new(key)),
            RsaPad::Pss => RsaPrivate::Pss(pss::SigningKey::new(key)),
        };
        Ok(Box::new(Private {
            key,
            id: self.id.clone(),
        }))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        let key = RsaPublicKey::from_public_key_der(der)
            .map_err(|_| bad_public_key(&self.id, "SPKI DER RSA"))?;
        self.check_size(key.size())?;
        let modulus_bytes = key.size();
        let key = match self.pad {
            RsaPad::Oaep => RsaPublic::Oaep(oaep::EncryptingKey::new(key)),
            RsaPad::Pkcs1v15 => RsaPublic::Pkcs1v15(pkcs1v15::VerifyingKey::new(key)),
            RsaPad::Pss => RsaPublic::Pss(pss::VerifyingKey::new(key)),
        };
        Ok(Box::new(Public {
            key,
            modulus_bytes,
            id: self.id.clone(),
        }))
    }
}

enum RsaPrivate {
    Oaep(oaep::DecryptingKey<Sha256>),
    Pkcs1v15(pkcs1v15::SigningKey<Sha256>),
    Pss(pss::SigningKey<Sha256>),
}

struct Private {
    key: RsaPrivate,
    id: String,
}

impl PrivateKey for Private {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        // The random generator blinds the private-key operation (and salts PSS).
        let mut rng = rng(&self.id)?;
        let signature = match &self.key {
            RsaPrivate::Pkcs1v15(k) => k.try_sign_with_rng(&mut rng, message).map(|s| s.to_vec()),
            RsaPrivate::Pss(k) => k.try_sign_with_rng(&mut rng, message).map(|s| s.to_vec()),
            RsaPrivate::Oaep(_) => return Err(unsupported(&self.id, AsymOp::Sign)),
        };
        signature.map_err(|e| Error::Backend {
            algorithm: self.id.clone(),
            detail: e.to_string(),
        })
    }

    fn decrypt(&self, ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        match &self.key {
            RsaPrivate::Oaep(k) => k.decrypt(ciphertext).map(Zeroizing::new).map_err(|_| {
                invalid(
                    &self.id,
                    "decryption failed: wrong key or corrupted ciphertext",
                )
            }),
            _ => Err(unsupported(&self.id, AsymOp::Decrypt)),
        }
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(&self.id, AsymOp::Agree))
    }
}

enum RsaPublic {
    Oaep(oaep::EncryptingKey<Sha256>),
    Pkcs1v15(pkcs1v15::VerifyingKey<Sha256>),
    Pss(pss::VerifyingKey<Sha256>),
}

struct Public {
    key: RsaPublic,
    modulus_bytes: usize,
    id: String,
}

impl PublicKey for Public {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error> {
        let ok = match &self.key {
            RsaPublic::Pkcs1v15(k) => pkcs1v15::Signature::try_from(signature)
                .map(|s| k.verify(message, &s).is_ok())
                .unwrap_or(false),
            RsaPublic::Pss(k) => pss::Signature::try_from(signature)
                .map(|s| k.verify(message, &s).is_ok())
                .unwrap_or(false),
            RsaPublic::Oaep(_) => return Err(unsupported(&self.id, AsymOp::Verify)),
        };
        if ok {
            Ok(())
        } else {
            Err(bad_signature(&self.id))
        }
    }

    fn encrypt(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        let RsaPublic::Oaep(k) = &self.key else {
            return Err(unsupported(&self.id, AsymOp::Encrypt));
        };
        // RFC 8017 §7.1.1: at most k - 2·hLen - 2 bytes.
        let max = self.modulus_bytes - 2 * 32 - 2;
        if message.len() > max {
            return Err(invalid(
                &self.id,
                format!(
                    "message of {} bytes is too long; OAEP-SHA256 takes at most {max} bytes",
                    message.len()
                ),
            ));
        }
        k.encrypt_with_rng(&mut rng(&self.id)?, message)
            .map_err(|e| Error::Backend {
                algorithm: self.id.clone(),
                detail: e.to_string(),
            })
    }
}
