//! EDHOC authenticated with a pre-shared key (draft-ietf-lake-edhoc-psk,
//! method 4), both parties, with cipher suite 2 (AES-CCM-16-64-128,
//! SHA-256, P-256 ECDH): our own implementation, as lakers 0.8 has none.
//!
//! Written from draft-ietf-lake-edhoc-psk-08 (the WG's text of 2026-06-16,
//! github.com/lake-wg/psk a86ab73; -09's body was not available to us,
//! only its front page) on RFC 9528's base protocol. Section numbers below
//! are the draft's unless they name RFC 9528:
//!
//! - §4 key schedule (its figure "Key Derivation of EDHOC-PSK"): PRK_2e = EDHOC_Extract(TH_2, G_XY) as in
//!   RFC 9528 §4.1.2; PRK_3e2m = PRK_2e; SALT_4e3m = EDHOC_KDF(PRK_3e2m, 5,
//!   TH_3, 32); PRK_4e3m = EDHOC_Extract(SALT_4e3m, PSK); KEYSTREAM_2A =
//!   EDHOC_KDF(PRK_2e, 0, TH_2, ·); KEYSTREAM_3A = EDHOC_KDF(PRK_3e2m, 12,
//!   TH_3, ·); K_3, IV_3 from PRK_4e3m (labels 3, 4); TH_3 = H(TH_2,
//!   PLAINTEXT_2A); TH_4 = H(TH_3, ID_CRED_PSK, PLAINTEXT_3B, CRED_I, CRED_R).
//! - §5.2 message_2 = bstr(G_Y || PLAINTEXT_2A XOR KEYSTREAM_2A),
//!   PLAINTEXT_2A = (C_R): no ID_CRED_R, no MAC_2 (nothing in it
//!   authenticates the responder: a tampered message_2 shows at message_3).
//! - §5.3 message_3 = bstr(PLAINTEXT_3A XOR KEYSTREAM_3A), PLAINTEXT_3A =
//!   (ID_CRED_PSK, CIPHERTEXT_3B: bstr), CIPHERTEXT_3B the COSE_Encrypt0
//!   ciphertext of PLAINTEXT_3B = (? EAD_3) under K_3, IV_3 with external_aad
//!   << ID_CRED_PSK, TH_3, CRED_I, CRED_R >>: the responder's check of the
//!   initiator. ID_CRED_PSK = {4: kid} is sent compact (RFC 9528 §3.5.3.2).
//! - §5.4 message_4 as RFC 9528 §5.5 (K_4, IV_4 from PRK_4e3m and TH_4,
//!   external_aad TH_4): the initiator's check of the responder.
//! - PRK_out = EDHOC_KDF(PRK_4e3m, 7, TH_4, 32), PRK_exporter and the
//!   exporter as RFC 9528 §4.1.3, §4.2; the OSCORE context as its A.1.
//! - Appendix B (test vectors): held byte for byte by tests/edhoc_psk.rs.
//!
//! METHOD is 4, the value the draft suggests for its TBD4: the IANA
//! registration is pending (§10.1). EAD items are refused (none is defined for this
//! use), so are cipher suites other than 2.

use aes::Aes128;
use ccm::consts::{U8, U13};
use ccm::{AeadInOut, Ccm, KeyInit};
use hkdf::Hkdf;
use p256_lakers::elliptic_curve::sec1::ToEncodedPoint;
use rand_core_lakers::OsRng;
use sha2::{Digest, Sha256};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

pub use lakers::ConnId;

use crate::edhoc::{Exported, Method, Suite, Transcript};
use crate::error::HandshakeError;

/// The method number this implementation sends and accepts: the draft's
/// suggested value for TBD4 (§10.1).
pub const METHOD: u8 = 4;
/// The one cipher suite implemented: 2 (AES-CCM-16-64-128, SHA-256, P-256).
pub const SUITE: u8 = 2;
/// What a run's cost says it ran.
pub const SOURCE: &str = "draft-ietf-lake-edhoc-psk-08, run (ciphermeter's own EDHOC-PSK)";

const HASH_LEN: usize = 32;
const KEY_LEN: usize = 16;
const IV_LEN: usize = 13;
const TAG_LEN: usize = 8;
/// EDHOC_KDF labels (RFC 9528 §4.1.2, Figure 6; 12 is the draft's §4).
const KEYSTREAM_2: u8 = 0;
const K_3: u8 = 3;
const IV_3: u8 = 4;
const SALT_4E3M: u8 = 5;
const PRK_OUT: u8 = 7;
const K_4: u8 = 8;
const IV_4: u8 = 9;
const PRK_EXPORTER: u8 = 10;
const KEYSTREAM_3A: u8 = 12;
/// The exporter's labels for OSCORE (RFC 9528 A.1).
const MASTER_SECRET: u8 = 0;
const MASTER_SALT: u8 = 1;

