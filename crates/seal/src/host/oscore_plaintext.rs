//! OSCORE over a plaintext the caller wrote: RFC 8824 §7.2 compresses the
//! inner message (code, class E options, payload) with SCHC before it is
//! encrypted, so the AEAD runs over the compressed bytes, and the recipient
//! decompresses after decrypting. `ciphermeter-schc`'s `oscore` module does
//! the compression around these functions.
//!
//! The core protects only a plaintext it writes itself, and its context's
//! AEADs are its own; changing it moves the firmware revision. So this module
//! keys the same AEADs from the context file's secrets (RFC 8613 §3.2.1) and
//! writes the request as the core's reading does (`oscore::reading`:
//! non-confirmable POST, message id the sequence number's low 16 bits, token
//! the Partial IV). Its tests hold both to the core byte for byte, for every
//! algorithm: a reading's plaintext, written by hand, seals to the very bytes
//! `seal_request` writes, and opens back.

use aes::{Aes128, Aes256};
use ccm::Ccm;
use ccm::consts::{U7, U8, U13, U16};
use cipher::KeyInit;
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use super::oscore::{OpenedReading, OscoreKey, SealedRequest};
use crate::algorithm::AeadAlg;
use crate::backend::Backend;
use crate::container::write::Writer;
use crate::error::Error;
use crate::keyed::{AeadKey, aead_open, aead_seal};
use crate::oscore::coap::{self, CoapOption, MessageType, Parsed, code, option};
use crate::oscore::context::{Bytes, info, partial_iv, sequence_of};
use crate::oscore::protect::{OptionValue, oscore_option, write_aad};
use crate::oscore::{Alg, OscoreError, ReplayWindow, RequestId};

const PAYLOAD_MARKER: u8 = 0xff;

/// A plaintext's code, encoded options and payload, as `Parsed` holds them
/// (its header fields empty).
pub fn parse_plaintext(plaintext: &[u8]) -> Result<Parsed<'_>, OscoreError> {
    let (&code, rest) = plaintext
        .split_first()
        .ok_or(OscoreError::Malformed("an empty plaintext"))?;
    let (options_raw, payload) = coap::split_options(rest)?;
    Ok(Parsed {
        mtype: MessageType::NonConfirmable,
        code,
        message_id: 0,
        token: &[],
        options_raw,
        payload,
    })
}

/// One direction's key (RFC 8613 §3.2.1), as `Context::derive` makes it.
fn key_of(key: &OscoreKey, id: &[u8]) -> Result<Zeroizing<Vec<u8>>, OscoreError> {
    let mut buf = [0u8; 128];
    let len = key.alg.key_len();
    let info = info(id, key.id_context.as_deref(), key.alg, "Key", len, &mut buf)?;
    let mut out = Zeroizing::new(vec![0u8; len]);
    Hkdf::<Sha256>::new(Some(&key.master_salt), key.master_secret())
        .expand(info, &mut out)
        .map_err(|_| OscoreError::Core(Error::KeyLength))?;
    Ok(out)
}

/// Seals (or opens) `buf` in place with `alg` under `key`: the AEADs the
/// core's context keys for each algorithm.
fn crypt(
    alg: Alg,
    key: &[u8],
    seal: bool,
    nonce: &[u8],
    aad: &[u8],
    buf: &mut [u8],
    tag: &mut [u8],
) -> Result<(), Error> {
    fn with<A: KeyInit + aead::AeadInOut>(
        key: &[u8],
        seal: bool,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        let a = A::new_from_slice(key).map_err(|_| Error::KeyLength)?;
        if seal {
            aead_seal(&a, nonce, aad, buf, tag)
        } else {
            aead_open(&a, nonce, aad, buf, tag)
        }
    }
    let core = |alg: AeadAlg, buf: &mut [u8], tag: &mut [u8]| {
        let a = AeadKey::new(alg, key, Backend::BUILT)?;
        if seal {
            a.seal(nonce, aad, buf, tag)
        } else {
            a.open(nonce, aad, buf, tag)
        }
    };
    use Alg::*;
    match alg {
        AesCcm16_64_128 => with::<Ccm<Aes128, U8, U13>>(key, seal, nonce, aad, buf, tag),
        AesCcm16_64_256 => with::<Ccm<Aes256, U8, U13>>(key, seal, nonce, aad, buf, tag),
        AesCcm64_64_128 => with::<Ccm<Aes128, U8, U7>>(key, seal, nonce, aad, buf, tag),
        AesCcm64_64_256 => with::<Ccm<Aes256, U8, U7>>(key, seal, nonce, aad, buf, tag),
        AesCcm64_128_128 => with::<Ccm<Aes128, U16, U7>>(key, seal, nonce, aad, buf, tag),
        AesCcm64_128_256 => with::<Ccm<Aes256, U16, U7>>(key, seal, nonce, aad, buf, tag),
        AesCcm16_128_128 => core(AeadAlg::Aes128Ccm, buf, tag),
        AesCcm16_128_256 => core(AeadAlg::Aes256Ccm, buf, tag),
        A128Gcm => core(AeadAlg::Aes128Gcm, buf, tag),
        A256Gcm => core(AeadAlg::Aes256Gcm, buf, tag),
        ChaCha20Poly1305 => core(AeadAlg::ChaCha20Poly1305, buf, tag),
    }
}

