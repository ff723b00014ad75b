//! AEADs through `EVP_CIPHER_CTX`: AES-GCM, AES-CCM, AES-OCB and
//! ChaCha20-Poly1305, with 16-byte tags, and COSE's AES-CCM with 8-byte tags.
//! The key is set once; each message
//! sets the nonce (and, for CCM, the message length). OpenSSL checks the tag,
//! in constant time.
//!
//! OpenSSL fixes CCM's nonce length when the key is set, so a CCM key is set
//! up for 12-byte nonces (like the other AEADs) at key setup, and for any
//! other nonce length on its first use with that length.

use std::sync::Arc;

use openssl::cipher_ctx::{CipherCtx, CipherCtxRef};
use openssl::error::ErrorStack;
use zeroize::Zeroizing;

use super::{Provenance, failure, fetch_cipher, implementation};
use crate::entry::{CipherCtor, Ops};
use crate::error::Error;
use crate::ops::{Cipher, Direction, Params};
use crate::registry::Builder;

const TAG: usize = 16;
/// The longest tag of any flavour.
const MAX_TAG: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    /// One nonce length (12 bytes), 16-byte tag.
    Fixed,
    /// CCM: nonces of `first..=last` bytes, a `tag`-byte tag, message length
    /// announced first, tag checked during the update.
    Ccm {
        first: usize,
        last: usize,
        tag: usize,
    },
}

/// AES-CCM with any nonce of 7 to 13 bytes and a 16-byte tag.
const CCM: Flavour = Flavour::Ccm {
    first: 7,
    last: 13,
    tag: TAG,
};
/// COSE's AES-CCM-16-64-*: a 13-byte nonce and an 8-byte tag.
const CCM_16_64: Flavour = Flavour::Ccm {
    first: 13,
    last: 13,
    tag: 8,
};

impl Flavour {
    fn tag(self) -> usize {
        match self {
            Flavour::Fixed => TAG,
            Flavour::Ccm { tag, .. } => tag,
        }
    }

    fn is_ccm(self) -> bool {
        matches!(self, Flavour::Ccm { .. })
    }

    /// The nonce lengths, the slot of each, and the one keyed at setup.
    fn nonces(self) -> (usize, usize) {
        match self {
            Flavour::Fixed => (DEFAULT_NONCE, DEFAULT_NONCE),
            Flavour::Ccm { first, last, .. } => (first, last),
        }
    }

    fn default_nonce(self) -> usize {
        let (first, last) = self.nonces();
        DEFAULT_NONCE.clamp(first, last)
    }
}

pub(super) fn register(b: &mut Builder) {
    for (id, name, flavour) in [
        ("aes-128-gcm", "AES-128-GCM", Flavour::Fixed),
        ("aes-256-gcm", "AES-256-GCM", Flavour::Fixed),
        ("aes-128-ccm", "AES-128-CCM", CCM),
        ("aes-256-ccm", "AES-256-CCM", CCM),
        ("aes-ccm-16-64-128", "AES-128-CCM", CCM_16_64),
        ("aes-ccm-16-64-256", "AES-256-CCM", CCM_16_64),
        ("aes-128-ocb", "AES-128-OCB", Flavour::Fixed),
        ("aes-256-ocb", "AES-256-OCB", Flavour::Fixed),
        ("chacha20-poly1305", "ChaCha20-Poly1305", Flavour::Fixed),
    ] {
        if let Some(cipher) = fetch_cipher(name, Provenance::Default) {
            b.add_impl(id, implementation(Ops::Cipher(ctor(id, cipher, flavour))));
        }
    }
}

fn init(
    ctx: &mut CipherCtxRef,
    dir: Direction,
    cipher: Option<&openssl::cipher::CipherRef>,
    key: Option<&[u8]>,
    iv: Option<&[u8]>,
) -> Result<(), ErrorStack> {
    match dir {
        Direction::Encrypt => ctx.encrypt_init(cipher, key, iv),
        Direction::Decrypt => ctx.decrypt_init(cipher, key, iv),
    }
}

/// One direction's context, keyed for nonces of `nonce_len` bytes.
fn keyed(
    cipher: &openssl::cipher::CipherRef,
    key: &[u8],
    flavour: Flavour,
    nonce_len: usize,
    dir: Direction,
) -> Result<CipherCtx, ErrorStack> {
    let mut ctx = CipherCtx::new()?;
    init(&mut ctx, dir, Some(cipher), None, None)?;
    ctx.set_iv_length(nonce_len)?;
    if flavour.is_ccm() {
        // CCM's tag length, like its nonce length, is fixed with the key (default 12).
        ctx.set_tag_length(flavour.tag())?;
    }
    init(&mut ctx, dir, None, Some(key), None)?;
    Ok(ctx)
}

/// Encrypting and decrypting contexts for one nonce length.
struct Pair {
    enc: CipherCtx,
    dec: CipherCtx,
}

impl Pair {
    fn new(
        cipher: &openssl::cipher::CipherRef,
        key: &[u8],
        flavour: Flavour,
        nonce_len: usize,
        id: &str,
    ) -> Result<Pair, Error> {
        let setup = |dir| keyed(cipher, key, flavour, nonce_len, dir).map_err(|e| failure(id, e));
        Ok(Pair {
            enc: setup(Direction::Encrypt)?,
            dec: setup(Direction::Decrypt)?,
        })
    }
}

