//! The post-quantum schemes, with RustCrypto's crates: ML-KEM-512 and -768
//! (FIPS 203, `ml-kem`), ML-DSA-44 and -65 (FIPS 204, `ml-dsa`) and the
//! X25519 + ML-KEM-768 hybrid X-Wing (draft-connolly-cfrg-xwing-kem-06,
//! `x-wing`). No other backend here has them (ring 0.17 and OpenSSL 3.0 do not).
//!
//! A private key is the standard's seed: ML-KEM's 64-byte d‖z, ML-DSA's 32-byte
//! ξ, X-Wing's 32 bytes; everything else is derived from it on load, so a key
//! file stays small and cannot hold an inconsistent expansion. ML-KEM also
//! loads FIPS 203's expanded decapsulation key, as other implementations export
//! it (its hash of the encapsulation key is checked). ML-DSA's expanded form is
//! refused: `ml-dsa` does not validate it and may panic on a malformed one.
//! Public keys are the standards' encodings (FIPS 203 ek, FIPS 204 pk, X-Wing pk).

use std::marker::PhantomData;

use ml_dsa::{Keypair, MlDsaParams, Signature, SigningKey, VerifyingKey};
use ml_kem::array::Array;
use ml_kem::{Decapsulate, KeyExport};
use zeroize::Zeroizing;

use super::{ENCAPSULATING, SIGNING, bad_signature, invalid, random, rng, unsupported};
use crate::error::Error;
use crate::ops::{AsymOp, AsymmetricScheme, Encapsulated, KeyPair, PrivateKey, PublicKey};

fn exact<'a>(id: &str, bytes: &'a [u8], len: usize, what: &str) -> Result<&'a [u8], Error> {
    match bytes.len() == len {
        true => Ok(bytes),
        false => Err(invalid(
            id,
            format!("{what} must be {len} bytes, got {}", bytes.len()),
        )),
    }
}

/// The byte length of a fixed-size array type (keys, ciphertexts, signatures).
fn len_of<T: Default + AsRef<[u8]>>() -> usize {
    T::default().as_ref().len()
}

// ---------------------------------------------------------------- ML-KEM

/// FIPS 203's seed d‖z.
const KEM_SEED: usize = 64;

