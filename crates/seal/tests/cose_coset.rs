//! Our `cose` container held to an independent COSE implementation: the
//! `coset` crate parses each message as the tagged COSE_Encrypt0 (CBOR tag 16)
//! or COSE_Mac0 (tag 17) docs/containers.md says we write, builds RFC 9052's
//! Enc_structure (§5.3) or MAC_structure (§6.3) itself from the protected
//! header bytes, and the RustCrypto primitives are called directly on that
//! (AES-GCM, AES-CCM, ChaCha20-Poly1305, HMAC; EtM's HKDF keys, HMAC and
//! AES-CBC as the doc's "Keys" and "What the tag covers" say). Nothing of our
//! own container writer or reader takes part in opening.

use aead::{AeadInOut, KeyInit, Nonce, Tag};
use ciphermeter_seal::{
    Container, HostSealer, NoncePolicy, NonceSource, RandomNonces, Scheme, SealKey,
};
use coset::cbor::value::Value;
use coset::{
    Algorithm, CborSerializable, CoseEncrypt0, CoseMac0, Label, TaggedCborSerializable, iana,
};
use hmac::{Hmac, Mac};
use sha2::{Sha256, Sha512};

const READING: &[u8] = br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;

/// The AEAD's decryption of `ciphertext || tag` under the Enc_structure.
fn aead_open<A: AeadInOut + KeyInit>(
    key: &[u8],
    nonce: &[u8],
    enc_structure: &[u8],
    ct_and_tag: &[u8],
) -> Result<Vec<u8>, String> {
    let cipher = A::new_from_slice(key).map_err(|e| e.to_string())?;
    let nonce = Nonce::<A>::try_from(nonce).map_err(|_| "nonce length".to_string())?;
    let split = ct_and_tag
        .len()
        .checked_sub(16)
        .ok_or("shorter than a tag")?;
    let (ct, tag) = ct_and_tag.split_at(split);
    let tag = Tag::<A>::try_from(tag).map_err(|_| "tag length".to_string())?;
    let mut buffer = ct.to_vec();
    cipher
        .decrypt_inout_detached(&nonce, enc_structure, buffer.as_mut_slice().into(), &tag)
        .map_err(|_| "tag refused".to_string())?;
    Ok(buffer)
}

type Aes128Ccm = ccm::Ccm<aes::Aes128, ccm::consts::U16, ccm::consts::U13>;
type Aes256Ccm = ccm::Ccm<aes::Aes256, ccm::consts::U16, ccm::consts::U13>;

/// The COSE alg each AEAD scheme must carry (docs/containers.md's table).
fn aead_alg(scheme: &str) -> iana::Algorithm {
    match scheme {
        "aead:aes-128-gcm" => iana::Algorithm::A128GCM,
        "aead:aes-256-gcm" => iana::Algorithm::A256GCM,
        "aead:aes-128-ccm" => iana::Algorithm::AES_CCM_16_128_128,
        "aead:aes-256-ccm" => iana::Algorithm::AES_CCM_16_128_256,
        "aead:chacha20-poly1305" => iana::Algorithm::ChaCha20Poly1305,
        other => panic!("{other}"),
    }
}

/// The protected header's `"aad"` parameter, when there is one.
fn protected_aad(header: &coset::Header) -> Option<Vec<u8>> {
    header
        .rest
        .iter()
        .find_map(|(label, value)| match (label, value) {
            (Label::Text(t), Value::Bytes(b)) if t == "aad" => Some(b.clone()),
            _ => None,
        })
}

/// Parses `message` as COSE_Encrypt0 with coset and opens it with `open`,
/// fed coset's Enc_structure (external AAD empty, as the doc says).
fn coset_open_encrypt0(
    message: &[u8],
    open: impl FnOnce(&[u8], &[u8], &[u8]) -> Result<Vec<u8>, String>,
) -> Result<(CoseEncrypt0, Vec<u8>), String> {
    let cose = CoseEncrypt0::from_tagged_slice(message).map_err(|e| format!("coset: {e}"))?;
    let iv = cose.unprotected.iv.clone();
    let plaintext = cose.decrypt_ciphertext(
        b"",
        || "no ciphertext".to_string(),
        |ct, enc_structure| open(&iv, enc_structure, ct),
    )?;
    Ok((cose, plaintext))
}

fn seal(key: &SealKey, aad: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let nonce = RandomNonces.next_nonce(key.scheme.nonce_len()).unwrap();
    let message = HostSealer::new(key, false)
        .unwrap()
        .seal(Container::Cose, &nonce, READING, aad)
        .unwrap();
    (nonce, message)
}

