//! The `identity` entry: copies input to output. Measuring it measures the
//! harness's own floor, as FELICS does with its identity cipher.

use std::sync::Arc;

use crate::entry::CipherCtor;
use crate::error::Error;
use crate::ops::{Cipher, Params};

struct Identity;

impl Cipher for Identity {
    fn encrypt(
        &mut self,
        _params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.extend_from_slice(input);
        Ok(())
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.encrypt(params, input, out)
    }
}

pub fn identity() -> CipherCtor {
    Arc::new(|key: &[u8]| {
        if key.is_empty() {
            Ok(Box::new(Identity) as Box<dyn Cipher>)
        } else {
            Err(Error::KeyLength {
                algorithm: "identity".into(),
                valid: "0".into(),
                got: key.len(),
            })
        }
    })
}