/// The AAD of §5.4 for `request`.
fn aad(key: &OscoreKey, request: &RequestId) -> Result<Vec<u8>, OscoreError> {
    let mut buf = [0u8; 128];
    let mut w = Writer::new(&mut buf);
    write_aad(&mut w, key.context(), request);
    let n = w.done().map_err(OscoreError::Core)?;
    Ok(buf[..n].to_vec())
}

/// Protects `plaintext` (an inner message, compressed or not) as a reading's
/// request with `sequence` (reserved by the caller, never used before).
pub fn protect_request_plaintext(
    key: &OscoreKey,
    sequence: u64,
    plaintext: &[u8],
) -> Result<SealedRequest, OscoreError> {
    if plaintext.is_empty() {
        return Err(OscoreError::Malformed("an empty plaintext"));
    }
    let ctx = key.context();
    let piv = partial_iv(sequence)?;
    let kid = ctx.sender_id;
    let value = OptionValue {
        partial_iv: Some(piv.as_slice()),
        kid_context: ctx.id_context.as_ref().map(|c| c.as_slice()),
        kid: Some(kid.as_slice()),
    };
    let mut oscore = vec![0u8; value.encoded_len()];
    let mut w = Writer::new(&mut oscore);
    value.write(&mut w);
    w.done().map_err(OscoreError::Core)?;
    let tag_len = ctx.alg.tag_len();
    let options = [CoapOption {
        number: option::OSCORE,
        value: &oscore,
    }];
    let head_len = 4 + piv.as_slice().len() + coap::options_len(options.iter().copied())? + 1;
    let mut out = vec![0u8; head_len + plaintext.len() + tag_len];
    let mut w = Writer::new(&mut out);
    coap::write_head(
        &mut w,
        MessageType::NonConfirmable,
        code::POST,
        sequence as u16,
        piv.as_slice(),
    )?;
    coap::write_options(&mut w, options.iter().copied());
    w.byte(PAYLOAD_MARKER);
    w.bytes(plaintext);
    w.advance(tag_len);
    w.done().map_err(OscoreError::Core)?;
    let request = RequestId {
        kid,
        partial_iv: piv,
    };
    let nonce = ctx.nonce(kid.as_slice(), piv.as_slice())?;
    let aad = aad(key, &request)?;
    let sender = key_of(key, &key.sender_id)?;
    let (body, tag) = out[head_len..].split_at_mut(plaintext.len());
    crypt(ctx.alg, &sender, true, nonce.as_slice(), &aad, body, tag).map_err(OscoreError::Core)?;
    Ok(SealedRequest {
        bytes: out,
        id: request,
        sequence,
    })
}

