//! EDHOC (RFC 9528) run for real with the `lakers` crate: both parties'
//! steps, and the OSCORE security context the handshake exports (RFC 9528
//! Appendix A.1).
//!
//! lakers 0.8 implements method 3 (both parties authenticate with static
//! Diffie-Hellman keys) and cipher suite 2 (AES-CCM-16-64-128, SHA-256,
//! P-256); method 4, a pre-shared key (draft-ietf-lake-edhoc-psk), runs
//! with our own [`crate::edhoc_psk`], suite 2 too. [`Method`] and [`Suite`]
//! refuse the others with that reason.
//! Credentials are CWT Claims Sets (CCS) sent by reference (their kid), as
//! in RFC 9529's traces.

pub use lakers::ConnId;
use lakers::{
    Completed, Credential, CredentialTransfer, EDHOCError, EDHOCMethod, EDHOCSuite, EdhocBuffer,
    EdhocMessageBuffer, EdhocResponder, EdhocResponderWaitM3, InitiatorStart, MAX_KDF_CONTEXT_LEN,
    MAX_SUITES_LEN, WaitM2, WaitM4, credential_check_or_fetch, edhoc_exporter,
    i_complete_without_message_4, i_parse_message_2, i_prepare_message_1, i_prepare_message_3,
    i_process_message_4, i_verify_message_2,
};
use lakers_crypto_rustcrypto::Crypto as RustCrypto;
use p256_lakers::elliptic_curve::sec1::ToEncodedPoint;
use rand_core_lakers::OsRng;
use zeroize::Zeroizing;

use crate::error::HandshakeError;

/// The device firmware build that runs this EDHOC (method 3, suite 2) and
/// measures each message (`firmware/src/algorithms/edhoc.rs`).
pub const DEVICE_BUILD: &str = "edhoc-m3-s2";

/// An EDHOC authentication method (RFC 9528 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method(u8);

impl Method {
    /// Static DH for both parties: the method lakers implements.
    pub const STATIC_DH: Method = Method(3);
    /// A pre-shared key (draft-ietf-lake-edhoc-psk; 4 is the draft's
    /// suggested value for its TBD4): [`crate::edhoc_psk`].
    pub const PSK: Method = Method(crate::edhoc_psk::METHOD);

    pub fn parse(n: u8) -> Result<Method, HandshakeError> {
        match n {
            3 => Ok(Method(3)),
            4 => Ok(Method::PSK),
            0..=2 => Err(HandshakeError::Unsupported(format!(
                "EDHOC method {n} (signatures for {}): lakers, the implementation used here, \
                 implements method 3 (static DH both ways) only; method 4 (psk) runs too",
                ["both parties", "the initiator", "the responder"][n as usize]
            ))),
            _ => Err(HandshakeError::Usage(format!(
                "EDHOC method {n} does not exist: RFC 9528 defines 0 to 3, \
                 draft-ietf-lake-edhoc-psk 4 (psk)"
            ))),
        }
    }

    pub fn number(self) -> u8 {
        self.0
    }
}

/// An EDHOC cipher suite (RFC 9528 §3.6, the IANA registry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite(u8);

impl Suite {
    pub fn parse(n: u8) -> Result<Suite, HandshakeError> {
        match n {
            2 => Ok(Suite(2)),
            0..=6 | 24 | 25 => Err(HandshakeError::Unsupported(format!(
                "EDHOC cipher suite {n}: suite 2 (AES-CCM-16-64-128, SHA-256, P-256) is the \
                 only one run here (lakers for method 3, our own EDHOC-PSK for method 4); \
                 post-quantum suites: handshake drafts"
            ))),
            _ => Err(HandshakeError::Usage(format!(
                "EDHOC cipher suite {n} is not registered (RFC 9528 §10.2: 0-6, 24, 25)"
            ))),
        }
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// The suite's AEAD as an OSCORE algorithm name.
    pub fn oscore_alg(self) -> &'static str {
        "aes-ccm-16-64-128"
    }
}

/// The crypto backend: RustCrypto through lakers, with an optional fixed
/// ephemeral key (only to reproduce published traces).
#[derive(Debug)]
struct Backend {
    inner: RustCrypto<OsRng>,
    ephemeral: Option<([u8; 32], [u8; 32])>,
}

