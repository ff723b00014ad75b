//! The ring backend (BoringSSL-derived assembly): AES-GCM, ChaCha20-Poly1305,
//! SHA-1/256/512, HMAC, Ed25519, ECDSA P-256 and RSA PKCS#1 v1.5 / PSS
//! signatures. ring has no RSA key generation and no RSA below 2048 bits, no
//! OAEP, and X25519 only with ephemeral keys that cannot be loaded from bytes,
//! so those stay with the other backends.

use std::sync::Arc;

use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey};
use ring::rand::SystemRandom;
use ring::signature::{self as sig, KeyPair as _};
use ring::{digest, hmac};
use zeroize::Zeroizing;

use crate::asymmetric::{
    RSA_SIZES, RsaPad, SIGNING, bad_private_key, bad_signature, ed25519_public_raw, ed25519_spki,
    invalid, p256_public_sec1, p256_spki, rsa_id, rsa_public_to_pkcs1, unsupported,
};
use crate::entry::{Backend, CipherCtor, HashCtor, Implementation, MacCtor, Ops};
use crate::error::Error;
use crate::ops::{
    AsymOp, AsymmetricScheme, Cipher, Hasher, KeyPair, Mac, Params, PrivateKey, PublicKey,
};
use crate::registry::Builder;

const PROVIDER: &str = "ring 0.17";

fn implementation(ops: Ops) -> Implementation {
    Implementation {
        backend: Backend::Ring,
        provider: PROVIDER.to_string(),
        ops,
    }
}

pub(crate) fn register(b: &mut Builder) {
    for (id, alg) in [
        ("aes-128-gcm", &ring::aead::AES_128_GCM),
        ("aes-256-gcm", &ring::aead::AES_256_GCM),
        ("chacha20-poly1305", &ring::aead::CHACHA20_POLY1305),
    ] {
        b.add_impl(id, implementation(Ops::Cipher(aead(id, alg))));
    }
    for (id, alg) in [
        ("sha1", &digest::SHA1_FOR_LEGACY_USE_ONLY),
        ("sha256", &digest::SHA256),
        ("sha512", &digest::SHA512),
    ] {
        b.add_impl(id, implementation(Ops::Hash(hash(alg))));
    }
    for (id, alg) in [
        ("hmac-sha1", hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY),
        ("hmac-sha256", hmac::HMAC_SHA256),
        ("hmac-sha512", hmac::HMAC_SHA512),
    ] {
        b.add_impl(id, implementation(Ops::Mac(mac(id, alg))));
    }
    b.add_impl(
        "ed25519",
        implementation(Ops::Asymmetric(Arc::new(Ed25519))),
    );
    b.add_impl(
        "ecdsa-p256-sha256",
        implementation(Ops::Asymmetric(Arc::new(EcdsaP256))),
    );
    for (bits, _) in RSA_SIZES.into_iter().filter(|&(bits, _)| bits >= 2048) {
        for pad in [RsaPad::Pkcs1v15, RsaPad::Pss] {
            let id = rsa_id(bits, pad);
            let scheme = RsaScheme {
                id: id.clone(),
                bits,
                pad,
            };
            b.add_impl(&id, implementation(Ops::Asymmetric(Arc::new(scheme))));
        }
    }
}

// ---------------------------------------------------------------- AEADs

/// The key is expanded once, at key setup; ring keeps it for every message.
struct RingAead {
    key: LessSafeKey,
    id: &'static str,
}

fn nonce(id: &str, iv: &[u8]) -> Result<Nonce, Error> {
    Nonce::try_assume_unique_for_key(iv).map_err(|_| Error::IvLength {
        algorithm: id.to_string(),
        valid: ring::aead::NONCE_LEN.to_string(),
        got: iv.len(),
    })
}

impl Cipher for RingAead {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let nonce = nonce(self.id, params.iv)?;
        let start = out.len();
        out.extend_from_slice(input);
        match self
            .key
            .seal_in_place_separate_tag(nonce, Aad::from(params.aad), &mut out[start..])
        {
            Ok(tag) => {
                out.extend_from_slice(tag.as_ref());
                Ok(())
            }
            Err(_) => {
                out.truncate(start);
                Err(invalid(self.id, "message too long for one nonce"))
            }
        }
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let nonce = nonce(self.id, params.iv)?;
        let tag_len = ring::aead::MAX_TAG_LEN;
        if input.len() < tag_len {
            return Err(invalid(
                self.id,
                format!(
                    "input of {} bytes is shorter than the {tag_len}-byte tag",
                    input.len()
                ),
            ));
        }
        let (ciphertext, tag) = input.split_at(input.len() - tag_len);
        let tag = Tag::try_from(tag).expect("tag length checked above");
        let start = out.len();
        out.extend_from_slice(ciphertext);
        // ring compares the tag in constant time and wipes the output on failure.
        match self.key.open_in_place_separate_tag(
            nonce,
            Aad::from(params.aad),
            tag,
            &mut out[start..],
            0..,
        ) {
            Ok(_) => Ok(()),
            Err(_) => {
                zeroize::Zeroize::zeroize(&mut out[start..]);
                out.truncate(start);
                Err(Error::AuthenticationFailed {
                    algorithm: self.id.to_string(),
                })
            }
        }
    }
}

