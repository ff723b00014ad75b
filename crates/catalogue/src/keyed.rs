//! Entry methods that check the inputs and hand back a keyed instance.

use crate::entry::{Backend, Entry, Kind, Ops};
use crate::error::Error;
use crate::ops::{AsymmetricScheme, Cipher, Hasher, Mac, Params};

fn wrong_kind(entry: &Entry, wanted: &str) -> Error {
    Error::Unsupported {
        algorithm: entry.id.clone(),
        operation: format!("{wanted} (it is a {})", entry.kind),
    }
}

impl Entry {
    /// Runs the key schedule of `backend` (default: the first) and returns a
    /// cipher that checks IV lengths before each message.
    pub fn cipher(
        &'static self,
        backend: Option<Backend>,
        key: &[u8],
    ) -> Result<Box<dyn Cipher>, Error> {
        self.check_key(key)?;
        match &self.implementation(backend)?.ops {
            Ops::Cipher(ctor) => Ok(Box::new(Checked {
                inner: ctor(key)?,
                entry: self,
            })),
            _ => Err(wrong_kind(self, "encrypt/decrypt")),
        }
    }

    pub fn hasher(&self, backend: Option<Backend>) -> Result<Box<dyn Hasher>, Error> {
        match &self.implementation(backend)?.ops {
            Ops::Hash(ctor) => Ok(ctor()),
            _ => Err(wrong_kind(self, "digest")),
        }
    }

    pub fn mac(&self, backend: Option<Backend>, key: &[u8]) -> Result<Box<dyn Mac>, Error> {
        self.check_key(key)?;
        if self.kind == Kind::Mac && self.key_sizes.is_empty() && key.is_empty() {
            return Err(Error::KeyLength {
                algorithm: self.id.clone(),
                valid: "1 or more".into(),
                got: 0,
            });
        }
        match &self.implementation(backend)?.ops {
            Ops::Mac(ctor) => ctor(key),
            _ => Err(wrong_kind(self, "MAC")),
        }
    }

    pub fn asymmetric(&self, backend: Option<Backend>) -> Result<&dyn AsymmetricScheme, Error> {
        match &self.implementation(backend)?.ops {
            Ops::Asymmetric(scheme) => Ok(scheme.as_ref()),
            _ => Err(wrong_kind(self, "keygen/sign/verify")),
        }
    }
}

/// Checks the IV/nonce length for every message, so every backend reports the
/// same clear error instead of its own.
struct Checked {
    inner: Box<dyn Cipher>,
    entry: &'static Entry,
}

impl Cipher for Checked {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.encrypt(params, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.decrypt(params, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        direction: crate::ops::Direction,
    ) -> Result<Box<dyn crate::ops::Streaming>, Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.streaming(params, direction)
    }
}
