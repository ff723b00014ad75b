//! AEADs from RustCrypto behind the `Cipher` trait: ciphertext then tag.
//! Tag checks happen inside the crates, in constant time.

use std::sync::Arc;

use aead::array::Array;
use aead::{AeadInOut, KeyInit};
use cipher::consts::{U7, U8, U9, U10, U11, U12, U13, U16};

use crate::entry::CipherCtor;
use crate::error::Error;
use crate::ops::{Cipher, Params};

struct Keyed<A> {
    aead: A,
    id: Arc<str>,
}

fn nonce_error(id: &str, valid: String, got: usize) -> Error {
    Error::IvLength {
        algorithm: id.to_string(),
        valid,
        got,
    }
}

fn seal<A: AeadInOut>(
    a: &A,
    id: &str,
    p: &Params<'_>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let nonce = Array::try_from(p.iv)
        .map_err(|_| nonce_error(id, A::NonceSize::to_usize().to_string(), p.iv.len()))?;
    let start = out.len();
    out.extend_from_slice(input);
    match a.encrypt_inout_detached(&nonce, p.aad, (&mut out[start..]).into()) {
        Ok(tag) => {
            out.extend_from_slice(&tag);
            Ok(())
        }
        Err(_) => {
            out.truncate(start);
            Err(Error::InvalidInput {
                algorithm: id.to_string(),
                what: "message or associated data too long".into(),
            })
        }
    }
}

fn open<A: AeadInOut>(
    a: &A,
    id: &str,
    p: &Params<'_>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    use cipher::typenum::Unsigned;
    let nonce = Array::try_from(p.iv)
        .map_err(|_| nonce_error(id, A::NonceSize::to_usize().to_string(), p.iv.len()))?;
    let tag_len = A::TagSize::USIZE;
    if input.len() < tag_len {
        return Err(Error::InvalidInput {
            algorithm: id.to_string(),
            what: format!(
                "input of {} bytes is shorter than the {tag_len}-byte tag",
                input.len()
            ),
        });
    }
    let (ct, tag) = input.split_at(input.len() - tag_len);
    let tag = Array::try_from(tag).expect("tag length checked above");
    let start = out.len();
    out.extend_from_slice(ct);
    a.decrypt_inout_detached(&nonce, p.aad, (&mut out[start..]).into(), &tag)
        .map_err(|_| {
            // Release nothing of an unauthenticated message.
            zeroize::Zeroize::zeroize(&mut out[start..]);
            out.truncate(start);
            Error::AuthenticationFailed {
                algorithm: id.to_string(),
            }
        })
}

use cipher::typenum::Unsigned;

impl<A: AeadInOut + Send> Cipher for Keyed<A> {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        seal(&self.aead, &self.id, params, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        open(&self.aead, &self.id, params, input, out)
    }
}

/// Any RustCrypto AEAD with a fixed nonce size.
pub fn keyed<A: AeadInOut + KeyInit + Send + 'static>(id: &str) -> CipherCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let aead = A::new_from_slice(key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: A::key_size().to_string(),
            got: key.len(),
        })?;
        Ok(Box::new(Keyed {
            aead,
            id: id.clone(),
        }) as Box<dyn Cipher>)
    })
}

/// AES-CCM with a 16-byte tag and the nonce length the caller supplies (7 to 13).
struct Ccm<C> {
    cipher: C,
    id: Arc<str>,
}

macro_rules! with_ccm {
    ($self:ident, $p:ident, $f:ident, $input:ident, $out:ident) => {{
        let c = $self.cipher.clone();
        match $p.iv.len() {
            7 => $f(
                &ccm::Ccm::<C, U16, U7>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            8 => $f(
                &ccm::Ccm::<C, U16, U8>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            9 => $f(
                &ccm::Ccm::<C, U16, U9>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            10 => $f(
                &ccm::Ccm::<C, U16, U10>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            11 => $f(
                &ccm::Ccm::<C, U16, U11>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            12 => $f(
                &ccm::Ccm::<C, U16, U12>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            13 => $f(
                &ccm::Ccm::<C, U16, U13>::from(c),
                &$self.id,
                $p,
                $input,
                $out,
            ),
            n => Err(nonce_error(&$self.id, "7 to 13".into(), n)),
        }
    }};
}

type Aes16 = cipher::consts::U16;

impl<C> Cipher for Ccm<C>
where
    C: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = Aes16>
        + Clone
        + Send
        + 'static,
{
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        with_ccm!(self, params, seal, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        with_ccm!(self, params, open, input, out)
    }
}

pub fn ccm<C>(id: &str) -> CipherCtor
where
    C: cipher::BlockCipherEncrypt
        + cipher::BlockSizeUser<BlockSize = Aes16>
        + KeyInit
        + Clone
        + Send
        + 'static,
{
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let cipher = C::new_from_slice(key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: C::key_size().to_string(),
            got: key.len(),
        })?;
        Ok(Box::new(Ccm {
            cipher,
            id: id.clone(),
        }) as Box<dyn Cipher>)
    })
}
