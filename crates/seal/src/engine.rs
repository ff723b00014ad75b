//! The three patterns (and `enc`) as in-place operations on a caller's
//! buffer: the heart of every container, on the host and on the device.

// A one-scheme build (firmware) compiles one pattern's arms only; a build
// without algorithms (features off) compiles none.
#![cfg_attr(
    any(only_scheme, not(feature = "all")),
    allow(
        dead_code,
        unused_imports,
        unused_variables,
        unused_mut,
        unreachable_code
    )
)]

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::algorithm::CipherAlg;
use crate::backend::Backend;
use crate::error::{Error, limits};
use crate::keyed::{AeadKey, CipherKey, MacKey};
use crate::spec::{ETM_MASTER_KEY, Pattern, Spec};

/// HKDF-SHA256 `info` strings for EtM's two keys (salt: none; input: the 32-byte master key).
pub const ETM_ENC_INFO: &[u8] = b"ciphermeter etm v1 encryption key";
pub const ETM_MAC_INFO: &[u8] = b"ciphermeter etm v1 mac key";

/// A bounded copy of a short field (a scheme name, a key id).
#[derive(Clone)]
pub(crate) struct Short<const N: usize> {
    bytes: [u8; N],
    len: u8,
}

impl<const N: usize> Short<N> {
    pub(crate) fn new(from: &[u8], field: &'static str) -> Result<Self, Error> {
        if from.len() > N {
            return Err(Error::Oversize {
                field,
                len: from.len(),
                max: N,
            });
        }
        let mut bytes = [0u8; N];
        bytes[..from.len()].copy_from_slice(from);
        Ok(Short {
            bytes,
            len: from.len() as u8,
        })
    }