/// AES-CCM-16-64-128: 8-byte tag, 13-byte nonce.
type Aead = Ccm<Aes128, U8, U13>;

fn protocol(why: impl Into<String>) -> HandshakeError {
    HandshakeError::Protocol(why.into())
}

/// One pre-shared key and what names it: ID_CRED_PSK's kid, and the
/// credentials CRED_I and CRED_R bound to it (§3.1). Secret; wiped on drop
/// (a credential may hold the key itself, as the draft's test vectors' do).
#[derive(Clone)]
pub struct PskCredential {
    kid: Vec<u8>,
    psk: Zeroizing<Vec<u8>>,
    cred_i: Zeroizing<Vec<u8>>,
    cred_r: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for PskCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PskCredential {{ kid: {}, .. }}", hex::encode(&self.kid))
    }
}

/// The shortest PSK taken: the draft's test vectors use 16 bytes, and §3.1
/// asks for a key "with high entropy".
pub const MIN_PSK_LEN: usize = 16;
/// The longest: a hash's length (EDHOC_Extract takes any, HMAC hashes longer ones).
pub const MAX_PSK_LEN: usize = 64;
/// A kid longer than this is no compact identifier (§3 wants it minimal).
pub const MAX_KID_LEN: usize = 16;

impl PskCredential {
    /// Checks the parts: a PSK of 16-64 bytes, a kid of 1-16 bytes, and
    /// CRED_I and CRED_R non-empty and distinct (§3.1.2: MUST differ).
    pub fn new(
        kid: &[u8],
        psk: &[u8],
        cred_i: &[u8],
        cred_r: &[u8],
    ) -> Result<PskCredential, HandshakeError> {
        if !(MIN_PSK_LEN..=MAX_PSK_LEN).contains(&psk.len()) {
            return Err(HandshakeError::Usage(format!(
                "a PSK of {} bytes: EDHOC-PSK here takes {MIN_PSK_LEN} to {MAX_PSK_LEN}",
                psk.len()
            )));
        }
        if kid.is_empty() || kid.len() > MAX_KID_LEN {
            return Err(HandshakeError::Usage(format!(
                "an ID_CRED_PSK kid of {} bytes: 1 to {MAX_KID_LEN}",
                kid.len()
            )));
        }
        if cred_i.is_empty() || cred_r.is_empty() || cred_i == cred_r {
            return Err(HandshakeError::Usage(
                "CRED_I and CRED_R must be given and differ (draft-ietf-lake-edhoc-psk §3.1.2)"
                    .into(),
            ));
        }
        Ok(PskCredential {
            kid: kid.to_vec(),
            psk: Zeroizing::new(psk.to_vec()),
            cred_i: Zeroizing::new(cred_i.to_vec()),
            cred_r: Zeroizing::new(cred_r.to_vec()),
        })
    }

    /// A fresh 16-byte PSK under `kid`, with CCS credentials for the device
    /// (initiator) and the gateway (responder) as §3.1.2's example: `{2:
    /// subject, 8: {1: {1: 4 (Symmetric), 2: kid}}}`; the key is not in them.
    pub fn generate(kid: &[u8]) -> Result<PskCredential, HandshakeError> {
        let mut psk = Zeroizing::new([0u8; 16]);
        rand_core_lakers::RngCore::fill_bytes(&mut OsRng, &mut psk[..]);
        let sub = |who: &str| format!("{who}-{}", hex::encode(kid));
        PskCredential::new(
            kid,
            &psk[..],
            &symmetric_ccs(&sub("device"), kid)?,
            &symmetric_ccs(&sub("gateway"), kid)?,
        )
    }

    pub fn kid(&self) -> &[u8] {
        &self.kid
    }

    pub fn psk(&self) -> &[u8] {
        &self.psk
    }

    pub fn cred_i(&self) -> &[u8] {
        &self.cred_i
    }

    pub fn cred_r(&self) -> &[u8] {
        &self.cred_r
    }

    /// ID_CRED_PSK = {4: kid} in its compact form (RFC 9528 §3.5.3.2): a
    /// one-byte kid that is the encoding of an int in -24..=23 is that int,
    /// any other the bstr.
    pub fn id_cred_psk(&self) -> Vec<u8> {
        match self.kid.as_slice() {
            [b] if is_compact_int(*b) => vec![*b],
            kid => bstr(kid),
        }
    }
}

/// A CCS naming a symmetric key by its kid (deterministic CBOR, RFC 8949 §4.2).
fn symmetric_ccs(subject: &str, kid: &[u8]) -> Result<Vec<u8>, HandshakeError> {
    if subject.len() > 23 || kid.len() > 23 {
        return Err(HandshakeError::Usage(
            "a credential subject and kid are at most 23 bytes".into(),
        ));
    }
    let mut out = vec![0xa2, 0x02, 0x60 + subject.len() as u8];
    out.extend_from_slice(subject.as_bytes());
    // cnf {1 (COSE_Key): {1 (kty): 4 (Symmetric), 2 (kid): h'kid'}}
    out.extend_from_slice(&[0x08, 0xa1, 0x01, 0xa2, 0x01, 0x04, 0x02]);
    out.extend_from_slice(&bstr(kid));
    Ok(out)
}

