//! EDHOC (RFC 9528), method 3 (static DH both ways), cipher suite 2
//! (AES-CCM-16-64-128, SHA-256, P-256), run by `lakers` over this
//! firmware's own RustCrypto generation ([`Backend`]); P-256 is the `p256`
//! crate, or on a 16-bit target (the ATmega1284P), where it does not build,
//! the firmware's own (`p256_words`).
//!
//! Each message is measured twice: the party that writes it and the party
//! that reads it (`m1-write`, `m1-read`, … `m4-read`), each at the message's
//! length. A party's ephemeral key pair is made inside its first region (the
//! initiator's in `m1-write`, the responder's in `m1-read`, as lakers makes
//! it when a party starts). The two parties run in turn on the one device with RFC 9529
//! Chapter 3's keys and fixed ephemeral keys, so every count is repeatable.
//!
//! Known answers: the responder answers the trace's own message_1 with the
//! trace's message_2 (RFC 9529 §3.5.2), and the handshake the device runs
//! writes the messages the host's `crates/handshake` writes from the same
//! keys (its `the_device_handshake_...` test holds these bytes). lakers'
//! initiator offers one suite, so its message_1 is 37 bytes, not the
//! trace's 39.

use core::hint::black_box;

use aead::{AeadInOut, KeyInit};
use hex_literal::hex;
use hkdf::{Hkdf, HkdfExtract};
use lakers::{
    BufferCiphertext3, BufferPlaintext3, BytesCcmIvLen, BytesCcmKeyLen, BytesHashLen,
    BytesMaxBuffer, BytesMaxInfoBuffer, BytesP256ElemLen, ConnId, Credential, CredentialTransfer,
    Crypto, EDHOCError, EDHOCMethod, EDHOCSuite, EdhocInitiator, EdhocMessageBuffer,
    EdhocResponder, MAX_BUFFER_LEN, credential_check_or_fetch,
};
use sha2::{Digest, Sha256};

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

type AesCcm16_64_128 = ccm::Ccm<aes::Aes128, ccm::consts::U8, ccm::consts::U13>;

/// RFC 9529 Chapter 3: the parties' static keys and credentials (CCS).
const I: [u8; 32] = hex!("fb13adeb6518cee5f88417660841142e830a81fe334380a953406a1305e8706b");
const CRED_I: &[u8] = &hex!(
    "a2027734322d35302d33312d46462d45462d33372d33322d333908a101a5010202412b2001215820ac75e9ece3e5"
    "0bfc8ed60399889522405c47bf16df96660a41298cb4307f7eb62258206e5de611388a4b8a8211334ac7d37ecb52"
    "a387d257e6db3c2a93df21ff3affc8"
);
const R: [u8; 32] = hex!("72cc4761dbd4c78f758931aa589d348d1ef874a7e303ede2f140dcf3e6aa4aac");
const CRED_R: &[u8] = &hex!(
    "a2026b6578616d706c652e65647508a101a501020241322001215820bbc34960526ea4d32e940cad2a234148ddc2"
    "1791a12afbcbac93622046dd44f02258204519e257236b2a0ce2023f0931f1f386ca7afda64fcde0108c224c51ea"
    "bf6072"
);
/// The ephemeral keys X and Y.
const X: [u8; 32] = hex!("368ec1f69aeb659ba37d5a8d45b21bdc0299dceaa8ef235f3ca42ce3530f9525");
const Y: [u8; 32] = hex!("e2f4126777205e853b437d6eaca1e1f753cdcc3e2c69fa884b0a1a640977e418");
const C_I: u8 = 0x37;
const C_R: u8 = 0x27;
/// The trace's message_1 and message_2.
const TRACE_M1: &[u8] =
    &hex!("0382060258208af6f430ebe18d34184017a9a11bf511c8dff8f834730b96c1b7c8dbca2fc3b637");
