//! An OSCORE security context (RFC 8613 §3): the sender and recipient keys
//! and the common IV, derived with HKDF-SHA-256 from the master secret and
//! salt (§3.2.1), and the nonce of each message (§5.2).

// A device build keeps one algorithm's variant (the build script's copy none): the
// others' imports and helpers go unused there.
#![cfg_attr(only_scheme, allow(unused_imports, dead_code))]

use aes::{Aes128, Aes256};
use ccm::Ccm;
use ccm::consts::{U7, U8, U13, U16};
use cipher::KeyInit;
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use super::OscoreError;
use crate::algorithm::AeadAlg;
use crate::backend::Backend;
use crate::container::cbor::{self, ARRAY, UINT};
use crate::container::write::Writer;
use crate::error::Error;
use crate::keyed::{AeadKey, aead_open, aead_seal};

/// The longest sender or recipient id: a 13-byte nonce leaves 7 bytes for it.
pub const MAX_ID: usize = 7;
/// The longest ID context this core keeps.
pub const MAX_ID_CONTEXT: usize = 32;
/// The longest master secret or salt this core takes.
pub const MAX_MASTER: usize = 64;
/// The longest nonce of an OSCORE algorithm (AES-CCM-16-*).
pub const MAX_NONCE: usize = 13;
/// The highest Sender Sequence Number: its Partial IV has at most 5 bytes (§7.2.1).
pub const MAX_SEQUENCE: u64 = (1 << 40) - 1;

/// The COSE AEADs an OSCORE context may use (RFC 9053 §4, RFC 8613 §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// AES-CCM-16-64-128 (10): OSCORE's mandatory algorithm.
    AesCcm16_64_128,
    AesCcm16_64_256,
    AesCcm64_64_128,
    AesCcm64_64_256,
    AesCcm16_128_128,
    AesCcm16_128_256,
    AesCcm64_128_128,
    AesCcm64_128_256,
    A128Gcm,
    A256Gcm,
    ChaCha20Poly1305,
}

/// (algorithm, COSE number, name)
const ALGS: [(Alg, i64, &str); 11] = [
    (Alg::AesCcm16_64_128, 10, "aes-ccm-16-64-128"),
    (Alg::AesCcm16_64_256, 11, "aes-ccm-16-64-256"),
    (Alg::AesCcm64_64_128, 12, "aes-ccm-64-64-128"),
    (Alg::AesCcm64_64_256, 13, "aes-ccm-64-64-256"),
    (Alg::AesCcm16_128_128, 30, "aes-ccm-16-128-128"),
    (Alg::AesCcm16_128_256, 31, "aes-ccm-16-128-256"),
    (Alg::AesCcm64_128_128, 32, "aes-ccm-64-128-128"),
    (Alg::AesCcm64_128_256, 33, "aes-ccm-64-128-256"),
    (Alg::A128Gcm, 1, "aes-128-gcm"),
    (Alg::A256Gcm, 3, "aes-256-gcm"),
    (Alg::ChaCha20Poly1305, 24, "chacha20-poly1305"),
];

impl Alg {
    /// Every algorithm, for listings.
    pub fn every() -> impl Iterator<Item = Alg> {
        ALGS.iter().map(|r| r.0)
    }

    pub fn from_cose(n: i64) -> Option<Alg> {
        ALGS.iter().find(|r| r.1 == n).map(|r| r.0)
    }

    pub fn from_name(name: &str) -> Option<Alg> {
        ALGS.iter().find(|r| r.2 == name).map(|r| r.0)
    }

    pub fn cose(self) -> i64 {
        ALGS.iter().find(|r| r.0 == self).expect("row").1
    }

    pub fn name(self) -> &'static str {
        ALGS.iter().find(|r| r.0 == self).expect("row").2
    }

    pub const fn key_len(self) -> usize {
        use Alg::*;
        match self {
            AesCcm16_64_128 | AesCcm64_64_128 | AesCcm16_128_128 | AesCcm64_128_128 | A128Gcm => 16,
            _ => 32,
        }
    }

    pub const fn nonce_len(self) -> usize {
        use Alg::*;
        match self {
            AesCcm16_64_128 | AesCcm16_64_256 | AesCcm16_128_128 | AesCcm16_128_256 => 13,
            AesCcm64_64_128 | AesCcm64_64_256 | AesCcm64_128_128 | AesCcm64_128_256 => 7,
            A128Gcm | A256Gcm | ChaCha20Poly1305 => 12,
        }
    }

    pub const fn tag_len(self) -> usize {
        use Alg::*;
        match self {
            AesCcm16_64_128 | AesCcm16_64_256 | AesCcm64_64_128 | AesCcm64_64_256 => 8,
            _ => 16,
        }
    }

    /// The longest sender or recipient id under this algorithm (§3.3).
    pub const fn max_id(self) -> usize {
        self.nonce_len() - 6
    }
}

