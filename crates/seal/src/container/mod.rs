//! Message containers, written into and read from a caller's buffer.
//! `json` and `binary` authenticate the same header (see [`header_len`]);
//! `cose` authenticates COSE's own structures (RFC 9052). The exact layouts
//! are in docs/containers.md.
//!
//! Every operation works in one output buffer: the message first, then
//! scratch room for the authenticated header (and, for `json`, the body
//! before it is base64-encoded). [`Sealer::seal_buffer_len`] and
//! [`open_buffer_len`] say how much to provide.

pub(crate) mod binary;
pub(crate) mod cbor;
pub(crate) mod cose;
pub(crate) mod json;
pub mod write;

use crate::engine::{Sealer, Short};
use crate::error::{Error, limits};
use write::Writer;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Container {
    /// Study 003's Appendix B object: base64 `iv`, `tag`, `data`, plus `v`, `scheme`, `kid`.
    Json,
    /// A compact byte layout: version, scheme id, key id, nonce, ciphertext, tag.
    Binary,
    /// COSE_Encrypt0 (etm, aead, enc) or COSE_Mac0 (hmac), tagged.
    Cose,
}

impl Container {
    pub const ALL: [Container; 3] = [Container::Json, Container::Binary, Container::Cose];

    pub fn as_str(self) -> &'static str {
        match self {
            Container::Json => "json",
            Container::Binary => "binary",
            Container::Cose => "cose",
        }
    }

    /// Whether the message is text (and so needs no transport encoding).
    pub fn is_text(self) -> bool {
        self == Container::Json
    }

    pub fn from_name(text: &str) -> Option<Container> {
        match text {
            "json" => Some(Container::Json),
            "binary" | "bin" => Some(Container::Binary),
            "cose" => Some(Container::Cose),
            _ => None,
        }
    }
}

impl core::fmt::Display for Container {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An opened message: every part lives in the caller's buffer.
#[derive(Debug)]
pub struct Opened<'o> {
    pub plaintext: &'o [u8],
    /// The associated data sent with the message.
    pub aad: &'o [u8],
    /// The nonce (IV) it was sealed under; empty for `hmac`, which has none.
    /// A receiver keys its replay check on it.
    pub nonce: &'o [u8],
}

/// How a message names its scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemeRef<'m> {
    /// The canonical name (json; cose with a text `alg`).
    Name(&'m str),
    /// The binary container's 4-byte id.
    Id([u8; 4]),
    /// A COSE `alg` number.
    Cose(i64),
}

/// A field as it appears in the message.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Field<'m> {
    Bytes(&'m [u8]),
    Base64(&'m str),
    /// A JSON string's contents, escapes checked but not yet undone.
    Escaped(&'m str),
}

/// A message read but not yet opened: what it says its scheme and key are,
/// so a keyring can pick the key and an error can name both.
pub struct Parsed<'m> {
    pub container: Container,
    pub scheme: SchemeRef<'m>,
    pub(crate) key_id: Short<{ limits::KEY_ID }>,
    pub(crate) nonce: Short<{ limits::NONCE }>,
    pub(crate) tag: Short<{ limits::TAG }>,
    pub(crate) aad: Field<'m>,
    pub(crate) body: Field<'m>,
    /// json: whether `iv` was present; cose: the protected header's bytes.
    pub(crate) iv_present: bool,
    pub(crate) protected: &'m [u8],
    /// cose: a COSE_Mac0 (true) or a COSE_Encrypt0.
    pub(crate) mac0: bool,
    /// json: the body came as readable `text`.
    pub(crate) text: bool,
}

impl Parsed<'_> {
    pub fn key_id(&self) -> &[u8] {
        self.key_id.get()
    }
}

/// Room enough to open any message of `message_len` bytes.
pub const fn open_buffer_len(message_len: usize) -> usize {
    2 * message_len + 16 + limits::SCHEME + limits::KEY_ID + limits::NONCE
}

