//! The `cose` container (RFC 9052): tagged COSE_Mac0 for `hmac`, tagged
//! COSE_Encrypt0 for `etm`, `aead` and `enc`. The protected header holds `alg`
//! and, when given, the associated data under the text label "aad"; the
//! unprotected header holds `kid` and `iv`. External AAD is empty.
//!
//! `alg` is the IANA value where one means exactly our scheme (A128GCM 1,
//! A256GCM 3, HMAC 256/256 5, HMAC 512/512 7, ChaCha20/Poly1305 24,
//! AES-CCM-16-128-128 30, AES-CCM-16-128-256 31), so any COSE library opens
//! those; otherwise it is the scheme name as a text value, which RFC 9052
//! §3.1 allows. Written in CBOR's shortest form; the reader accepts only that.

use super::cbor::{self, ARRAY, BYTES, MAP, NINT, Reader, TAG, TEXT, UINT};
use super::write::Writer;
use super::{Container, Field, Parsed, SchemeRef};
use crate::algorithm::{AeadAlg, CipherAlg, MacAlg};
use crate::engine::{Sealer, Short};
use crate::error::{Error, limits};
use crate::spec::Pattern;

const AAD_LABEL: &str = "aad";
/// COSE header labels (RFC 9052 §3.1).
const ALG: u64 = 1;
const KID: u64 = 4;
const IV: u64 = 5;
const TAG_ENCRYPT0: u64 = 16;
const TAG_MAC0: u64 = 17;