// --- CBOR: the few items EDHOC-PSK's messages hold --------------------------

/// One byte that is a whole CBOR int in -24..=23.
fn is_compact_int(b: u8) -> bool {
    matches!(b, 0x00..=0x17 | 0x20..=0x37)
}

/// A CBOR byte string: header and content (RFC 8949 §3.1).
fn bstr(content: &[u8]) -> Vec<u8> {
    let n = content.len();
    let mut out = match n {
        0..=23 => vec![0x40 | n as u8],
        24..=255 => vec![0x58, n as u8],
        _ => vec![0x59, (n >> 8) as u8, n as u8],
    };
    out.extend_from_slice(content);
    out
}

/// A CBOR unsigned int (the KDF's label and length).
fn uint(out: &mut Vec<u8>, n: usize) {
    match n {
        0..=23 => out.push(n as u8),
        24..=255 => out.extend_from_slice(&[0x18, n as u8]),
        _ => out.extend_from_slice(&[0x19, (n >> 8) as u8, n as u8]),
    }
}

/// A CBOR item read from the front of a sequence.
struct Item<'a> {
    /// A byte string's content, or a compact int's one byte.
    value: &'a [u8],
    is_bstr: bool,
}

/// Reads a bstr or a one-byte int (-24..=23) from the front of `bytes`;
/// returns it and the rest.
fn item<'a>(bytes: &'a [u8], what: &str) -> Result<(Item<'a>, &'a [u8]), HandshakeError> {
    let bad = || protocol(format!("{what} is not a CBOR byte string or small int"));
    let (&first, rest) = bytes.split_first().ok_or_else(bad)?;
    if is_compact_int(first) {
        return Ok((
            Item {
                value: &bytes[..1],
                is_bstr: false,
            },
            rest,
        ));
    }
    let (len, head) = match first {
        0x40..=0x57 => ((first - 0x40) as usize, 1),
        0x58 => (*rest.first().ok_or_else(bad)? as usize, 2),
        0x59 => match rest {
            [a, b, ..] => (u16::from_be_bytes([*a, *b]) as usize, 3),
            _ => return Err(bad()),
        },
        _ => return Err(bad()),
    };
    if bytes.len() < head + len {
        return Err(protocol(format!("{what} is cut short")));
    }
    Ok((
        Item {
            value: &bytes[head..head + len],
            is_bstr: true,
        },
        &bytes[head + len..],
    ))
}

/// The longest keystream EDHOC_KDF gives with SHA-256 (255 blocks, RFC
/// 5869 §2.3); longer plaintexts need RFC 9528 Appendix G, not implemented.
const MAX_KEYSTREAM: usize = 255 * HASH_LEN;

/// A whole message that is one bstr (message_2, message_3, message_4), no
/// longer than a keystream can cover.
fn one_bstr<'a>(message: &'a [u8], what: &str) -> Result<&'a [u8], HandshakeError> {
    match item(message, what)? {
        (item, []) if item.is_bstr && item.value.len() > MAX_KEYSTREAM => Err(protocol(format!(
            "{what} of {} bytes is longer than EDHOC-PSK takes here ({MAX_KEYSTREAM})",
            item.value.len()
        ))),
        (item, []) if item.is_bstr => Ok(item.value),
        (_, []) => Err(protocol(format!("{what} is not a byte string"))),
        _ => Err(protocol(format!("{what} has bytes after its byte string"))),
    }
}

fn conn_id(item: &Item<'_>, what: &str) -> Result<ConnId, HandshakeError> {
    ConnId::from_slice(item.value)
        .ok_or_else(|| protocol(format!("{what} is longer than this implementation takes")))
}

// --- The suite's primitives (sha2, hkdf, ccm, p256: the workspace's) --------

/// H(): SHA-256 of a CBOR sequence's parts.
fn hash(parts: &[&[u8]]) -> [u8; HASH_LEN] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

/// EDHOC_Extract (RFC 9528 §4.1.1.1): HKDF-Extract with SHA-256.
fn extract(salt: &[u8], ikm: &[u8]) -> Zeroizing<[u8; HASH_LEN]> {
    let (prk, _) = Hkdf::<Sha256>::extract(Some(salt), ikm);
    let mut out = Zeroizing::new([0u8; HASH_LEN]);
    out.copy_from_slice(&prk);
    out
}

