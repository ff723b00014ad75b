//! The three patterns as operations on (nonce, associated data, plaintext).
//! Containers decide what the associated data is and where the pieces go.

use catalogue::{Cipher, Mac, Padding, Params};
use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::error::SealError;
use crate::keyfile::SealKey;
use crate::scheme::{Pattern, Scheme, cipher_key_len, mac_key_len};

/// HKDF-SHA256 `info` strings for EtM's two keys (salt: none; input: the 32-byte master key).
pub const ETM_ENC_INFO: &[u8] = b"ciphermeter etm v1 encryption key";
pub const ETM_MAC_INFO: &[u8] = b"ciphermeter etm v1 mac key";

/// A key with its key schedules done, ready to seal and open many messages.
pub struct Sealer {
    pub scheme: Scheme,
    pub key_id: Vec<u8>,
    cipher: Option<Box<dyn Cipher>>,
    mac: Option<Box<dyn Mac>>,
}

impl Sealer {
    /// Runs the key schedules. Insecure schemes are refused unless `allow_insecure`
    /// (benchmarks measure them; `seal` refuses them by default).
    pub fn new(key: &SealKey, allow_insecure: bool) -> Result<Sealer, SealError> {
        let scheme = key.scheme.clone();
        scheme.check_allowed_for(key.nonce, allow_insecure)?;
        let material = key.material();
        let (cipher, mac) = match scheme.pattern {
            Pattern::Hmac => (
                None,
                Some(scheme.mac.expect("hmac has a MAC").mac(None, material)?),
            ),
            Pattern::Aead | Pattern::Enc => (
                Some(
                    scheme
                        .cipher
                        .expect("has a cipher")
                        .cipher(None, material)?,
                ),
                None,
            ),
            Pattern::Etm => {
                let c = scheme.cipher.expect("etm has a cipher");
                let m = scheme.mac.expect("etm has a MAC");
                let enc_key = derive(material, ETM_ENC_INFO, cipher_key_len(c))?;
                let mac_key = derive(material, ETM_MAC_INFO, mac_key_len(m))?;
                (
                    Some(c.cipher(None, &enc_key)?),
                    Some(m.mac(None, &mac_key)?),
                )
            }
        };
        Ok(Sealer {
            scheme,
            key_id: key.key_id.clone(),
            cipher,
            mac,
        })
    }

    /// Seals `plaintext` under `nonce`, authenticating `ad` too. Returns the
    /// body (ciphertext, or the plaintext itself for `hmac`) and the tag.
    pub fn protect(
        &mut self,
        nonce: &[u8],
        ad: &[u8],
        plaintext: &[u8],
    ) -> Result<(Vec<u8>, Vec<u8>), SealError> {
        let tag_len = self.scheme.tag_len();
        match self.scheme.pattern {
            Pattern::Hmac => {
                let mut data = Vec::with_capacity(ad.len() + plaintext.len());
                data.extend_from_slice(ad);
                data.extend_from_slice(plaintext);
                let mut tag = Vec::with_capacity(tag_len);
                self.mac().compute(&data, &mut tag)?;
                Ok((plaintext.to_vec(), tag))
            }
            Pattern::Aead => {
                let mut out = Vec::with_capacity(plaintext.len() + tag_len);
                let params = Params {
                    iv: nonce,
                    aad: ad,
                    padding: Padding::None,
                };
                self.cipher().encrypt(&params, plaintext, &mut out)?;
                let tag = out.split_off(out.len() - tag_len);
                Ok((out, tag))
            }
            Pattern::Etm => {
                let mut body = Vec::with_capacity(plaintext.len() + 16);
                self.cipher()
                    .encrypt(&etm_params(nonce), plaintext, &mut body)?;
                let mut tag = Vec::with_capacity(tag_len);
                self.mac()
                    .compute(&etm_mac_input(ad, nonce, &body), &mut tag)?;
                Ok((body, tag))
            }
            Pattern::Enc => {
                let mut body = Vec::with_capacity(plaintext.len() + 16);
                self.cipher()
                    .encrypt(&etm_params(nonce), plaintext, &mut body)?;
                Ok((body, Vec::new()))
            }
        }
    }