const DEFAULT_NONCE: usize = 12;

fn ctor(id: &'static str, cipher: Arc<openssl::cipher::Cipher>, flavour: Flavour) -> CipherCtor {
    Arc::new(move |key: &[u8]| {
        if key.len() != cipher.key_length() {
            return Err(Error::KeyLength {
                algorithm: id.into(),
                valid: cipher.key_length().to_string(),
                got: key.len(),
            });
        }
        let (first, last) = flavour.nonces();
        let mut pairs: Vec<Option<Pair>> = (first..=last).map(|_| None).collect();
        let default = flavour.default_nonce();
        pairs[slot(flavour, default)] = Some(Pair::new(&cipher, key, flavour, default, id)?);
        let rekey = (first < last).then(|| (cipher.clone(), Zeroizing::new(key.to_vec())));
        Ok(Box::new(OsslAead {
            pairs,
            rekey,
            flavour,
            id,
        }) as Box<dyn Cipher>)
    })
}

fn slot(flavour: Flavour, nonce_len: usize) -> usize {
    nonce_len - flavour.nonces().0
}

struct OsslAead {
    /// Keyed contexts by nonce length (one slot unless CCM takes several).
    pairs: Vec<Option<Pair>>,
    /// Several nonce lengths only: what it takes to key another one.
    rekey: Option<(Arc<openssl::cipher::Cipher>, Zeroizing<Vec<u8>>)>,
    flavour: Flavour,
    id: &'static str,
}

impl OsslAead {
    /// The contexts for this nonce, after checking its length.
    fn pair(&mut self, iv: &[u8]) -> Result<&mut Pair, Error> {
        let (first, last) = self.flavour.nonces();
        if !(first..=last).contains(&iv.len()) {
            return Err(Error::IvLength {
                algorithm: self.id.into(),
                valid: if first == last {
                    first.to_string()
                } else {
                    format!("{first} to {last}")
                },
                got: iv.len(),
            });
        }
        let slot = slot(self.flavour, iv.len());
        if self.pairs[slot].is_none()
            && let Some((cipher, key)) = &self.rekey
        {
            self.pairs[slot] = Some(Pair::new(cipher, key, self.flavour, iv.len(), self.id)?);
        }
        Ok(self.pairs[slot]
            .as_mut()
            .expect("every slot is keyed before use"))
    }

    /// Sets the nonce (and for CCM the tag, lengths) and feeds the associated data.
    fn start(
        ctx: &mut CipherCtxRef,
        flavour: Flavour,
        dir: Direction,
        p: &Params<'_>,
        len: usize,
        tag: Option<&[u8]>,
    ) -> Result<(), ErrorStack> {
        init(ctx, dir, None, None, Some(p.iv))?;
        if let Some(tag) = tag {
            ctx.set_tag(tag)?;
        }
        if flavour.is_ccm() {
            ctx.set_data_len(len)?;
        }
        if !p.aad.is_empty() {
            ctx.cipher_update(p.aad, None)?;
        }
        Ok(())
    }

    /// Update then final into `out[start..]`, which has room for a block more
    /// than the input (OCB holds back a partial block until the final call).
    fn run(
        ctx: &mut CipherCtxRef,
        input: &[u8],
        out: &mut Vec<u8>,
        start: usize,
    ) -> Result<(), ErrorStack> {
        out.resize(start + input.len() + MAX_TAG, 0);
        let n = ctx.cipher_update(input, Some(&mut out[start..]))?;
        let m = ctx.cipher_final(&mut out[start + n..])?;
        out.truncate(start + n + m);
        Ok(())
    }
}

impl Cipher for OsslAead {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (flavour, id) = (self.flavour, self.id);
        let ctx = &mut self.pair(params.iv)?.enc;
        let start = out.len();
        let sealed = Self::start(ctx, flavour, Direction::Encrypt, params, input.len(), None)
            .and_then(|()| Self::run(ctx, input, out, start))
            .and_then(|()| {
                let mut tag = [0u8; MAX_TAG];
                let tag = &mut tag[..flavour.tag()];
                ctx.tag(tag)?;
                out.extend_from_slice(tag);
                Ok(())
            });
        sealed.map_err(|e| {
            out.truncate(start);
            failure(id, e)
        })
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (flavour, id) = (self.flavour, self.id);
        let tag_len = flavour.tag();
        if input.len() < tag_len {
            return Err(Error::InvalidInput {
                algorithm: id.into(),
                what: format!(
                    "input of {} bytes is shorter than the {tag_len}-byte tag",
                    input.len()
                ),
            });
        }
        let (ciphertext, tag) = input.split_at(input.len() - tag_len);
        let ctx = &mut self.pair(params.iv)?.dec;
        let start = out.len();
        let opened = Self::start(
            ctx,
            flavour,
            Direction::Decrypt,
            params,
            ciphertext.len(),
            Some(tag),
        )
        .and_then(|()| Self::run(ctx, ciphertext, out, start));
        opened.map_err(|_| {
            // Release nothing of an unauthenticated message.
            zeroize::Zeroize::zeroize(&mut out[start..]);
            out.truncate(start);
            Error::AuthenticationFailed {
                algorithm: id.into(),
            }
        })
    }
}