fn aead(id: &'static str, alg: &'static ring::aead::Algorithm) -> CipherCtor {
    Arc::new(move |key: &[u8]| {
        let unbound = UnboundKey::new(alg, key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: alg.key_len().to_string(),
            got: key.len(),
        })?;
        Ok(Box::new(RingAead {
            key: LessSafeKey::new(unbound),
            id,
        }) as Box<dyn Cipher>)
    })
}

// ---------------------------------------------------------------- hashes and HMAC

struct RingHash(&'static digest::Algorithm);

impl Hasher for RingHash {
    fn digest(&mut self, data: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(digest::digest(self.0, data).as_ref());
    }
}

fn hash(alg: &'static digest::Algorithm) -> HashCtor {
    Arc::new(move || Box::new(RingHash(alg)) as Box<dyn Hasher>)
}

/// ring precomputes the inner and outer padded key states at key setup.
struct RingHmac {
    key: hmac::Key,
    id: &'static str,
}

impl Mac for RingHmac {
    fn compute(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.extend_from_slice(hmac::sign(&self.key, data).as_ref());
        Ok(())
    }

    fn verify(&mut self, data: &[u8], tag: &[u8]) -> Result<(), Error> {
        // Constant-time comparison inside ring.
        hmac::verify(&self.key, data, tag).map_err(|_| Error::AuthenticationFailed {
            algorithm: self.id.to_string(),
        })
    }
}

fn mac(id: &'static str, alg: hmac::Algorithm) -> MacCtor {
    Arc::new(move |key: &[u8]| {
        Ok(Box::new(RingHmac {
            key: hmac::Key::new(alg, key),
            id,
        }) as Box<dyn Mac>)
    })
}

// ---------------------------------------------------------------- signatures

fn rng_failed(id: &str) -> Error {
    Error::Backend {
        algorithm: id.to_string(),
        detail: "ring: the system random number generator failed".into(),
    }
}

/// A public key in the raw form ring verifies with, and the algorithm to use.
struct RingPublic {
    key: sig::UnparsedPublicKey<Vec<u8>>,
    id: String,
}

impl PublicKey for RingPublic {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error> {
        self.key
            .verify(message, signature)
            .map_err(|_| bad_signature(&self.id))
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(&self.id, AsymOp::Encrypt))
    }
}

/// The private half: anything ring can sign with.
trait RingSigner: Send {
    fn sign(&self, rng: &SystemRandom, message: &[u8])
    -> Result<Vec<u8>, ring::error::Unspecified>;
}

impl RingSigner for sig::Ed25519KeyPair {
    fn sign(
        &self,
        _rng: &SystemRandom,
        message: &[u8],
    ) -> Result<Vec<u8>, ring::error::Unspecified> {
        Ok(sig::Ed25519KeyPair::sign(self, message).as_ref().to_vec())
    }
}

impl RingSigner for sig::EcdsaKeyPair {
    fn sign(
        &self,
        rng: &SystemRandom,
        message: &[u8],
    ) -> Result<Vec<u8>, ring::error::Unspecified> {
        Ok(sig::EcdsaKeyPair::sign(self, rng, message)?
            .as_ref()
            .to_vec())
    }
}

struct RsaSigner {
    pair: sig::RsaKeyPair,
    encoding: &'static dyn sig::RsaEncoding,
}

impl RingSigner for RsaSigner {
    fn sign(
        &self,
        rng: &SystemRandom,
        message: &[u8],
    ) -> Result<Vec<u8>, ring::error::Unspecified> {
        let mut signature = vec![0; self.pair.public().modulus_len()];
        self.pair
            .sign(self.encoding, rng, message, &mut signature)?;
        Ok(signature)
    }
}

struct RingPrivate<S> {
    signer: S,
    rng: SystemRandom,
    id: String,
}

impl<S: RingSigner> PrivateKey for RingPrivate<S> {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.signer
            .sign(&self.rng, message)
            .map_err(|_| Error::Backend {
                algorithm: self.id.clone(),
                detail: "ring: signing failed".into(),
            })
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(&self.id, AsymOp::Decrypt))
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(&self.id, AsymOp::Agree))
    }
}