const TRACE_M2: &[u8] = &hex!(
    "582b419701d7f00a26c2dc587a36dd752549f33763c893422c8ea0f955a13a4ff5d59862a1eef9e0e7e1886fcd"
);

/// The handshake the device runs (one offered suite), as the host writes it
/// from the same keys (crates/handshake/tests/rfc9529_trace.rs).
pub const M1: &[u8] =
    &hex!("030258208af6f430ebe18d34184017a9a11bf511c8dff8f834730b96c1b7c8dbca2fc3b637");
pub const M2: &[u8] = &hex!(
    "582b419701d7f00a26c2dc587a36dd752549f33763c893422c8ea0f955a13a4ff5d5ae78a28539bbd60ed31f87"
);
pub const M3: &[u8] = &hex!("52196ecd0af35bf453623a2c9037968f985b46");
pub const M4: &[u8] = &hex!("485bab767a81c960ce");

/// EDHOC's P-256 operations (RFC 9528 §3.7: a point is its x alone).
pub trait Curve: core::fmt::Debug {
    /// The x coordinate of k·G.
    fn public_x(k: &[u8; 32]) -> Option<[u8; 32]>;
    /// The x coordinate of k·P, P the point with x `peer_x` (either y).
    fn ecdh_x(k: &[u8; 32], peer_x: &[u8; 32]) -> Option<[u8; 32]>;
}

/// lakers' cryptography on this firmware's crates, P-256 from `C`. Key
/// generation returns the fixed ephemeral key it was given, computing its
/// public point for real (the scalar multiplication a device does for a
/// fresh key).
#[derive(Debug)]
pub struct Backend<C> {
    ephemeral: [u8; 32],
    curve: core::marker::PhantomData<C>,
}

impl<C: Curve> Crypto for Backend<C> {
    fn sha256_digest(&mut self, message: &BytesMaxBuffer, message_len: usize) -> BytesHashLen {
        Sha256::digest(&message[..message_len]).into()
    }

    fn hkdf_expand(
        &mut self,
        prk: &BytesHashLen,
        info: &BytesMaxInfoBuffer,
        info_len: usize,
        length: usize,
    ) -> BytesMaxBuffer {
        let mut out = [0u8; MAX_BUFFER_LEN];
        // lakers asks for at most MAX_BUFFER_LEN bytes, far below 255 × 32.
        if let Ok(hkdf) = Hkdf::<Sha256>::from_prk(prk) {
            let _ = hkdf.expand(&info[..info_len], &mut out[..length]);
        }
        out
    }

    fn hkdf_extract(&mut self, salt: &BytesHashLen, ikm: &BytesP256ElemLen) -> BytesHashLen {
        let mut extract = HkdfExtract::<Sha256>::new(Some(salt));
        extract.input_ikm(ikm);
        extract.finalize().0.into()
    }

    fn aes_ccm_encrypt_tag_8(
        &mut self,
        key: &BytesCcmKeyLen,
        iv: &BytesCcmIvLen,
        ad: &[u8],
        plaintext: &BufferPlaintext3,
    ) -> BufferCiphertext3 {
        let mut out = BufferCiphertext3::new();
        let n = plaintext.len;
        out.content[..n].copy_from_slice(plaintext.as_slice());
        let cipher = AesCcm16_64_128::new(key.into());
        if let Ok(tag) =
            cipher.encrypt_inout_detached(iv.into(), ad, (&mut out.content[..n]).into())
        {
            out.content[n..n + 8].copy_from_slice(&tag);
            out.len = n + 8;
        }
        out
    }