/// A verified request's plaintext (§8.2), its id and sequence number; the
/// window records the request only once its tag verified.
pub fn open_request_plaintext(
    key: &OscoreKey,
    window: &mut ReplayWindow,
    message: &[u8],
) -> Result<(Vec<u8>, RequestId, u64), OscoreError> {
    let ctx = key.context();
    let outer = coap::parse(message)?;
    let value = oscore_option(&outer)?;
    let (Some(piv), Some(kid)) = (value.partial_iv, value.kid) else {
        return Err(OscoreError::BadOption(
            "a request needs a kid and a Partial IV",
        ));
    };
    if kid != ctx.recipient_id.as_slice()
        || value
            .kid_context
            .is_some_and(|c| Some(c) != ctx.id_context.as_ref().map(|c| c.as_slice()))
    {
        return Err(OscoreError::UnknownContext);
    }
    let sequence = sequence_of(piv)?;
    window.check(sequence)?;
    let request = RequestId {
        kid: Bytes::new(kid).ok_or(OscoreError::UnknownContext)?,
        partial_iv: Bytes::new(piv).ok_or(OscoreError::Malformed("Partial IV of 1 to 5 bytes"))?,
    };
    let tag_len = ctx.alg.tag_len();
    let sealed = outer.payload;
    if sealed.len() < tag_len + 1 {
        return Err(OscoreError::DecryptionFailed);
    }
    let (body, tag) = sealed.split_at(sealed.len() - tag_len);
    let mut plain = Zeroizing::new(body.to_vec());
    let mut tag = tag.to_vec();
    let nonce = ctx.nonce(kid, piv)?;
    let aad = aad(key, &request)?;
    let recipient = key_of(key, &key.recipient_id)?;
    crypt(
        ctx.alg,
        &recipient,
        false,
        nonce.as_slice(),
        &aad,
        &mut plain,
        &mut tag,
    )
    .map_err(|_| OscoreError::DecryptionFailed)?;
    window.accept(sequence);
    Ok((plain.to_vec(), request, sequence))
}

/// The opened reading of `message`, whose (decompressed) plaintext is `plaintext`.
pub fn opened_reading(
    message: &[u8],
    plaintext: &[u8],
    id: RequestId,
    sequence: u64,
) -> Result<OpenedReading, OscoreError> {
    let outer = coap::parse(message)?;
    let inner = parse_plaintext(plaintext)?;
    super::oscore::opened(&outer, &inner, id, sequence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::oscore::{open_request, seal_request};

    #[test]
    fn a_written_plaintext_seals_and_opens_as_the_core_does_under_every_algorithm() {
        let reading = br#"{"t":21.5}"#;
        for alg in Alg::every() {
            let (device, gateway) = OscoreKey::generate_pair(alg).unwrap();
            // POST; Uri-Path "readings" (or "a", "b"); Content-Format 50 (42); the reading.
            let json = [&b"\x02\xb8readings\x11\x32\xff"[..], reading].concat();
            let octets = [&b"\x02\xb1a\x01b\x11\x2a\xff"[..], reading].concat();
            for (sequence, path, format, plain) in
                [(0, "readings", 50, json), (70_000, "a/b", 42, octets)]
            {
                let ours = protect_request_plaintext(&device, sequence, &plain).unwrap();
                let core = seal_request(&device, sequence, reading, path, format).unwrap();
                assert_eq!(ours.bytes, core.bytes, "{}", alg.name());
                assert_eq!(ours.id, core.id);
                let mut window = ReplayWindow::new();
                let (back, id, seq) =
                    open_request_plaintext(&gateway, &mut window, &core.bytes).unwrap();
                assert_eq!((&back, id, seq), (&plain, core.id, sequence));
                let opened = opened_reading(&core.bytes, &back, id, seq).unwrap();
                let mut window = ReplayWindow::new();
                let theirs = open_request(&gateway, &mut window, &core.bytes).unwrap();
                assert_eq!(
                    (opened.reading, opened.uri_path, opened.token),
                    (theirs.reading, theirs.uri_path, theirs.token)
                );
            }
        }
    }

    #[test]
    fn an_altered_byte_or_a_replay_is_refused() {
        let (device, gateway) = OscoreKey::generate_pair(Alg::AesCcm16_64_128).unwrap();
        let sealed = protect_request_plaintext(&device, 5, &[0x6e, 1, 2, 3]).unwrap();
        let mut window = ReplayWindow::new();
        let mut bad = sealed.bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(
            open_request_plaintext(&gateway, &mut window, &bad).unwrap_err(),
            OscoreError::DecryptionFailed
        );
        let (plain, _, _) = open_request_plaintext(&gateway, &mut window, &sealed.bytes).unwrap();
        assert_eq!(plain, [0x6e, 1, 2, 3]);
        assert!(matches!(
            open_request_plaintext(&gateway, &mut window, &sealed.bytes),
            Err(OscoreError::Replayed { sequence: 5 })
        ));
    }
}