/// EDHOC_KDF (RFC 9528 §4.1.2): HKDF-Expand with info = (label, context: bstr, length).
fn kdf(prk: &[u8; HASH_LEN], label: u8, context: &[u8], length: usize) -> Zeroizing<Vec<u8>> {
    let mut info = Vec::with_capacity(context.len() + 8);
    uint(&mut info, label as usize);
    info.extend_from_slice(&bstr(context));
    uint(&mut info, length);
    let mut out = Zeroizing::new(vec![0u8; length]);
    Hkdf::<Sha256>::from_prk(prk)
        .expect("a 32-byte PRK")
        .expand(&info, &mut out)
        // A message here is never near HKDF's 8,160-byte limit (RFC 9528 Appendix G).
        .expect("an output HKDF-SHA-256 can give");
    out
}

fn kdf_32(prk: &[u8; HASH_LEN], label: u8, context: &[u8]) -> Zeroizing<[u8; HASH_LEN]> {
    let mut out = Zeroizing::new([0u8; HASH_LEN]);
    out.copy_from_slice(&kdf(prk, label, context, HASH_LEN));
    out
}

/// The COSE Enc_structure ["Encrypt0", h'', external_aad] (RFC 9052 §5.3).
fn enc_structure(external_aad: &[u8]) -> Vec<u8> {
    let mut out = vec![0x83, 0x68];
    out.extend_from_slice(b"Encrypt0");
    out.push(0x40);
    out.extend_from_slice(&bstr(external_aad));
    out
}

/// COSE_Encrypt0's ciphertext of `plaintext` (ciphertext || tag).
fn seal(key: &[u8], iv: &[u8], external_aad: &[u8], plaintext: &[u8]) -> Vec<u8> {
    let aead = Aead::new_from_slice(key).expect("a 16-byte key");
    let nonce = ccm::aead::Nonce::<Aead>::try_from(iv).expect("a 13-byte nonce");
    let mut buf = plaintext.to_vec();
    let tag = aead
        .encrypt_inout_detached(&nonce, &enc_structure(external_aad), (&mut buf[..]).into())
        .expect("a plaintext AES-CCM takes");
    buf.extend_from_slice(&tag);
    buf
}

/// Opens COSE_Encrypt0's ciphertext; the tag is checked by `ccm` in constant time.
fn open(
    key: &[u8],
    iv: &[u8],
    external_aad: &[u8],
    ciphertext: &[u8],
    what: &str,
) -> Result<Zeroizing<Vec<u8>>, HandshakeError> {
    let fail = || {
        protocol(format!(
            "{what} does not verify (a wrong PSK, or the message was altered)"
        ))
    };
    if ciphertext.len() < TAG_LEN {
        return Err(fail());
    }
    let (body, tag) = ciphertext.split_at(ciphertext.len() - TAG_LEN);
    let aead = Aead::new_from_slice(key).expect("a 16-byte key");
    let nonce = ccm::aead::Nonce::<Aead>::try_from(iv).expect("a 13-byte nonce");
    let tag = ccm::aead::Tag::<Aead>::try_from(tag).map_err(|_| fail())?;
    let mut buf = Zeroizing::new(body.to_vec());
    aead.decrypt_inout_detached(
        &nonce,
        &enc_structure(external_aad),
        (&mut buf[..]).into(),
        &tag,
    )
    .map_err(|_| fail())?;
    Ok(buf)
}

fn xor(data: &[u8], keystream: &[u8]) -> Vec<u8> {
    data.iter().zip(keystream).map(|(a, b)| a ^ b).collect()
}

/// An ephemeral P-256 key: the private scalar (wiped on drop) and G_X, its
/// x-coordinate (RFC 9528 §3.7's compact representation).
struct Ephemeral {
    secret: p256_lakers::SecretKey,
    public_x: [u8; 32],
}

impl Ephemeral {
    fn new(fixed: Option<&[u8; 32]>) -> Result<Ephemeral, HandshakeError> {
        let secret = match fixed {
            Some(bytes) => p256_lakers::SecretKey::from_slice(bytes)
                .map_err(|_| HandshakeError::Usage("not a P-256 private key".into()))?,
            None => p256_lakers::SecretKey::random(&mut OsRng),
        };
        let point = secret.public_key().to_encoded_point(false);
        let x = point
            .x()
            .ok_or_else(|| HandshakeError::Usage("P-256 point at infinity".into()))?;
        Ok(Ephemeral {
            public_x: (*x).into(),
            secret,
        })
    }

    /// G_XY: the x-coordinate of the shared point. A peer's value that is no
    /// curve point's x-coordinate is refused.
    fn agree(&self, peer_x: &[u8], what: &str) -> Result<Zeroizing<[u8; 32]>, HandshakeError> {
        let mut compressed = [0x02; 33];
        if peer_x.len() != 32 {
            return Err(protocol(format!("{what} is not 32 bytes")));
        }
        compressed[1..].copy_from_slice(peer_x);
        let peer = p256_lakers::PublicKey::from_sec1_bytes(&compressed)
            .map_err(|_| protocol(format!("{what} is not a P-256 point")))?;
        let shared =
            p256_lakers::ecdh::diffie_hellman(self.secret.to_nonzero_scalar(), peer.as_affine());
        let mut out = Zeroizing::new([0u8; 32]);
        out.copy_from_slice(shared.raw_secret_bytes());
        Ok(out)
    }
}