impl Backend {
    fn new(ephemeral: Option<&[u8; 32]>) -> Result<Backend, HandshakeError> {
        let ephemeral = match ephemeral {
            Some(private) => Some((*private, public_x(private)?)),
            None => None,
        };
        Ok(Backend {
            inner: RustCrypto::new(OsRng),
            ephemeral,
        })
    }
}

impl lakers::CryptoTrait for Backend {
    fn sha256_digest(
        &mut self,
        message: &lakers::BytesMaxBuffer,
        message_len: usize,
    ) -> lakers::BytesHashLen {
        self.inner.sha256_digest(message, message_len)
    }
    fn hkdf_expand(
        &mut self,
        prk: &lakers::BytesHashLen,
        info: &lakers::BytesMaxInfoBuffer,
        info_len: usize,
        length: usize,
    ) -> lakers::BytesMaxBuffer {
        self.inner.hkdf_expand(prk, info, info_len, length)
    }
    fn hkdf_extract(
        &mut self,
        salt: &lakers::BytesHashLen,
        ikm: &lakers::BytesP256ElemLen,
    ) -> lakers::BytesHashLen {
        self.inner.hkdf_extract(salt, ikm)
    }
    fn aes_ccm_encrypt_tag_8(
        &mut self,
        key: &lakers::BytesCcmKeyLen,
        iv: &lakers::BytesCcmIvLen,
        ad: &[u8],
        plaintext: &lakers::BufferPlaintext3,
    ) -> lakers::BufferCiphertext3 {
        self.inner.aes_ccm_encrypt_tag_8(key, iv, ad, plaintext)
    }
    fn aes_ccm_decrypt_tag_8(
        &mut self,
        key: &lakers::BytesCcmKeyLen,
        iv: &lakers::BytesCcmIvLen,
        ad: &[u8],
        ciphertext: &lakers::BufferCiphertext3,
    ) -> Result<lakers::BufferPlaintext3, EDHOCError> {
        self.inner.aes_ccm_decrypt_tag_8(key, iv, ad, ciphertext)
    }
    fn p256_ecdh(
        &mut self,
        private_key: &lakers::BytesP256ElemLen,
        public_key: &lakers::BytesP256ElemLen,
    ) -> lakers::BytesP256ElemLen {
        // lakers-crypto-rustcrypto panics on an x-coordinate that is no
        // P-256 point (lakers issue #93), which a peer's G_X or G_Y can be:
        // such a point gets a random shared secret instead, so the handshake
        // fails at its MAC as with any wrong key, and no ECDH runs with it.
        let mut compressed = [0x02; 33];
        compressed[1..].copy_from_slice(public_key);
        if p256_lakers::PublicKey::from_sec1_bytes(&compressed).is_err() {
            return core::array::from_fn(|_| self.inner.get_random_byte());
        }
        self.inner.p256_ecdh(private_key, public_key)
    }
    fn get_random_byte(&mut self) -> u8 {
        self.inner.get_random_byte()
    }
    fn p256_generate_key_pair(&mut self) -> (lakers::BytesP256ElemLen, lakers::BytesP256ElemLen) {
        match self.ephemeral.take() {
            Some(pair) => pair,
            None => self.inner.p256_generate_key_pair(),
        }
    }
}

/// The x-coordinate of a P-256 private key's public point (EDHOC's G_X).
fn public_point(private: &[u8; 32]) -> Result<([u8; 32], [u8; 32]), HandshakeError> {
    let secret = p256_lakers::SecretKey::from_slice(private)
        .map_err(|_| HandshakeError::Usage("not a P-256 private key".into()))?;
    let point = secret.public_key().to_encoded_point(false);
    let (Some(x), Some(y)) = (point.x(), point.y()) else {
        return Err(HandshakeError::Usage("P-256 point at infinity".into()));
    };
    Ok(((*x).into(), (*y).into()))
}

fn public_x(private: &[u8; 32]) -> Result<[u8; 32], HandshakeError> {
    public_point(private).map(|(x, _)| x)
}

/// One party's static key and its credential (a CCS naming the public key).
pub struct Party {
    private: Zeroizing<[u8; 32]>,
    ccs: Vec<u8>,
}

