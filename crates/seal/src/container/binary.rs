//! The `binary` container (all integers big-endian):
//!
//! ```text
//! version   u8      = 1
//! scheme id [u8; 4] = SHA-256(canonical scheme name)[0..4]
//! K         u8      key id length, 1..=32
//! key id    [u8; K]
//! N         u8      nonce length, 0..=32
//! nonce     [u8; N]
//! A         u16     associated data length
//! aad       [u8; A]
//! T         u8      tag length, 0..=64
//! body      every byte up to the tag: ciphertext (plaintext for hmac)
//! tag       [u8; T] the last T bytes
//! ```
//!
//! The tag covers the `header()` of the container module, which names the
//! scheme in full, so the 4-byte scheme id only has to find the key.

use super::{Opened, check_len, header};
use crate::engine::Sealer;
use crate::error::{SealError, limits};

const NAME: &str = "binary";
pub const VERSION: u8 = 1;

/// The 4-byte id of a scheme name.
pub fn scheme_id(scheme: &str) -> Result<[u8; 4], SealError> {
    let mut digest = Vec::with_capacity(32);
    catalogue::catalogue()
        .get("sha256")
        .expect("the catalogue has sha256")
        .hasher(None)?
        .digest(scheme.as_bytes(), &mut digest);
    Ok([digest[0], digest[1], digest[2], digest[3]])
}

pub(super) fn seal(
    sealer: &mut Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let scheme = sealer.scheme.name().to_string();
    let ad = header(&scheme, &sealer.key_id, aad);
    let (body, tag) = sealer.protect(nonce, &ad, plaintext)?;
    let kid = &sealer.key_id;
    let mut out =
        Vec::with_capacity(10 + kid.len() + nonce.len() + aad.len() + body.len() + tag.len());
    out.push(VERSION);
    out.extend_from_slice(&scheme_id(&scheme)?);
    out.push(kid.len() as u8);
    out.extend_from_slice(kid);
    out.push(nonce.len() as u8);
    out.extend_from_slice(nonce);
    out.extend_from_slice(&(aad.len() as u16).to_be_bytes());
    out.extend_from_slice(aad);
    out.push(tag.len() as u8);
    out.extend_from_slice(&body);
    out.extend_from_slice(&tag);
    Ok(out)
}

/// Reads fields front to back, reporting truncation by name.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &str) -> Result<&'a [u8], SealError> {
        if self.rest.len() < n {
            return Err(SealError::malformed(
                NAME,
                format!(
                    "truncated in {field} (needs {n} bytes, {} left)",
                    self.rest.len()
                ),
            ));
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn byte(&mut self, field: &str) -> Result<u8, SealError> {
        Ok(self.take(1, field)?[0])
    }
}

pub(super) fn open(sealer: &mut Sealer, bytes: &[u8]) -> Result<Opened, SealError> {
    let mut r = Reader { rest: bytes };
    let version = r.byte("version")?;
    if version != VERSION {
        return Err(SealError::malformed(
            NAME,
            format!("version {version} is not supported (expected {VERSION})"),
        ));
    }
    let id = r.take(4, "scheme id")?;
    let k = r.byte("key id length")? as usize;
    check_len("key id", k, limits::KEY_ID)?;
    let key_id = r.take(k, "key id")?.to_vec();
    // The key id first, as `check_identity` does: a keyring learns from it
    // which key to try.
    let scheme = sealer.scheme.name().to_string();
    let expected = scheme_id(&scheme)?;
    if key_id == sealer.key_id && id != expected {
        return Err(SealError::WrongScheme {
            message: format!("id {}", hex::encode(id)),
            key: format!("{scheme} (id {})", hex::encode(expected)),
        });
    }
    sealer.check_identity(&scheme, &key_id)?;
    let n = r.byte("nonce length")? as usize;
    check_len("nonce", n, limits::NONCE)?;
    let nonce = r.take(n, "nonce")?.to_vec();
    let a = u16::from_be_bytes(
        r.take(2, "associated data length")?
            .try_into()
            .expect("two bytes"),
    ) as usize;
    let aad = r.take(a, "associated data")?.to_vec();
    let t = r.byte("tag length")? as usize;
    check_len("tag", t, limits::TAG)?;
    if r.rest.len() < t {
        return Err(SealError::malformed(
            NAME,
            format!("truncated: {} bytes left for a {t}-byte tag", r.rest.len()),
        ));
    }
    let (body, tag) = r.rest.split_at(r.rest.len() - t);
    check_len("ciphertext", body.len(), limits::BODY)?;
    let ad = header(&scheme, &key_id, &aad);
    let plaintext = sealer.unprotect(&nonce, &ad, body, tag)?;
    Ok(Opened {
        plaintext,
        aad,
        nonce,
    })
}