/// One direction's keyed AEAD. No allocator to box with: the variants keep
/// their own size, as the core's `AeadKey` does.
#[allow(clippy::large_enum_variant)]
///
/// A device build (`cfg(only_scheme)`, firmware `seal-oscore`) carries only
/// its own algorithm's variant: the `ccm` crate's only for AES-CCM-16-64-128,
/// the core's for the others (and for a build of no OSCORE algorithm, such
/// as the firmware build script's own copy of this crate).
enum Keyed {
    #[cfg(any(not(only_scheme), only = "oscore-aes-ccm-16-64-128"))]
    Ccm16_64_128(Ccm<Aes128, U8, U13>),
    #[cfg(not(only_scheme))]
    Ccm16_64_256(Ccm<Aes256, U8, U13>),
    #[cfg(not(only_scheme))]
    Ccm64_64_128(Ccm<Aes128, U8, U7>),
    #[cfg(not(only_scheme))]
    Ccm64_64_256(Ccm<Aes256, U8, U7>),
    #[cfg(not(only_scheme))]
    Ccm64_128_128(Ccm<Aes128, U16, U7>),
    #[cfg(not(only_scheme))]
    Ccm64_128_256(Ccm<Aes256, U16, U7>),
    /// The sealing core's own AEADs (AES-CCM-16-128-*, GCM, ChaCha20-Poly1305).
    #[cfg(not(only = "oscore-aes-ccm-16-64-128"))]
    Core(AeadKey),
}

/// The `ccm` crate's AEADs keep only their block cipher, which wipes itself;
/// `AeadKey` wipes (crate::wipe's tests check both).
impl zeroize::ZeroizeOnDrop for Keyed {}

/// Its keyed AEADs wipe themselves (`Keyed`).
impl zeroize::ZeroizeOnDrop for Context {}

fn ccm<C: KeyInit>(key: &[u8]) -> Result<C, Error> {
    C::new_from_slice(key).map_err(|_| Error::KeyLength)
}