impl Party {
    /// A fresh static key pair and its CCS: `{2: subject, 8: {1: COSE_Key}}`,
    /// the COSE_Key `{1: 2 (EC2), 2: kid, -1: 1 (P-256), -2: x, -3: y}`.
    pub fn generate(subject: &str, kid: u8) -> Result<Party, HandshakeError> {
        let secret = p256_lakers::SecretKey::random(&mut OsRng);
        let private: [u8; 32] = secret.to_bytes().into();
        let private = Zeroizing::new(private);
        let (x, y) = public_point(&private)?;
        let ccs = ccs(subject, kid, &x, &y)?;
        Ok(Party { private, ccs })
    }

    /// A party from its private key and CCS (RFC 9529's, in tests).
    pub fn from_parts(private: [u8; 32], ccs: &[u8]) -> Result<Party, HandshakeError> {
        Credential::parse_ccs(ccs).map_err(lakers_err)?;
        Ok(Party {
            private: Zeroizing::new(private),
            ccs: ccs.to_vec(),
        })
    }

    pub fn credential(&self) -> Result<Credential, HandshakeError> {
        Credential::parse_ccs(&self.ccs).map_err(lakers_err)
    }

    pub fn ccs(&self) -> &[u8] {
        &self.ccs
    }

    /// The static private key, for the party's own credentials file.
    pub(crate) fn private(&self) -> &[u8; 32] {
        &self.private
    }
}

/// The CBOR of a CCS for a P-256 key (deterministic encoding, RFC 8949 §4.2).
fn ccs(subject: &str, kid: u8, x: &[u8; 32], y: &[u8; 32]) -> Result<Vec<u8>, HandshakeError> {
    if subject.len() > 23 {
        return Err(HandshakeError::Usage(
            "a credential subject is at most 23 bytes".into(),
        ));
    }
    let mut out = vec![0xa2, 0x02, 0x60 + subject.len() as u8];
    out.extend_from_slice(subject.as_bytes());
    // cnf {1 (COSE_Key): {1: 2, 2: h'kid', -1: 1, -2: x, -3: y}}
    out.extend_from_slice(&[0x08, 0xa1, 0x01, 0xa5, 0x01, 0x02, 0x02, 0x41, kid]);
    out.extend_from_slice(&[0x20, 0x01, 0x21, 0x58, 0x20]);
    out.extend_from_slice(x);
    out.extend_from_slice(&[0x22, 0x58, 0x20]);
    out.extend_from_slice(y);
    Ok(out)
}

pub(crate) fn lakers_err(e: EDHOCError) -> HandshakeError {
    HandshakeError::Protocol(format!("{e:?}"))
}

/// Runs a lakers step that decrypts and parses a peer's message. Under a
/// wrong key (a flipped bit in G_Y, a tampered message_3) the plaintext is
/// random bytes, and lakers-shared 0.8 slices a connection identifier of the
/// length such bytes claim without checking it (`ConnId::from_decoder`), a
/// panic: it is the message's refusal here, so a peer cannot stop the gateway.
fn parsed<T>(
    what: &str,
    step: impl FnOnce() -> Result<T, EDHOCError>,
) -> Result<T, HandshakeError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step))
        .map_err(|_| HandshakeError::Protocol(format!("{what} does not parse under this key")))?
        .map_err(lakers_err)
}

fn buffer(bytes: &[u8], what: &str) -> Result<EdhocMessageBuffer, HandshakeError> {
    EdhocMessageBuffer::new_from_slice(bytes).map_err(|_| {
        HandshakeError::Protocol(format!("{what} of {} bytes is too long", bytes.len()))
    })
}

/// The OSCORE context a party takes from the handshake (RFC 9528 A.1):
/// master secret and salt from the exporter, and the connection identifiers
/// as ids (a party's recipient id is its own C_x).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    pub prk_out: [u8; 32],
    pub master_secret: [u8; 16],
    pub master_salt: [u8; 8],
    pub sender_id: Vec<u8>,
    pub recipient_id: Vec<u8>,
}

/// The exporter's labels for OSCORE (RFC 9528 A.1).
const MASTER_SECRET_LABEL: u8 = 0;
const MASTER_SALT_LABEL: u8 = 1;

macro_rules! export {
    ($done:expr, $prk_out:expr, $mine:expr, $peer:expr) => {{
        let secret = $done.edhoc_exporter(MASTER_SECRET_LABEL, &[], 16);
        let salt = $done.edhoc_exporter(MASTER_SALT_LABEL, &[], 8);
        Exported {
            prk_out: $prk_out,
            master_secret: secret[..16].try_into().expect("16 bytes"),
            master_salt: salt[..8].try_into().expect("8 bytes"),
            sender_id: $peer.as_slice().to_vec(),
            recipient_id: $mine.as_slice().to_vec(),
        }
    }};
}