/// One handshake's intermediate values, as the draft's Appendix B prints
/// them: to hold this implementation to its test vectors. Secret; wiped on drop.
#[derive(Clone, Default, PartialEq, Eq, Zeroize, ZeroizeOnDrop)]
pub struct PskSchedule {
    pub th_2: [u8; 32],
    pub prk_2e: [u8; 32],
    pub th_3: [u8; 32],
    pub salt_4e3m: [u8; 32],
    pub prk_4e3m: [u8; 32],
    pub th_4: [u8; 32],
    pub prk_out: [u8; 32],
    pub prk_exporter: [u8; 32],
}

impl std::fmt::Debug for PskSchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PskSchedule { .. }")
    }
}

/// What both parties share once message_2 is known: TH_3 and PRK_3e2m.
struct AfterMessage2 {
    th_2: [u8; 32],
    prk_3e2m: Zeroizing<[u8; 32]>,
    th_3: [u8; 32],
}

/// TH_2, PRK_2e, KEYSTREAM_2A's key and TH_3 (§4), from message_1's hash,
/// G_Y, G_XY and PLAINTEXT_2A.
fn after_message_2(
    h_message_1: &[u8; 32],
    g_y: &[u8],
    g_xy: &[u8; 32],
    plaintext_2a: &[u8],
) -> (AfterMessage2, Vec<u8>) {
    let th_2 = hash(&[&bstr(g_y), &bstr(h_message_1)]);
    let prk_2e = extract(&th_2, g_xy);
    let keystream_2a = kdf(&prk_2e, KEYSTREAM_2, &th_2, plaintext_2a.len());
    let ciphertext_2a = xor(plaintext_2a, &keystream_2a);
    let th_3 = hash(&[&bstr(&th_2), plaintext_2a]);
    (
        AfterMessage2 {
            th_2,
            // §4: PRK_3e2m = PRK_2e.
            prk_3e2m: prk_2e,
            th_3,
        },
        ciphertext_2a,
    )
}

/// What the PSK gives once TH_3 is known (§4): PRK_4e3m, K_3, IV_3, the
/// external_aad of CIPHERTEXT_3B.
struct Message3Keys {
    salt_4e3m: Zeroizing<[u8; 32]>,
    prk_4e3m: Zeroizing<[u8; 32]>,
    k_3: Zeroizing<Vec<u8>>,
    iv_3: Zeroizing<Vec<u8>>,
    external_aad: Zeroizing<Vec<u8>>,
}

fn message_3_keys(state: &AfterMessage2, credential: &PskCredential) -> Message3Keys {
    let salt_4e3m = kdf_32(&state.prk_3e2m, SALT_4E3M, &state.th_3);
    let prk_4e3m = extract(&salt_4e3m[..], credential.psk());
    let k_3 = kdf(&prk_4e3m, K_3, &state.th_3, KEY_LEN);
    let iv_3 = kdf(&prk_4e3m, IV_3, &state.th_3, IV_LEN);
    // << ID_CRED_PSK, TH_3, CRED_I, CRED_R >> (§5.3.2)
    let mut aad = Zeroizing::new(credential.id_cred_psk());
    aad.extend_from_slice(&bstr(&state.th_3));
    aad.extend_from_slice(credential.cred_i());
    aad.extend_from_slice(credential.cred_r());
    Message3Keys {
        salt_4e3m,
        prk_4e3m,
        k_3,
        iv_3,
        external_aad: aad,
    }
}

/// After message_3 (§4): TH_4, PRK_out and PRK_exporter.
struct Finished {
    th_4: [u8; 32],
    prk_4e3m: Zeroizing<[u8; 32]>,
    prk_out: Zeroizing<[u8; 32]>,
    prk_exporter: Zeroizing<[u8; 32]>,
}

fn finished(
    state: &AfterMessage2,
    keys: &Message3Keys,
    credential: &PskCredential,
    plaintext_3b: &[u8],
) -> Finished {
    let th_4 = hash(&[
        &bstr(&state.th_3),
        &credential.id_cred_psk(),
        plaintext_3b,
        credential.cred_i(),
        credential.cred_r(),
    ]);
    let prk_out = kdf_32(&keys.prk_4e3m, PRK_OUT, &th_4);
    let prk_exporter = kdf_32(&prk_out, PRK_EXPORTER, &[]);
    Finished {
        th_4,
        prk_4e3m: keys.prk_4e3m.clone(),
        prk_out,
        prk_exporter,
    }
}

impl Finished {
    /// message_4's key, nonce and external_aad, TH_4 (RFC 9528 §5.5.2).
    fn message_4_keys(&self) -> (Zeroizing<Vec<u8>>, Zeroizing<Vec<u8>>, Vec<u8>) {
        (
            kdf(&self.prk_4e3m, K_4, &self.th_4, KEY_LEN),
            kdf(&self.prk_4e3m, IV_4, &self.th_4, IV_LEN),
            self.th_4.to_vec(),
        )
    }

