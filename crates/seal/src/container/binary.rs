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
//! The tag covers the header of [`super::header_len`], which names the scheme
//! in full, so the 4-byte scheme id only has to find the key.

use super::write::Writer;
use super::{Container, Field, Parsed, SchemeRef, check_len, header_len, write_header};
use crate::engine::{Sealer, Short};
use crate::error::{Error, limits};

const NAME: &str = "binary";
pub const VERSION: u8 = 1;

pub(super) fn sealed_len(sealer: &Sealer, plaintext: usize, aad: usize) -> usize {
    let spec = sealer.spec();
    10 + sealer.key_id().len() + spec.nonce_len() + aad + spec.body_len(plaintext) + spec.tag_len()
}

pub(super) fn seal(
    sealer: &Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let spec = sealer.spec();
    let kid = sealer.key_id();
    let len = sealed_len(sealer, plaintext.len(), aad.len());
    let tag_len = spec.tag_len();
    let (message, scratch) = out.split_at_mut(len);
    let mut w = Writer::new(message);
    w.byte(VERSION);
    w.bytes(&sealer.scheme_id);
    w.byte(kid.len() as u8);
    w.bytes(kid);
    w.byte(nonce.len() as u8);
    w.bytes(nonce);
    w.bytes(&(aad.len() as u16).to_be_bytes());
    w.bytes(aad);
    w.byte(tag_len as u8);
    let body_at = w.position();
    w.bytes(plaintext);
    w.done()?;
    let mut h = Writer::new(scratch);
    write_header(&mut h, spec.name, kid, aad);
    let ad_len = h.done()?;
    debug_assert_eq!(ad_len, header_len(spec.name, kid, aad.len()));
    let (front, tag) = message.split_at_mut(len - tag_len);
    sealer.protect(
        nonce,
        &scratch[..ad_len],
        &mut front[body_at..],
        plaintext.len(),
        tag,
    )?;
    Ok(len)
}

/// Reads fields front to back, reporting truncation by name.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], Error> {
        if self.rest.len() < n {
            return Err(Error::Truncated {
                container: NAME,
                field,
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn byte(&mut self, field: &'static str) -> Result<u8, Error> {
        Ok(self.take(1, field)?[0])
    }
}

pub(super) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    let mut r = Reader { rest: bytes };
    if r.byte("version")? != VERSION {
        return Err(Error::Malformed {
            container: NAME,
            detail: "unsupported version (expected 1)",
        });
    }
    let id: [u8; 4] = r.take(4, "scheme id")?.try_into().expect("4 bytes");
    let k = r.byte("key id length")? as usize;
    check_len("key id", k, limits::KEY_ID)?;
    let key_id = Short::new(r.take(k, "key id")?, "key id")?;
    let n = r.byte("nonce length")? as usize;
    check_len("nonce", n, limits::NONCE)?;
    let nonce = Short::new(r.take(n, "nonce")?, "nonce")?;
    let a = u16::from_be_bytes(r.take(2, "associated data length")?.try_into().expect("2"));
    let aad = r.take(a as usize, "associated data")?;
    let t = r.byte("tag length")? as usize;
    check_len("tag", t, limits::TAG)?;
    if r.rest.len() < t {
        return Err(Error::Truncated {
            container: NAME,
            field: "tag",
        });
    }
    let (body, tag) = r.rest.split_at(r.rest.len() - t);
    check_len("ciphertext", body.len(), limits::BODY)?;
    Ok(Parsed {
        container: Container::Binary,
        scheme: SchemeRef::Id(id),
        key_id,
        nonce,
        tag: Short::new(tag, "tag")?,
        aad: Field::Bytes(aad),
        body: Field::Bytes(body),
        iv_present: n > 0,
        protected: &[],
        mac0: false,
        text: false,
    })
}
