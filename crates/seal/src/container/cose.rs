//! The `cose` container (RFC 9052): tagged COSE_Mac0 for `hmac`, tagged
//! COSE_Encrypt0 for `etm`, `aead` and `enc`. The protected header holds `alg`
//! and, when given, the associated data under the text label "aad"; the
//! unprotected header holds `kid` and `iv`. External AAD is empty.
//!
//! `alg` is the IANA value where one means exactly our scheme (A128GCM 1,
//! A192GCM 2, A256GCM 3, HMAC 256/256 5, HMAC 384/384 6, HMAC 512/512 7,
//! ChaCha20/Poly1305 24, AES-CCM-16-128-128 30, AES-CCM-16-128-256 31), so
//! any COSE library opens those; otherwise it is the scheme name as a text
//! value, which RFC 9052 §3.1 allows.

use coset::iana::{self, EnumI64};
use coset::{
    Algorithm, CborSerializable, CoseEncrypt0, CoseEncrypt0Builder, CoseMac0, CoseMac0Builder,
    Header, HeaderBuilder, Label, RegisteredLabelWithPrivate, TaggedCborSerializable,
    cbor::value::Value,
};

use super::{Opened, check_len};
use crate::engine::Sealer;
use crate::error::{SealError, limits};
use crate::scheme::Pattern;

const NAME: &str = "cose";
const AAD_LABEL: &str = "aad";

const IANA: [(&str, iana::Algorithm); 9] = [
    ("aead:aes-128-gcm", iana::Algorithm::A128GCM),
    ("aead:aes-192-gcm", iana::Algorithm::A192GCM),
    ("aead:aes-256-gcm", iana::Algorithm::A256GCM),
    ("hmac:hmac-sha256", iana::Algorithm::HMAC_256_256),
    ("hmac:hmac-sha384", iana::Algorithm::HMAC_384_384),
    ("hmac:hmac-sha512", iana::Algorithm::HMAC_512_512),
    ("aead:chacha20-poly1305", iana::Algorithm::ChaCha20Poly1305),
    ("aead:aes-128-ccm", iana::Algorithm::AES_CCM_16_128_128),
    ("aead:aes-256-ccm", iana::Algorithm::AES_CCM_16_128_256),
];

/// The COSE `alg` for a scheme name.
pub fn algorithm(scheme: &str) -> Algorithm {
    match IANA.iter().find(|(name, _)| *name == scheme) {
        Some((_, alg)) => RegisteredLabelWithPrivate::Assigned(*alg),
        None => RegisteredLabelWithPrivate::Text(scheme.to_string()),
    }
}

fn scheme_of(alg: &Algorithm) -> Result<String, SealError> {
    match alg {
        RegisteredLabelWithPrivate::Assigned(a) => IANA
            .iter()
            .find(|(_, known)| known == a)
            .map(|(name, _)| name.to_string())
            .ok_or_else(|| SealError::UnknownScheme(format!("COSE alg {}", a.to_i64()))),
        RegisteredLabelWithPrivate::Text(t) => Ok(t.clone()),
        RegisteredLabelWithPrivate::PrivateUse(v) => {
            Err(SealError::UnknownScheme(format!("COSE alg {v}")))
        }
    }
}

fn cose_err(e: coset::CoseError) -> SealError {
    SealError::malformed(NAME, e.to_string())
}

fn headers(sealer: &Sealer, nonce: &[u8], aad: &[u8]) -> (Header, Header) {
    let mut protected = HeaderBuilder::new().algorithm_label(algorithm(sealer.scheme.name()));
    if !aad.is_empty() {
        protected = protected.text_value(AAD_LABEL.into(), Value::Bytes(aad.to_vec()));
    }
    let mut unprotected = HeaderBuilder::new().key_id(sealer.key_id.clone());
    if !nonce.is_empty() {
        unprotected = unprotected.iv(nonce.to_vec());
    }
    (protected.build(), unprotected.build())
}

pub(super) fn seal(
    sealer: &mut Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let (protected, unprotected) = headers(sealer, nonce, aad);
    if sealer.scheme.pattern == Pattern::Hmac {
        let mac0 = CoseMac0Builder::new()
            .protected(protected)
            .unprotected(unprotected)
            .payload(plaintext.to_vec())
            .try_create_tag(&[], |to_be_maced| {
                sealer.protect(&[], to_be_maced, &[]).map(|(_, tag)| tag)
            })?
            .build();
        mac0.to_tagged_vec().map_err(cose_err)
    } else {
        let encrypt0 = CoseEncrypt0Builder::new()
            .protected(protected)
            .unprotected(unprotected)
            .try_create_ciphertext(plaintext, &[], |pt, enc_structure| {
                sealer
                    .protect(nonce, enc_structure, pt)
                    .map(|(mut body, tag)| {
                        body.extend_from_slice(&tag);
                        body
                    })
            })?
            .build();
        encrypt0.to_tagged_vec().map_err(cose_err)
    }
}