    fn aes_ccm_decrypt_tag_8(
        &mut self,
        key: &BytesCcmKeyLen,
        iv: &BytesCcmIvLen,
        ad: &[u8],
        ciphertext: &BufferCiphertext3,
    ) -> Result<BufferPlaintext3, EDHOCError> {
        let n = ciphertext
            .len
            .checked_sub(8)
            .ok_or(EDHOCError::MacVerificationFailed)?;
        let mut out = BufferPlaintext3::new();
        out.content[..n].copy_from_slice(&ciphertext.content[..n]);
        out.len = n;
        let tag = &ciphertext.content[n..n + 8];
        let cipher = AesCcm16_64_128::new(key.into());
        cipher
            .decrypt_inout_detached(
                iv.into(),
                ad,
                (&mut out.content[..n]).into(),
                tag.try_into()
                    .map_err(|_| EDHOCError::MacVerificationFailed)?,
            )
            .map_err(|_| EDHOCError::MacVerificationFailed)?;
        Ok(out)
    }

    fn p256_ecdh(
        &mut self,
        private_key: &BytesP256ElemLen,
        public_key: &BytesP256ElemLen,
    ) -> BytesP256ElemLen {
        // lakers has no error path here: an invalid point gives a shared
        // secret no peer holds, so the handshake fails its MAC check.
        C::ecdh_x(private_key, public_key).unwrap_or([0; 32])
    }

    fn get_random_byte(&mut self) -> u8 {
        // Only lakers' EAD code asks for random bytes; no EAD is sent here.
        0
    }

    fn p256_generate_key_pair(&mut self) -> (BytesP256ElemLen, BytesP256ElemLen) {
        (
            self.ephemeral,
            C::public_x(&self.ephemeral).unwrap_or([0; 32]),
        )
    }
}

/// P-256 for EDHOC from RustCrypto's generation: the `p256` crate where it
/// builds, else the firmware's own (`p256_words`: crypto-bigint needs a usize
/// of at least 32 bits).
#[derive(Debug)]
pub struct RustCryptoCurve;

impl Curve for RustCryptoCurve {
    fn public_x(k: &[u8; 32]) -> Option<[u8; 32]> {
        curve::public_x(k)
    }

    fn ecdh_x(k: &[u8; 32], peer_x: &[u8; 32]) -> Option<[u8; 32]> {
        curve::ecdh_x(k, peer_x)
    }
}

#[cfg(target_pointer_width = "16")]
use super::p256_words as curve;

#[cfg(not(target_pointer_width = "16"))]
mod curve {
    use p256::elliptic_curve::point::{AffineCoordinates, DecompressPoint};

    pub fn public_x(k: &[u8; 32]) -> Option<[u8; 32]> {
        let secret = p256::SecretKey::from_bytes(&(*k).into()).ok()?;
        Some(secret.public_key().as_affine().x().into())
    }

    /// Either y gives the same shared x (RFC 9528 §3.7).
    pub fn ecdh_x(k: &[u8; 32], peer_x: &[u8; 32]) -> Option<[u8; 32]> {
        let secret = p256::SecretKey::from_bytes(&(*k).into()).ok()?;
        let point: Option<p256::AffinePoint> =
            p256::AffinePoint::decompress(&(*peer_x).into(), 0u8.into()).into();
        let shared = p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), point?);
        Some((*shared.raw_secret_bytes()).into())
    }
}

fn backend<C>(ephemeral: [u8; 32]) -> Backend<C> {
    Backend {
        ephemeral,
        curve: core::marker::PhantomData,
    }
}

fn buffer(bytes: &[u8]) -> Result<EdhocMessageBuffer, Failure> {
    EdhocMessageBuffer::new_from_slice(bytes).map_err(|_| Failure::Step("message too long"))
}

fn step<T>(r: Result<T, EDHOCError>, what: &'static str) -> Result<T, Failure> {
    r.map_err(|_| Failure::Step(what))
}