fn private<S: RingSigner + 'static>(signer: S, id: &str) -> Box<dyn PrivateKey> {
    Box::new(RingPrivate {
        signer,
        rng: SystemRandom::new(),
        id: id.to_string(),
    })
}

fn public(
    alg: &'static dyn sig::VerificationAlgorithm,
    raw: Vec<u8>,
    id: &str,
) -> Box<dyn PublicKey> {
    Box::new(RingPublic {
        key: sig::UnparsedPublicKey::new(alg, raw),
        id: id.to_string(),
    })
}

struct Ed25519;

const ED25519_ID: &str = "ed25519";

impl AsymmetricScheme for Ed25519 {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let document = sig::Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .map_err(|_| rng_failed(ED25519_ID))?;
        let pair = sig::Ed25519KeyPair::from_pkcs8(document.as_ref())
            .map_err(|_| rng_failed(ED25519_ID))?;
        let public = ed25519_spki(pair.public_key().as_ref())?;
        Ok(KeyPair {
            private: Zeroizing::new(document.as_ref().to_vec()),
            public,
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        // Accepts PKCS#8 v1 (seed only, RFC 8410) as well as ring's own v2.
        let pair = sig::Ed25519KeyPair::from_pkcs8_maybe_unchecked(der)
            .map_err(|_| bad_private_key(ED25519_ID, "PKCS#8 DER Ed25519"))?;
        Ok(private(pair, ED25519_ID))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        Ok(public(
            &sig::ED25519,
            ed25519_public_raw(der)?.to_vec(),
            ED25519_ID,
        ))
    }
}

struct EcdsaP256;

const ECDSA_ID: &str = "ecdsa-p256-sha256";

impl AsymmetricScheme for EcdsaP256 {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let rng = SystemRandom::new();
        let alg = &sig::ECDSA_P256_SHA256_FIXED_SIGNING;
        let document =
            sig::EcdsaKeyPair::generate_pkcs8(alg, &rng).map_err(|_| rng_failed(ECDSA_ID))?;
        let pair = sig::EcdsaKeyPair::from_pkcs8(alg, document.as_ref(), &rng)
            .map_err(|_| rng_failed(ECDSA_ID))?;
        let public = p256_spki(pair.public_key().as_ref())?;
        Ok(KeyPair {
            private: Zeroizing::new(document.as_ref().to_vec()),
            public,
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let pair = sig::EcdsaKeyPair::from_pkcs8(
            &sig::ECDSA_P256_SHA256_FIXED_SIGNING,
            der,
            &SystemRandom::new(),
        )
        .map_err(|_| bad_private_key(ECDSA_ID, "PKCS#8 DER P-256"))?;
        Ok(private(pair, ECDSA_ID))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        Ok(public(
            &sig::ECDSA_P256_SHA256_FIXED,
            p256_public_sec1(der)?,
            ECDSA_ID,
        ))
    }
}

/// RSA PKCS#1 v1.5 or PSS signatures with SHA-256, 2048 or 3072 bits.
struct RsaScheme {
    id: String,
    bits: usize,
    pad: RsaPad,
}

impl AsymmetricScheme for RsaScheme {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        Err(Error::Unsupported {
            algorithm: self.id.clone(),
            operation: "keygen (ring cannot generate RSA keys; use the rustcrypto backend)".into(),
        })
    }

    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        let pair = sig::RsaKeyPair::from_pkcs8(der)
            .map_err(|_| bad_private_key(&self.id, "PKCS#8 DER RSA"))?;
        let bits = pair.public().modulus_len() * 8;
        if bits != self.bits {
            return Err(invalid(
                &self.id,
                format!(
                    "key has a {bits}-bit modulus; this entry takes {}-bit keys",
                    self.bits
                ),
            ));
        }
        let encoding: &'static dyn sig::RsaEncoding = match self.pad {
            RsaPad::Pss => &sig::RSA_PSS_SHA256,
            _ => &sig::RSA_PKCS1_SHA256,
        };
        Ok(private(RsaSigner { pair, encoding }, &self.id))
    }

    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        let pkcs1 = rsa_public_to_pkcs1(&self.id, self.bits, der)?;
        let alg: &'static dyn sig::VerificationAlgorithm = match self.pad {
            RsaPad::Pss => &sig::RSA_PSS_2048_8192_SHA256,
            _ => &sig::RSA_PKCS1_2048_8192_SHA256,
        };
        Ok(public(alg, pkcs1, &self.id))
    }
}