    /// EDHOC_Exporter (RFC 9528 §4.2.1).
    fn exporter(&self, label: u8, context: &[u8], length: usize) -> Zeroizing<Vec<u8>> {
        kdf(&self.prk_exporter, label, context, length)
    }

    /// The OSCORE context (RFC 9528 A.1): a party's recipient id is its own C_x.
    fn export(&self, mine: &ConnId, peer: &ConnId) -> Exported {
        let secret = self.exporter(MASTER_SECRET, &[], 16);
        let salt = self.exporter(MASTER_SALT, &[], 8);
        Exported {
            prk_out: *self.prk_out,
            master_secret: secret[..].try_into().expect("16 bytes"),
            master_salt: salt[..].try_into().expect("8 bytes"),
            sender_id: peer.as_slice().to_vec(),
            recipient_id: mine.as_slice().to_vec(),
        }
    }
}

// --- The initiator -----------------------------------------------------------

/// The initiator between message_1 and message_2.
pub struct Initiator {
    credential: PskCredential,
    ephemeral: Ephemeral,
    c_i: ConnId,
    h_message_1: [u8; 32],
}

impl Initiator {
    /// Starts a handshake under `credential`: returns message_1 = (METHOD,
    /// SUITES_I, G_X, C_I) (RFC 9528 §5.2.1; the draft's §5.1 keeps it).
    /// `ephemeral` fixes X (test vectors only).
    pub fn start(
        credential: &PskCredential,
        c_i: ConnId,
        ephemeral: Option<&[u8; 32]>,
    ) -> Result<(Initiator, Vec<u8>), HandshakeError> {
        let ephemeral = Ephemeral::new(ephemeral)?;
        let mut message_1 = vec![METHOD, SUITE];
        message_1.extend_from_slice(&bstr(&ephemeral.public_x));
        message_1.extend_from_slice(c_i.as_cbor());
        let h_message_1 = hash(&[&message_1]);
        Ok((
            Initiator {
                credential: credential.clone(),
                ephemeral,
                c_i,
                h_message_1,
            },
            message_1,
        ))
    }

    /// Reads message_2 and writes message_3 (§5.2.3, §5.3.2). Nothing in
    /// message_2 authenticates the responder: a tampered one gives keys the
    /// responder does not have, and the responder refuses message_3.
    pub fn message_3(self, message_2: &[u8]) -> Result<(InitiatorWaitM4, Vec<u8>), HandshakeError> {
        let body = one_bstr(message_2, "message_2")?;
        if body.len() <= 32 {
            return Err(protocol("message_2 is too short for G_Y and C_R"));
        }
        let (g_y, ciphertext_2a) = body.split_at(32);
        let g_xy = self.ephemeral.agree(g_y, "G_Y")?;
        let th_2 = hash(&[&bstr(g_y), &bstr(&self.h_message_1)]);
        let prk_2e = extract(&th_2, &g_xy[..]);
        let keystream_2a = kdf(&prk_2e, KEYSTREAM_2, &th_2, ciphertext_2a.len());
        let plaintext_2a = Zeroizing::new(xor(ciphertext_2a, &keystream_2a));
        let (c_r, ead_2) = item(&plaintext_2a, "C_R in message_2")?;
        if !ead_2.is_empty() {
            return Err(protocol(
                "message_2 carries EAD_2 (or does not decrypt under this G_Y): this \
                 implementation takes none",
            ));
        }
        let c_r = conn_id(&c_r, "C_R")?;
        if c_r == self.c_i {
            return Err(protocol("C_R must differ from C_I (RFC 9528 A.1)"));
        }
        let (state, _) = after_message_2(&self.h_message_1, g_y, &g_xy, &plaintext_2a);
        let keys = message_3_keys(&state, &self.credential);
        // PLAINTEXT_3B = ( ? EAD_3 ): empty.
        let plaintext_3b: &[u8] = &[];
        let ciphertext_3b = seal(&keys.k_3, &keys.iv_3, &keys.external_aad, plaintext_3b);
        let mut plaintext_3a = Zeroizing::new(self.credential.id_cred_psk());
        plaintext_3a.extend_from_slice(&bstr(&ciphertext_3b));
        let keystream_3a = kdf(
            &state.prk_3e2m,
            KEYSTREAM_3A,
            &state.th_3,
            plaintext_3a.len(),
        );
        let message_3 = bstr(&xor(&plaintext_3a, &keystream_3a));
        let done = finished(&state, &keys, &self.credential, plaintext_3b);
        let schedule = PskSchedule {
            th_2: state.th_2,
            prk_2e: *state.prk_3e2m,
            th_3: state.th_3,
            salt_4e3m: *keys.salt_4e3m,
            prk_4e3m: *keys.prk_4e3m,
            th_4: done.th_4,
            prk_out: *done.prk_out,
            prk_exporter: *done.prk_exporter,
        };
        Ok((
            InitiatorWaitM4 {
                done,
                c_i: self.c_i,
                c_r,
                schedule,
            },
            message_3,
        ))
    }
}