/// The initiator between message 1 and message 2.
///
/// Its steps are lakers' own protocol functions (`i_prepare_message_1` and
/// the rest, which lakers' `EdhocInitiator` wraps), called here directly so
/// that a trace's SUITES_I can be offered and its key schedule read
/// ([`KeySchedule`]); the bytes are lakers'.
pub struct Initiator {
    party_cred: Credential,
    private: Zeroizing<[u8; 32]>,
    c_i: ConnId,
    state: WaitM2,
    backend: Backend,
}

/// The initiator's intermediate values of one handshake (RFC 9528 §4.1,
/// §5.3): what RFC 9529's traces print, to hold an implementation to them.
/// Secret; wiped on drop.
#[derive(Clone, Default, PartialEq, Eq, zeroize::Zeroize, zeroize::ZeroizeOnDrop)]
pub struct KeySchedule {
    pub h_message_1: [u8; 32],
    pub th_2: [u8; 32],
    pub prk_2e: [u8; 32],
    pub th_3: [u8; 32],
    pub prk_3e2m: [u8; 32],
    pub prk_4e3m: [u8; 32],
    pub th_4: [u8; 32],
    pub prk_out: [u8; 32],
    pub prk_exporter: [u8; 32],
}

impl std::fmt::Debug for KeySchedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeySchedule { .. }")
    }
}

impl Initiator {
    /// Starts a handshake: returns message 1. `ephemeral` fixes X (traces only).
    pub fn start(
        party: &Party,
        c_i: ConnId,
        ephemeral: Option<&[u8; 32]>,
    ) -> Result<(Initiator, Vec<u8>), HandshakeError> {
        Initiator::start_offering(party, c_i, ephemeral, &[EDHOCSuite::CipherSuite2.into()])
    }

    /// As [`Initiator::start`], offering the cipher suites `suites_i` in
    /// order of preference, the selected one last (RFC 9528 §5.2.2), to
    /// reproduce traces only: RFC 9529 Chapter 3's second message_1 offers
    /// [6, 2] after the responder refused 6. The selected suite must be 2,
    /// the one lakers runs; the others are only named.
    pub fn start_offering(
        party: &Party,
        c_i: ConnId,
        ephemeral: Option<&[u8; 32]>,
        suites_i: &[u8],
    ) -> Result<(Initiator, Vec<u8>), HandshakeError> {
        if suites_i.last() != Some(&EDHOCSuite::CipherSuite2.into()) {
            return Err(HandshakeError::Usage(
                "the selected (last) cipher suite must be 2, the one lakers implements".into(),
            ));
        }
        if suites_i.iter().any(|s| *s > 23) || suites_i.len() > MAX_SUITES_LEN {
            return Err(HandshakeError::Usage(format!(
                "at most {MAX_SUITES_LEN} cipher suites, each 0 to 23"
            )));
        }
        let suites_i = EdhocBuffer::<MAX_SUITES_LEN>::new_from_slice(suites_i)
            .map_err(|_| HandshakeError::Usage("too many cipher suites".into()))?;
        let mut backend = Backend::new(ephemeral)?;
        let (x, g_x) = lakers::CryptoTrait::p256_generate_key_pair(&mut backend);
        let start = InitiatorStart {
            suites_i,
            method: EDHOCMethod::StatStat.into(),
            x,
            g_x,
        };
        let (state, message_1) =
            i_prepare_message_1(&start, &mut backend, c_i, &None).map_err(lakers_err)?;
        Ok((
            Initiator {
                party_cred: party.credential()?,
                private: party.private.clone(),
                c_i,
                state,
                backend,
            },
            message_1.as_slice().to_vec(),
        ))
    }