/// RFC 9529 §3.5.2: the responder answers the trace's message_1 (which
/// offers suites 6 and 2) with the trace's message_2.
fn trace_responder<C: Curve>() -> Result<(), Failure> {
    let cred_r = step(Credential::parse_ccs(CRED_R), "parse CRED_R")?;
    let responder = EdhocResponder::new(backend::<C>(Y), EDHOCMethod::StatStat, R, cred_r);
    let (processed, _c_i, _) = step(
        responder.process_message_1(&buffer(TRACE_M1)?),
        "trace message_1",
    )?;
    let (_, m2) = step(
        processed.prepare_message_2(
            CredentialTransfer::ByReference,
            ConnId::from_slice(&[C_R]),
            &None,
        ),
        "trace message_2",
    )?;
    expect("trace message_2", m2.as_slice(), TRACE_M2)
}

/// The whole handshake, each party's part of each message measured.
pub fn bench<C: Curve, P: Probe>(b: &mut Bench<P>, id: &str) {
    b.algorithm(id);
    let result = trace_responder::<C>().and_then(|()| handshake::<C, P>(b));
    b.kat(id, result);
}

fn handshake<C: Curve, P: Probe>(b: &mut Bench<P>) -> Result<(), Failure> {
    let cred_i = step(Credential::parse_ccs(CRED_I), "parse CRED_I")?;
    let cred_r = step(Credential::parse_ccs(CRED_R), "parse CRED_R")?;
    let (c_i, c_r) = (ConnId::from_slice(&[C_I]), ConnId::from_slice(&[C_R]));

    // lakers makes a party's ephemeral key when the party starts: the
    // initiator before message_1, the responder when message_1 arrives.
    let (i_wait_m2, m1) = step(
        b.op("m1-write", M1.len(), || {
            let suite = EDHOCSuite::CipherSuite2;
            EdhocInitiator::new(backend::<C>(black_box(X)), EDHOCMethod::StatStat, suite)
                .prepare_message_1(c_i, &None)
        }),
        "message_1",
    )?;
    expect("message_1", m1.as_slice(), M1)?;

    let (r_processed, _, _) = step(
        b.op("m1-read", M1.len(), || {
            EdhocResponder::new(backend::<C>(black_box(Y)), EDHOCMethod::StatStat, R, cred_r)
                .process_message_1(black_box(&m1))
        }),
        "read message_1",
    )?;
    let (r_wait_m3, m2) = step(
        b.op("m2-write", M2.len(), || {
            r_processed.prepare_message_2(CredentialTransfer::ByReference, c_r, &None)
        }),
        "message_2",
    )?;
    expect("message_2", m2.as_slice(), M2)?;

    let i_processed = step(
        b.op("m2-read", M2.len(), || {
            let (mut processing, _c_r, id_cred_r, _) = i_wait_m2.parse_message_2(black_box(&m2))?;
            let cred = credential_check_or_fetch(Some(cred_r), id_cred_r)?;
            processing.set_identity(I, cred_i)?;
            processing.verify_message_2(cred)
        }),
        "read message_2",
    )?;
    let (i_wait_m4, m3, i_prk_out) = step(
        b.op("m3-write", M3.len(), || {
            i_processed.prepare_message_3(CredentialTransfer::ByReference, &None)
        }),
        "message_3",
    )?;
    expect("message_3", m3.as_slice(), M3)?;

    let (r_processed, r_prk_out) = step(
        b.op("m3-read", M3.len(), || {
            let (processing, id_cred_i, _) = r_wait_m3.parse_message_3(black_box(&m3))?;
            let cred = credential_check_or_fetch(Some(cred_i), id_cred_i)?;
            processing.verify_message_3(cred)
        }),
        "read message_3",
    )?;
    let (_, m4) = step(
        b.op("m4-write", M4.len(), || {
            r_processed.prepare_message_4(&None)
        }),
        "message_4",
    )?;
    expect("message_4", m4.as_slice(), M4)?;
    step(
        b.op("m4-read", M4.len(), || {
            i_wait_m4.process_message_4(black_box(&m4))
        }),
        "read message_4",
    )?;
    expect("PRK_out", &i_prk_out, &r_prk_out)
}