/// The initiator after message_3.
pub struct InitiatorWaitM4 {
    done: Finished,
    c_i: ConnId,
    c_r: ConnId,
    schedule: PskSchedule,
}

impl InitiatorWaitM4 {
    /// C_R as CBOR: what prefixes message_3 in a CoAP request (RFC 9528 A.2).
    pub fn c_r_cbor(&self) -> Vec<u8> {
        self.c_r.as_cbor().to_vec()
    }

    /// The handshake's transcript hashes and PRKs (test vectors only).
    pub fn key_schedule(&self) -> &PskSchedule {
        &self.schedule
    }

    /// Finishes, verifying message_4 when the responder sends one (§5.4:
    /// without it, the responder is authenticated by the first OSCORE
    /// response that verifies, §8).
    pub fn finish(self, message_4: Option<&[u8]>) -> Result<Exported, HandshakeError> {
        if let Some(m4) = message_4 {
            let ciphertext_4 = one_bstr(m4, "message_4")?;
            let (k_4, iv_4, aad) = self.done.message_4_keys();
            let plaintext_4 = open(&k_4, &iv_4, &aad, ciphertext_4, "message_4")?;
            if !plaintext_4.is_empty() {
                return Err(protocol(
                    "message_4 carries EAD_4: this implementation takes none",
                ));
            }
        }
        Ok(self.done.export(&self.c_i, &self.c_r))
    }
}

// --- The responder -----------------------------------------------------------

/// The responder between message_2 and message_3.
pub struct Responder {
    state: AfterMessage2,
    c_i: ConnId,
    c_r: ConnId,
}

/// Reads message_1 (RFC 9528 §5.2.3): METHOD 4, the selected (last) suite
/// 2, G_X, C_I; no EAD_1.
fn parse_message_1(message_1: &[u8]) -> Result<(&[u8], Item<'_>), HandshakeError> {
    let (&method, rest) = message_1
        .split_first()
        .ok_or_else(|| protocol("message_1 is empty"))?;
    if method != METHOD {
        return Err(protocol(format!(
            "message_1's METHOD is {method:#04x}, not {METHOD} (EDHOC-PSK): this responder \
             holds PSK credentials"
        )));
    }
    let (&first, mut rest) = rest
        .split_first()
        .ok_or_else(|| protocol("message_1 has no SUITES_I"))?;
    let selected = match first {
        0x00..=0x17 => first,
        // An array of 2 to 23 suites, each a one-byte int: the last is selected.
        0x82..=0x97 => {
            let n = (first - 0x80) as usize;
            if rest.len() < n || rest[..n].iter().any(|s| *s > 0x17) {
                return Err(protocol("message_1's SUITES_I is malformed"));
            }
            let (suites, after) = rest.split_at(n);
            rest = after;
            if suites[..n - 1].contains(&SUITE) {
                return Err(protocol(
                    "message_1 prefers another suite to 2, which it also offers (RFC 9528 §6.3)",
                ));
            }
            suites[n - 1]
        }
        _ => return Err(protocol("message_1's SUITES_I is malformed")),
    };
    if selected != SUITE {
        return Err(protocol(format!(
            "message_1 selects cipher suite {selected}: this responder runs suite 2 only"
        )));
    }
    let (g_x, rest) = item(rest, "G_X in message_1")?;
    if !g_x.is_bstr || g_x.value.len() != 32 {
        return Err(protocol("G_X in message_1 is not a 32-byte string"));
    }
    let (c_i, ead_1) = item(rest, "C_I in message_1")?;
    if !ead_1.is_empty() {
        return Err(protocol(
            "message_1 carries EAD_1: this implementation takes none",
        ));
    }
    Ok((g_x.value, c_i))
}

impl Responder {
    /// Answers message_1 with message_2 (§5.2.2), under the C_R `choose_c_r`
    /// picks once it knows C_I. `ephemeral` fixes Y (test vectors only).
    pub fn answer(
        message_1: &[u8],
        choose_c_r: impl FnOnce(&ConnId) -> ConnId,
        ephemeral: Option<&[u8; 32]>,
    ) -> Result<(Responder, Vec<u8>), HandshakeError> {
        let (g_x, c_i) = parse_message_1(message_1)?;
        let c_i = conn_id(&c_i, "C_I")?;
        let ephemeral = Ephemeral::new(ephemeral)?;
        let g_xy = ephemeral.agree(g_x, "G_X")?;
        let c_r = choose_c_r(&c_i);
        // They become OSCORE's sender and recipient ids: equal ones would give
        // both directions the same nonces (RFC 9528 A.1).
        if c_r == c_i {
            return Err(protocol("C_R must differ from C_I (RFC 9528 A.1)"));
        }
        let h_message_1 = hash(&[message_1]);
        let plaintext_2a = c_r.as_cbor().to_vec();
        let (state, ciphertext_2a) =
            after_message_2(&h_message_1, &ephemeral.public_x, &g_xy, &plaintext_2a);
        let mut body = ephemeral.public_x.to_vec();
        body.extend_from_slice(&ciphertext_2a);
        Ok((Responder { state, c_i, c_r }, bstr(&body)))
    }