    /// The inverse of `protect`: checks the tag in constant time (through the
    /// catalogue's `Mac::verify` or the AEAD) before anything is decrypted or returned.
    pub fn unprotect(
        &mut self,
        nonce: &[u8],
        ad: &[u8],
        body: &[u8],
        tag: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, SealError> {
        if tag.len() != self.scheme.tag_len() || nonce.len() != self.scheme.nonce_len() {
            return Err(SealError::Rejected);
        }
        match self.scheme.pattern {
            Pattern::Hmac => {
                let mut data = Vec::with_capacity(ad.len() + body.len());
                data.extend_from_slice(ad);
                data.extend_from_slice(body);
                self.mac()
                    .verify(&data, tag)
                    .map_err(|_| SealError::Rejected)?;
                Ok(Zeroizing::new(body.to_vec()))
            }
            Pattern::Aead => {
                let mut input = Vec::with_capacity(body.len() + tag.len());
                input.extend_from_slice(body);
                input.extend_from_slice(tag);
                let mut out = Zeroizing::new(Vec::with_capacity(body.len()));
                let params = Params {
                    iv: nonce,
                    aad: ad,
                    padding: Padding::None,
                };
                self.cipher()
                    .decrypt(&params, &input, &mut out)
                    .map_err(|_| SealError::Rejected)?;
                Ok(out)
            }
            Pattern::Etm => {
                self.mac()
                    .verify(&etm_mac_input(ad, nonce, body), tag)
                    .map_err(|_| SealError::Rejected)?;
                let mut out = Zeroizing::new(Vec::with_capacity(body.len()));
                self.cipher()
                    .decrypt(&etm_params(nonce), body, &mut out)
                    .map_err(|_| SealError::Rejected)?;
                Ok(out)
            }
            Pattern::Enc => {
                let mut out = Zeroizing::new(Vec::with_capacity(body.len()));
                self.cipher()
                    .decrypt(&etm_params(nonce), body, &mut out)
                    .map_err(|_| SealError::Rejected)?;
                Ok(out)
            }
        }
    }

    fn cipher(&mut self) -> &mut dyn Cipher {
        self.cipher.as_deref_mut().expect("pattern has a cipher")
    }

    fn mac(&mut self) -> &mut dyn Mac {
        self.mac.as_deref_mut().expect("pattern has a MAC")
    }
}

fn etm_params(iv: &[u8]) -> Params<'_> {
    // PKCS#7 for ECB and CBC; ignored by the modes that need no padding.
    Params {
        iv,
        aad: &[],
        padding: Padding::Pkcs7,
    }
}

/// What EtM's MAC covers: `u32be(len ad) || ad || u8(len iv) || iv || ciphertext`.
/// The lengths make the split unambiguous, so no bytes can move between fields.
pub fn etm_mac_input(ad: &[u8], iv: &[u8], ciphertext: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(5 + ad.len() + iv.len() + ciphertext.len());
    data.extend_from_slice(&(ad.len() as u32).to_be_bytes());
    data.extend_from_slice(ad);
    data.push(iv.len() as u8);
    data.extend_from_slice(iv);
    data.extend_from_slice(ciphertext);
    data
}

fn derive(master: &[u8], info: &[u8], len: usize) -> Result<Zeroizing<Vec<u8>>, SealError> {
    let mut okm = Zeroizing::new(vec![0u8; len]);
    Hkdf::<Sha256>::new(None, master)
        .expand(info, &mut okm)
        .map_err(|_| SealError::InvalidScheme {
            scheme: "etm".into(),
            why: format!("cannot derive a {len}-byte key"),
        })?;
    Ok(okm)
}
