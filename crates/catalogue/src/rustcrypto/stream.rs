//! Stream ciphers: ChaCha20, XChaCha20, Salsa20, XSalsa20 (key + nonce per
//! message) and RC4 (key only; its key schedule is done once and cloned).

use std::marker::PhantomData;
use std::sync::Arc;

use cipher::{KeyInit, KeyIvInit, StreamCipher};
use zeroize::Zeroizing;

use crate::entry::CipherCtor;
use crate::error::Error;
use crate::ops::{Cipher, Direction, Params, Streaming};
use crate::rustcrypto::block_modes::{ByteStream, Direct, apply_appended};

struct Keyed<S> {
    key: Zeroizing<Vec<u8>>,
    id: Arc<str>,
    _s: PhantomData<fn() -> S>,
}

impl<S: KeyIvInit + StreamCipher + Send + 'static> Keyed<S> {
    fn start(&self, iv: &[u8]) -> Result<S, Error> {
        S::new_from_slices(&self.key, iv).map_err(|_| Error::IvLength {
            algorithm: self.id.to_string(),
            valid: S::iv_size().to_string(),
            got: iv.len(),
        })
    }
}

impl<S: KeyIvInit + StreamCipher + Send + 'static> Cipher for Keyed<S> {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        apply_appended(Direct(self.start(params.iv)?), &self.id, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.encrypt(params, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        _direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        Ok(Box::new(ByteStream {
            mode: Box::new(Direct(self.start(params.iv)?)),
            id: self.id.clone(),
        }))
    }
}

/// A key + nonce stream cipher. The key is copied and zeroized on drop.
pub fn keyed<S: KeyIvInit + StreamCipher + Send + 'static>(id: &str) -> CipherCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        if key.len() != S::key_size() {
            return Err(Error::KeyLength {
                algorithm: id.to_string(),
                valid: S::key_size().to_string(),
                got: key.len(),
            });
        }
        Ok(Box::new(Keyed::<S> {
            key: Zeroizing::new(key.to_vec()),
            id: id.clone(),
            _s: PhantomData,
        }) as Box<dyn Cipher>)
    })
}

/// RC4 keeps its key: the crate's state cannot be copied, so each message
/// reruns the key schedule. RC4 has no IV, so every message restarts the same
/// keystream: one reason it is marked broken.
struct Rc4State {
    key: Zeroizing<Vec<u8>>,
    id: Arc<str>,
}

impl Rc4State {
    fn start(&self) -> rc4::Rc4 {
        rc4::Rc4::new_from_slice(&self.key).expect("key length checked at key setup")
    }
}

impl Cipher for Rc4State {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        if !params.iv.is_empty() {
            return Err(Error::IvLength {
                algorithm: self.id.to_string(),
                valid: "0".into(),
                got: params.iv.len(),
            });
        }
        apply_appended(Direct(self.start()), &self.id, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.encrypt(params, input, out)
    }

    fn streaming(
        &self,
        _params: &Params<'_>,
        _direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        Ok(Box::new(ByteStream {
            mode: Box::new(Direct(self.start())),
            id: self.id.clone(),
        }))
    }
}

/// RC4 with a 128-bit key, as OpenSSL's `rc4`.
pub fn rc4(id: &str) -> CipherCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        if key.len() != 16 {
            return Err(Error::KeyLength {
                algorithm: id.to_string(),
                valid: "16".into(),
                got: key.len(),
            });
        }
        Ok(Box::new(Rc4State {
            key: Zeroizing::new(key.to_vec()),
            id: id.clone(),
        }) as Box<dyn Cipher>)
    })
}