    /// Reads message_3 (§5.3.3): ID_CRED_PSK picks the PSK among `psks`,
    /// CIPHERTEXT_3B must verify under it; with `send_message_4`, returns
    /// message_4 too.
    pub fn finish(
        self,
        message_3: &[u8],
        psks: &[PskCredential],
        send_message_4: bool,
    ) -> Result<(Exported, Option<Vec<u8>>), HandshakeError> {
        let ciphertext_3a = one_bstr(message_3, "message_3")?;
        let keystream_3a = kdf(
            &self.state.prk_3e2m,
            KEYSTREAM_3A,
            &self.state.th_3,
            ciphertext_3a.len(),
        );
        let plaintext_3a = Zeroizing::new(xor(ciphertext_3a, &keystream_3a));
        let (id_cred_psk, rest) = id_cred_psk(&plaintext_3a)?;
        let (ciphertext_3b, after) = item(rest, "CIPHERTEXT_3B in message_3")?;
        if !ciphertext_3b.is_bstr || !after.is_empty() {
            return Err(protocol(
                "message_3 does not decrypt to (ID_CRED_PSK, CIPHERTEXT_3B)",
            ));
        }
        let credential = psks
            .iter()
            .find(|c| c.kid() == id_cred_psk)
            .ok_or_else(|| {
                protocol(format!(
                    "message_3 names a PSK (kid {}) this responder does not hold",
                    hex::encode(id_cred_psk)
                ))
            })?;
        let keys = message_3_keys(&self.state, credential);
        let plaintext_3b = open(
            &keys.k_3,
            &keys.iv_3,
            &keys.external_aad,
            ciphertext_3b.value,
            "message_3",
        )?;
        if !plaintext_3b.is_empty() {
            return Err(protocol(
                "message_3 carries EAD_3: this implementation takes none",
            ));
        }
        let done = finished(&self.state, &keys, credential, &plaintext_3b);
        let message_4 = send_message_4.then(|| {
            let (k_4, iv_4, aad) = done.message_4_keys();
            bstr(&seal(&k_4, &iv_4, &aad, &[]))
        });
        Ok((done.export(&self.c_r, &self.c_i), message_4))
    }
}

/// ID_CRED_PSK at the front of PLAINTEXT_3A: compact (a bstr kid, or a
/// one-byte int kid) or the map {4: kid}; returns the kid and the rest.
fn id_cred_psk(plaintext_3a: &[u8]) -> Result<(&[u8], &[u8]), HandshakeError> {
    let what = "ID_CRED_PSK in message_3";
    if let [0xa1, 0x04, rest @ ..] = plaintext_3a {
        let (kid, rest) = item(rest, what)?;
        if !kid.is_bstr {
            return Err(protocol(format!("{what}: its kid is not a byte string")));
        }
        return Ok((kid.value, rest));
    }
    let (kid, rest) = item(plaintext_3a, what)?;
    Ok((kid.value, rest))
}

/// Runs an EDHOC-PSK handshake in this process under a fresh PSK, both
/// parties through the code above, and checks both export the same OSCORE
/// context: what `handshake edhoc --method psk` costs.
pub fn run(suite: Suite, message_4: bool) -> Result<Transcript, HandshakeError> {
    let credential = PskCredential::generate(&[0x10])?;
    // One-byte connection identifiers, as method 3's run (RFC 9529's -24 and -8).
    let (c_i, c_r) = (
        ConnId::from_slice(&[0x37]).expect("one byte"),
        ConnId::from_slice(&[0x27]).expect("one byte"),
    );
    let (initiator, message_1) = Initiator::start(&credential, c_i, None)?;
    let (responder, message_2) = Responder::answer(&message_1, |_| c_r, None)?;
    let (waiting, message_3) = initiator.message_3(&message_2)?;
    let (responder_keys, message_4) =
        responder.finish(&message_3, std::slice::from_ref(&credential), message_4)?;
    let initiator_keys = waiting.finish(message_4.as_deref())?;
    if initiator_keys.master_secret != responder_keys.master_secret
        || initiator_keys.sender_id != responder_keys.recipient_id
    {
        return Err(protocol("the parties exported different OSCORE contexts"));
    }
    Ok(Transcript {
        method: Method::PSK,
        suite,
        message_1,
        message_2,
        message_3,
        message_4,
        initiator: initiator_keys,
        responder: responder_keys,
    })
}