    /// Verifies message 2 against the responder's expected credential;
    /// returns message 3, and what finishing needs.
    pub fn message_3(
        mut self,
        message_2: &[u8],
        responder: &Credential,
    ) -> Result<(InitiatorWaitM4, Vec<u8>), HandshakeError> {
        let message_2 = buffer(message_2, "message_2")?;
        let (processing, c_r, id_cred_r, _ead) = parsed("message_2", || {
            i_parse_message_2(&self.state, &mut self.backend, &message_2)
        })?;
        if c_r == self.c_i {
            return Err(HandshakeError::Protocol(
                "C_R must differ from C_I (RFC 9528 A.1)".into(),
            ));
        }
        let cred_r = credential_check_or_fetch(Some(*responder), id_cred_r).map_err(lakers_err)?;
        let processed = i_verify_message_2(&processing, &mut self.backend, cred_r, &self.private)
            .map_err(lakers_err)?;
        let (state, message_3, prk_out) = i_prepare_message_3(
            &processed,
            &mut self.backend,
            self.party_cred,
            CredentialTransfer::ByReference,
            &None,
        )
        .map_err(lakers_err)?;
        let schedule = KeySchedule {
            h_message_1: self.state.h_message_1,
            th_2: processing.th_2,
            prk_2e: processing.prk_2e,
            th_3: processed.th_3,
            prk_3e2m: processed.prk_3e2m,
            prk_4e3m: state.prk_4e3m,
            th_4: state.th_4,
            prk_out: state.prk_out,
            prk_exporter: state.prk_exporter,
        };
        Ok((
            InitiatorWaitM4 {
                state,
                backend: self.backend,
                prk_out,
                c_i: self.c_i,
                c_r,
                schedule,
            },
            message_3.as_slice().to_vec(),
        ))
    }
}

/// The initiator after message 3.
pub struct InitiatorWaitM4 {
    state: WaitM4,
    backend: Backend,
    prk_out: [u8; 32],
    c_i: ConnId,
    c_r: ConnId,
    schedule: KeySchedule,
}

impl InitiatorWaitM4 {
    /// The responder's connection identifier, as CBOR: what prefixes
    /// message_3 in a CoAP request (RFC 9528 A.2).
    pub fn c_r_cbor(&self) -> Vec<u8> {
        self.c_r.as_cbor().to_vec()
    }

    /// The handshake's transcript hashes and PRKs so far (traces only).
    pub fn key_schedule(&self) -> &KeySchedule {
        &self.schedule
    }

    /// Finishes, verifying message 4 when the responder sends one.
    pub fn finish(mut self, message_4: Option<&[u8]>) -> Result<Exported, HandshakeError> {
        let done = match message_4 {
            Some(m4) => {
                i_process_message_4(
                    &mut self.state,
                    &mut self.backend,
                    &buffer(m4, "message_4")?,
                )
                .map_err(lakers_err)?
                .0
            }
            None => i_complete_without_message_4(&self.state).map_err(lakers_err)?,
        };
        let mut done = InitiatorDone {
            state: done,
            backend: self.backend,
        };
        Ok(export!(done, self.prk_out, self.c_i, self.c_r))
    }
}

/// The initiator's completed state, for the exporter (as lakers'
/// `EdhocInitiatorDone::edhoc_exporter`).
struct InitiatorDone {
    state: Completed,
    backend: Backend,
}

impl InitiatorDone {
    fn edhoc_exporter(&mut self, label: u8, context: &[u8], length: usize) -> Vec<u8> {
        let mut context_buf = [0u8; MAX_KDF_CONTEXT_LEN];
        context_buf[..context.len()].copy_from_slice(context);
        edhoc_exporter(
            &self.state,
            &mut self.backend,
            label,
            &context_buf,
            context.len(),
            length,
        )[..length]
            .to_vec()
    }
}

/// The responder between message 2 and message 3.
pub struct Responder {
    state: EdhocResponderWaitM3<Backend>,
    c_i: ConnId,
    c_r: ConnId,
}

impl Responder {
    /// Answers message 1 with message 2, under the C_R `choose_c_r` picks
    /// once it knows C_I. `ephemeral` fixes Y (traces only).
    pub fn answer(
        party: &Party,
        message_1: &[u8],
        choose_c_r: impl FnOnce(&ConnId) -> ConnId,
        ephemeral: Option<&[u8; 32]>,
    ) -> Result<(Responder, Vec<u8>), HandshakeError> {
        let backend = Backend::new(ephemeral)?;
        let responder = EdhocResponder::new(
            backend,
            EDHOCMethod::StatStat,
            *party.private,
            party.credential()?,
        );
        let (processed, c_i, _ead) = responder
            .process_message_1(&buffer(message_1, "message_1")?)
            .map_err(lakers_err)?;
        let c_r = choose_c_r(&c_i);
        // They become OSCORE's sender and recipient ids: equal ones would give
        // both directions the same nonces (RFC 9528 A.1).
        if c_r == c_i {
            return Err(HandshakeError::Protocol(
                "C_R must differ from C_I (RFC 9528 A.1)".into(),
            ));
        }
        let (state, message_2) = processed
            .prepare_message_2(CredentialTransfer::ByReference, Some(c_r), &None)
            .map_err(lakers_err)?;
        Ok((Responder { state, c_i, c_r }, message_2.as_slice().to_vec()))
    }