/// Bytes of the header `json` and `binary` authenticate:
/// `0x01 || u8 len(scheme) || scheme || u8 len(kid) || kid || u16be len(aad) || aad`.
/// It binds the scheme name, the key id and the caller's associated data to the tag.
pub const fn header_len(scheme: &str, key_id: &[u8], aad_len: usize) -> usize {
    5 + scheme.len() + key_id.len() + aad_len
}

pub(crate) fn write_header(w: &mut Writer<'_>, scheme: &str, key_id: &[u8], aad: &[u8]) {
    w.byte(1);
    w.byte(scheme.len() as u8);
    w.text(scheme);
    w.byte(key_id.len() as u8);
    w.bytes(key_id);
    w.bytes(&(aad.len() as u16).to_be_bytes());
    w.bytes(aad);
}

fn check_len(field: &'static str, len: usize, max: usize) -> Result<(), Error> {
    if len > max {
        Err(Error::Oversize { field, len, max })
    } else {
        Ok(())
    }
}

impl Sealer {
    /// The exact length of the sealed message.
    pub fn sealed_len(&self, container: Container, plaintext: &[u8], aad: &[u8]) -> usize {
        match container {
            Container::Json => json::sealed_len(self, plaintext, aad),
            Container::Binary => binary::sealed_len(self, plaintext.len(), aad.len()),
            Container::Cose => cose::sealed_len(self, plaintext.len(), aad.len()),
        }
    }

    /// The buffer [`Sealer::seal`] needs: the message plus its scratch room.
    pub fn seal_buffer_len(&self, container: Container, plaintext: &[u8], aad: &[u8]) -> usize {
        let spec = self.spec();
        let scratch = match container {
            Container::Json => {
                header_len(spec.name, self.key_id(), aad.len()) + spec.body_len(plaintext.len())
            }
            Container::Binary => header_len(spec.name, self.key_id(), aad.len()),
            Container::Cose => cose::structure_len(self, plaintext.len(), aad.len()),
        };
        self.sealed_len(container, plaintext, aad) + scratch
    }

    /// Seals one message under `nonce` (which must be fresh: a counter from
    /// a [`crate::counter::CounterStore`], or 96+ random bits) into `out`;
    /// returns the message length. `out` holds [`Sealer::seal_buffer_len`] bytes.
    pub fn seal(
        &self,
        container: Container,
        nonce: &[u8],
        plaintext: &[u8],
        aad: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        if nonce.len() != self.spec().nonce_len() {
            return Err(Error::NonceLength);
        }
        check_len("associated data", aad.len(), limits::AAD)?;
        check_len("plaintext", plaintext.len(), limits::BODY)?;
        let need = self.seal_buffer_len(container, plaintext, aad);
        let out = out.get_mut(..need).ok_or(Error::BufferTooSmall { need })?;
        match container {
            Container::Json => json::seal(self, nonce, plaintext, aad, out),
            Container::Binary => binary::seal(self, nonce, plaintext, aad, out),
            Container::Cose => cose::seal(self, nonce, plaintext, aad, out),
        }
    }