/// Flips one bit of each part that must be covered: the protected header
/// (alg, and the aad when given), the ciphertext or payload, the tag.
fn tampered(message: &[u8], aad: &[u8]) -> Vec<Vec<u8>> {
    let mut at = vec![message.len() - 1, message.len() - 20];
    if !aad.is_empty() {
        let start = message
            .windows(aad.len())
            .position(|w| w == aad)
            .expect("aad in the message");
        at.push(start);
    }
    // The protected header's bstr opens right after the tag and array head:
    // d0|d1 84 4X a?, flip inside the map (the alg's value).
    at.push(5);
    at.into_iter()
        .map(|i| {
            let mut m = message.to_vec();
            m[i] ^= 0x01;
            m
        })
        .collect()
}

#[test]
fn coset_opens_our_cose_encrypt0_with_the_aeads() {
    for name in [
        "aead:aes-128-gcm",
        "aead:aes-256-gcm",
        "aead:aes-128-ccm",
        "aead:aes-256-ccm",
        "aead:chacha20-poly1305",
    ] {
        let key = SealKey::generate(Scheme::parse(name).unwrap(), NoncePolicy::Random).unwrap();
        let material = key.material().to_vec();
        let open = |iv: &[u8], enc: &[u8], ct: &[u8]| match name {
            "aead:aes-128-gcm" => aead_open::<aes_gcm::Aes128Gcm>(&material, iv, enc, ct),
            "aead:aes-256-gcm" => aead_open::<aes_gcm::Aes256Gcm>(&material, iv, enc, ct),
            "aead:aes-128-ccm" => aead_open::<Aes128Ccm>(&material, iv, enc, ct),
            "aead:aes-256-ccm" => aead_open::<Aes256Ccm>(&material, iv, enc, ct),
            "aead:chacha20-poly1305" => {
                aead_open::<chacha20poly1305::ChaCha20Poly1305>(&material, iv, enc, ct)
            }
            _ => unreachable!(),
        };
        for aad in [&b""[..], b"Logger1"] {
            let (nonce, message) = seal(&key, aad);
            let (cose, plaintext) =
                coset_open_encrypt0(&message, open).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(plaintext, READING, "{name}");
            assert_eq!(
                cose.protected.header.alg,
                Some(Algorithm::Assigned(aead_alg(name))),
                "{name}"
            );
            assert_eq!(cose.unprotected.key_id, key.key_id, "{name}");
            assert_eq!(cose.unprotected.iv, nonce, "{name}");
            assert_eq!(
                protected_aad(&cose.protected.header),
                (!aad.is_empty()).then(|| aad.to_vec()),
                "{name}"
            );
            // What coset writes back from what it parsed is our message.
            assert_eq!(cose.to_tagged_vec().unwrap(), message, "{name}");
            for (i, bad) in tampered(&message, aad).into_iter().enumerate() {
                assert!(
                    coset_open_encrypt0(&bad, open).is_err(),
                    "{name}: tampered message {i} opened"
                );
            }
        }
    }
}

/// EtM in COSE_Encrypt0: the doc's EtM rule with coset's Enc_structure as
/// the associated data, keys from HKDF-SHA-256, AES-128-CBC with PKCS#7.
#[test]
fn coset_opens_our_cose_encrypt0_with_etm() {
    use aes::cipher::{Array, BlockCipherDecrypt};
    let name = "etm:aes-128-cbc+hmac-sha256";
    let key = SealKey::generate(Scheme::parse(name).unwrap(), NoncePolicy::Random).unwrap();
    let hkdf = hkdf::Hkdf::<Sha256>::new(None, key.material());
    let mut enc_key = [0u8; 16];
    let mut mac_key = [0u8; 32];
    hkdf.expand(b"ciphermeter etm v1 encryption key", &mut enc_key)
        .unwrap();
    hkdf.expand(b"ciphermeter etm v1 mac key", &mut mac_key)
        .unwrap();
    let open = |iv: &[u8], enc: &[u8], ct_and_tag: &[u8]| -> Result<Vec<u8>, String> {
        let (ct, tag) = ct_and_tag.split_at(ct_and_tag.len().checked_sub(32).ok_or("short")?);
        let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(&mac_key).unwrap();
        mac.update(&(enc.len() as u32).to_be_bytes());
        mac.update(enc);
        mac.update(&[iv.len() as u8]);
        mac.update(iv);
        mac.update(ct);
        mac.verify_slice(tag).map_err(|_| "tag refused")?;
        let aes = <aes::Aes128 as aes::cipher::KeyInit>::new_from_slice(&enc_key).unwrap();
        let mut previous = iv.to_vec();
        let mut plain = Vec::new();
        for block in ct.chunks(16) {
            let mut b = Array::try_from(block).map_err(|_| "not whole blocks")?;
            aes.decrypt_block(&mut b);
            plain.extend(b.iter().zip(&previous).map(|(x, p)| x ^ p));
            previous = block.to_vec();
        }
        let pad = *plain.last().ok_or("empty")? as usize;
        assert!((1..=16).contains(&pad), "PKCS#7");
        plain.truncate(plain.len() - pad);
        Ok(plain)
    };
    for aad in [&b""[..], b"Logger1"] {
        let (nonce, message) = seal(&key, aad);
        let (cose, plaintext) =
            coset_open_encrypt0(&message, open).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(plaintext, READING);
        assert_eq!(
            cose.protected.header.alg,
            Some(Algorithm::Text(name.to_string()))
        );
        assert_eq!(cose.unprotected.iv, nonce);
        assert_eq!(
            protected_aad(&cose.protected.header),
            (!aad.is_empty()).then(|| aad.to_vec())
        );
        for (i, bad) in tampered(&message, aad).into_iter().enumerate() {
            assert!(
                coset_open_encrypt0(&bad, open).is_err(),
                "{name}: tampered message {i} opened"
            );
        }
    }
}

