//! The `json` container, after study 003's Appendix B:
//! `{"v":1,"scheme":…,"kid":…,"iv":…,"aad":…,"tag":…,"data":…}` with standard
//! padded base64 for `iv`, `tag` and `data`. `hmac` messages carry a UTF-8
//! plaintext readable as `"text"` instead of `"data"`, as the study's HMAC
//! messages did. Opening re-serializes what it parsed and demands the same
//! bytes, so every message has exactly one spelling.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::{Opened, check_len, header};
use crate::engine::Sealer;
use crate::error::{SealError, limits};
use crate::scheme::Pattern;

const NAME: &str = "json";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    v: u8,
    scheme: String,
    kid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    iv: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    aad: Option<String>,
    tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
}

pub(super) fn seal(
    sealer: &mut Sealer,
    nonce: &[u8],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, SealError> {
    let aad_text = match aad {
        [] => None,
        _ => Some(
            std::str::from_utf8(aad)
                .map_err(|_| {
                    SealError::malformed(
                        NAME,
                        "associated data must be UTF-8 text in the json container",
                    )
                })?
                .to_string(),
        ),
    };
    let scheme = sealer.scheme.name().to_string();
    let ad = header(&scheme, &sealer.key_id, aad);
    let (body, tag) = sealer.protect(nonce, &ad, plaintext)?;
    let readable = sealer.scheme.pattern == Pattern::Hmac;
    let (data, text) = match (readable, std::str::from_utf8(&body)) {
        (true, Ok(text)) => (None, Some(text.to_string())),
        _ => (Some(STANDARD.encode(&body)), None),
    };
    let message = Message {
        v: 1,
        scheme,
        kid: hex::encode(&sealer.key_id),
        iv: (!nonce.is_empty()).then(|| STANDARD.encode(nonce)),
        aad: aad_text,
        tag: STANDARD.encode(&tag),
        data,
        text,
    };
    serde_json::to_vec(&message).map_err(|e| SealError::malformed(NAME, e.to_string()))
}

pub(super) fn open(sealer: &mut Sealer, bytes: &[u8]) -> Result<Opened, SealError> {
    let message: Message = serde_json::from_slice(bytes)
        .map_err(|e| SealError::malformed(NAME, format!("not a sealed message: {e}")))?;
    let canonical =
        serde_json::to_vec(&message).map_err(|e| SealError::malformed(NAME, e.to_string()))?;
    if canonical != bytes {
        return Err(SealError::malformed(
            NAME,
            "not in canonical form (field order, white space or escapes differ)",
        ));
    }
    if message.v != 1 {
        return Err(SealError::malformed(
            NAME,
            format!("version {} is not supported (expected 1)", message.v),
        ));
    }
    check_len("scheme", message.scheme.len(), limits::SCHEME)?;
    let key_id = decode_hex("kid", &message.kid, limits::KEY_ID)?;
    sealer.check_identity(&message.scheme, &key_id)?;

    let nonce = match &message.iv {
        Some(iv) => decode_b64("iv", iv, limits::NONCE)?,
        None => Vec::new(),
    };
    let tag = decode_b64("tag", &message.tag, limits::TAG)?;
    let aad = message.aad.clone().unwrap_or_default().into_bytes();
    check_len("aad", aad.len(), limits::AAD)?;
    let hmac = sealer.scheme.pattern == Pattern::Hmac;
    let body = match (&message.data, &message.text) {
        (Some(data), None) => decode_b64("data", data, limits::BODY)?,
        (None, Some(text)) if hmac => {
            check_len("text", text.len(), limits::BODY)?;
            text.as_bytes().to_vec()
        }
        _ => {
            return Err(SealError::malformed(
                NAME,
                "expected exactly one of \"data\" or (for hmac) \"text\"",
            ));
        }
    };
    if (message.iv.is_some()) != (sealer.scheme.nonce_len() > 0) {
        return Err(SealError::malformed(
            NAME,
            format!(
                "\"iv\" must be present exactly when {} uses one",
                sealer.scheme
            ),
        ));
    }
    let ad = header(&message.scheme, &key_id, &aad);
    let plaintext = sealer.unprotect(&nonce, &ad, &body, &tag)?;
    Ok(Opened {
        plaintext,
        aad,
        nonce,
    })
}

fn decode_b64(field: &'static str, text: &str, max: usize) -> Result<Vec<u8>, SealError> {
    let padding = text.bytes().rev().take_while(|&b| b == b'=').count();
    check_len(field, (text.len() / 4 * 3).saturating_sub(padding), max)?;
    STANDARD
        .decode(text)
        .map_err(|e| SealError::malformed(NAME, format!("\"{field}\" is not padded base64: {e}")))
}

fn decode_hex(field: &'static str, text: &str, max: usize) -> Result<Vec<u8>, SealError> {
    check_len(field, text.len() / 2, max)?;
    if !text.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) || text.is_empty() {
        return Err(SealError::malformed(
            NAME,
            format!("\"{field}\" must be lower-case hex"),
        ));
    }
    hex::decode(text).map_err(|e| SealError::malformed(NAME, format!("\"{field}\": {e}")))
}