    pub(crate) fn get(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

/// A key with its key schedules done, ready to seal and open many messages.
/// It owns copies of the scheme name and key id, so it needs no allocator
/// and borrows nothing.
pub struct Sealer {
    pub(crate) pattern: Pattern,
    pub(crate) cipher_alg: Option<CipherAlg>,
    pub(crate) mac_alg: Option<crate::algorithm::MacAlg>,
    name: Short<{ limits::SCHEME }>,
    key_id: Short<{ limits::KEY_ID }>,
    cipher: Option<CipherKey>,
    mac: Option<MacKey>,
    /// The binary container's 4-byte scheme id, computed once here.
    pub(crate) scheme_id: [u8; 4],
}

/// The keyed cipher and MAC wipe themselves (`CipherKey`, `MacKey`).
impl zeroize::ZeroizeOnDrop for Sealer {}

impl Sealer {
    /// Runs the key schedules with this build's backend ([`Backend::BUILT`]:
    /// RustCrypto on the host). The caller has checked that the scheme is
    /// acceptable (the host refuses insecure ones unless asked).
    pub fn new(spec: Spec<'_>, key_id: &[u8], material: &[u8]) -> Result<Sealer, Error> {
        Self::with_backend(spec, key_id, material, Backend::BUILT)
    }

    /// Runs the key schedules with `backend`'s code for every keyed
    /// primitive; `Error::NotInBackend` if it lacks one (no other backend's
    /// code stands in).
    pub fn with_backend(
        spec: Spec<'_>,
        key_id: &[u8],
        material: &[u8],
        backend: Backend,
    ) -> Result<Sealer, Error> {
        if material.len() != spec.key_len() {
            return Err(Error::KeyLength);
        }
        if key_id.is_empty() {
            return Err(Error::Oversize {
                field: "key id",
                len: 0,
                max: limits::KEY_ID,
            });
        }
        let (cipher, mac) = match (spec.pattern, spec.cipher, spec.mac) {
            #[cfg(any(not(only_scheme), only = "pattern-hmac"))]
            (Pattern::Hmac, _, Some(m)) => (None, Some(MacKey::new(m, material, backend)?)),
            #[cfg(any(not(only_scheme), only = "pattern-aead"))]
            (Pattern::Aead, Some(c), None) => (Some(CipherKey::new(c, material, backend)?), None),
            #[cfg(any(not(only_scheme), only = "pattern-enc"))]
            (Pattern::Enc, Some(c), None) => (Some(CipherKey::new(c, material, backend)?), None),
            #[cfg(any(not(only_scheme), only = "pattern-etm"))]
            (Pattern::Etm, Some(c), Some(m)) => {
                let mut enc = Zeroizing::new([0u8; 64]);
                let mut mac = Zeroizing::new([0u8; 64]);
                let enc = derive(material, ETM_ENC_INFO, &mut enc[..c.key_len()])?;
                let mac = derive(material, ETM_MAC_INFO, &mut mac[..m.key_len()])?;
                (
                    Some(CipherKey::new(c, enc, backend)?),
                    Some(MacKey::new(m, mac, backend)?),
                )
            }
            #[allow(unreachable_patterns)]
            _ => return Err(Error::NotBuilt),
        };
        let scheme_id = scheme_id(spec.name)?;
        Ok(Sealer {
            pattern: spec.pattern,
            cipher_alg: spec.cipher,
            mac_alg: spec.mac,
            name: Short::new(spec.name.as_bytes(), "scheme")?,
            key_id: Short::new(key_id, "key id")?,
            cipher,
            mac,
            scheme_id,
        })
    }

    pub fn spec(&self) -> Spec<'_> {
        Spec {
            pattern: self.pattern,
            cipher: self.cipher_alg,
            mac: self.mac_alg,
            name: core::str::from_utf8(self.name.get()).expect("copied from a str"),
        }
    }

    pub fn key_id(&self) -> &[u8] {
        self.key_id.get()
    }

    /// Seals `buf[..len]` in place under `nonce`, authenticating `ad` too;
    /// writes the tag into `tag` (the scheme's tag length) and returns the
    /// body length (ciphertext, or the plaintext itself for `hmac`).
    pub fn protect(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        len: usize,
        tag: &mut [u8],
    ) -> Result<usize, Error> {
        let tag = tag
            .get_mut(..self.spec().tag_len())
            .ok_or(Error::BufferTooSmall { need: 0 })?;
        match (self.pattern, &self.cipher) {
            #[cfg(any(not(only_scheme), only = "pattern-hmac"))]
            (Pattern::Hmac, _) => {
                let mut mac = self.mac().clone();
                mac.update(ad);
                mac.update(&buf[..len]);
                mac.finish(tag);
                Ok(len)
            }
            #[cfg(any(not(only_scheme), only = "pattern-aead"))]
            (Pattern::Aead, Some(CipherKey::Aead(a))) => {
                let body = buf
                    .get_mut(..len)
                    .ok_or(Error::BufferTooSmall { need: len })?;
                a.seal(nonce, ad, body, tag)?;
                Ok(len)
            }
            #[cfg(any(not(only_scheme), only = "pattern-etm"))]
            (Pattern::Etm, Some(c)) => {
                let body = c.encrypt(nonce, buf, len)?;
                let mut mac = self.mac().clone();
                etm_mac(&mut mac, ad, nonce, &buf[..body]);
                mac.finish(tag);
                Ok(body)
            }
            #[cfg(any(not(only_scheme), only = "pattern-enc"))]
            (Pattern::Enc, Some(c)) => c.encrypt(nonce, buf, len),
            #[allow(unreachable_patterns)]
            _ => Err(Error::NotBuilt),
        }
    }

    /// The inverse of `protect`: checks the tag in constant time before
    /// anything is decrypted. Returns the plaintext length (in `body`).
    pub fn unprotect(
        &self,
        nonce: &[u8],
        ad: &[u8],
        body: &mut [u8],
        tag: &[u8],
    ) -> Result<usize, Error> {
        let spec = self.spec();
        if tag.len() != spec.tag_len() || nonce.len() != spec.nonce_len() {
            return Err(Error::Rejected);
        }
        match (self.pattern, &self.cipher) {
            #[cfg(any(not(only_scheme), only = "pattern-hmac"))]
            (Pattern::Hmac, _) => {
                let mut mac = self.mac().clone();
                mac.update(ad);
                mac.update(body);
                mac.verify(tag)?;
                Ok(body.len())
            }
            #[cfg(any(not(only_scheme), only = "pattern-aead"))]
            (Pattern::Aead, Some(CipherKey::Aead(a))) => {
                a.open(nonce, ad, body, tag)?;
                Ok(body.len())
            }
            #[cfg(any(not(only_scheme), only = "pattern-etm"))]
            (Pattern::Etm, Some(c)) => {
                let mut mac = self.mac().clone();
                etm_mac(&mut mac, ad, nonce, body);
                mac.verify(tag)?;
                c.decrypt(nonce, body).map_err(|_| Error::Rejected)
            }
            #[cfg(any(not(only_scheme), only = "pattern-enc"))]
            (Pattern::Enc, Some(c)) => c.decrypt(nonce, body).map_err(|_| Error::Rejected),
            #[allow(unreachable_patterns)]
            _ => Err(Error::NotBuilt),
        }
    }

    fn mac(&self) -> &MacKey {
        self.mac.as_ref().expect("the pattern has a MAC")
    }

    /// The AEAD, for callers that need it alone (none today).
    #[allow(dead_code)]
    pub(crate) fn aead(&self) -> Option<&AeadKey> {
        match &self.cipher {
            Some(CipherKey::Aead(a)) => Some(a),
            _ => None,
        }
    }
}

/// What EtM's MAC covers: `u32be(len ad) || ad || u8(len iv) || iv || ciphertext`.
/// The lengths make the split unambiguous, so no bytes can move between fields.
fn etm_mac(mac: &mut MacKey, ad: &[u8], iv: &[u8], ciphertext: &[u8]) {
    mac.update(&(ad.len() as u32).to_be_bytes());
    mac.update(ad);
    mac.update(&[iv.len() as u8]);
    mac.update(iv);
    mac.update(ciphertext);
}

fn derive<'k>(master: &[u8], info: &[u8], out: &'k mut [u8]) -> Result<&'k [u8], Error> {
    if master.len() != ETM_MASTER_KEY {
        return Err(Error::KeyLength);
    }
    Hkdf::<Sha256>::new(None, master)
        .expand(info, out)
        .map_err(|_| Error::KeyLength)?;
    Ok(out)
}

#[cfg(only_scheme)]
include!(concat!(env!("OUT_DIR"), "/only_scheme.rs"));

/// The binary container's 4-byte scheme id: SHA-256(name)[0..4]. A
/// one-scheme build has it from its build script.
#[cfg(only_scheme)]
fn scheme_id(name: &str) -> Result<[u8; 4], Error> {
    if name == ONLY_NAME {
        Ok(ONLY_ID)
    } else {
        Err(Error::NotBuilt)
    }
}

#[cfg(not(only_scheme))]
fn scheme_id(name: &str) -> Result<[u8; 4], Error> {
    use sha2::Digest;
    let d = Sha256::digest(name.as_bytes());
    Ok([d[0], d[1], d[2], d[3]])
}