/// Checks the headers hold exactly what we write: nothing unknown, nothing critical.
fn read_headers(
    sealer: &Sealer,
    protected: &Header,
    unprotected: &Header,
) -> Result<(Vec<u8>, Vec<u8>), SealError> {
    let alg = protected
        .alg
        .as_ref()
        .ok_or_else(|| SealError::malformed(NAME, "no alg in the protected header"))?;
    let scheme = scheme_of(alg)?;
    check_len("scheme", scheme.len(), limits::SCHEME)?;
    check_len("key id", unprotected.key_id.len(), limits::KEY_ID)?;
    check_len("nonce", unprotected.iv.len(), limits::NONCE)?;
    sealer.check_identity(&scheme, &unprotected.key_id)?;
    let unexpected = !protected.crit.is_empty()
        || protected.content_type.is_some()
        || !protected.key_id.is_empty()
        || !protected.iv.is_empty()
        || !protected.partial_iv.is_empty()
        || !protected.counter_signatures.is_empty()
        || unprotected.alg.is_some()
        || !unprotected.crit.is_empty()
        || unprotected.content_type.is_some()
        || !unprotected.partial_iv.is_empty()
        || !unprotected.counter_signatures.is_empty()
        || !unprotected.rest.is_empty();
    if unexpected {
        return Err(SealError::malformed(
            NAME,
            "header parameters other than alg, aad, kid and iv",
        ));
    }
    let aad = match protected.rest.as_slice() {
        [] => Vec::new(),
        [(Label::Text(label), Value::Bytes(aad))] if label == AAD_LABEL && !aad.is_empty() => {
            check_len("aad", aad.len(), limits::AAD)?;
            aad.clone()
        }
        _ => {
            return Err(SealError::malformed(
                NAME,
                "unexpected protected header parameters",
            ));
        }
    };
    if unprotected.iv.len() != sealer.scheme.nonce_len() {
        return Err(SealError::Rejected);
    }
    Ok((unprotected.iv.clone(), aad))
}

/// A message of the other structure (COSE_Mac0 for an encryption key,
/// COSE_Encrypt0 for a MAC key) still names its key: the identity error that
/// lets a keyring holding both kinds find the right one. None if it is not
/// that structure either, or names this very key.
fn whose_instead(sealer: &Sealer, bytes: &[u8]) -> Option<SealError> {
    let headers = if sealer.scheme.pattern == Pattern::Hmac {
        CoseEncrypt0::from_tagged_slice(bytes)
            .ok()
            .map(|m| (m.protected.header, m.unprotected))
    } else {
        CoseMac0::from_tagged_slice(bytes)
            .ok()
            .map(|m| (m.protected.header, m.unprotected))
    };
    let (protected, unprotected) = headers?;
    read_headers(sealer, &protected, &unprotected).err()
}

pub(super) fn open(sealer: &mut Sealer, bytes: &[u8]) -> Result<Opened, SealError> {
    if sealer.scheme.pattern == Pattern::Hmac {
        let mac0 = CoseMac0::from_tagged_slice(bytes)
            .map_err(|e| whose_instead(sealer, bytes).unwrap_or_else(|| cose_err(e)))?;
        require_canonical(mac0.clone().to_tagged_vec(), bytes)?;
        let (_, aad) = read_headers(sealer, &mac0.protected.header, &mac0.unprotected)?;
        let payload = mac0
            .payload
            .clone()
            .ok_or_else(|| SealError::malformed(NAME, "detached payloads are not supported"))?;
        check_len("payload", payload.len(), limits::BODY)?;
        check_len("tag", mac0.tag.len(), limits::TAG)?;
        mac0.verify_payload_tag(
            &[],
            || SealError::Rejected,
            |tag, to_be_maced| sealer.unprotect(&[], to_be_maced, &[], tag).map(|_| ()),
        )?;
        Ok(Opened {
            plaintext: zeroize::Zeroizing::new(payload),
            aad,
            nonce: Vec::new(),
        })
    } else {
        let encrypt0 = CoseEncrypt0::from_tagged_slice(bytes)
            .map_err(|e| whose_instead(sealer, bytes).unwrap_or_else(|| cose_err(e)))?;
        require_canonical(encrypt0.clone().to_tagged_vec(), bytes)?;
        let (nonce, aad) = read_headers(sealer, &encrypt0.protected.header, &encrypt0.unprotected)?;
        let tag_len = sealer.scheme.tag_len();
        let plaintext = encrypt0.decrypt_ciphertext(
            &[],
            || SealError::malformed(NAME, "detached ciphertexts are not supported"),
            |ct, enc_structure| {
                check_len("ciphertext", ct.len(), limits::BODY)?;
                if ct.len() < tag_len {
                    return Err(SealError::Rejected);
                }
                let (body, tag) = ct.split_at(ct.len() - tag_len);
                sealer
                    .unprotect(&nonce, enc_structure, body, tag)
                    .map(|p| p.to_vec())
            },
        )?;
        Ok(Opened {
            plaintext: zeroize::Zeroizing::new(plaintext),
            aad,
            nonce,
        })
    }
}

/// One message, one encoding: CBOR allows longer spellings of the same
/// values, so anything but the encoding we would write is refused.
fn require_canonical(
    reencoded: Result<Vec<u8>, coset::CoseError>,
    bytes: &[u8],
) -> Result<(), SealError> {
    if reencoded.map_err(cose_err)? != bytes {
        return Err(SealError::malformed(NAME, "not in canonical CBOR form"));
    }
    Ok(())
}

#[allow(dead_code)]
fn _assert_traits(m: CoseMac0) -> Result<Vec<u8>, coset::CoseError> {
    m.to_vec()
}