/// ML-KEM for one parameter set. A macro, not a generic: `ml-kem` keeps the
/// bound its key types need (`KemParams`) private.
macro_rules! ml_kem_scheme {
    ($name:ident, $params:ty) => {
        pub(crate) struct $name {
            id: &'static str,
        }

        impl $name {
            pub(crate) const fn new(id: &'static str) -> $name {
                $name { id }
            }

            fn public(&self, bytes: &[u8]) -> Result<ml_kem::EncapsulationKey<$params>, Error> {
                type Ek = ml_kem::EncapsulationKey<$params>;
                let len = len_of::<ml_kem::Key<Ek>>();
                let bytes = exact(self.id, bytes, len, "an encapsulation key (FIPS 203)")?;
                let key = ml_kem::Key::<Ek>::try_from(bytes)
                    .map_err(|_| invalid(self.id, "an encapsulation key of the wrong length"))?;
                // FIPS 203 §7.2's modulus check: every coefficient below q.
                Ek::new(&key).map_err(|_| {
                    invalid(
                        self.id,
                        "not a valid encapsulation key: a coefficient is not reduced modulo q (FIPS 203 §7.2)",
                    )
                })
            }

            /// The key's seed, or FIPS 203's expanded decapsulation key.
            fn private(&self, bytes: &[u8]) -> Result<ml_kem::DecapsulationKey<$params>, Error> {
                type Dk = ml_kem::DecapsulationKey<$params>;
                if bytes.len() == KEM_SEED {
                    let seed = ml_kem::Seed::try_from(bytes)
                        .map_err(|_| invalid(self.id, "bad seed"))?;
                    return Ok(Dk::from_seed(seed));
                }
                type Expanded = ml_kem::ExpandedDecapsulationKey<$params>;
                let expanded_len = len_of::<Expanded>();
                if bytes.len() != expanded_len {
                    return Err(invalid(
                        self.id,
                        format!(
                            "a private key must be the 64-byte seed d‖z or the {expanded_len}-byte decapsulation key (FIPS 203), got {} bytes",
                            bytes.len()
                        ),
                    ));
                }
                let expanded = Expanded::try_from(bytes)
                    .map_err(|_| invalid(self.id, "bad decapsulation key"))?;
                #[allow(deprecated)]
                {
                    use ml_kem::ExpandedKeyEncoding;
                    Dk::from_expanded_bytes(&expanded).map_err(|_| {
                        invalid(
                            self.id,
                            "not a valid decapsulation key: its hash of the encapsulation key does not match (FIPS 203 §7.3)",
                        )
                    })
                }
            }

            /// Encaps_internal with the given randomness m: known answers only.
            pub(crate) fn encapsulate_with(
                &self,
                ek: &[u8],
                m: &[u8],
            ) -> Result<Encapsulated, Error> {
                let ek = self.public(ek)?;
                let m: [u8; 32] = exact(self.id, m, 32, "m")?
                    .try_into()
                    .map_err(|_| invalid(self.id, "bad m"))?;
                let (ct, k) = ek.encapsulate_deterministic(&Array::from(m));
                Ok(Encapsulated {
                    ciphertext: ct.to_vec(),
                    shared_secret: Zeroizing::new(k.to_vec()),
                })
            }
        }

        impl AsymmetricScheme for $name {
            fn operations(&self) -> &'static [AsymOp] {
                ENCAPSULATING
            }

            fn keygen(&self) -> Result<KeyPair, Error> {
                let seed = random::<KEM_SEED>(self.id)?;
                self.keygen_from_seed(seed.as_ref())
            }

            fn keygen_from_seed(&self, seed: &[u8]) -> Result<KeyPair, Error> {
                exact(self.id, seed, KEM_SEED, "the seed d‖z (FIPS 203)")?;
                let dk = self.private(seed)?;
                Ok(KeyPair {
                    private: Zeroizing::new(seed.to_vec()),
                    public: dk.encapsulation_key().to_bytes().to_vec(),
                })
            }

            fn load_private(&self, bytes: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
                let dk = self.private(bytes)?;
                let id = self.id;
                // The decapsulation key zeroizes itself on drop (feature `zeroize`).
                Ok(Box::new(KemPrivate {
                    id,
                    ct_len: len_of::<ml_kem::Ciphertext<$params>>(),
                    decapsulate: Box::new(move |ct: &[u8]| {
                        let ct = ml_kem::Ciphertext::<$params>::try_from(ct)
                            .map_err(|_| invalid(id, "bad ciphertext"))?;
                        Ok(dk.decapsulate(&ct).to_vec())
                    }),
                }))
            }

            fn load_public(&self, bytes: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
                let ek = self.public(bytes)?;
                let id = self.id;
                Ok(Box::new(KemPublic {
                    id,
                    // Encaps_internal with m drawn here, so that a failing
                    // source is an error rather than a panic in the crate's RNG path.
                    encapsulate: Box::new(move || {
                        let m = random::<32>(id)?;
                        let (ct, k) = ek.encapsulate_deterministic(&Array::from(*m));
                        Ok(Encapsulated {
                            ciphertext: ct.to_vec(),
                            shared_secret: Zeroizing::new(k.to_vec()),
                        })
                    }),
                }))
            }
        }
    };
}

ml_kem_scheme!(MlKem512, ml_kem::MlKem512);
ml_kem_scheme!(MlKem768, ml_kem::MlKem768);

type Decapsulator = Box<dyn Fn(&[u8]) -> Result<Vec<u8>, Error> + Send>;

/// A KEM's private side, whatever the KEM (ML-KEM's parameter sets, X-Wing):
/// the key lives in the closure.
struct KemPrivate {
    id: &'static str,
    ct_len: usize,
    decapsulate: Decapsulator,
}

impl PrivateKey for KemPrivate {
    fn sign(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(self.id, AsymOp::Sign))
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(self.id, AsymOp::Decrypt))
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(self.id, AsymOp::Agree))
    }

    /// A wrong ciphertext of the right length gives the implicit rejection
    /// key (FIPS 203), not an error: that is the standard's defence.
    fn decapsulate(&self, ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        let ct = exact(self.id, ciphertext, self.ct_len, "a ciphertext")?;
        (self.decapsulate)(ct).map(Zeroizing::new)
    }
}

type Encapsulator = Box<dyn Fn() -> Result<Encapsulated, Error> + Send>;

struct KemPublic {
    id: &'static str,
    encapsulate: Encapsulator,
}

impl PublicKey for KemPublic {
    fn verify(&self, _message: &[u8], _signature: &[u8]) -> Result<(), Error> {
        Err(unsupported(self.id, AsymOp::Verify))
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(self.id, AsymOp::Encrypt))
    }

    fn encapsulate(&self) -> Result<Encapsulated, Error> {
        (self.encapsulate)()
    }
}