    /// Verifies message 3 against the credential its ID_CRED_I names among
    /// `trusted`; with `send_message_4`, returns message 4 too.
    pub fn finish(
        self,
        message_3: &[u8],
        trusted: &[Credential],
        send_message_4: bool,
    ) -> Result<(Exported, Option<Vec<u8>>), HandshakeError> {
        let message_3 = buffer(message_3, "message_3")?;
        let state = self.state;
        let (processing, id_cred_i, _ead) =
            parsed("message_3", || state.parse_message_3(&message_3))?;
        let cred_i = trusted
            .iter()
            .find_map(|c| credential_check_or_fetch(Some(*c), id_cred_i).ok())
            .ok_or_else(|| {
                HandshakeError::Protocol(
                    "message_3 names a credential this responder does not trust".into(),
                )
            })?;
        let (processed, prk_out) = processing.verify_message_3(cred_i).map_err(lakers_err)?;
        if send_message_4 {
            let (mut done, message_4) = processed.prepare_message_4(&None).map_err(lakers_err)?;
            let exported = export!(done, prk_out, self.c_r, self.c_i);
            Ok((exported, Some(message_4.as_slice().to_vec())))
        } else {
            let mut done = processed
                .completed_without_message_4()
                .map_err(lakers_err)?;
            Ok((export!(done, prk_out, self.c_r, self.c_i), None))
        }
    }
}

/// A whole handshake's messages and what each party exported.
pub struct Transcript {
    pub method: Method,
    pub suite: Suite,
    pub message_1: Vec<u8>,
    pub message_2: Vec<u8>,
    pub message_3: Vec<u8>,
    pub message_4: Option<Vec<u8>>,
    pub initiator: Exported,
    pub responder: Exported,
}

impl Transcript {
    /// The messages in order, with their names and who sends each.
    pub fn messages(&self) -> Vec<(&'static str, Role, &[u8])> {
        let mut out = vec![
            ("message_1", Role::Initiator, &self.message_1[..]),
            ("message_2", Role::Responder, &self.message_2[..]),
            ("message_3", Role::Initiator, &self.message_3[..]),
        ];
        if let Some(m4) = &self.message_4 {
            out.push(("message_4", Role::Responder, &m4[..]));
        }
        out
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Initiator,
    Responder,
}

/// Runs a handshake between two fresh parties in this process, every step
/// through lakers (method 3) or [`crate::edhoc_psk`] (method 4), and checks
/// both export the same OSCORE secrets.
pub fn run(method: Method, suite: Suite, message_4: bool) -> Result<Transcript, HandshakeError> {
    if method == Method::PSK {
        return crate::edhoc_psk::run(suite, message_4);
    }
    let (device, gateway) = (
        Party::generate("device", 0x2b)?,
        Party::generate("gateway", 0x32)?,
    );
    // One-byte connection identifiers, as RFC 9529's traces use (-24 and -8).
    let (c_i, c_r) = (
        ConnId::from_slice(&[0x37]).expect("one byte"),
        ConnId::from_slice(&[0x27]).expect("one byte"),
    );
    let (initiator, message_1) = Initiator::start(&device, c_i, None)?;
    let (responder, message_2) = Responder::answer(&gateway, &message_1, |_| c_r, None)?;
    let (waiting, message_3) = initiator.message_3(&message_2, &gateway.credential()?)?;
    let (responder_keys, message_4) =
        responder.finish(&message_3, &[device.credential()?], message_4)?;
    let initiator_keys = waiting.finish(message_4.as_deref())?;
    if initiator_keys.master_secret != responder_keys.master_secret
        || initiator_keys.sender_id != responder_keys.recipient_id
    {
        return Err(HandshakeError::Protocol(
            "the parties exported different OSCORE contexts".into(),
        ));
    }
    Ok(Transcript {
        method,
        suite,
        message_1,
        message_2,
        message_3,
        message_4,
        initiator: initiator_keys,
        responder: responder_keys,
    })
}