fn malformed(detail: &'static str) -> Error {
    Error::Malformed {
        container: "cose",
        detail,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alg<'n> {
    Number(i64),
    Name(&'n str),
}

/// The IANA number of a scheme, by its parts (no name table on the device).
pub(crate) fn iana(
    pattern: Pattern,
    cipher: Option<CipherAlg>,
    mac: Option<MacAlg>,
) -> Option<i64> {
    Some(match (pattern, cipher, mac) {
        (Pattern::Aead, Some(CipherAlg::Aead(a)), _) => match a {
            AeadAlg::Aes128Gcm => 1,
            AeadAlg::Aes256Gcm => 3,
            AeadAlg::ChaCha20Poly1305 => 24,
            AeadAlg::Aes128Ccm => 30,
            AeadAlg::Aes256Ccm => 31,
            _ => return None,
        },
        (Pattern::Hmac, _, Some(MacAlg::HmacSha256)) => 5,
        (Pattern::Hmac, _, Some(MacAlg::HmacSha512)) => 7,
        _ => return None,
    })
}

pub(crate) fn alg_of(sealer: &Sealer) -> Alg<'_> {
    let spec = sealer.spec();
    match iana(spec.pattern, spec.cipher, spec.mac) {
        Some(n) => Alg::Number(n),
        None => Alg::Name(spec.name),
    }
}

fn write_alg(w: &mut Writer<'_>, alg: Alg<'_>) {
    match alg {
        Alg::Number(n) if n >= 0 => cbor::head(w, UINT, n as usize),
        Alg::Number(n) => cbor::head(w, NINT, (-1 - n) as usize),
        Alg::Name(name) => cbor::tstr(w, name),
    }
}

fn alg_len(alg: Alg<'_>) -> usize {
    match alg {
        Alg::Number(n) if n >= 0 => cbor::head_len(n as usize),
        Alg::Number(n) => cbor::head_len((-1 - n) as usize),
        Alg::Name(name) => cbor::head_len(name.len()) + name.len(),
    }
}

fn protected_len(sealer: &Sealer, aad: usize) -> usize {
    let mut n = 1 + 1 + alg_len(alg_of(sealer));
    if aad > 0 {
        n += 1 + AAD_LABEL.len() + cbor::head_len(aad) + aad;
    }
    n
}

fn write_protected(w: &mut Writer<'_>, sealer: &Sealer, aad: &[u8]) {
    cbor::head(w, MAP, if aad.is_empty() { 1 } else { 2 });
    cbor::head(w, UINT, ALG as usize);
    write_alg(w, alg_of(sealer));
    if !aad.is_empty() {
        cbor::tstr(w, AAD_LABEL);
        cbor::bstr(w, aad);
    }
}

fn bstr_len(n: usize) -> usize {
    cbor::head_len(n) + n
}

fn unprotected_len(sealer: &Sealer) -> usize {
    let (kid, iv) = (sealer.key_id().len(), sealer.spec().nonce_len());
    1 + if kid > 0 { 1 + bstr_len(kid) } else { 0 } + if iv > 0 { 1 + bstr_len(iv) } else { 0 }
}

fn mac0(sealer: &Sealer) -> bool {
    sealer.pattern == Pattern::Hmac
}

pub(super) fn sealed_len(sealer: &Sealer, plaintext: usize, aad: usize) -> usize {
    let spec = sealer.spec();
    let head = 2 + bstr_len(protected_len(sealer, aad)) + unprotected_len(sealer);
    if mac0(sealer) {
        head + bstr_len(plaintext) + bstr_len(spec.tag_len())
    } else {
        head + bstr_len(spec.body_len(plaintext) + spec.tag_len())
    }
}

/// Bytes of the Enc_structure or MAC_structure (RFC 9052 §5.3, §6.3).
pub(super) fn structure_len(sealer: &Sealer, plaintext: usize, aad: usize) -> usize {
    let protected = bstr_len(protected_len(sealer, aad));
    if mac0(sealer) {
        1 + 5 + protected + 1 + bstr_len(plaintext)
    } else {
        1 + 9 + protected + 1
    }
}

/// `["MAC0", protected, h'', payload]` or `["Encrypt0", protected, h'']`.
pub(super) fn write_structure(
    w: &mut Writer<'_>,
    mac0: bool,
    protected: &[u8],
    payload: Field<'_>,
) {
    if mac0 {
        cbor::head(w, ARRAY, 4);
        cbor::tstr(w, "MAC0");
    } else {
        cbor::head(w, ARRAY, 3);
        cbor::tstr(w, "Encrypt0");
    }
    cbor::bstr(w, protected);
    cbor::bstr(w, &[]);
    if mac0 {
        let Field::Bytes(payload) = payload else {
            w.short();
            return;
        };
        cbor::bstr(w, payload);
    }
}

pub(super) fn seal(
    sealer: &Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
    out: &mut [u8],
) -> Result<usize, Error> {
    let spec = sealer.spec();
    let len = sealed_len(sealer, plaintext.len(), aad.len());
    let (message, scratch) = out.split_at_mut(len);
    let mut w = Writer::new(message);
    let mac0 = mac0(sealer);
    cbor::head(
        &mut w,
        TAG,
        if mac0 { TAG_MAC0 } else { TAG_ENCRYPT0 } as usize,
    );
    cbor::head(&mut w, ARRAY, if mac0 { 4 } else { 3 });
    let protected_len = protected_len(sealer, aad.len());
    cbor::head(&mut w, BYTES, protected_len);
    let protected_at = w.position();
    write_protected(&mut w, sealer, aad);
    let kid = sealer.key_id();
    let fields = usize::from(!kid.is_empty()) + usize::from(!nonce.is_empty());
    cbor::head(&mut w, MAP, fields);
    if !kid.is_empty() {
        cbor::head(&mut w, UINT, KID as usize);
        cbor::bstr(&mut w, kid);
    }
    if !nonce.is_empty() {
        cbor::head(&mut w, UINT, IV as usize);
        cbor::bstr(&mut w, nonce);
    }
    let body_len = spec.body_len(plaintext.len());
    let tag_len = spec.tag_len();
    if mac0 {
        cbor::bstr(&mut w, plaintext);
        cbor::head(&mut w, BYTES, tag_len);
    } else {
        cbor::head(&mut w, BYTES, body_len + tag_len);
    }
    let body_at = w.position();
    if !mac0 {
        w.bytes(plaintext);
    }
    w.done()?;
    let protected = &message[protected_at..protected_at + protected_len];
    let mut s = Writer::new(scratch);
    let payload = if mac0 {
        Field::Bytes(plaintext)
    } else {
        Field::Bytes(&[])
    };
    write_structure(&mut s, mac0, protected, payload);
    let ad_len = s.done()?;
    let ad = &scratch[..ad_len];
    if mac0 {
        sealer.protect(
            &[],
            ad,
            &mut [],
            0,
            &mut message[body_at..body_at + tag_len],
        )?;
    } else {
        let (body, tag) = message[body_at..].split_at_mut(body_len);
        sealer.protect(nonce, ad, body, plaintext.len(), tag)?;
    }
    Ok(len)
}

pub(super) fn parse(bytes: &[u8]) -> Result<Parsed<'_>, Error> {
    let mut r = Reader { rest: bytes };
    let (major, tag) = r.head("COSE tag")?;
    let mac0 = match (major, tag) {
        (TAG, TAG_MAC0) => true,
        (TAG, TAG_ENCRYPT0) => false,
        _ => {
            return Err(malformed(
                "not a tagged COSE_Encrypt0 (16) or COSE_Mac0 (17)",
            ));
        }
    };
    r.expect(
        ARRAY,
        if mac0 { 4 } else { 3 },
        "a COSE message is an array of 3 (Encrypt0) or 4 (Mac0) items",
    )?;
    let protected = r.bstr("protected header", limits::AAD.saturating_add(256))?;
    let (scheme, aad) = read_protected(protected)?;
    let (key_id, nonce) = read_unprotected(&mut r)?;
    let (body, tag) = if mac0 {
        let payload = r.bstr("payload", limits::BODY)?;
        (payload, r.bstr("tag", limits::TAG)?)
    } else {
        let (major, _) = peek(&r)?;
        if major != BYTES {
            return Err(malformed("detached ciphertexts are not supported"));
        }
        (
            r.bstr("ciphertext", limits::BODY.saturating_add(limits::TAG))?,
            &[][..],
        )
    };
    r.end()?;
    Ok(Parsed {
        container: Container::Cose,
        scheme,
        key_id: Short::new(key_id, "key id")?,
        nonce: Short::new(nonce, "nonce")?,
        tag: Short::new(tag, "tag")?,
        aad: Field::Bytes(aad),
        body: Field::Bytes(body),
        iv_present: !nonce.is_empty(),
        protected,
        mac0,
        text: false,
    })
}