// ---------------------------------------------------------------- ML-DSA

/// ML-DSA with parameter set `P` (`ml_dsa::MlDsa44`, `MlDsa65`).
pub(crate) struct MlDsa<P> {
    id: &'static str,
    params: PhantomData<P>,
}

impl<P> MlDsa<P> {
    pub(crate) const fn new(id: &'static str) -> MlDsa<P> {
        MlDsa {
            id,
            params: PhantomData,
        }
    }
}

/// FIPS 204's seed ξ.
const DSA_SEED: usize = 32;

impl<P: MlDsaParams + Send + Sync + 'static> MlDsa<P> {
    fn signing_key(&self, bytes: &[u8]) -> Result<SigningKey<P>, Error> {
        let bytes = exact(
            self.id,
            bytes,
            DSA_SEED,
            "a private key (the seed ξ of FIPS 204; expanded keys are not accepted)",
        )?;
        let seed = ml_dsa::B32::try_from(bytes).map_err(|_| invalid(self.id, "bad seed"))?;
        Ok(SigningKey::from_seed(&seed))
    }

    fn verifying_key(&self, bytes: &[u8]) -> Result<VerifyingKey<P>, Error> {
        let len = len_of::<ml_dsa::EncodedVerifyingKey<P>>();
        let bytes = exact(self.id, bytes, len, "a public key (FIPS 204 pkEncode)")?;
        let encoded = ml_dsa::EncodedVerifyingKey::<P>::try_from(bytes)
            .map_err(|_| invalid(self.id, "bad public key"))?;
        Ok(VerifyingKey::decode(&encoded))
    }

    /// FIPS 204's ML-DSA.Sign_internal on an expanded key: ACVP known answers only.
    pub(crate) fn sign_internal(
        &self,
        expanded: &[u8],
        message: &[u8],
        rnd: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let len = len_of::<ml_dsa::ExpandedSigningKeyBytes<P>>();
        let bytes = exact(self.id, expanded, len, "an expanded signing key")?;
        let rnd = ml_dsa::B32::try_from(exact(self.id, rnd, 32, "rnd")?)
            .map_err(|_| invalid(self.id, "bad rnd"))?;
        let encoded = ml_dsa::ExpandedSigningKeyBytes::<P>::try_from(bytes)
            .map_err(|_| invalid(self.id, "bad expanded key"))?;
        // `from_expanded` may panic on a malformed key: held to trusted vectors.
        let key = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            #[allow(deprecated)]
            ml_dsa::ExpandedSigningKey::<P>::from_expanded(&encoded)
        }))
        .map_err(|_| invalid(self.id, "a malformed expanded signing key"))?;
        Ok(key.sign_internal(&[message], &rnd).encode().to_vec())
    }

    /// FIPS 204's ML-DSA.Verify_internal: ACVP known answers only.
    pub(crate) fn verify_internal(
        &self,
        public: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        let key = self.verifying_key(public)?;
        let sig = self.signature(signature)?;
        match key.verify_internal(message, &sig) {
            true => Ok(()),
            false => Err(bad_signature(self.id)),
        }
    }

    fn signature(&self, bytes: &[u8]) -> Result<Signature<P>, Error> {
        let len = len_of::<ml_dsa::EncodedSignature<P>>();
        let bytes = exact(self.id, bytes, len, "a signature (FIPS 204 sigEncode)")?;
        let encoded = ml_dsa::EncodedSignature::<P>::try_from(bytes)
            .map_err(|_| invalid(self.id, "bad signature"))?;
        // A malformed encoding (hints out of order, say) is a signature that fails.
        Signature::decode(&encoded).ok_or_else(|| bad_signature(self.id))
    }
}

impl<P: MlDsaParams + Send + Sync + 'static> AsymmetricScheme for MlDsa<P> {
    fn operations(&self) -> &'static [AsymOp] {
        SIGNING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let seed = random::<DSA_SEED>(self.id)?;
        self.keygen_from_seed(seed.as_ref())
    }

    fn keygen_from_seed(&self, seed: &[u8]) -> Result<KeyPair, Error> {
        exact(self.id, seed, DSA_SEED, "the seed ξ (FIPS 204)")?;
        let key = self.signing_key(seed)?;
        Ok(KeyPair {
            private: Zeroizing::new(key.to_seed().to_vec()),
            public: key.verifying_key().encode().to_vec(),
        })
    }

    fn load_private(&self, bytes: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        Ok(Box::new(DsaPrivate {
            id: self.id,
            key: self.signing_key(bytes)?,
        }))
    }

    fn load_public(&self, bytes: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        Ok(Box::new(DsaPublic {
            scheme: MlDsa::<P>::new(self.id),
            key: self.verifying_key(bytes)?,
        }))
    }
}