impl Keyed {
    // A build of no OSCORE algorithm (the firmware build script's copy) keeps no arm.
    #[cfg_attr(only_scheme, allow(unreachable_code, unused_variables))]
    fn new(alg: Alg, key: &[u8]) -> Result<Keyed, Error> {
        use Alg::*;
        Ok(match alg {
            #[cfg(any(not(only_scheme), only = "oscore-aes-ccm-16-64-128"))]
            AesCcm16_64_128 => Keyed::Ccm16_64_128(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm16_64_256 => Keyed::Ccm16_64_256(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm64_64_128 => Keyed::Ccm64_64_128(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm64_64_256 => Keyed::Ccm64_64_256(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm64_128_128 => Keyed::Ccm64_128_128(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm64_128_256 => Keyed::Ccm64_128_256(ccm(key)?),
            #[cfg(not(only_scheme))]
            AesCcm16_128_128 => Keyed::Core(AeadKey::new(AeadAlg::Aes128Ccm, key, Backend::BUILT)?),
            #[cfg(not(only_scheme))]
            AesCcm16_128_256 => Keyed::Core(AeadKey::new(AeadAlg::Aes256Ccm, key, Backend::BUILT)?),
            #[cfg(any(not(only_scheme), only = "oscore-aes-128-gcm"))]
            A128Gcm => Keyed::Core(AeadKey::new(AeadAlg::Aes128Gcm, key, Backend::BUILT)?),
            #[cfg(any(not(only_scheme), only = "oscore-aes-256-gcm"))]
            A256Gcm => Keyed::Core(AeadKey::new(AeadAlg::Aes256Gcm, key, Backend::BUILT)?),
            #[cfg(any(not(only_scheme), only = "oscore-chacha20-poly1305"))]
            ChaCha20Poly1305 => Keyed::Core(AeadKey::new(
                AeadAlg::ChaCha20Poly1305,
                key,
                Backend::BUILT,
            )?),
            #[allow(unreachable_patterns)]
            #[cfg(only_scheme)]
            _ => return Err(Error::NotBuilt),
        })
    }

    fn seal(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &mut [u8]) -> Result<(), Error> {
        match self {
            #[cfg(any(not(only_scheme), only = "oscore-aes-ccm-16-64-128"))]
            Keyed::Ccm16_64_128(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm16_64_256(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_64_128(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_64_256(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_128_128(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_128_256(a) => aead_seal(a, nonce, ad, buf, tag),
            #[cfg(not(only = "oscore-aes-ccm-16-64-128"))]
            Keyed::Core(a) => a.seal(nonce, ad, buf, tag),
        }
    }

    fn open(&self, nonce: &[u8], ad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        match self {
            #[cfg(any(not(only_scheme), only = "oscore-aes-ccm-16-64-128"))]
            Keyed::Ccm16_64_128(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm16_64_256(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_64_128(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_64_256(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_128_128(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only_scheme))]
            Keyed::Ccm64_128_256(a) => aead_open(a, nonce, ad, buf, tag),
            #[cfg(not(only = "oscore-aes-ccm-16-64-128"))]
            Keyed::Core(a) => a.open(nonce, ad, buf, tag),
        }
    }
}

/// A short byte string kept inline (ids, ID context, common IV).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Bytes<N> {
    pub fn new(bytes: &[u8]) -> Option<Bytes<N>> {
        let mut buf = [0; N];
        buf.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(Bytes {
            buf,
            len: bytes.len(),
        })
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// What a context is made from (RFC 8613 §3.1, §3.2).
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    pub alg: Alg,
    pub master_secret: &'a [u8],
    /// Empty when none is used (the default).
    pub master_salt: &'a [u8],
    pub sender_id: &'a [u8],
    pub recipient_id: &'a [u8],
    pub id_context: Option<&'a [u8]>,
}

/// A derived context: the keyed AEADs of both directions and what the
/// nonces and the AAD are made of. The keys are zeroized after keying.
pub struct Context {
    pub alg: Alg,
    pub sender_id: Bytes<MAX_ID>,
    pub recipient_id: Bytes<MAX_ID>,
    pub id_context: Option<Bytes<MAX_ID_CONTEXT>>,
    pub common_iv: Bytes<MAX_NONCE>,
    sender: Keyed,
    recipient: Keyed,
}

/// The HKDF `info` of §3.2.1: `[id, id_context / nil, alg_aead, type, L]`.
pub fn info<'o>(
    id: &[u8],
    id_context: Option<&[u8]>,
    alg: Alg,
    kind: &str,
    len: usize,
    out: &'o mut [u8],
) -> Result<&'o [u8], OscoreError> {
    let mut w = Writer::new(out);
    cbor::head(&mut w, ARRAY, 5);
    cbor::bstr(&mut w, id);
    match id_context {
        Some(c) => cbor::bstr(&mut w, c),
        None => w.byte(0xf6),
    }
    let n = alg.cose();
    if n >= 0 {
        cbor::head(&mut w, UINT, n as usize);
    } else {
        cbor::head(&mut w, cbor::NINT, (-1 - n) as usize);
    }
    cbor::tstr(&mut w, kind);
    cbor::head(&mut w, UINT, len);
    let n = w.done().map_err(OscoreError::Core)?;
    Ok(&out[..n])
}

/// The longest `info`: two ids' worth of CBOR heads and bytes, and the rest.
const MAX_INFO: usize = 1 + 2 + MAX_ID_CONTEXT + 2 + MAX_ID + 2 + 4 + 2;

fn expand(inputs: &Inputs<'_>, id: &[u8], kind: &str, out: &mut [u8]) -> Result<(), OscoreError> {
    let mut buf = [0u8; MAX_INFO];
    let info = info(id, inputs.id_context, inputs.alg, kind, out.len(), &mut buf)?;
    Hkdf::<Sha256>::new(Some(inputs.master_salt), inputs.master_secret)
        .expand(info, out)
        .map_err(|_| OscoreError::Core(Error::KeyLength))
}

impl Context {
    pub fn derive(inputs: &Inputs<'_>) -> Result<Context, OscoreError> {
        let alg = inputs.alg;
        let too_long = |field: &'static str, len: usize, max: usize| {
            OscoreError::Core(Error::Oversize { field, len, max })
        };
        if inputs.master_secret.is_empty() || inputs.master_secret.len() > MAX_MASTER {
            return Err(too_long(
                "master_secret",
                inputs.master_secret.len(),
                MAX_MASTER,
            ));
        }
        if inputs.master_salt.len() > MAX_MASTER {
            return Err(too_long(
                "master_salt",
                inputs.master_salt.len(),
                MAX_MASTER,
            ));
        }
        for (field, id) in [
            ("sender_id", inputs.sender_id),
            ("recipient_id", inputs.recipient_id),
        ] {
            if id.len() > alg.max_id() {
                return Err(too_long(field, id.len(), alg.max_id()));
            }
        }
        if inputs.sender_id == inputs.recipient_id {
            return Err(OscoreError::Malformed(
                "sender and recipient ids must differ (RFC 8613 §3.3)",
            ));
        }
        let id_context = match inputs.id_context {
            Some(c) => {
                Some(Bytes::new(c).ok_or(too_long("id_context", c.len(), MAX_ID_CONTEXT))?)
            }
            None => None,
        };
        let mut key = Zeroizing::new([0u8; 32]);
        let key = &mut key[..alg.key_len()];
        expand(inputs, inputs.sender_id, "Key", key)?;
        let sender = Keyed::new(alg, key).map_err(OscoreError::Core)?;
        expand(inputs, inputs.recipient_id, "Key", key)?;
        let recipient = Keyed::new(alg, key).map_err(OscoreError::Core)?;
        let mut iv = [0u8; MAX_NONCE];
        expand(inputs, &[], "IV", &mut iv[..alg.nonce_len()])?;
        Ok(Context {
            alg,
            sender_id: Bytes::new(inputs.sender_id).expect("checked"),
            recipient_id: Bytes::new(inputs.recipient_id).expect("checked"),
            id_context,
            common_iv: Bytes::new(&iv[..alg.nonce_len()]).expect("fits"),
            sender,
            recipient,
        })
    }

    /// The nonce of §5.2: the id's length, the id and the Partial IV, each
    /// left-padded, XORed with the common IV.
    pub fn nonce(&self, id_piv: &[u8], partial_iv: &[u8]) -> Result<Bytes<MAX_NONCE>, OscoreError> {
        let n = self.alg.nonce_len();
        if id_piv.len() > n - 6 || partial_iv.len() > 5 {
            return Err(OscoreError::Malformed(
                "id or Partial IV too long for the nonce",
            ));
        }
        let mut nonce = [0u8; MAX_NONCE];
        nonce[0] = id_piv.len() as u8;
        nonce[n - 5 - id_piv.len()..n - 5].copy_from_slice(id_piv);
        nonce[n - partial_iv.len()..n].copy_from_slice(partial_iv);
        for (b, iv) in nonce.iter_mut().zip(self.common_iv.as_slice()) {
            *b ^= iv;
        }
        Ok(Bytes::new(&nonce[..n]).expect("fits"))
    }

    pub(super) fn seal(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), OscoreError> {
        self.sender
            .seal(nonce, ad, buf, tag)
            .map_err(OscoreError::Core)
    }

    pub(super) fn open(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), OscoreError> {
        self.recipient
            .open(nonce, ad, buf, tag)
            .map_err(|_| OscoreError::DecryptionFailed)
    }
}

/// A sequence number as a Partial IV: big-endian, no leading zeros, 0 as one byte.
pub fn partial_iv(sequence: u64) -> Result<Bytes<5>, OscoreError> {
    if sequence > MAX_SEQUENCE {
        return Err(OscoreError::SequenceExhausted);
    }
    let bytes = sequence.to_be_bytes();
    let skip = (sequence.leading_zeros() / 8).min(7) as usize;
    Ok(Bytes::new(&bytes[skip..]).expect("at most 5 bytes"))
}

/// The sequence number a Partial IV carries.
pub fn sequence_of(partial_iv: &[u8]) -> Result<u64, OscoreError> {
    if partial_iv.is_empty() || partial_iv.len() > 5 {
        return Err(OscoreError::Malformed("Partial IV of 1 to 5 bytes"));
    }
    Ok(partial_iv.iter().fold(0u64, |n, &b| (n << 8) | b as u64))
}