fn peek(r: &Reader<'_>) -> Result<(u8, u64), Error> {
    let mut copy = Reader { rest: r.rest };
    copy.head("ciphertext")
}

/// `{1: alg}` or `{1: alg, "aad": h'…'}`, nothing else.
fn read_protected(bytes: &[u8]) -> Result<(SchemeRef<'_>, &[u8]), Error> {
    let other = || malformed("header parameters other than alg, aad, kid and iv");
    let mut r = Reader { rest: bytes };
    let (major, n) = r.head("protected header")?;
    if major != MAP || !(1..=2).contains(&n) {
        return Err(other());
    }
    if r.head("alg label")? != (UINT, ALG) {
        return Err(other());
    }
    let scheme = match r.head("alg")? {
        (UINT, v) if v <= i64::MAX as u64 => SchemeRef::Cose(v as i64),
        (NINT, v) if v < i64::MAX as u64 => SchemeRef::Cose(-1 - v as i64),
        (TEXT, len) => {
            if len > limits::SCHEME as u64 {
                return Err(Error::Oversize {
                    field: "scheme",
                    len: len as usize,
                    max: limits::SCHEME,
                });
            }
            SchemeRef::Name(r.text_body(len, "alg")?)
        }
        _ => return Err(malformed("alg is neither a number nor a text")),
    };
    let mut aad: &[u8] = &[];
    if n == 2 {
        let (major, len) = r.head("aad label")?;
        if major != TEXT || r.text_body(len, "aad label")? != AAD_LABEL {
            return Err(other());
        }
        aad = r.bstr("aad", limits::AAD)?;
        if aad.is_empty() {
            return Err(malformed("not in canonical form: an empty aad is left out"));
        }
    }
    r.end().map_err(|_| other())?;
    Ok((scheme, aad))
}

/// `{4: kid}` or `{4: kid, 5: iv}`, in that order.
fn read_unprotected<'m>(r: &mut Reader<'m>) -> Result<(&'m [u8], &'m [u8]), Error> {
    let other = || malformed("header parameters other than alg, aad, kid and iv");
    let (major, n) = r.head("unprotected header")?;
    if major != MAP || n > 2 {
        return Err(other());
    }
    let (mut kid, mut iv): (&[u8], &[u8]) = (&[], &[]);
    let mut last = 0;
    for _ in 0..n {
        let (major, label) = r.head("header label")?;
        if major != UINT || label <= last {
            return Err(other());
        }
        match label {
            KID => kid = r.bstr("key id", limits::KEY_ID)?,
            IV => iv = r.bstr("nonce", limits::NONCE)?,
            _ => return Err(other()),
        }
        last = label;
    }
    if kid.is_empty() {
        return Err(malformed("no kid in the unprotected header"));
    }
    Ok((kid, iv))
}
