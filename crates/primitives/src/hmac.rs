//! HMAC (RFC 2104) over any hash with a block size, for hashes without a
//! block-level core (our SHA-3, Mbed TLS's SHA-2 in crates/clib, BLAKE2 and
//! Ascon-Hash in the sealing core). It computes what RustCrypto's
//! `hmac::SimpleHmac` computes, with the same compressions: the hash keyed
//! with K ⊕ ipad is kept and forked per message, and K ⊕ opad is kept and
//! hashed before the inner digest at the end. Unlike `SimpleHmac`, the value
//! wipes K ⊕ opad when dropped (`SimpleHmac` keeps it with no wipe), and the
//! kept hash state is wiped by the hash's own `Drop` when it has one (the
//! type is [`ZeroizeOnDrop`] exactly when the hash is).

use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use digest::common::{Block, BlockSizeUser, InvalidLength, Key, KeySizeUser};
use digest::{Digest, FixedOutput, KeyInit, MacMarker, Output, OutputSizeUser, Update};

const IPAD: u8 = 0x36;
const OPAD: u8 = 0x5c;

/// HMAC over the hash `D`; a clone starts a new message from the key's state.
#[derive(Clone)]
pub struct Hmac<D: Digest + BlockSizeUser> {
    /// The hash after K ⊕ ipad: the key's equivalent, a secret.
    inner: D,
    /// K ⊕ opad.
    opad: Pad<D>,
}

/// K ⊕ opad, wiped on drop (its own type, so that `Hmac` itself has no
/// `Drop` and finishing moves the hash state out without a copy).
#[derive(Clone)]
struct Pad<D: BlockSizeUser>(Block<D>);

impl<D: BlockSizeUser> Drop for Pad<D> {
    fn drop(&mut self) {
        self.0.as_mut_slice().zeroize();
    }
}

impl<D: Digest + BlockSizeUser> KeySizeUser for Hmac<D> {
    type KeySize = D::BlockSize;
}

impl<D: Digest + BlockSizeUser> KeyInit for Hmac<D> {
    fn new(key: &Key<Self>) -> Self {
        Self::new_from_slice(key).expect("HMAC takes a key of any length")
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, InvalidLength> {
        // K padded with zeros to a block, or its hash if longer than a block.
        let mut pad = Block::<D>::default();
        if key.len() <= pad.len() {
            pad[..key.len()].copy_from_slice(key);
        } else {
            let mut hashed = D::digest(key);
            let n = hashed.len().min(pad.len());
            pad[..n].copy_from_slice(&hashed[..n]);
            hashed.as_mut_slice().zeroize();
        }
        for b in pad.iter_mut() {
            *b ^= IPAD;
        }
        let mut inner = D::new();
        Digest::update(&mut inner, &pad);
        for b in pad.iter_mut() {
            *b ^= IPAD ^ OPAD;
        }
        Ok(Hmac {
            inner,
            opad: Pad(pad),
        })
    }
}

impl<D: Digest + BlockSizeUser> MacMarker for Hmac<D> {}

impl<D: Digest + BlockSizeUser> OutputSizeUser for Hmac<D> {
    type OutputSize = <D as OutputSizeUser>::OutputSize;
}

impl<D: Digest + BlockSizeUser> Update for Hmac<D> {
    fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.inner, data);
    }
}

impl<D: Digest + BlockSizeUser> FixedOutput for Hmac<D> {
    fn finalize_into(self, out: &mut Output<Self>) {
        let Hmac { inner, opad } = self;
        let inner = Digest::finalize(inner);
        let mut outer = D::new();
        Digest::update(&mut outer, &opad.0);
        Digest::update(&mut outer, &inner);
        Digest::finalize_into(outer, out);
        // `opad` drops here, wiped.
    }
}

impl<D: Digest + BlockSizeUser + ZeroizeOnDrop> ZeroizeOnDrop for Hmac<D> {}

impl<D: Digest + BlockSizeUser> core::fmt::Debug for Hmac<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Hmac { .. }")
    }
}
