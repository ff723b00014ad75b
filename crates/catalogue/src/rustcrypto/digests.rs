//! Hashes and MACs from RustCrypto behind the `Hasher` and `Mac` traits.

use std::marker::PhantomData;
use std::sync::Arc;

use digest::{Digest, KeyInit};
use subtle::ConstantTimeEq;

use crate::entry::{HashCtor, MacCtor};
use crate::error::Error;
use crate::ops::{Hasher, Mac};

struct Hash<D>(PhantomData<fn() -> D>);

impl<D: Digest> Hasher for Hash<D> {
    fn digest(&mut self, data: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(&D::digest(data));
    }
}

pub fn hash<D: Digest + 'static>() -> HashCtor {
    Arc::new(|| Box::new(Hash::<D>(PhantomData)) as Box<dyn Hasher>)
}

/// A keyed MAC whose key setup is done once; each message clones that state.
struct Keyed<M> {
    mac: M,
    id: Arc<str>,
}

impl<M: digest::Mac + Clone + Send> Mac for Keyed<M> {
    fn compute(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        out.extend_from_slice(&self.mac.clone().chain_update(data).finalize().into_bytes());
        Ok(())
    }

    fn verify(&mut self, data: &[u8], tag: &[u8]) -> Result<(), Error> {
        // verify_slice compares in constant time.
        self.mac
            .clone()
            .chain_update(data)
            .verify_slice(tag)
            .map_err(|_| Error::AuthenticationFailed {
                algorithm: self.id.to_string(),
            })
    }
}

/// HMAC and CMAC: any key length HMAC accepts, or the block cipher's key size.
pub fn mac<M: digest::Mac + KeyInit + Clone + Send + 'static>(
    id: &str,
    valid: &'static str,
) -> MacCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let mac = <M as KeyInit>::new_from_slice(key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: valid.to_string(),
            got: key.len(),
        })?;
        Ok(Box::new(Keyed {
            mac,
            id: id.clone(),
        }) as Box<dyn Mac>)
    })
}

/// Poly1305 as a one-time MAC (RFC 8439 §2.5): the 32-byte key must never
/// authenticate two messages, which is why the AEADs derive it per nonce.
struct Poly1305Mac {
    key: poly1305::Key,
    id: Arc<str>,
}

impl Drop for Poly1305Mac {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.key.as_mut_slice());
    }
}

impl Mac for Poly1305Mac {
    fn compute(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        use poly1305::universal_hash::KeyInit as _;
        out.extend_from_slice(&poly1305::Poly1305::new(&self.key).compute_unpadded(data));
        Ok(())
    }

    fn verify(&mut self, data: &[u8], tag: &[u8]) -> Result<(), Error> {
        let mut expected = Vec::with_capacity(16);
        self.compute(data, &mut expected)?;
        if bool::from(expected.as_slice().ct_eq(tag)) {
            Ok(())
        } else {
            Err(Error::AuthenticationFailed {
                algorithm: self.id.to_string(),
            })
        }
    }
}

pub fn poly1305(id: &str) -> MacCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let key = poly1305::Key::try_from(key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: "32".into(),
            got: key.len(),
        })?;
        Ok(Box::new(Poly1305Mac {
            key,
            id: id.clone(),
        }) as Box<dyn Mac>)
    })
}