fn hmac_verify<M: Mac + hmac::digest::KeyInit>(
    key: &[u8],
    data: &[u8],
    tag: &[u8],
) -> Result<(), String> {
    let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key).unwrap();
    mac.update(data);
    mac.verify_slice(tag).map_err(|_| "tag refused".to_string())
}

fn coset_verify_mac0(key: &SealKey, message: &[u8]) -> Result<CoseMac0, String> {
    let cose = CoseMac0::from_tagged_slice(message).map_err(|e| format!("coset: {e}"))?;
    let material = key.material();
    cose.verify_payload_tag(
        b"",
        || "no payload".to_string(),
        |tag, mac_structure| match key.scheme.name() {
            "hmac:hmac-sha256" => hmac_verify::<Hmac<Sha256>>(material, mac_structure, tag),
            "hmac:hmac-sha512" => hmac_verify::<Hmac<Sha512>>(material, mac_structure, tag),
            other => panic!("{other}"),
        },
    )?;
    Ok(cose)
}

#[test]
fn coset_verifies_our_cose_mac0_with_hmac() {
    for (name, alg) in [
        ("hmac:hmac-sha256", iana::Algorithm::HMAC_256_256),
        ("hmac:hmac-sha512", iana::Algorithm::HMAC_512_512),
    ] {
        let key = SealKey::generate(Scheme::parse(name).unwrap(), NoncePolicy::Random).unwrap();
        for aad in [&b""[..], b"Logger1"] {
            let (_, message) = seal(&key, aad);
            let cose = coset_verify_mac0(&key, &message).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(cose.payload.as_deref(), Some(READING), "{name}");
            assert_eq!(cose.protected.header.alg, Some(Algorithm::Assigned(alg)));
            assert_eq!(cose.unprotected.key_id, key.key_id);
            assert!(cose.unprotected.iv.is_empty(), "{name}: no iv");
            assert_eq!(
                protected_aad(&cose.protected.header),
                (!aad.is_empty()).then(|| aad.to_vec())
            );
            assert_eq!(cose.to_tagged_vec().unwrap(), message, "{name}");
            for (i, bad) in tampered(&message, aad).into_iter().enumerate() {
                assert!(
                    coset_verify_mac0(&key, &bad).is_err(),
                    "{name}: tampered message {i} verified"
                );
            }
        }
    }
}

/// coset refuses what the doc says we never write: the untagged form is not
/// our container, and a tag 16 message is no COSE_Mac0.
#[test]
fn the_cbor_tags_are_the_docs() {
    let key = SealKey::generate(
        Scheme::parse("aead:aes-128-gcm").unwrap(),
        NoncePolicy::Random,
    )
    .unwrap();
    let (_, message) = seal(&key, b"");
    assert_eq!(message[0], 0xd0, "CBOR tag 16");
    assert!(CoseMac0::from_tagged_slice(&message).is_err());
    assert!(CoseEncrypt0::from_slice(&message[1..]).is_ok());
    let key = SealKey::generate(
        Scheme::parse("hmac:hmac-sha256").unwrap(),
        NoncePolicy::Random,
    )
    .unwrap();
    let (_, message) = seal(&key, b"");
    assert_eq!(message[0], 0xd1, "CBOR tag 17");
    assert!(CoseEncrypt0::from_tagged_slice(&message).is_err());
}