    /// Checks and opens one message into `out` ([`open_buffer_len`] bytes).
    /// On any failure nothing is returned.
    pub fn open<'o>(
        &self,
        container: Container,
        message: &[u8],
        out: &'o mut [u8],
    ) -> Result<Opened<'o>, Error> {
        let parsed = parse(container, message)?;
        self.check_identity(&parsed)?;
        self.open_parsed(&parsed, out)
    }

    /// Errors unless the message names this key and this scheme (the key id
    /// first: a keyring learns from it which key to try next).
    pub fn check_identity(&self, parsed: &Parsed<'_>) -> Result<(), Error> {
        if parsed.key_id() != self.key_id() {
            return Err(Error::WrongKey);
        }
        if !self.names_this_scheme(parsed.scheme) {
            return Err(Error::WrongScheme);
        }
        Ok(())
    }

    pub fn names_this_scheme(&self, scheme: SchemeRef<'_>) -> bool {
        match scheme {
            SchemeRef::Name(name) => name == self.spec().name,
            SchemeRef::Id(id) => id == self.scheme_id,
            SchemeRef::Cose(alg) => cose::alg_of(self) == cose::Alg::Number(alg),
        }
    }

    /// Opens a message already read by [`parse`] and checked by
    /// [`Sealer::check_identity`].
    pub fn open_parsed<'o>(
        &self,
        parsed: &Parsed<'_>,
        out: &'o mut [u8],
    ) -> Result<Opened<'o>, Error> {
        match parsed.container {
            Container::Json => json::check_fields(self, parsed)?,
            Container::Cose if parsed.mac0 != (self.pattern == crate::spec::Pattern::Hmac) => {
                return Err(Error::Malformed {
                    container: "cose",
                    detail: if parsed.mac0 {
                        "a COSE_Mac0, but this key encrypts (COSE_Encrypt0)"
                    } else {
                        "a COSE_Encrypt0, but this key only authenticates (COSE_Mac0)"
                    },
                });
            }
            _ => {}
        }
        // Layout of `out`: nonce, associated data, body (for COSE_Encrypt0
        // with its tag), then the authenticated structure as scratch.
        let nonce = parsed.nonce.get();
        let mut w = Writer::new(out);
        w.bytes(nonce);
        let aad_at = w.position();
        put_field(&mut w, parsed.aad)?;
        let aad_len = w.position() - aad_at;
        check_len("aad", aad_len, limits::AAD)?;
        let body_at = w.position();
        put_field(&mut w, parsed.body)?;
        let body_end = w.position();
        check_len("ciphertext", body_end - body_at, limits::BODY)?;
        let scratch_at = w.position();
        match parsed.container {
            Container::Cose => {
                cose::write_structure(&mut w, parsed.mac0, parsed.protected, parsed.body)
            }
            _ => {
                // The header names the scheme in full: ours (identity was checked).
                w.byte(1);
                w.byte(self.spec().name.len() as u8);
                w.text(self.spec().name);
                w.byte(self.key_id().len() as u8);
                w.bytes(self.key_id());
                w.bytes(&(aad_len as u16).to_be_bytes());
                put_field(&mut w, parsed.aad)?;
            }
        }
        let scratch_end = w.done()?;
        let (front, scratch) = out.split_at_mut(scratch_at);
        let ad = &scratch[..scratch_end - scratch_at];
        let plain_len = match parsed.container {
            // The tag covers the payload inside the structure.
            Container::Cose if parsed.mac0 => {
                self.unprotect(&[], ad, &mut [], parsed.tag.get())?;
                body_end - body_at
            }
            // COSE_Encrypt0's ciphertext carries the tag at its end.
            Container::Cose => {
                let tag_len = self.spec().tag_len();
                if body_end - body_at < tag_len {
                    return Err(Error::Rejected);
                }
                let (body, tag) =
                    front[body_at..body_end].split_at_mut(body_end - body_at - tag_len);
                self.unprotect(nonce, ad, body, tag)?
            }
            _ => self.unprotect(nonce, ad, &mut front[body_at..body_end], parsed.tag.get())?,
        };
        let out: &'o [u8] = out;
        Ok(Opened {
            nonce: &out[..nonce.len()],
            aad: &out[aad_at..aad_at + aad_len],
            plaintext: &out[body_at..body_at + plain_len],
        })
    }
}

/// Copies a field's value into the writer, decoding it.
fn put_field(w: &mut Writer<'_>, field: Field<'_>) -> Result<(), Error> {
    match field {
        Field::Bytes(b) => w.bytes(b),
        Field::Base64(t) => json::decode_base64_into(w, t)?,
        Field::Escaped(t) => json::unescape_into(w, t)?,
    }
    Ok(())
}

/// Reads a message of `container` without opening it.
pub fn parse(container: Container, message: &[u8]) -> Result<Parsed<'_>, Error> {
    check_len("message", message.len(), limits::MESSAGE)?;
    match container {
        Container::Json => json::parse(message),
        Container::Binary => binary::parse(message),
        Container::Cose => cose::parse(message),
    }
}
