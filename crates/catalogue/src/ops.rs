//! The operations every implementation offers, whatever its backend.
//! Key setup happens in the constructors (see `entry::Ops`), so measuring a
//! constructor measures the key schedule and the methods here measure the rest.

use zeroize::Zeroizing;

use crate::error::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Padding {
    None,
    #[default]
    Pkcs7,
    Zero,
    Iso7816,
    X923,
}

impl Padding {
    pub const ALL: [Padding; 5] = [
        Padding::None,
        Padding::Pkcs7,
        Padding::Zero,
        Padding::Iso7816,
        Padding::X923,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Padding::None => "none",
            Padding::Pkcs7 => "pkcs7",
            Padding::Zero => "zero",
            Padding::Iso7816 => "iso7816",
            Padding::X923 => "x923",
        }
    }

    pub fn parse(text: &str) -> Option<Padding> {
        Padding::ALL.into_iter().find(|p| p.as_str() == text)
    }

    /// Length after padding `len` bytes to `block`-byte blocks.
    pub fn padded_len(self, len: usize, block: usize) -> usize {
        match self {
            Padding::None => len,
            // Zero padding adds nothing to a message that already fills its blocks.
            Padding::Zero => len.div_ceil(block) * block,
            Padding::Pkcs7 | Padding::Iso7816 | Padding::X923 => (len / block + 1) * block,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Encrypt,
    Decrypt,
}

/// Per-message inputs. `iv` carries the IV or nonce; `aad` is for AEADs only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Params<'a> {
    pub iv: &'a [u8],
    pub aad: &'a [u8],
    pub padding: Padding,
}

/// A keyed symmetric cipher: block mode, stream cipher, AEAD or the baseline.
pub trait Cipher: Send {
    /// Appends the ciphertext (followed by the tag, for an AEAD) to `out`.
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error>;

    /// Appends the plaintext to `out`. On any failure `out` is left as it was.
    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error>;

    /// A transform for inputs too large to hold twice, fed chunk by chunk.
    /// AEADs have none: they must see the whole message before releasing it.
    fn streaming(
        &self,
        params: &Params<'_>,
        direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        let _ = (params, direction);
        Err(Error::Unsupported {
            algorithm: "this algorithm".into(),
            operation: "streaming".into(),
        })
    }
}

/// Chunked encryption or decryption with state carried between chunks.
pub trait Streaming: Send {
    /// Chunks passed to `update` must be a multiple of this many bytes.
    fn granule(&self) -> usize;

    /// Transforms a chunk in place.
    fn update(&mut self, chunk: &mut [u8]) -> Result<(), Error>;

    /// Transforms the final piece (padding or unpadding it) and appends it to `out`.
    fn finish(self: Box<Self>, tail: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;
}

pub trait Hasher: Send {
    /// Appends the digest of `data` to `out`.
    fn digest(&mut self, data: &[u8], out: &mut Vec<u8>);
}

pub trait Mac: Send {
    /// Appends the tag of `data` to `out`.
    fn compute(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error>;

    /// Checks a tag in constant time.
    fn verify(&mut self, data: &[u8], tag: &[u8]) -> Result<(), Error>;
}

/// Operations an asymmetric scheme can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AsymOp {
    Sign,
    Verify,
    Encrypt,
    Decrypt,
    Agree,
    /// A KEM's sender side: a ciphertext and a shared secret from a public key.
    Encapsulate,
    /// A KEM's receiver side: the shared secret from a ciphertext.
    Decapsulate,
}

impl AsymOp {
    /// The verb, as the commands and the JSON name it.
    pub const fn name(self) -> &'static str {
        match self {
            AsymOp::Sign => "sign",
            AsymOp::Verify => "verify",
            AsymOp::Encrypt => "encrypt",
            AsymOp::Decrypt => "decrypt",
            AsymOp::Agree => "agree",
            AsymOp::Encapsulate => "encapsulate",
            AsymOp::Decapsulate => "decapsulate",
        }
    }
}

/// What a KEM's encapsulation gives: the ciphertext to send and the secret both share.
pub struct Encapsulated {
    pub ciphertext: Vec<u8>,
    pub shared_secret: Zeroizing<Vec<u8>>,
}

/// The error a trait's default method gives for an operation a scheme lacks.
fn lacks(operation: &str) -> Error {
    Error::Unsupported {
        algorithm: "this algorithm".to_string(),
        operation: operation.to_string(),
    }
}

/// A key pair as bytes: PKCS#8 DER private and SPKI DER public keys, except
/// X25519 whose keys are the raw 32 bytes of RFC 7748, and the post-quantum
/// schemes whose private key is their seed (FIPS 203's d‖z, FIPS 204's ξ,
/// X-Wing's 32 bytes) and public key their standard's encoding.
pub struct KeyPair {
    pub private: Zeroizing<Vec<u8>>,
    pub public: Vec<u8>,
}

pub trait AsymmetricScheme: Send + Sync {
    fn operations(&self) -> &'static [AsymOp];
    fn keygen(&self) -> Result<KeyPair, Error>;
    fn load_private(&self, der: &[u8]) -> Result<Box<dyn PrivateKey>, Error>;
    fn load_public(&self, der: &[u8]) -> Result<Box<dyn PublicKey>, Error>;
    /// The key pair a seed determines, for schemes whose standard defines one.
    fn keygen_from_seed(&self, _seed: &[u8]) -> Result<KeyPair, Error> {
        Err(lacks(
            "key generation from a seed (ML-KEM, ML-DSA and X-Wing have one)",
        ))
    }
}

pub trait PrivateKey: Send {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, Error>;
    fn decrypt(&self, ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error>;
    /// Key agreement with a peer's public key.
    fn agree(&self, peer_public: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error>;
    /// A signature bound to a context string (FIPS 204's ctx); only an empty
    /// one is accepted by schemes without contexts.
    fn sign_with_context(&self, message: &[u8], context: &[u8]) -> Result<Vec<u8>, Error> {
        match context.is_empty() {
            true => self.sign(message),
            false => Err(lacks("a context string (ML-DSA has one)")),
        }
    }
    /// A KEM's shared secret from a ciphertext.
    fn decapsulate(&self, _ciphertext: &[u8]) -> Result<Zeroizing<Vec<u8>>, Error> {
        Err(lacks("decapsulate"))
    }
}

pub trait PublicKey: Send {
    fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), Error>;
    fn encrypt(&self, message: &[u8]) -> Result<Vec<u8>, Error>;
    fn verify_with_context(
        &self,
        message: &[u8],
        context: &[u8],
        signature: &[u8],
    ) -> Result<(), Error> {
        match context.is_empty() {
            true => self.verify(message, signature),
            false => Err(lacks("a context string (ML-DSA has one)")),
        }
    }
    /// A KEM's ciphertext and shared secret, from fresh OS randomness.
    fn encapsulate(&self) -> Result<Encapsulated, Error> {
        Err(lacks("encapsulate"))
    }
}