/// `SigningKey` zeroizes itself on drop (feature `zeroize`).
struct DsaPrivate<P: MlDsaParams> {
    id: &'static str,
    key: SigningKey<P>,
}

impl<P: MlDsaParams + Send + Sync> PrivateKey for DsaPrivate<P> {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error> {
        self.sign_with_context(message, &[])
    }

    fn decrypt(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(self.id, AsymOp::Decrypt))
    }

    fn agree(&self, _peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(unsupported(self.id, AsymOp::Agree))
    }

    /// FIPS 204's default, hedged signing: fresh randomness in every signature.
    fn sign_with_context(&self, message: &[u8], context: &[u8]) -> Result<Vec<u8>, Error> {
        if context.len() > 255 {
            return Err(invalid(
                self.id,
                format!(
                    "a context string is at most 255 bytes (FIPS 204), got {}",
                    context.len()
                ),
            ));
        }
        let signature = self
            .key
            .expanded_key()
            .sign_randomized(message, context, &mut rng(self.id)?)
            .map_err(|e| Error::Backend {
                algorithm: self.id.to_string(),
                detail: format!("signing failed: {e}"),
            })?;
        Ok(signature.encode().to_vec())
    }
}

struct DsaPublic<P: MlDsaParams> {
    scheme: MlDsa<P>,
    key: VerifyingKey<P>,
}

impl<P: MlDsaParams + Send + Sync + 'static> PublicKey for DsaPublic<P> {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error> {
        self.verify_with_context(message, &[], signature)
    }

    fn encrypt(&self, _message: &[u8]) -> Result<Vec<u8>, Error> {
        Err(unsupported(self.scheme.id, AsymOp::Encrypt))
    }

    fn verify_with_context(
        &self,
        message: &[u8],
        context: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        let sig = self.scheme.signature(signature)?;
        match self.key.verify_with_context(message, context, &sig) {
            true => Ok(()),
            false => Err(bad_signature(self.scheme.id)),
        }
    }
}

// ---------------------------------------------------------------- X-Wing

pub(crate) struct XWing;

pub(crate) const XWING_ID: &str = "x-wing";

impl XWing {
    fn public(bytes: &[u8]) -> Result<x_wing::EncapsulationKey, Error> {
        let bytes = exact(
            XWING_ID,
            bytes,
            x_wing::ENCAPSULATION_KEY_SIZE,
            "an encapsulation key (ML-KEM-768 ek ‖ X25519 public key)",
        )?;
        x_wing::EncapsulationKey::try_from(bytes).map_err(|_| {
            invalid(
                XWING_ID,
                "not a valid encapsulation key: its ML-KEM-768 part is not reduced modulo q",
            )
        })
    }

    fn private(bytes: &[u8]) -> Result<x_wing::DecapsulationKey, Error> {
        let seed: [u8; x_wing::DECAPSULATION_KEY_SIZE] = exact(
            XWING_ID,
            bytes,
            x_wing::DECAPSULATION_KEY_SIZE,
            "a private key (X-Wing's 32-byte seed)",
        )?
        .try_into()
        .map_err(|_| invalid(XWING_ID, "bad seed"))?;
        Ok(x_wing::DecapsulationKey::from(seed))
    }

    fn encapsulated(ek: &x_wing::EncapsulationKey, eseed: &[u8; 64]) -> Encapsulated {
        let (ct, k) = ek.encapsulate_deterministic(&Array::from(*eseed));
        Encapsulated {
            ciphertext: ct.to_vec(),
            shared_secret: Zeroizing::new(k.to_vec()),
        }
    }

    /// Encapsulation with the given 64-byte randomness: known answers only.
    pub(crate) fn encapsulate_with(ek: &[u8], eseed: &[u8]) -> Result<Encapsulated, Error> {
        let eseed: [u8; 64] = exact(XWING_ID, eseed, 64, "eseed")?
            .try_into()
            .map_err(|_| invalid(XWING_ID, "bad eseed"))?;
        Ok(Self::encapsulated(&Self::public(ek)?, &eseed))
    }
}

impl AsymmetricScheme for XWing {
    fn operations(&self) -> &'static [AsymOp] {
        ENCAPSULATING
    }

    fn keygen(&self) -> Result<KeyPair, Error> {
        let seed = random::<32>(XWING_ID)?;
        self.keygen_from_seed(seed.as_ref())
    }

    fn keygen_from_seed(&self, seed: &[u8]) -> Result<KeyPair, Error> {
        use ml_kem::kem::Decapsulator;
        let dk = Self::private(seed)?;
        Ok(KeyPair {
            private: Zeroizing::new(seed.to_vec()),
            public: dk.encapsulation_key().to_bytes().to_vec(),
        })
    }

    fn load_private(&self, bytes: &[u8]) -> Result<Box<dyn PrivateKey>, Error> {
        // The decapsulation key zeroizes itself on drop (feature `zeroize`).
        let dk = Self::private(bytes)?;
        Ok(Box::new(KemPrivate {
            id: XWING_ID,
            ct_len: x_wing::CIPHERTEXT_SIZE,
            decapsulate: Box::new(move |ct: &[u8]| {
                let ct = x_wing::Ciphertext::try_from(ct)
                    .map_err(|_| invalid(XWING_ID, "bad ciphertext"))?;
                Ok(dk.decapsulate(&ct).to_vec())
            }),
        }))
    }

    fn load_public(&self, bytes: &[u8]) -> Result<Box<dyn PublicKey>, Error> {
        let ek = Self::public(bytes)?;
        Ok(Box::new(KemPublic {
            id: XWING_ID,
            encapsulate: Box::new(move || {
                let eseed = random::<64>(XWING_ID)?;
                Ok(XWing::encapsulated(&ek, &eseed))
            }),
        }))
    }
}

// ---------------------------------------------------------------- known answers

/// The deterministic inner functions the official vectors test. Not for use:
/// a fixed m, eseed or rnd repeated even once breaks the scheme.
pub mod known_answers {
    use super::{MlDsa, MlKem512, MlKem768, XWing};
    use crate::error::Error;
    use crate::ops::Encapsulated;

    fn unknown(id: &str) -> Error {
        Error::UnknownAlgorithm {
            name: id.to_string(),
            suggestions: vec![],
        }
    }

    /// ML-KEM.Encaps_internal(ek, m) of FIPS 203 for `ml-kem-512` or `ml-kem-768`.
    pub fn ml_kem_encapsulate(id: &str, ek: &[u8], m: &[u8]) -> Result<Encapsulated, Error> {
        match id {
            "ml-kem-512" => MlKem512::new("ml-kem-512").encapsulate_with(ek, m),
            "ml-kem-768" => MlKem768::new("ml-kem-768").encapsulate_with(ek, m),
            _ => Err(unknown(id)),
        }
    }

    /// X-Wing's Encaps with its 64-byte eseed.
    pub fn x_wing_encapsulate(ek: &[u8], eseed: &[u8]) -> Result<Encapsulated, Error> {
        XWing::encapsulate_with(ek, eseed)
    }

    /// ML-DSA.Sign_internal(sk, M′, rnd) of FIPS 204, sk expanded as ACVP gives it.
    pub fn ml_dsa_sign_internal(
        id: &str,
        sk: &[u8],
        message: &[u8],
        rnd: &[u8],
    ) -> Result<Vec<u8>, Error> {
        match id {
            "ml-dsa-44" => {
                MlDsa::<ml_dsa::MlDsa44>::new("ml-dsa-44").sign_internal(sk, message, rnd)
            }
            "ml-dsa-65" => {
                MlDsa::<ml_dsa::MlDsa65>::new("ml-dsa-65").sign_internal(sk, message, rnd)
            }
            _ => Err(unknown(id)),
        }
    }

    /// ML-DSA.Verify_internal(pk, M′, σ) of FIPS 204.
    pub fn ml_dsa_verify_internal(
        id: &str,
        pk: &[u8],
        message: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        match id {
            "ml-dsa-44" => {
                MlDsa::<ml_dsa::MlDsa44>::new("ml-dsa-44").verify_internal(pk, message, signature)
            }
            "ml-dsa-65" => {
                MlDsa::<ml_dsa::MlDsa65>::new("ml-dsa-65").verify_internal(pk, message, signature)
            }
            _ => Err(unknown(id)),
        }
    }
}
